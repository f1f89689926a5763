# v1.35's NodeAffinity PreFilter: required node affinity naming nodes
# (matchFields metadata.name In, written `metadata.name in (NODE)` in .kr)
# narrows the nodes to those named.  The others are never filtered, are counted
# as "node(s) didn't satisfy plugin(s) [NodeAffinity]", and are unresolvable for
# preemption; terms that name no common node are "pod affinity terms conflict".
# Every message is kube-scheduler v1.35.4's (checked with
# ../shared/oracle/bin/kr-oracle).
Feature: PreFilter results narrow the nodes (NodeAffinity matchFields, v1.35)

  Background:
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi
      node n3 cpu=4 memory=8Gi
      pod a on n1 requests(cpu=4)
      """

  Scenario: a node name that does not exist leaves no node to filter
    Given the scenario:
      """
      pod x requests(cpu=2) {
        affinity node required metadata.name in (zz)
      }
      expect pod x pending reason="0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
      """
    Then the expectations hold

  Scenario: two terms name two nodes; the third is never filtered
    Given the scenario:
      """
      pod y requests(cpu=5) {
        affinity node required metadata.name in (n1) | metadata.name in (n2)
      }
      expect pod y pending reason="0/3 nodes are available: 1 node(s) didn't satisfy plugin(s) [NodeAffinity], 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
      """
    Then the expectations hold

  Scenario: the nodes left out are not preemption candidates
    Given the scenario:
      """
      pod z requests(cpu=2) {
        affinity node required metadata.name in (n1)
      }
      expect pod z pending reason="0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."
      """
    Then the expectations hold

  # DynamicResources' PreFilter never ran, so its PostFilter fails with "not found"
  # and ends the PostFilter run: no preemption is tried.
  Scenario: ANDed names with nothing in common conflict
    Given the scenario:
      """
      pod w requests(cpu=2) {
        affinity node required metadata.name in (n1), metadata.name in (n2)
      }
      expect pod w pending reason="0/3 nodes are available: pod affinity terms conflict. not found"
      """
    Then the expectations hold
