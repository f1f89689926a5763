Feature: The StatefulSet controller, as v1.35 decides
  pkg/controller/statefulset/stateful_set_control.go: updateStatefulSet runs
  processReplica over the ordinal range, processCondemned over the pods
  outside it, then the update strategy (updateStatefulSetAfterInvariantEstablished,
  taken because the MaxUnavailableStatefulSet gate is beta and on by default
  in v1.35's pkg/features/kube_features.go). Pods are Running and Ready as
  soon as they are bound; a deleted pod terminates for its 30s grace period.

  Scenario: CTL-STS-1 RollingUpdate replaces from the highest ordinal, one at a time, each after the previous is Running and Ready
    # updateStatefulSetAfterInvariantEstablished: maxUnavailable defaults to 1
    # TestStatefulSetControlRollingUpdate: pods are updated in reverse ordinal order
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1.yaml"
      at 10s apply "sts-v2.yaml"
      at 20s expect pod db-2 terminating
      at 20s expect pod db-1 running
      at 20s expect statefulset db replicas=3 current=2 updated=0
      at 50s expect pod db-1 terminating
      at 50s expect pod db-0 running
      at 50s expect statefulset db current=1 updated=1
      at 80s expect pod db-0 terminating
      expect statefulset db replicas=3 ready=3 available=3 current=3 updated=3
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-STS-2 a partition keeps the ordinals below it at the current revision, even when recreated
    # newVersionedStatefulSetPod: ordinal < start + partition gets the current revision
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1.yaml"
      at 10s apply "sts-v2-partition.yaml"
      at 20s expect pod db-2 terminating
      at 60s delete pod db-0
      expect pods db-* running count=3
      expect statefulset db replicas=3 ready=3 current=2 updated=1
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-STS-3 a partition above replicas is accepted and updates nothing
    # ValidateStatefulSetUpdateStrategy (v1.35) checks partition >= 0 only
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1.yaml"
      at 10s apply "sts-partition-above-replicas.yaml"
      expect pods db-* deleted count=0
      expect statefulset db current=3 updated=0
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-STS-4 OnDelete replaces nothing until a pod is deleted, which comes back at the update revision
    # updateStatefulSet: OnDeleteStatefulSetStrategyType short circuits
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1-ondelete.yaml"
      at 10s apply "sts-v2-ondelete.yaml"
      at 30s expect pods db-* terminating count=0
      at 30s expect statefulset db current=3 updated=0
      at 40s delete pod db-1
      expect pod db-1 running
      expect statefulset db replicas=3 ready=3 current=2 updated=1
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-STS-5 spec.ordinals.start numbers the pods from it
    # getStartOrdinal, podInOrdinalRange
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-ordinals.yaml"
      expect pod db-5 running
      expect pod db-7 running
      expect pods db-* running count=3
      expect statefulset db replicas=3 ready=3
      """
    Then the expectations hold

  Scenario: CTL-STS-6 OrderedReady creates the next ordinal only once the previous is Running and Ready
    # processReplica: monotonic returns after a create and while a pod is not Running and Ready
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-big-ordered.yaml"
      expect pod db-0 running
      expect pod db-1 pending
      expect pods db-* pending count=1
      expect statefulset db replicas=2 ready=1
      """
    Then the expectations hold

  Scenario: CTL-STS-7 Parallel creates every ordinal at once
    # runForAll: slowStartBatch when the policy allows burst
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-big-parallel.yaml"
      expect pod db-0 running
      expect pods db-* pending count=2
      expect statefulset db replicas=3 ready=1
      """
    Then the expectations hold

  Scenario: CTL-STS-8 maxUnavailable 2 replaces two pods at a time, highest ordinals first
    # v1.35: MaxUnavailableStatefulSet beta, default on; getStatefulSetMaxUnavailable
    Given the scenario:
      """
      nodes n[1..4] cpu=4 memory=8Gi
      include "sts-v1-4.yaml"
      at 10s apply "sts-v2-maxunavailable.yaml"
      at 20s expect pod db-3 terminating
      at 20s expect pod db-2 terminating
      at 20s expect pods db-* terminating count=2
      at 50s expect pod db-1 terminating
      at 50s expect pod db-0 terminating
      expect statefulset db replicas=4 ready=4 current=4 updated=4
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-STS-9 minReadySeconds: OrderedReady waits for each pod to be available
    # processReplica: !isRunningAndAvailable(minReadySeconds) && monotonic; computeReplicaStatus
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-min-ready.yaml"
      at 5s expect statefulset db replicas=1 ready=1 available=0
      at 15s expect statefulset db replicas=2 ready=2 available=1
      expect statefulset db replicas=3 ready=3 available=3
      run until 1m
      """
    Then the expectations hold

  Scenario: CTL-STS-10 OrderedReady scales down from the highest ordinal, one pod at a time
    # processCondemned: monotonic waits for a terminating condemned pod
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1.yaml"
      at 10s apply "sts-v1-1.yaml"
      at 20s expect pod db-2 terminating
      at 20s expect pod db-1 running
      at 45s expect pod db-1 terminating
      expect pods db-* running count=1
      expect statefulset db replicas=1 ready=1
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-STS-11 a Failed pod is deleted and created again under its name
    # processReplica: isFailed || isSucceeded
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1.yaml"
      at 10s fail pod db-1 exit-code=1
      at 10s expect pod db-1 running
      expect statefulset db replicas=3 ready=3
      """
    Then the expectations hold

  Scenario: CTL-STS-12 a deleted node's pod is collected and its ordinal made again elsewhere
    # podgc gcOrphaned: pods bound to a node that no longer exists are force-deleted
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "sts-v1.yaml"
      at 30s delete node n2
      at 30s expect pods db-* running count=3
      expect statefulset db replicas=3 ready=3
      """
    Then the expectations hold

  Scenario: CTL-STS-13 a negative partition is refused with its field path
    # ValidateStatefulSetUpdateStrategy: ValidateNonnegativeField
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-bad-partition.yaml"
      """
    Then the scenario is refused with "spec.updateStrategy.rollingUpdate.partition"

  Scenario: CTL-STS-13 an unknown podManagementPolicy is refused with the allowed values
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-bad-policy.yaml"
      """
    Then the scenario is refused with "'Burst' is not one of OrderedReady, Parallel"

  Scenario: CTL-STS-13 an unknown updateStrategy type is refused with the allowed values
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-bad-strategy.yaml"
      """
    Then the scenario is refused with "'Recreate' is not one of RollingUpdate, OnDelete"

  Scenario: CTL-STS-13 rollingUpdate with OnDelete is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-bad-ondelete-rolling.yaml"
      """
    Then the scenario is refused with "only allowed for updateStrategy 'RollingUpdate'"

  Scenario: CTL-STS-13 maxUnavailable 0 is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "sts-bad-maxunavailable.yaml"
      """
    Then the scenario is refused with "must be greater than 0"
