Feature: Limitations of preemption (seed 003 §11.5)

  # B-003-11-19 B-002-04-03: affinity to a lower-priority pod: all lower pods are removed
  # before the fit check, so that node is never a candidate and the pod may stay pending.
  Scenario: B-003-11-19 affinity to a lower-priority pod blocks preemption on its node
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod cache on n1 priority=10 labels(app=cache) requests(cpu=1)
      pod filler on n1 priority=10 requests(cpu=1)
      at 10s create pod p priority=1000 requests(cpu=1) {
        affinity pod required app=cache topology=kubernetes.io/hostname
      }
      expect pod p pending reason="preemption: 0/1 nodes are available: 1 node(s) didn't match pod affinity rules."
      expect pod filler not preempted
      """
    Then the expectations hold

  # B-003-11-19: affinity towards equal or higher priority pods is fine
  Scenario: B-003-11-19 affinity to a pod of equal priority lets preemption proceed
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod cache on n1 priority=1000 labels(app=cache) requests(cpu=1)
      pod filler on n1 priority=10 requests(cpu=1)
      at 10s create pod p priority=1000 requests(cpu=1) {
        affinity pod required app=cache topology=kubernetes.io/hostname
      }
      expect victims of default/p = [default/filler]
      expect pod p running on n1
      """
    Then the expectations hold

  # B-003-11-20: no cross-node preemption: Q on another node of the zone blocks P by
  # anti-affinity and is not preempted. (n2 is tainted against P, so only n1 is a
  # potential node: removing Q from its own node would be ordinary preemption.)
  Scenario: B-003-11-20 a pod on another node of the zone is never preempted
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi labels(zone=z1)
      node n2 cpu=2 memory=4Gi labels(zone=z1) taints(dedicated=q:NoSchedule)
      pod q on n2 priority=10 labels(app=q) requests(cpu=1)
      pod filler on n1 priority=10 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=1) {
        anti-affinity pod required app=q topology=zone
      }
      expect pod p pending reason="preemption: 0/2 nodes are available: 1 Preemption is not helpful for scheduling, 1 node(s) didn't match pod anti-affinity rules."
      expect pod q not preempted
      expect pod filler not preempted
      """
    Then the expectations hold
