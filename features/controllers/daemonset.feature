Feature: The DaemonSet controller, as v1.35 decides
  pkg/controller/daemon/daemon_controller.go (manage, podsShouldBeOnNode,
  updateDaemonSetStatus) and update.go (rollingUpdate, updatedDesiredNodeCounts).
  Upstream walks the nodes in map order; kruleset walks them in the cluster's
  node order. Pods are named NAME-NODE (a surge pod NAME-NODE-2).

  Scenario: CTL-DS-1 one pod per node, and the status the controller writes
    # updateDaemonSetStatus
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      expect pod agent-n1 running on n1
      expect pods agent-* running count=3
      expect daemonset agent desired=3 current=3 ready=3 available=3 updated=3 misscheduled=0
      """
    Then the expectations hold

  Scenario: CTL-DS-2 RollingUpdate with the default maxUnavailable 1 replaces one node's pod at a time
    # rollingUpdate without surge: candidates while numUnavailable < maxUnavailable
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s apply "ds-v2.yaml"
      at 20s expect pods agent-* terminating count=1
      at 20s expect pod agent-n1 terminating
      at 50s expect pod agent-n2 terminating
      at 50s expect daemonset agent updated=1
      expect daemonset agent desired=3 current=3 ready=3 available=3 updated=3
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-DS-3 maxUnavailable 2 replaces two nodes' pods at a time
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s apply "ds-v2-unavailable-2.yaml"
      at 20s expect pods agent-* terminating count=2
      at 50s expect pod agent-n3 terminating
      expect daemonset agent updated=3 available=3
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-DS-4 a percentage maxUnavailable rounds up: 25% of 3 nodes is 1
    # updatedDesiredNodeCounts: GetScaledValueFromIntOrPercent(…, true)
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s apply "ds-v2-percent.yaml"
      at 20s expect pods agent-* terminating count=1
      expect daemonset agent updated=3
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-DS-5 maxSurge 1: the new pod starts beside the old one, which goes once the new one is available
    # rollingUpdate with surge: an old pod is deleted once its node's new pod is available
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s apply "ds-v2-surge.yaml"
      at 10s expect pod agent-n1-2 running on n1
      at 10s expect pod agent-n1 terminating
      at 20s expect pods agent-* running count=3
      expect daemonset agent desired=3 current=3 available=3 updated=3
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-DS-6 OnDelete replaces a node's pod only once it is deleted
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1-ondelete.yaml"
      at 10s apply "ds-v2-ondelete.yaml"
      at 15s expect pods agent-* terminating count=0
      at 20s delete pod agent-n2
      expect pod agent-n2 running on n2
      expect daemonset agent desired=3 updated=1
      run until 3m
      """
    Then the expectations hold

  Scenario: CTL-DS-7 a deleted node takes its daemon pod with it
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s delete node n3
      expect pods agent-* running count=2
      expect daemonset agent desired=2 current=2 available=2
      """
    Then the expectations hold

  Scenario: CTL-DS-8 a Failed daemon pod is deleted and replaced
    # podsShouldBeOnNode: a failed daemon pod is deleted
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s fail pod agent-n2
      at 10s expect pod agent-n2 running on n2
      """
    Then the expectations hold

  Scenario: CTL-DS-9 maxUnavailable and maxSurge both 0 are refused
    # ValidateRollingUpdateDaemonSet
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "ds-bad-both-zero.yaml"
      """
    Then the scenario is refused with "spec.updateStrategy.rollingUpdate.maxUnavailable: may not be 0 when maxSurge is 0"

  Scenario: CTL-DS-9 a negative maxSurge is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      include "ds-bad-negative.yaml"
      """
    Then the scenario is refused with "spec.updateStrategy.rollingUpdate.maxSurge: -1 may not be negative"

  Scenario: CTL-DS-10 a daemon pod failing again within its backoff is replaced only when the backoff ends
    # podsShouldBeOnNode: failedPodsBackoff (1s doubling up to 15m), IsInBackOffSinceUpdate
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      include "ds-v1.yaml"
      at 10s fail pod agent-n2
      at 10s expect pod agent-n2 running on n2
      at 10500ms fail pod agent-n2
      at 10500ms expect pod agent-n2 failed
      at 11s expect pod agent-n2 running on n2
      """
    Then the expectations hold
