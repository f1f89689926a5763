Feature: The Job controller, as v1.35 decides
  pkg/controller/job/job_controller.go (syncJob, manageJob), backoff_utils.go
  (newBackoffRecord, getRemainingTimeForFailuresCount) and pod_failure_policy.go
  (matchPodFailurePolicy). A failed pod is replaced after 10s doubled per
  failure since the last success, at most 10 minutes: MaxJobPodFailureBackOff
  is 10 minutes in v1.35's code (older documents say 6). Pods are named
  NAME-1, NAME-2, … (Indexed: NAME-INDEX-ATTEMPT).

  Scenario: CTL-JOB-1 a failed pod is replaced after the pod failure backoff: 10s, then 20s
    # getRemainingTimeForFailuresCount; TestGetRemainingBackoffTime
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-backoff-2.yaml"
      at 5s fail pod pi-1 exit-code=1
      at 14s expect pods pi-* running count=0
      at 15s expect pod pi-2 running
      at 20s fail pod pi-2 exit-code=1
      at 39s expect pods pi-* running count=0
      at 40s expect pod pi-3 running
      expect job pi active=1 failed=2
      run until 2m
      """
    Then the expectations hold

  Scenario: CTL-JOB-2 more failures than backoffLimit fail the Job with BackoffLimitExceeded
    # syncJob: exceedsBackoffLimit (failed > backoffLimit); FailureTarget then Failed (v1.35)
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-backoff-2.yaml"
      at 5s fail pod pi-1
      at 20s fail pod pi-2
      at 50s fail pod pi-3
      expect job pi failed reason=BackoffLimitExceeded
      expect job pi condition FailureTarget reason=BackoffLimitExceeded
      expect job pi failed=3 active=0
      expect pods pi-* failed count=3
      run until 5m
      """
    Then the expectations hold

  Scenario: CTL-JOB-3 backoffLimit 0: the first failure fails the Job
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-backoff-0.yaml"
      at 5s fail pod pi-1 exit-code=2
      at 5s expect job pi failed reason=BackoffLimitExceeded
      run until 1m
      """
    Then the expectations hold

  Scenario: CTL-JOB-4 parallelism and completions: up to min(parallelism, completions - succeeded) pods, then Complete
    # manageJob wantActive; syncJob complete: SuccessCriteriaMet then Complete, reason CompletionsReached
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-completions-3.yaml"
      at 0s expect pods pi-* running count=2
      at 10s complete pod pi-1
      at 10s expect pod pi-3 running
      at 20s complete pod pi-2
      at 20s expect pods pi-* running count=1
      at 30s complete pod pi-3
      expect job pi complete reason=CompletionsReached
      expect job pi condition SuccessCriteriaMet reason=CompletionsReached
      expect job pi succeeded=3 active=0
      """
    Then the expectations hold

  Scenario: CTL-JOB-5 without completions, no pod is added once one succeeded, and the Job completes when none is active
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-no-completions.yaml"
      at 10s complete pod pi-1
      at 15s expect pods pi-* running count=1
      at 20s complete pod pi-2
      expect job pi complete
      expect job pi succeeded=2
      """
    Then the expectations hold

  Scenario: CTL-JOB-6 activeDeadlineSeconds fails the Job with DeadlineExceeded and deletes its pods
    # syncJob: pastActiveDeadline; the Failed condition once no pod terminates
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-deadline.yaml"
      at 30s expect job pi condition FailureTarget reason=DeadlineExceeded
      at 30s expect pods pi-* terminating count=2
      at 60s expect job pi failed reason=DeadlineExceeded
      run until 2m
      """
    Then the expectations hold

  Scenario: CTL-JOB-7 a FailJob rule on an exit code fails the Job at once with reason PodFailurePolicy
    # matchPodFailurePolicy: onExitCodes In [42], containerName main
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-policy.yaml"
      at 5s fail pod pi-1 exit-code=42
      expect job pi failed reason=PodFailurePolicy
      expect job pi condition FailureTarget reason=PodFailurePolicy
      run until 1m
      """
    Then the expectations hold

  Scenario: CTL-JOB-8 an Ignore rule on DisruptionTarget: an evicted pod is replaced without counting as a failure
    # matchOnPodConditions; podReplacementPolicy Failed: the replacement waits for the pod to fail
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-policy.yaml"
      at 5s evict pod pi-1
      at 20s expect pods pi-* running count=0
      expect job pi failed=0 active=1
      expect pod pi-2 running
      run until 2m
      """
    Then the expectations hold

  Scenario: CTL-JOB-9 an unmatched exit code counts toward backoffLimit; a matched Ignore does not
    # matchPodFailurePolicy: no rule matching counts the failure
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-policy-count.yaml"
      at 5s fail pod pi-1 exit-code=3
      at 30s fail pod pi-2 exit-code=1
      at 30s expect job pi failed=1
      at 2m fail pod pi-3 exit-code=1
      expect job pi failed reason=BackoffLimitExceeded
      run until 5m
      """
    Then the expectations hold

  Scenario: CTL-JOB-10 Indexed: one pod per index, a failed index retried under its index, Complete when every index succeeded
    # manageJob: firstPendingIndexes; batch.kubernetes.io/job-completion-index
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-indexed.yaml"
      at 0s expect pod pi-0-1 running
      at 0s expect pod pi-2-1 running
      at 5s fail pod pi-1-1
      at 15s expect pod pi-1-2 running
      at 20s complete pod pi-0-1
      at 20s complete pod pi-1-2
      at 20s complete pod pi-2-1
      expect job pi complete reason=CompletionsReached
      expect job pi succeeded=3 failed=1
      """
    Then the expectations hold

  Scenario: CTL-JOB-11 backoffLimitPerIndex 0: a failed index is not retried, and the Job fails with FailedIndexes once every index finished
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-per-index.yaml"
      at 5s fail pod pi-0-1
      at 30s expect pods pi-0-* running count=0
      at 40s complete pod pi-1-1
      expect job pi failed reason=FailedIndexes
      run until 2m
      """
    Then the expectations hold

  Scenario: CTL-JOB-12 a pod on a deleted node is collected, counts as failed and is replaced after the backoff
    # podgc gcOrphaned marks it Failed with DisruptionTarget and force-deletes it
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      include "job-backoff-2.yaml"
      at 5s delete node n1
      at 14s expect pods pi-* running count=0
      at 15s expect pod pi-2 running on n2
      expect job pi failed=1 active=1
      run until 1m
      """
    Then the expectations hold

  Scenario: CTL-JOB-13 a negative backoffLimit is refused with its field path
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "job-bad-backoff.yaml"
      """
    Then the scenario is refused with "spec.backoffLimit: -1 is below the minimum 0"

  Scenario: CTL-JOB-13 Indexed without completions is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "job-bad-indexed.yaml"
      """
    Then the scenario is refused with "spec.completions: required when completion mode is Indexed"

  Scenario: CTL-JOB-13 a podFailurePolicy rule with both onExitCodes and onPodConditions is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "job-bad-policy-both.yaml"
      """
    Then the scenario is refused with "specifying both OnExitCodes and OnPodConditions is not supported"

  Scenario: CTL-JOB-13 exit code 0 under In is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "job-bad-policy-zero.yaml"
      """
    Then the scenario is refused with "must not be 0 for the In operator"

  Scenario: CTL-JOB-13 a podFailurePolicy needs restartPolicy Never
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "job-bad-policy-restart.yaml"
      """
    Then the scenario is refused with "is supported when podFailurePolicy is specified"

  Scenario: CTL-JOB-13 FailIndex needs backoffLimitPerIndex
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "job-bad-failindex.yaml"
      """
    Then the scenario is refused with "requires the backoffLimitPerIndex to be set"
