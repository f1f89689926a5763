# The scheduler's node order is its cache's node tree (v1.35
# pkg/scheduler/backend/cache/node_tree.go): zones keyed by the region and zone
# labels (beta labels as fallback) in the order their first node was declared,
# listed round-robin, declaration order within a zone; nodes without zone
# labels are one zone.  Sampling, the rotating start index, the preemption dry
# run and kruleset's tie-breaks ("the first node in the scheduler's node order")
# follow it.  Every outcome here is kube-scheduler v1.35.4's (checked with
# ../shared/oracle/bin/kr-oracle, which breaks ties the same way).
Feature: The scheduler's node order (node tree, v1.35)

  Scenario: a score tie goes to the first node in the node order, not the first declared
    Given the scenario:
      """
      node a1 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=a) taints(x:NoSchedule)
      node a2 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=a)
      node b1 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=b)
      pod p requests(cpu=1)
      expect pod p running on b1
      """
    Then the expectations hold

  Scenario: a preemption tie goes to the first node in the node order
    Given the scenario:
      """
      node a1 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=a) taints(x:NoSchedule)
      node a2 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=a)
      node b1 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=b)
      pod v1 on a1 priority=10 requests(cpu=2) tolerations(*)
      pod v2 on a2 priority=10 requests(cpu=2)
      pod v3 on b1 priority=10 requests(cpu=2)
      at 1s create pod p priority=1000 requests(cpu=2)
      at 1s expect pod p nominated b1
      expect pod v2 running on a2
      """
    Then the expectations hold

  Scenario: nodes without zone labels are one zone; region alone and beta labels make zones
    Given the scenario:
      """
      node u1 cpu=2 memory=8Gi
      node a1 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=a)
      node u2 cpu=2 memory=8Gi
      node a2 cpu=2 memory=8Gi labels(topology.kubernetes.io/zone=a)
      node r1 cpu=2 memory=8Gi labels(topology.kubernetes.io/region=r)
      node b1 cpu=2 memory=8Gi labels(failure-domain.beta.kubernetes.io/zone=b)
      pods p-[0..5] requests(cpu=2)
      expect pod p-0 running on u1
      expect pod p-1 running on a1
      expect pod p-2 running on r1
      expect pod p-3 running on b1
      expect pod p-4 running on u2
      expect pod p-5 running on a2
      """
    Then the expectations hold

  # 1,200 nodes: percentageOfNodesToScore's adaptive 41% samples 492 nodes per
  # cycle from the rotating start index, in node-tree order; declared zone by
  # zone, the pods still reach all three zones (43, 9 and 8 of 60 upstream).
  Scenario: sampling and the start index follow the node tree on a large cluster
    Given the scenario:
      """
      nodes a-[1..400] cpu=8 memory=8Gi labels(topology.kubernetes.io/zone=a)
      nodes b-[1..400] cpu=8 memory=8Gi labels(topology.kubernetes.io/zone=b)
      nodes c-[1..400] cpu=8 memory=8Gi labels(topology.kubernetes.io/zone=c)
      pods p-[1..60] requests(cpu=1)
      expect pod p-1 running on a-1
      expect pod p-2 running on a-165
      expect pod p-3 running on b-1
      expect pod p-5 running on c-1
      expect pod p-10 running on b-2
      expect pod p-12 running on a-205
      """
    Then the expectations hold
