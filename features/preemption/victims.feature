Feature: Victims on a node (seed 002 §4-§5; seed 003 §11.5, §11.7)
  Only strictly lower-priority pods may be victims. All of them are removed, then
  reprieved one by one, most important first (priority, then the earlier start),
  PDB-protected pods before the others.

  # B-002-04-01 B-003-11-22 B-003-11-25: equal priority is never a victim.
  Scenario: B-002-04-01 pods of equal or higher priority are never victims
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      pod peer on n1 priority=1000 requests(cpu=1)
      pod boss on n1 priority=5000 requests(cpu=500m)
      at 10s create pod p priority=1000 requests(cpu=1)
      expect pod p pending reason="1 No preemption victims found for incoming pod"
      expect pod peer not preempted
      expect pod boss not preempted
      """
    Then the expectations hold

  # B-002-04-02 B-003-11-13: all lower pods are removed, then reprieved most important first;
  # the less important ones that do not fit back are the victims.
  Scenario: B-002-04-02 remove all lower-priority pods, then reprieve the most important first
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod mid on n1 priority=500 requests(cpu=1)
      pod low-old on n1 priority=100 requests(cpu=1) started=-2h
      pod low-new on n1 priority=100 requests(cpu=1) started=-1h
      pod lowest on n1 priority=1 requests(cpu=1)
      at 10s create pod p priority=1000 requests(cpu=2)
      expect victims of default/p = [default/low-new, default/lowest]
      expect pod mid not preempted
      expect pod low-old not preempted
      """
    Then the expectations hold

  # B-002-04-03 B-003-11-19: if removing every lower-priority pod is not enough, the node is
  # not a candidate.
  Scenario: B-002-04-03 a node where removing every lower-priority pod is not enough is skipped
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      node n2 cpu=2 memory=4Gi
      pod boss on n1 priority=5000 requests(cpu=1500m)
      pod low-1 on n1 priority=1 requests(cpu=500m)
      pod low-2 on n2 priority=100 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=1)
      expect victims of default/p = [default/low-2]
      expect pod low-1 not preempted
      """
    Then the expectations hold

  # B-002-05-01 B-002-05-02 B-002-08-04: a PDB with disruptionsAllowed 1 matching two victims
  # gives one violation; PDBs of other namespaces or other selectors never count.
  Scenario: B-002-05-02 one PDB allowing one disruption, two matching victims: one violation
    Given the scenario:
      """
      node n1 cpu=3 memory=4Gi
      node n2 cpu=3 memory=4Gi
      pod critical-app-1 on n1 priority=10 labels(app=critical-app) requests(cpu=1500m)
      pod critical-app-2 on n1 priority=10 labels(app=critical-app) requests(cpu=1500m)
      pod critical-app-3 on n2 priority=10 labels(app=critical-app) requests(cpu=1)
      pod other/other-ns on n2 priority=20 labels(app=critical-app) requests(cpu=1)
      pod unmatched on n2 priority=20 labels(app=web) requests(cpu=1)
      pdb critical-app-pdb selector(app=critical-app) min-available=2
      pdb elsewhere selector(app=api) min-available=5
      at 0s expect pdb critical-app-pdb disruptions-allowed=1
      at 10s create pod p priority=1000 requests(cpu=3)
      # 3 healthy, 2 required: disruptionsAllowed 1.
      # n1: both protected pods go, the budget covers one: 1 violation.
      # n2: critical-app-3 uses the budget; other/other-ns is in another namespace and
      # unmatched does not match: 0 violations, so n2 wins although it has more victims.
      expect victims of default/p = [default/critical-app-3, other/other-ns, default/unmatched]
      expect pod critical-app-1 not preempted
      """
    Then the expectations hold

  # B-003-11-18: PDBs are best effort: when every choice violates one, preemption happens anyway.
  Scenario: B-003-11-18 preemption deletes a PDB-protected pod when nothing else helps
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi
      deployment db replicas=1 labels(app=db) priority=10 requests(cpu=1500m)
      pdb db-pdb selector(app=db) min-available=1
      at 10s create pod p priority=1000 requests(cpu=1)
      expect pod db-1 preempted by default/p
      expect pod p running on n1
      """
    Then the expectations hold

  # B-003-11-27 B-003-11-18: QoS plays no part; lower priority goes first, and a protected pod
  # is kept when an unprotected one of higher priority can go instead.
  Scenario: B-003-11-27 scheduler preemption ignores QoS and prefers unprotected victims
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod guaranteed-low on n1 priority=10 requests(cpu=1, memory=1Gi) limits(cpu=1, memory=1Gi)
      pod besteffort-mid on n1 priority=100 besteffort
      pod burstable-mid on n1 priority=100 requests(cpu=1)
      pod protected on n1 priority=5 labels(app=db) requests(cpu=1)
      pdb db selector(app=db) min-available=1
      at 10s create pod p priority=1000 requests(cpu=2)
      # protected is tried back first (it would violate its PDB) and fits; then the
      # more important unprotected pods; the Guaranteed pod of lowest priority goes.
      expect victims of default/p = [default/guaranteed-low]
      expect pod besteffort-mid not preempted
      expect pod burstable-mid not preempted
      expect pod protected not preempted
      """
    Then the expectations hold

  # B-003-11-28 B-003-11-29: the kubelet ranks by usage over requests before priority, so
  # a lower-priority pod within its requests survives node pressure while a higher-priority
  # pod over its requests is evicted (see features/eviction for the full ranking).
  Scenario: B-003-11-28 node-pressure eviction ranks usage above requests before priority
    Given the scenario:
      """
      node n1 cpu=4 memory=2Gi
      kubelet * {
        eviction-hard memory.available<1Gi
      }
      pod low-within on n1 priority=1 requests(memory=600Mi) usage(memory=600Mi)
      pod high-over on n1 priority=1000 requests(memory=100Mi) usage(memory=600Mi)
      expect pod high-over evicted reason=MemoryPressure
      expect pod low-within not evicted
      """
    Then the expectations hold
