# Which cluster events retry a pod DynamicResources rejected or keeps out at PreEnqueue, as
# kube-scheduler v1.35.4's queue decides with the plugin's EventsToRegister and QueueingHints
# (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go): nodes added or
# relabelled, DeviceClasses and ResourceSlices added or updated (no hint), ResourceClaims
# added or updated (isSchedulableAfterClaimChange), the pod's generated claims recorded in
# its status (isSchedulableAfterPodChange).  Nothing else retries such a pod before the
# 5-minute leftover flush.  The timeline oracle takes no DRA objects, so these scenarios are
# checked against upstream's code and unit tests, not run through the real scheduler.
Feature: DynamicResources' queueing hints decide which events retry a pod waiting for devices (B-003-07-04, B-003-08-07)

  Background:
    Given the scenario:
      """
      nodes worker-[1..2] cpu=16 memory=64Gi
      devices gpu-0 on worker-1 driver=gpu.example.com attributes(model=a100)
      deviceclass gpu.example.com driver=gpu.example.com
      claimtemplate one-gpu class=gpu.example.com
      """

  # B-003-07-04
  # B-003-08-07
  # second finds worker-1's only GPU taken.  unrelated's creation and binding (an
  # AssignedPodAdd) is no event DynamicResources registers for: second is not retried.
  # The ResourceSlice created at 20s is (ResourceSlice/Add, no hint): it is retried at once
  # and gets worker-2's new GPU.
  Scenario: B-003-07-04 a pod waiting for a device is retried when a ResourceSlice offers one, not when an unrelated pod comes
    Given the scenario:
      """
      pod first cpu=1 claims(gpu=template/one-gpu)
      at 1s create pod second cpu=1 claims(gpu=template/one-gpu)
      at 5s expect pod second pending reason="0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
      at 10s create pod unrelated cpu=1
      at 15s expect pod unrelated running
      at 15s expect pod second attempts=1
      at 20s create devices gpu-0 on worker-2 driver=gpu.example.com attributes(model=t4)
      at 20s expect pod second running on worker-2
      expect pod second attempts=2
      """
    Then the expectations hold

  # B-003-07-04
  # B-003-08-07
  # With queueing hints on, DynamicResources registers node additions and label and
  # allocatable changes, not taint changes: the taint at 10s leaves second waiting, the
  # label at 20s retries it (no hint; the taint now keeps it off worker-2 too).
  Scenario: B-003-07-04 a node's new label retries a pod DynamicResources rejected, a new taint does not
    Given the scenario:
      """
      pod first cpu=1 claims(gpu=template/one-gpu)
      at 1s create pod second cpu=1 claims(gpu=template/one-gpu)
      at 10s taint node worker-2 team=a:NoSchedule
      at 15s expect pod second attempts=1
      at 20s label node worker-2 rack=r1
      at 25s expect pod second attempts=2
      expect pod second pending reason="0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) had untolerated taint(s). still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
      """
    Then the expectations hold

  # B-003-07-04
  # B-003-08-06
  # first's deletion (an AssignedPodDelete) is no event of the plugin; the claim
  # controller then takes first out of its claim's reservedFor and deallocates it: a
  # ResourceClaim update whose allocation went away, which isSchedulableAfterClaimChange
  # queues any pod whose claims all exist for.  second gets the freed GPU at once.
  Scenario: B-003-07-04 a claim deallocated when its pod goes retries the pods waiting for devices
    Given the scenario:
      """
      pod first cpu=1 claims(gpu=template/one-gpu)
      at 1s create pod second cpu=1 claims(gpu=template/one-gpu)
      at 10s delete pod first grace-period=0s
      at 10s expect claim first-gpu-* deleted
      at 10s expect pod second running on worker-1
      expect pod second attempts=2
      """
    Then the expectations hold

  # B-003-07-04
  # B-003-08-06
  # waiting is kept out at PreEnqueue (its claim does not exist): no attempt.  Another claim
  # created is skipped by the hint (the pod's own claim is still missing); its own claim
  # created is queued for (isSchedulableAfterClaimChange: the pod's claim got created).
  Scenario: B-003-07-04 a pod kept out for a missing claim is retried when that claim is created, not another
    Given the scenario:
      """
      pod waiting cpu=1 claims(gpu=later)
      at 5s expect pod waiting pending reason="could not find ResourceClaim \"default/later\""
      at 5s expect pod waiting attempts=0
      at 10s create claim unrelated class=gpu.example.com
      at 15s expect pod waiting attempts=0
      at 20s create claim later class=gpu.example.com
      at 20s expect pod waiting running on worker-1
      expect pod waiting attempts=1
      """
    Then the expectations hold

  # B-003-07-04
  # B-003-08-02
  # The template appears at 10s; the claim controller creates waiting's claim (a
  # ResourceClaim add the hint skips: the pod's status does not name it yet) and then
  # records it in the pod's status.resourceClaimStatuses: the pod's own
  # UpdatePodGeneratedResourceClaim, which isSchedulableAfterPodChange queues it for.
  Scenario: B-003-07-04 a pod waiting for its template claim is retried when the claim is recorded in its status
    Given the scenario:
      """
      pod waiting cpu=1 claims(gpu=template/late)
      at 5s expect pod waiting pending reason="pod \"default/waiting\": ResourceClaim not created yet"
      at 10s create claimtemplate late class=gpu.example.com
      at 10s expect pod waiting running on worker-1
      expect pod waiting attempts=1
      """
    Then the expectations hold
