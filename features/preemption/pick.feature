Feature: Choosing the node to preempt on (seed 002 §6; seed 003 §11.6)
  The criteria in upstream's order (pickOneNodeForPreemption): fewest PDB violations,
  lowest highest-victim priority, lowest sum of priorities shifted by 2^31, fewest
  victims, latest start of the highest-priority victims; then the node declared first.
  Note: seed 002 lists "fewest victims" before "lowest sum"; upstream code checks the sum
  first, and kruleset follows upstream.

  # B-002-06-01
  Scenario: B-002-06-01 with no candidate no node is chosen
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod a on n1 priority=5000 requests(cpu=2)
      pod b on n2 priority=5000 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=1)
      expect pod p pending reason="preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
      expect victims of default/p = []
      """
    Then the expectations hold

  # B-002-06-02 B-003-11-26: fewest PDB violations decides, even against lower victims
  Scenario: B-002-06-02 fewest PDB violations decides
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod protected on n1 priority=10 labels(app=db) requests(cpu=2)
      pod plain on n2 priority=500 requests(cpu=2)
      pdb db selector(app=db) min-available=1
      at 10s create pod p priority=1000 requests(cpu=1)
      expect victims of default/p = [default/plain]
      expect pod protected not preempted
      """
    Then the expectations hold

  # B-002-06-03 B-003-11-26: the lowest highest-victim priority decides
  Scenario: B-002-06-03 lowest highest-victim priority decides
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod low-1 on n1 priority=10 requests(cpu=2)
      pod low-2 on n2 priority=20 requests(cpu=2)
      at 10s create pod high priority=1000 requests(cpu=1)
      expect victims of default/high = [default/low-1]
      """
    Then the expectations hold

  # B-002-06-05: equal highest priority and count; the lower sum decides
  Scenario: B-002-06-05 lowest sum of victim priorities decides
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod a-1 on n1 priority=100 requests(cpu=1)
      pod a-2 on n1 priority=100 requests(cpu=1)
      pod b-1 on n2 priority=100 requests(cpu=1)
      pod b-2 on n2 priority=5 requests(cpu=1)
      at 10s create pod p priority=1000 requests(cpu=2)
      expect victims of default/p = [default/b-1, default/b-2]
      """
    Then the expectations hold

  # B-002-06-05: the sum is of priorities shifted by 2^31, so with negative priorities two
  # victims still weigh more than one (upstream "sum of adjusted priorities is considered")
  Scenario: B-002-06-05 the sum shifts priorities so that negative ones still add up
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod a-1 on n1 priority=-10 requests(cpu=1)
      pod a-2 on n1 priority=-10 requests(cpu=1)
      pod b on n2 priority=-10 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=2)
      expect victims of default/p = [default/b]
      """
    Then the expectations hold

  # B-002-06-04: fewer victims decides only when highest priority and shifted sum tie, which
  # takes a victim at the lowest int32 priority (it adds 0 to the shifted sum)
  Scenario: B-002-06-04 fewest victims decides
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod a-1 on n1 priority=100 requests(cpu=1)
      pod a-2 on n1 priority=-2147483648 requests(cpu=1)
      pod b on n2 priority=100 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=2)
      expect victims of default/p = [default/b]
      """
    Then the expectations hold

  # Upstream's fifth criterion: the node whose highest-priority victims started latest
  Scenario: the latest start of the highest-priority victims decides
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=4Gi
      pod old on n1 priority=100 requests(cpu=2) started=-2h
      pod new on n2 priority=100 requests(cpu=2) started=-1h
      at 10s create pod p priority=1000 requests(cpu=1)
      expect victims of default/p = [default/new]
      """
    Then the expectations hold

  # LANGUAGE.md §5: a full tie goes to the node declared first
  Scenario: a full tie goes to the node declared first
    Given the scenario:
      """
      node b cpu=2 memory=4Gi
      node a cpu=2 memory=4Gi
      pod on-a on a priority=100 requests(cpu=2) started=-1h
      pod on-b on b priority=100 requests(cpu=2) started=-1h
      at 10s create pod p priority=1000 requests(cpu=1)
      expect victims of default/p = [default/on-b]
      """
    Then the expectations hold

  # B-003-11-25: when the node with the lowest-priority pods cannot fit the pod, victims of
  # higher priority on another node are taken; victims are always lower than the preemptor.
  Scenario: B-003-11-25 preemption may pick a node with higher-priority victims when the lowest cannot help
    Given the scenario:
      """
      node small cpu=1 memory=4Gi
      node big cpu=4 memory=4Gi
      pod lowest on small priority=1 requests(cpu=1)
      pod middle on big priority=500 requests(cpu=4)
      at 10s create pod p priority=1000 requests(cpu=2)
      expect victims of default/p = [default/middle]
      expect pod lowest not preempted
      """
    Then the expectations hold

  # B-003-11-26: neither PDBs nor priorities differ: "the lowest-priority node" is then
  # decided by the later criteria (here the sum)
  Scenario: B-003-11-26 among several nodes the one whose victims have the lowest priority wins
    Given the scenario:
      """
      nodes n[1..3] cpu=2 memory=4Gi
      pod a on n1 priority=300 requests(cpu=2)
      pod b on n2 priority=200 requests(cpu=2)
      pod c on n3 priority=100 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=1)
      expect victims of default/p = [default/c]
      """
    Then the expectations hold

  # B-002-03-01: only nodes whose status is Unschedulable are tried; a tainted node
  # (UnschedulableAndUnresolvable) is never a candidate even though its pod is lowest.
  Scenario: B-002-03-01 only Unschedulable nodes are tried
    Given the scenario:
      """
      node n1 cpu=2 memory=4Gi taints(dedicated=batch:NoSchedule)
      node n2 cpu=2 memory=4Gi
      pod lowest on n1 priority=1 requests(cpu=2)
      pod other on n2 priority=500 requests(cpu=2)
      at 10s create pod p priority=1000 requests(cpu=1)
      expect victims of default/p = [default/other]
      expect pod lowest not preempted
      """
    Then the expectations hold
