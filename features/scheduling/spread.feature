# Seed 003 §5: pod topology spread constraints, with the document's clusters:
# zoneA = node1, node2 and zoneB = node3, node4, one foo=bar pod on node1-node3.
Feature: Pod topology spread constraints (seed 003 §5)

  # B-003-05-01
  # B-003-05-04
  # B-003-05-06
  # B-003-05-11
  # B-003-05-13
  Scenario: B-003-05-13 one constraint puts mypod in zone B, since zone A would give [3, 1]
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA, node=node1)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA, node=node2)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB, node=node3)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB, node=node4)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) {
        spread max-skew=1 topology=zone when-unsatisfiable=DoNotSchedule selector(foo=bar)
      }
      expect pod mypod running on node4
      """
    Then the expectations hold

  # B-003-05-05
  # B-003-05-14
  Scenario: B-003-05-14 DoNotSchedule keeps the pod Pending when the constraint cannot be met
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB)
      node node9 cpu=4 memory=8Gi
      pod p1 on node1 labels(foo=bar)
      pod p2 on node1 labels(foo=bar)
      pod mypod labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
      }
      pod stuck labels(foo=bar) node-selector(zone=zoneA) {
        spread max-skew=1 topology=zone selector(foo=bar) node-affinity-policy=Ignore
      }
      expect pod mypod running on node3
      expect pod stuck pending reason="0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s) didn't match Pod's node affinity/selector."
      """
    Then the expectations hold

  # B-003-05-15
  Scenario: B-003-05-15 with maxSkew 2 mypod may also go to zone A
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA, node=node1)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA, node=node2)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB, node=node3)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB, node=node4)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) node-selector(zone=zoneA) {
        spread max-skew=2 topology=zone selector(foo=bar)
      }
      expect pod mypod running on node1
      """
    Then the expectations hold

  # B-003-05-16
  Scenario: B-003-05-16 topologyKey node with maxSkew 1 allows only node4
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA, node=node1)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA, node=node2)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB, node=node3)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB, node=node4)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) {
        spread max-skew=1 topology=node selector(foo=bar)
      }
      expect pod mypod running on node4
      """
    Then the expectations hold

  # B-003-05-02
  # B-003-05-17
  Scenario: B-003-05-17 ScheduleAnyway always schedules, preferring the domain with fewer matching pods
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA, node=node1)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA, node=node2)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB, node=node3)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB, node=node4)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod p4 on node4 labels(foo=bar)
      pod p5 on node4 labels(foo=bar)
      pod onlya labels(foo=bar) node-selector(zone=zoneA) {
        spread max-skew=1 topology=zone when-unsatisfiable=ScheduleAnyway selector(foo=bar)
      }
      pod mypod labels(other=x) {
        spread max-skew=1 topology=node when-unsatisfiable=ScheduleAnyway selector(foo=bar)
      }
      # onlya joins node1 (zone A is all it may use); mypod then prefers the nodes
      # with one foo=bar pod (node2, node3), the first declared wins the tie.
      expect pod onlya running on node1
      expect pod mypod running on node2
      """
    Then the expectations hold

  # B-003-05-10
  # B-003-05-18
  Scenario: B-003-05-18 two constraints (zone and node, maxSkew 1) allow only node4
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA, node=node1)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA, node=node2)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB, node=node3)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB, node=node4)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
        spread max-skew=1 topology=node selector(foo=bar)
      }
      expect pod mypod running on node4
      """
    Then the expectations hold

  # B-003-05-19
  Scenario: B-003-05-19 conflicting constraints leave mypod Pending; ScheduleAnyway on one resolves it
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA, node=node1)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA, node=node2)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB, node=node3)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node1 labels(foo=bar)
      pod p3 on node2 labels(foo=bar)
      pod p4 on node3 labels(foo=bar)
      pod p5 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
        spread max-skew=1 topology=node selector(foo=bar)
      }
      at 5s expect pod mypod pending reason="0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints."
      at 10s delete pod mypod grace-period=0s
      at 10s create pod relaxed labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
        spread max-skew=1 topology=node when-unsatisfiable=ScheduleAnyway selector(foo=bar)
      }
      expect pod relaxed running on node3
      """
    Then the expectations hold

  # B-003-05-08
  # B-003-05-20
  # B-003-05-21
  Scenario: B-003-05-21 nodes excluded by node affinity are skipped in the skew, so mypod goes to zone B, not zone C
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB)
      node node5 cpu=4 memory=8Gi labels(zone=zoneC)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) {
        affinity node required zone notin (zoneC)
        spread max-skew=1 topology=zone selector(foo=bar)
      }
      pod ignoring labels(app=x) {
        affinity node required zone notin (zoneC)
        spread max-skew=1 topology=zone selector(foo=bar) node-affinity-policy=Ignore
      }
      expect pod mypod running on node4
      expect pod ignoring pending reason="node(s) didn't match pod topology spread constraints"
      """
    Then the expectations hold

  # B-003-05-09
  Scenario: B-003-05-09 nodeTaintsPolicy Honor leaves out tainted nodes the pod does not tolerate
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      node n2 cpu=4 memory=8Gi labels(zone=b)
      node n3 cpu=4 memory=8Gi labels(zone=c) taints(dedicated=x:NoSchedule)
      pod w1 on n1 labels(app=w)
      pod w2 on n2 labels(app=w)
      pod ignore labels(app=w) {
        spread max-skew=1 topology=zone selector(app=w)
      }
      pod honor labels(app=w) {
        spread max-skew=1 topology=zone selector(app=w) node-taints-policy=Honor
      }
      expect pod ignore pending
      expect pod honor running on n1
      """
    Then the expectations hold

  # B-003-05-03
  Scenario: B-003-05-03 fewer eligible domains than minDomains make the global minimum 0
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      node n2 cpu=4 memory=8Gi labels(zone=b)
      pod w1 on n1 labels(app=w)
      pod w2 on n2 labels(app=w)
      pod three labels(app=w) {
        spread max-skew=1 topology=zone min-domains=3 selector(app=w)
      }
      pod two labels(app=w) {
        spread max-skew=1 topology=zone min-domains=2 selector(app=w)
      }
      expect pod three pending reason="2 node(s) didn't match pod topology spread constraints"
      expect pod two running on n1
      """
    Then the expectations hold

  # B-003-05-07
  # B-003-05-12
  Scenario: B-003-05-07 matchLabelKeys count only pods of the same revision
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      node n2 cpu=4 memory=8Gi labels(zone=b)
      pod old1 on n1 labels(app=w, pod-template-hash=v1)
      pod old2 on n1 labels(app=w, pod-template-hash=v1)
      pod new labels(app=w, pod-template-hash=v2) node-selector(zone=a) {
        spread max-skew=1 topology=zone selector(app=w) match-label-keys(pod-template-hash) node-affinity-policy=Ignore
      }
      pod plain labels(app=w, pod-template-hash=v2) node-selector(zone=a) {
        spread max-skew=1 topology=zone selector(app=w) node-affinity-policy=Ignore
      }
      expect pod new running on n1
      expect pod plain pending
      """
    Then the expectations hold

  # B-003-05-22
  Scenario: B-003-05-22 only pods in the incoming pod's namespace are matching pods
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      node n2 cpu=4 memory=8Gi labels(zone=b)
      pod other/x1 on n1 labels(app=w)
      pod other/x2 on n1 labels(app=w)
      pod mine labels(app=w) node-selector(zone=a) {
        spread max-skew=1 topology=zone selector(app=w)
      }
      expect pod mine running on n1
      """
    Then the expectations hold

  # B-003-05-23
  Scenario: B-003-05-23 pods on a node without the topology key do not count
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi
      node node2 cpu=4 memory=8Gi labels(zone=zoneA)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node1 labels(foo=bar)
      pod p3 on node2 labels(foo=bar)
      pod p4 on node3 labels(foo=bar)
      pod p5 on node3 labels(foo=bar)
      pod mypod labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
      }
      expect pod mypod running on node2
      """
    Then the expectations hold

  # B-003-05-24
  Scenario: B-003-05-24 a node with the mistyped label zone-typo gets no pods of the workload
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB)
      node node5 cpu=4 memory=8Gi labels(zone-typo=zoneC)
      deployment web replicas=4 labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
      }
      expect pods web-* running count=4
      expect pod web-1 running on node1
      expect pod web-2 running on node3
      expect pod web-3 running on node1
      expect pod web-4 running on node3
      """
    Then the expectations hold

  # B-003-05-25
  Scenario: B-003-05-25 a pod whose selector does not match its own labels leaves the imbalance
    Given the scenario:
      """
      node node1 cpu=4 memory=8Gi labels(zone=zoneA)
      node node2 cpu=4 memory=8Gi labels(zone=zoneA)
      node node3 cpu=4 memory=8Gi labels(zone=zoneB)
      node node4 cpu=4 memory=8Gi labels(zone=zoneB)
      pod p1 on node1 labels(foo=bar)
      pod p2 on node2 labels(foo=bar)
      pod p3 on node3 labels(foo=bar)
      pod mypod labels(app=other) node-selector(zone=zoneB) {
        spread max-skew=1 topology=zone selector(foo=bar)
      }
      pod next labels(foo=bar) {
        spread max-skew=1 topology=zone selector(foo=bar)
      }
      # mypod does not count itself: zone A still has 2 foo=bar pods, zone B 1,
      # so the next matching pod must go to zone B again.
      expect pod mypod running on node4
      expect pod next running on node3
      """
    Then the expectations hold

  # B-003-05-26
  # B-003-05-28
  # On resources alone both replicas would go to the roomier n1; the built-in
  # hostname constraint (maxSkew 3, ScheduleAnyway) counts web-1 on n1 and tips
  # web-2 to n2.
  Scenario: B-003-05-28 the built-in default constraints spread a deployment's pods over hostnames
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      node n2 cpu=4 memory=16Gi
      pod filler on n2 requests(cpu=2)
      deployment web replicas=2 labels(app=web) requests(cpu=100m, memory=128Mi)
      expect pod web-1 running on n1
      expect pod web-2 running on n2
      """
    Then the expectations hold

  # B-003-05-27
  # B-003-05-29
  Scenario: B-003-05-29 defaultingType List with defaultConstraints [] turns default spreading off
    Given the scenario:
      """
      config scheduler "no-default-spread.yaml"
      node n1 cpu=16 memory=64Gi
      node n2 cpu=4 memory=16Gi
      pod filler on n2 requests(cpu=2)
      deployment web replicas=2 labels(app=web) requests(cpu=100m, memory=128Mi)
      expect pod web-1 running on n1
      expect pod web-2 running on n1
      """
    Then the expectations hold

  # B-003-05-27
  Scenario: B-003-05-27 cluster-level defaultConstraints (zone, maxSkew 1, ScheduleAnyway) use the owner's selector
    Given the scenario:
      """
      config scheduler "zone-default-spread.yaml"
      node a1 cpu=16 memory=64Gi labels(topology.kubernetes.io/zone=a)
      node b1 cpu=4 memory=16Gi labels(topology.kubernetes.io/zone=b)
      pod filler on b1 requests(cpu=2)
      deployment web replicas=2 labels(app=web) requests(cpu=100m, memory=128Mi)
      expect pod web-1 running on a1
      expect pod web-2 running on b1
      """
    Then the expectations hold

  # B-003-05-30
  Scenario: B-003-05-30 required anti-affinity lets one pod into each domain; affinity gathers them
    Given the scenario:
      """
      nodes n[1..2] cpu=8 memory=16Gi
      deployment solo replicas=3 labels(app=solo) {
        anti-affinity pod required app=solo topology=kubernetes.io/hostname
      }
      expect pods solo-* running count=2
      expect pods solo-* pending count=1
      """
    Then the expectations hold

  # B-003-05-31
  # B-003-05-32
  # B-003-05-33
  Scenario: B-003-05-32 matching pods on tainted nodes count, and a domain exists only once a node has it
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      node n2 cpu=4 memory=8Gi labels(zone=b) taints(maint=x:NoSchedule)
      pod w1 on n2 labels(app=w) tolerations(maint)
      pod w2 on n2 labels(app=w) tolerations(maint)
      pod p labels(app=w) {
        spread max-skew=1 topology=zone selector(app=w)
      }
      pod q labels(app=w) node-selector(zone=c) {
        spread max-skew=1 topology=zone selector(app=w)
      }
      at 10s delete pod w1 grace-period=0s
      at 10s delete pod w2 grace-period=0s
      expect pod p running on n1
      expect pod q pending reason="didn't match Pod's node affinity/selector"
      """
    Then the expectations hold
