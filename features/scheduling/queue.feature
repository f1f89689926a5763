# The scheduling queue as kube-scheduler v1.35 runs it: activeQ, backoffQ, unschedulablePods,
# QueueingHints, the leftover flush, PreEnqueue.  Each scenario was run through the real
# scheduler with its queue (the timeline oracle) and agrees with it attempt by attempt.
Feature: The scheduling queue decides who gets freed capacity, and when (B-003-07-02, B-003-07-04)

  # B-003-07-04
  # B-003-07-05
  # B-003-07-02
  # low failed at 0s, high at 2.5s; old's deletion at 3.2s requeues both (NodeResourcesFit
  # queues a pod for a deleted assigned pod).  low's backoff (1s from 0s) is over: activeQ.
  # high's expiry is 3.5s truncated to the second, 3s, not before now's window: backoffQ.
  # activeQ is popped first, so low gets the node; high, popped from backoffQ at once
  # (SchedulerPopFromBackoffQ), preempts low and binds after low's 30s grace period.
  Scenario: B-003-07-04 a pod whose backoff is over wins freed capacity over a higher-priority pod still backing off
    Given the scenario:
      """
      priorityclass top value=1000
      priorityclass high value=100
      priorityclass low value=10
      node n1 cpu=4 memory=8Gi
      pod old on n1 priorityclass=top requests(cpu=4)
      pod low priorityclass=low requests(cpu=4)
      at 2500ms create pod high priorityclass=high requests(cpu=4)
      at 3200ms delete pod old grace-period=0s
      at 3200ms expect pod low preempted by high
      at 3200ms expect pod high nominated n1
      at 3200ms expect pod low terminating
      at 33199ms expect pod high pending
      at 33200ms expect pod high running on n1
      expect victims of high = [low]
      expect pod low attempts=2
      expect pod high attempts=3
      """
    Then the expectations hold

  # B-003-07-05
  # Both backoffs are over when old goes at 20s: both go to activeQ, PrioritySort pops high
  # first.  high's creation at 2.5s does not retry low: an unscheduled pod's creation is no
  # event NodeResourcesFit registers for.
  Scenario: B-003-07-05 when both backoffs are over, the higher priority pod is popped first
    Given the scenario:
      """
      priorityclass top value=1000
      priorityclass high value=100
      priorityclass low value=10
      node n1 cpu=4 memory=8Gi
      pod old on n1 priorityclass=top requests(cpu=4)
      pod low priorityclass=low requests(cpu=4)
      at 2500ms create pod high priorityclass=high requests(cpu=4)
      at 2500ms expect pod low attempts=1
      at 20s delete pod old grace-period=0s
      expect pod high running on n1
      expect pod low pending
      at 20s expect pod low attempts=2
      """
    Then the expectations hold

  # B-003-07-04
  # B-003-07-02
  # small's deletion at 5s requeues waiting (still no room); old's deletion at 10s only sets
  # a deletionTimestamp (an update NodeResourcesFit does not requeue for) and old keeps its
  # CPU until its grace period ends at 40s, when its removal requeues waiting.
  Scenario: B-003-07-04 a bound pod's deletion retries the pods NodeResourcesFit rejected, a terminating one only when it is gone
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod old on n1 requests(cpu=3)
      pod small on n1 requests(cpu=500m)
      pod waiting requests(cpu=2)
      at 5s delete pod small grace-period=0s
      at 5s expect pod waiting attempts=2
      at 10s delete pod old
      at 39s expect pod waiting attempts=2
      at 40s expect pod waiting running on n1
      expect pod waiting attempts=3
      """
    Then the expectations hold

  # B-003-07-02
  # With activeQ empty, Pop takes backoffQ's head before its backoff ends: each deletion
  # retries p at once, not after the 1-2-4 s backoff.
  Scenario: B-003-07-02 an idle scheduler retries a pod at each event, backoff or not
    Given the scenario:
      """
      node n1 cpu=2 memory=8Gi
      pod a on n1 requests(cpu=500m)
      pod b on n1 requests(cpu=500m)
      pod c on n1 requests(cpu=500m)
      pod p requests(cpu=2)
      at 300ms delete pod a grace-period=0s
      at 300ms expect pod p attempts=2
      at 600ms delete pod b grace-period=0s
      at 600ms expect pod p attempts=3
      at 900ms delete pod c grace-period=0s
      expect pod p running on n1
      expect pod p attempts=4
      """
    Then the expectations hold

  # B-003-07-02
  # No event helps p: it is retried only by the leftover flush, every 30s, once it waited
  # more than 5 minutes in unschedulablePods: at 5m30s, then 11m.
  Scenario: B-003-07-02 a pod no event helps is retried by the 5-minute leftover flush
    Given the scenario:
      """
      node n1 cpu=1 memory=8Gi
      pod p requests(cpu=2)
      at 5m29s expect pod p attempts=1
      at 5m30s expect pod p attempts=2
      at 10m59s expect pod p attempts=2
      at 11m expect pod p attempts=3
      """
    Then the expectations hold

  # B-003-07-03
  # SchedulingGates keeps gated pods in unschedulablePods without an attempt; only the removal
  # of the last gate (UpdatePodSchedulingGatesEliminated) moves the pod to activeQ.
  Scenario: B-003-07-03 a gated pod is never attempted until its last gate goes
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod g1 requests(cpu=1) gates(a)
      pod g2 requests(cpu=1) gates(a, b)
      at 5s ungate pod g1 a
      at 5s ungate pod g2 a
      at 5s expect pod g1 running on n1
      at 5s expect pod g2 pending
      at 5s expect pod g2 attempts=0
      at 8s ungate pod g2 b
      expect pod g2 running on n1
      expect pod g2 attempts=1
      """
    Then the expectations hold

  # B-003-07-04
  # A node added that fits p's requests: NodeResourcesFit's hint queues p.  A node too small
  # for p, and a label change, are not events that help it: no attempt.
  Scenario: B-003-07-04 a node added retries a pod only if it could hold it
    Given the scenario:
      """
      node n1 cpu=1 memory=8Gi
      pod p requests(cpu=2)
      at 5s create node tiny cpu=1 memory=8Gi
      at 6s label node n1 disk=ssd
      at 6s expect pod p attempts=1
      at 10s create node n2 cpu=4 memory=8Gi
      expect pod p running on n2
      expect pod p attempts=2
      """
    Then the expectations hold

  # B-003-07-04
  # The same check written as steps: a pending pod's creation is no event for NodeResourcesFit,
  # so waiting is not retried when another pod is created; the deletion of a bound pod is.
  Scenario: B-003-07-04 another pending pod's creation does not retry a pod, a bound pod's deletion does
    Given node n1 cpu=2 memory=8Gi
    And pod big on n1 requests(cpu=2)
    And pod waiting requests(cpu=1)
    And run until 10s
    When at 5s create pod other requests(cpu=3)
    And at 8s delete pod big grace-period=0s
    Then expect pod waiting running on n1
    And expect pod waiting attempts=2
    And expect pod other attempts=2

  # B-003-07-04
  # PodTopologySpread's hint (isSchedulableAfterPodChange) queues a pod it rejected only for an
  # assigned pod of its namespace whose labels its DoNotSchedule constraints select: web's
  # arrival on n1 at 5s is no reason to retry waiting; a1's deletion at 10s is (still skewed).
  Scenario: B-003-07-04 a pod rejected by its spread constraint is retried only for a pod the constraint counts
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      node n2 cpu=4 memory=8Gi labels(zone=b) unschedulable
      pod a1 on n1 labels(app=batch)
      pod a2 on n1 labels(app=batch)
      pod waiting labels(app=batch) {
        spread max-skew=1 topology=zone when-unsatisfiable=DoNotSchedule selector(app=batch)
      }
      at 5s create pod web on n1 labels(app=web)
      at 5s expect pod waiting attempts=1
      at 10s delete pod a1 grace-period=0s
      at 10s expect pod waiting attempts=2
      expect pod waiting pending
      """
    Then the expectations hold

  # B-003-07-04
  # InterPodAffinity's hint reads p's own terms: a bound pod that does not match its affinity
  # (web), and a node label that is no term's topology key (disk), do not retry it; node n2
  # added without the zone key does not either; a bound pod matching the term (db) does.
  Scenario: B-003-07-04 a pod waiting for pod affinity is retried only by a pod or node its terms can use
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      pod p requests(cpu=1) {
        affinity pod required app=db topology=zone
      }
      at 5s create pod web on n1 labels(app=web)
      at 6s label node n1 disk=ssd
      at 7s create node n2 cpu=4 memory=8Gi
      at 7s expect pod p attempts=1
      at 8s create pod db on n1 labels(app=db)
      at 8s expect pod p running on n1
      expect pod p attempts=2
      """
    Then the expectations hold

  # B-003-07-04
  # InterPodAffinity's hint queues a pod it rejected for an added assigned pod that matches
  # every required affinity term: web (app=web) at 5s is not one, cache at 10s is.
  Scenario: B-003-07-04 a pod rejected by its pod affinity is retried when a pod it needs arrives
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(zone=a)
      pod waiting labels(app=x) {
        affinity pod required app=cache topology=zone
      }
      at 5s create pod web on n1 labels(app=web)
      at 5s expect pod waiting attempts=1
      at 10s create pod cache on n1 labels(app=cache)
      at 10s expect pod waiting running on n1
      expect pod waiting attempts=2
      """
    Then the expectations hold

  # B-003-07-04
  # PodTopologySpread's hint: p (max skew 1 by hostname over app=db pods) is rejected on n1,
  # which holds two db pods against none on n2 (n2 untolerated taint).  A bound pod of
  # another app does not retry it; the deletion of one db pod does, and p then fits n1.
  Scenario: B-003-07-04 a pod rejected by topology spread is retried by a change of the pods its selector counts
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(kubernetes.io/hostname=n1)
      node n2 cpu=4 memory=8Gi labels(kubernetes.io/hostname=n2) taints(dedicated=x:NoSchedule)
      pod db1 on n1 labels(app=db)
      pod db2 on n1 labels(app=db)
      pod p labels(app=db) requests(cpu=1) {
        spread max-skew=1 topology=kubernetes.io/hostname selector(app=db)
      }
      at 5s create pod web on n1 labels(app=other)
      at 5s expect pod p attempts=1
      at 8s delete pod db2 grace-period=0s
      at 8s expect pod p attempts=2
      """
    Then the expectations hold
