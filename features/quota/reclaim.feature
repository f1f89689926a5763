# Seed 004 §2-§4: reclaim preemption by CapacityScheduling (upstream
# SelectVictimsOnNode and PodEligibleToPreemptOthers of scheduler-plugins).
Feature: Reclaiming borrowed quota (seed 004 §2-§4)

  # B-004-03-04
  # B-004-03-06
  # B-004-01-04
  Scenario: B-004-03-04 reclaim ignores priority and stops once the borrower is back at its min
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=2) max(cpu=4)
      quota ns-b min(cpu=2) max(cpu=4)
      pod ns-a/high-1 on n1 priority=1000 requests(cpu=1) started=-3h
      pod ns-a/high-2 on n1 priority=1000 requests(cpu=1) started=-2h
      pod ns-a/high-3 on n1 priority=1000 requests(cpu=2) started=-1h
      at 10s create pod ns-b/low priority=0 requests(cpu=2)
      expect victims of ns-b/low = [ns-a/high-3]
      expect pod ns-a/high-1 not preempted
      expect pod ns-a/high-2 not preempted
      expect pod ns-b/low running
      expect quota ns-a used(cpu=2)
      """
    Then the expectations hold

  Scenario: a borrower at exactly its min is safe
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=2) max(cpu=4)
      quota ns-b min(cpu=2) max(cpu=4)
      quota ns-c min(cpu=2) max(cpu=4)
      pod ns-a/p on n1 requests(cpu=2)
      pod ns-c/p on n1 requests(cpu=2)
      at 10s create pod ns-b/q requests(cpu=2)
      expect pod ns-a/p not preempted
      expect pod ns-c/p not preempted
      expect pod ns-b/q pending reason="No victims found on node n1 for preemptor pod q"
      """
    Then the expectations hold

  # B-004-03-01
  # B-004-04-01
  Scenario: B-004-04-01 at equal priority the most recently started borrower pod goes first
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=2) max(cpu=4)
      quota ns-b min(cpu=2) max(cpu=4)
      pod ns-a/older on n1 requests(cpu=1) started=-2h
      pod ns-a/newer on n1 requests(cpu=1) started=-1h
      pod ns-a/oldest on n1 requests(cpu=2) started=-3h
      at 10s create pod ns-b/q requests(cpu=1)
      expect victims of ns-b/q = [ns-a/newer]
      """
    Then the expectations hold

  # B-004-03-03
  Scenario: B-004-03-03 above its min a preemptor takes only lower-priority pods of its own namespace
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=1) max(cpu=4)
      quota ns-b min(cpu=3) max(cpu=4)
      pod ns-a/borrower on n1 priority=0 requests(cpu=2)
      pod ns-b/low on n1 priority=0 requests(cpu=2)
      at 10s create pod ns-b/high priority=100 requests(cpu=2)
      expect victims of ns-b/high = [ns-b/low]
      expect pod ns-a/borrower not preempted
      expect pod ns-b/high running
      """
    Then the expectations hold

  Scenario: above its min a preemptor never takes equal-priority pods of its own namespace
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=1) max(cpu=4)
      pod ns-a/first on n1 priority=0 requests(cpu=4)
      at 10s create pod ns-a/second priority=0 requests(cpu=1)
      expect pod ns-a/first not preempted
      expect pod ns-a/second pending reason="No victims found on node n1 for preemptor pod second"
      """
    Then the expectations hold

  # B-004-03-02
  Scenario: B-004-03-02 pods of a namespace without a quota are never victims of a quota pod
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-b min(cpu=4) max(cpu=4)
      pod free/low on n1 priority=0 requests(cpu=4)
      at 10s create pod ns-b/high priority=1000 requests(cpu=2)
      expect pod free/low not preempted
      expect pod ns-b/high pending reason="No victims found on node n1 for preemptor pod high"
      """
    Then the expectations hold

  # B-004-03-05
  Scenario: B-004-03-05 a preemptor without a quota takes only lower-priority pods without one
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      node n2 cpu=4 memory=16Gi
      quota ns-a min(cpu=8) max(cpu=8)
      pod free/low-1 on n1 priority=0 requests(cpu=2)
      pod ns-a/x on n1 priority=0 requests(cpu=2)
      pod free/low-2 on n2 priority=0 requests(cpu=4)
      at 10s create pod free/high priority=100 requests(cpu=3)
      expect victims of free/high = [free/low-2]
      expect pod ns-a/x not preempted
      expect pod free/low-1 not preempted
      """
    Then the expectations hold

  Scenario: quota pods are reprieved most important first while the preemptor still fits
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=1) max(cpu=4)
      quota ns-b min(cpu=3) max(cpu=4)
      pod ns-a/p-1 on n1 requests(cpu=1) started=-3h
      pod ns-a/p-2 on n1 requests(cpu=1) started=-2h
      pod ns-a/p-3 on n1 requests(cpu=1) started=-1h
      at 10s create pod ns-b/q requests(cpu=2)
      expect victims of ns-b/q = [ns-a/p-3]
      expect pod ns-b/q running
      """
    Then the expectations hold

  Scenario: a pod the node has room for is still a victim when the quotas fail with it back
    Given the scenario:
      """
      node n1 cpu=8 memory=16Gi
      quota ns-a min(cpu=1) max(cpu=4)
      quota ns-b min(cpu=3) max(cpu=4)
      pod ns-a/p-1 on n1 requests(cpu=1) started=-3h
      pod ns-a/p-2 on n1 requests(cpu=1) started=-2h
      pod ns-a/p-3 on n1 requests(cpu=1) started=-1h
      at 10s create pod ns-b/q requests(cpu=2)
      at 10s expect pod ns-b/q pending reason="total ElasticQuota used is more than min"
      expect victims of ns-b/q = [ns-a/p-3]
      expect pod ns-b/q running
      expect quota ns-a used(cpu=2)
      """
    Then the expectations hold

  Scenario: a pod protected by a PodDisruptionBudget is reprieved before the others
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      quota ns-a min(cpu=1) max(cpu=4)
      quota ns-b min(cpu=3) max(cpu=4)
      pod ns-a/p-1 on n1 requests(cpu=1) started=-1h labels(app=x)
      pod ns-a/p-2 on n1 requests(cpu=1) started=-2h
      pod ns-a/p-3 on n1 requests(cpu=2) started=-3h
      pdb ns-a/keep selector(app=x) min-available=1
      at 10s create pod ns-b/q requests(cpu=1)
      expect victims of ns-b/q = [ns-a/p-2]
      expect pod ns-a/p-1 not preempted
      """
    Then the expectations hold

  Scenario: victims are taken on one node only, even when two nodes' borrowers together would do
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=16Gi
      quota ns-a min(cpu=2) max(cpu=6)
      quota ns-b min(cpu=6) max(cpu=6)
      pod ns-a/p-1 on n1 requests(cpu=2)
      pod ns-b/x on n1 requests(cpu=2)
      pod ns-a/p-2 on n2 requests(cpu=2)
      pod ns-b/y on n2 requests(cpu=2)
      at 10s create pod ns-b/big requests(cpu=4)
      expect pod ns-a/p-1 not preempted
      expect pod ns-a/p-2 not preempted
      expect pod ns-b/big pending
      """
    Then the expectations hold

  # B-004-02-01
  Scenario: B-004-02-01 a PriorityClass is cluster-wide, not tied to a namespace
    Given the scenario:
      """
      node n1 cpu=8 memory=16Gi
      priorityclass priority-class-for-notebook value=1000000 preemption=Never
      pod ns-a/nb priorityclass=priority-class-for-notebook requests(cpu=1)
      pod ns-b/nb priorityclass=priority-class-for-notebook requests(cpu=1)
      expect pod ns-a/nb priority=1000000 preemption=Never
      expect pod ns-b/nb priority=1000000 preemption=Never
      """
    Then the expectations hold

  # B-004-02-02
  Scenario: B-004-02-02 preemptionPolicy Never only stops the notebook from preempting
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      priorityclass priority-class-for-notebook value=1000000 preemption=Never
      quota ns-a min(cpu=2) max(cpu=4)
      quota ns-b min(cpu=2) max(cpu=4)
      pod ns-b/job-1 on n1 requests(cpu=2) started=-2h
      pod ns-b/job-2 on n1 requests(cpu=2) started=-1h
      at 10s create pod ns-a/notebook priorityclass=priority-class-for-notebook requests(cpu=2)
      at 15s expect pod ns-a/notebook pending reason="not eligible due to preemptionPolicy=Never."
      at 15s expect pods ns-b/job-* running count=2
      at 20s create pod ns-a/job requests(cpu=2)
      expect pods ns-b/job-* preempted count=1
      expect victims of ns-a/job = [ns-b/job-2]
      # The notebook still may take the room the job's preemption freed: it comes
      # first in the queue, and a nomination only holds room against pods of
      # equal or lower priority.
      expect pod ns-a/notebook running
      expect pod ns-a/job pending
      """
    Then the expectations hold

  # B-004-02-03
  Scenario: B-004-02-03 a high-priority class that may preempt starves the lower-priority pods
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      priorityclass high value=1000000
      quota ns-a min(cpu=2) max(cpu=6)
      quota ns-b min(cpu=4) max(cpu=4)
      deployment ns-a/job replicas=2 labels(app=job) requests(cpu=2)
      at 10s create pod ns-a/service priorityclass=high requests(cpu=2)
      expect pod ns-a/service running
      expect pods ns-a/job-* preempted count=1
      expect pod ns-a/job-3 pending
      """
    Then the expectations hold

  # v1.35's queue retries q at 20s for tiny's deletion (an assigned pod deleted: NodeResourcesFit
  # queues it); the creation of an unscheduled pod, which this scenario used before, retries
  # nothing upstream.
  Scenario: a nominated preemptor waits while its victims terminate instead of preempting again
    Given the scenario:
      """
      node n1 cpu=4 memory=16Gi
      node n2 cpu=1 memory=1Gi
      quota ns-a min(cpu=1) max(cpu=4)
      quota ns-b min(cpu=3) max(cpu=4)
      pod ns-a/p-1 on n1 requests(cpu=2) grace-period=60s started=-2h
      pod ns-a/p-2 on n1 requests(cpu=2) grace-period=60s started=-1h
      pod free/tiny on n2 requests(cpu=500m)
      at 10s create pod ns-b/q requests(cpu=2)
      at 20s delete pod free/tiny grace-period=0s
      at 30s expect pod ns-a/p-2 terminating
      at 30s expect pod ns-b/q nominated n1
      at 30s expect pod ns-b/q pending reason="not eligible due to a terminating pod on the nominated node."
      at 30s expect pod ns-a/p-1 not preempted
      expect victims of ns-b/q = [ns-a/p-2]
      expect pod ns-b/q running
      """
    Then the expectations hold

  # B-004-03-06
  # Upstream sorts a node's victims most important first once the reprieve is
  # done (PDB-violating pods are reprieved, and so appended, first), and
  # pickOneNodeForPreemption takes the first victim as the node's highest
  # priority.  in is above its min (used 3.75 + 0.75 > 3), so its victims are
  # its own lower-priority pods, and the quota (sum of used + 0.75 <= 3) needs
  # both pods of n1 gone, or low alone on n2.  Neither node violates the PDB
  # (guarded fits back on n1; only the quota check keeps it a victim, which
  # upstream does not count).  n1's victims sorted are [mid (1000), guarded
  # (0)], n2's [low (100)]: n2 has the lower highest-priority victim.  The
  # real CapacityScheduling (kube-scheduler v1.35.4) nominates n2 on the same
  # cluster (tests/differential/cases/quota-victims-sorted.json).
  Scenario: B-004-03-06 a node's highest-priority victim is its most important one, PDB-protected victims included
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      node n2 cpu=4 memory=8Gi
      quota ns-a min(cpu=3) max(cpu=100)
      pdb ns-a/guard selector(guard=g) min-available=1
      pod ns-a/guarded on n1 priority=0 requests(cpu=750m) labels(guard=g) started=-3h
      pod ns-a/mid on n1 priority=1000 requests(cpu=1) started=-2h
      pod ns-a/low on n2 priority=100 requests(cpu=2) started=-1h
      at 10s create pod ns-a/in priority=10000 requests(cpu=750m)
      at 10s expect pod ns-a/in nominated n2
      expect victims of ns-a/in = [ns-a/low]
      expect pod ns-a/guarded not preempted
      expect pod ns-a/mid not preempted
      expect pdb ns-a/guard disruptions-allowed=0
      expect pod ns-a/in running on n2
      """
    Then the expectations hold
