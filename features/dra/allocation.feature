# Seed 003 §8: dynamic resource allocation with structured parameters.
# The seed describes Kubernetes 1.31 (resource.k8s.io/v1alpha3, alpha, off by default);
# kruleset follows v1.35, where DRA is GA (resource.k8s.io/v1) and always on. Where the two
# differ, the scenario says so and v1.35 wins.
Feature: Dynamic resource allocation (seed 003 §8)

  Background:
    Given the scenario:
      """
      nodes worker-[1..2] cpu=16 memory=64Gi
      devices gpu-[0..3] on worker-1 driver=gpu.example.com attributes(model=a100, index=#) capacity(memory=80Gi)
      devices gpu-[0..3] on worker-2 driver=gpu.example.com attributes(model=t4, index=#) capacity(memory=16Gi)
      deviceclass gpu.example.com driver=gpu.example.com
      """

  # B-003-08-01
  # v1.35: the types are served as resource.k8s.io/v1; PodSchedulingContext (control-plane
  # controllers) no longer exists, so kruleset models DeviceClass, ResourceSlice,
  # ResourceClaim and ResourceClaimTemplate.
  Scenario: B-003-08-01 every request of a claim names exactly one DeviceClass
    Given the scenario:
      """
      claim shared class=gpu.example.com
      pod p cpu=1 claims(gpu=shared)
      expect pod p running on worker-1
      expect claim shared allocated on worker-1 devices(gpu-0)
      """
    Then the expectations hold

  # B-003-08-01
  Scenario: B-003-08-01 a request naming a class no statement declares is refused
    Given the scenario:
      """
      claim c class=gpu.exampel.com
      """
    Then the scenario is refused with "unknown device class 'gpu.exampel.com'"

  # B-003-08-01
  Scenario: B-003-08-01 a class created later keeps the pod pending until then
    Given the scenario:
      """
      claim c class=fast-gpu
      pod p cpu=1 claims(gpu=c)
      at 5s expect pod p pending reason="0/2 nodes are available: request req-0: device class fast-gpu does not exist."
      at 10s create deviceclass fast-gpu driver=gpu.example.com selector("device.attributes['gpu.example.com'].model == 't4'")
      expect pod p running on worker-2
      """
    Then the expectations hold

  # B-003-08-02
  # B-003-08-05
  Scenario: B-003-08-02 pods naming one ResourceClaim share it; the claim is reserved for all of them
    Given the scenario:
      """
      claim shared class=gpu.example.com
      pods worker-pod-[1..3] cpu=1 claims(gpu=shared)
      expect pods worker-pod-* running count=3
      expect pod worker-pod-3 running on worker-1
      expect claim shared reserved-for [worker-pod-1, worker-pod-2, worker-pod-3]
      expect device worker-1/gpu-0 allocated to shared
      expect device worker-1/gpu-1 free
      """
    Then the expectations hold

  # B-003-08-02
  Scenario: B-003-08-02 with a ResourceClaimTemplate each pod gets its own claim, removed with the pod
    Given the scenario:
      """
      claimtemplate one-gpu class=gpu.example.com
      pods job-[1..2] cpu=1 claims(gpu=template/one-gpu)
      at 10s expect claims job-*-gpu-* allocated count=2
      at 10s expect claim job-1-gpu-* allocated on worker-1 devices(gpu-0)
      at 10s expect claim job-2-gpu-* allocated on worker-2 devices(gpu-0)
      at 30s delete pod job-1
      expect claim job-1-gpu-* deleted
      expect device worker-1/gpu-0 free
      expect claim job-2-gpu-* reserved-for [job-2]
      """
    Then the expectations hold

  # B-003-08-03
  Scenario: B-003-08-03 pod-with-cats gets two claims from one template, one per container
    Given the scenario:
      """
      devices cat-[0..2] on worker-2 driver=resource-driver.example.com attributes(color=black, size=large)
      deviceclass resource.example.com selector("device.driver == \"resource-driver.example.com\"")
      claimtemplate large-black-cat-claim-template class=resource.example.com selector("device.attributes['resource-driver.example.com'].color == 'black' && device.attributes['resource-driver.example.com'].size == 'large'")
      pod pod-with-cats claims(cat-0=template/large-black-cat-claim-template, cat-1=template/large-black-cat-claim-template) {
        container container0 claims(cat-0)
        container container1 claims(cat-1)
      }
      expect pod pod-with-cats running on worker-2
      expect claim pod-with-cats-cat-0-* allocated on worker-2 devices(cat-0)
      expect claim pod-with-cats-cat-1-* allocated on worker-2 devices(cat-1)
      expect device cat-2 free
      """
    Then the expectations hold

  # B-003-08-03
  Scenario: B-003-08-03 a container may only list claims of its pod
    Given the scenario:
      """
      claimtemplate cats class=gpu.example.com
      pod p claims(cat-0=template/cats) {
        container c0 claims(cat-1)
      }
      """
    Then the scenario is refused with "container 'c0' uses claim 'cat-1'"

  # B-003-08-04
  # B-003-08-12
  # v1.35: control-plane controllers (DRAControlPlaneController, PodSchedulingContext) were
  # removed; spec.controller is not stored, so the claim is allocated by the scheduler from
  # its structured parameters like any other.
  Scenario: B-003-08-04 a claim naming a control-plane controller is allocated by the scheduler
    Given the scenario:
      """
      claim legacy class=gpu.example.com controller=gpu.example.com
      pod p cpu=1 claims(gpu=legacy)
      expect pod p running on worker-1
      expect claim legacy allocated on worker-1 devices(gpu-0)
      """
    Then the expectations hold

  # B-003-08-06
  Scenario: B-003-08-06 a pod is not bound until every claim is allocated and reserved
    Given the scenario:
      """
      claimtemplate a100 class=gpu.example.com selector("device.attributes['gpu.example.com'].model == 'a100'")
      claimtemplate h100 class=gpu.example.com selector("device.attributes['gpu.example.com'].model == 'h100'")
      pod both cpu=1 claims(first=template/a100, second=template/h100)
      expect pod both pending reason="0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
      expect claims both-* pending count=2
      expect device worker-1/gpu-0 free
      """
    Then the expectations hold

  # B-003-08-06
  Scenario: B-003-08-06 an allocated claim pins its pods to the allocation's node
    Given the scenario:
      """
      claim pinned class=gpu.example.com allocated(worker-2/gpu-3) reserved-for(holder)
      pod holder on worker-2 cpu=1 claims(gpu=pinned)
      pod follower cpu=1 claims(gpu=pinned) node-selector(kubernetes.io/hostname=worker-1)
      expect pod holder running on worker-2
      expect pod follower pending reason="0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 resourceclaim not available on the node. still not schedulable"
      """
    Then the expectations hold

  # B-003-08-07
  Scenario: B-003-08-07 the scheduler picks free devices by CEL over attributes and capacity
    Given the scenario:
      """
      claimtemplate big class=gpu.example.com selector("device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0")
      pods train-[1..5] cpu=1 claims(gpu=template/big)
      expect pods train-* running count=4
      expect pod train-5 pending reason="cannot allocate all claims"
      expect claim train-4-gpu-* allocated devices(worker-1/gpu-3)
      """
    Then the expectations hold

  # B-003-08-07
  Scenario: B-003-08-07 a set of devices is constrained to one attribute value, with backtracking
    Given the scenario:
      """
      devices gpu-4 on worker-1 driver=gpu.example.com pool=extra attributes(model=a100, dra.example.com/numa=0)
      devices gpu-5 on worker-1 driver=gpu.example.com pool=extra attributes(model=a100, dra.example.com/numa=1)
      devices nic-1 on worker-1 driver=nic.example.com attributes(dra.example.com/numa=1)
      deviceclass nic.example.com driver=nic.example.com
      claim together {
        request gpu class=gpu.example.com selector("'dra.example.com' in device.attributes")
        request nic class=nic.example.com
        constraint match-attribute=dra.example.com/numa
      }
      pod p cpu=1 claims(pair=together)
      expect pod p running on worker-1
      expect claim together allocated on worker-1 devices(gpu-5, nic-1)
      """
    Then the expectations hold

  # B-003-08-07
  Scenario: B-003-08-07 count and All: an All request takes every matching device
    Given the scenario:
      """
      claim two class=gpu.example.com count=2
      claim rest class=gpu.example.com all selector("device.attributes['gpu.example.com'].model == 't4'")
      pod a cpu=1 claims(gpu=two)
      pod b cpu=1 claims(gpu=rest)
      expect claim two allocated on worker-1 devices(gpu-0, gpu-1)
      expect claim rest allocated on worker-2 devices(worker-2/gpu-0, worker-2/gpu-1, worker-2/gpu-2, worker-2/gpu-3)
      expect pod b running on worker-2
      """
    Then the expectations hold

  # B-003-08-07
  Scenario: B-003-08-07 a selector is refused at the column CEL points at
    Given the scenario:
      """
      claim c class=gpu.example.com selector("device.attributes['gpu.example.com'].model ==")
      """
    Then the scenario is refused with ":5:86: Syntax error: mismatched input '<EOF>'"

  # B-003-08-08
  # B-003-08-09
  # The kubelet's gRPC service (B-003-08-09) reports the devices prepared for running pods:
  # the claim status it reads is what kruleset shows.
  Scenario: B-003-08-08 the chosen devices are recorded in the claim's status when the pod binds
    Given the scenario:
      """
      claimtemplate one-gpu class=gpu.example.com
      at 5s expect device worker-1/gpu-0 free
      at 10s create pod p cpu=1 claims(gpu=template/one-gpu)
      expect pod p running on worker-1
      expect claim p-gpu-* allocated on worker-1 devices(gpu-0)
      expect claim p-gpu-* reserved-for [p]
      """
    Then the expectations hold

  # B-003-08-10
  # v1.35's kubelet says "is not allowed to use ResourceClaim" (the seed's release printed
  # "resource claim").
  Scenario: B-003-08-10 a pod created with nodeName waits at the kubelet for its claims
    Given the scenario:
      """
      claim c class=gpu.example.com
      at 0s create pod bypass on worker-1 cpu=1 claims(gpu=c)
      expect pod bypass pending reason="pod bypass (uid-default-bypass) is not allowed to use ResourceClaim c (uid-default-c)"
      expect claim c pending
      """
    Then the expectations hold

  # B-003-08-10
  Scenario: B-003-08-10 the controller reserves an allocated claim for a nodeName pod, which then starts
    Given the scenario:
      """
      claim c class=gpu.example.com allocated(worker-1/gpu-2)
      at 0s create pod bypass on worker-1 cpu=1 claims(gpu=c)
      expect pod bypass running on worker-1
      expect claim c reserved-for [bypass]
      """
    Then the expectations hold

  # B-003-08-10
  Scenario: B-003-08-10 a node selector on kubernetes.io/hostname goes through the scheduler instead
    Given the scenario:
      """
      claim c class=gpu.example.com
      pod with-selector cpu=1 claims(gpu=c) node-selector(kubernetes.io/hostname=worker-1)
      expect pod with-selector running on worker-1
      expect claim c allocated on worker-1 devices(gpu-0)
      """
    Then the expectations hold

  # B-003-08-11
  # v1.35: DynamicResourceAllocation is GA and locked on; the components refuse to start
  # with it turned off, and resource.k8s.io/v1 is always served.
  Scenario: B-003-08-11 turning the DynamicResourceAllocation gate off is refused
    Given the scenario:
      """
      feature-gates(DynamicResourceAllocation=false)
      """
    Then the scenario is refused with "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"

  # B-003-08-11
  Scenario: B-003-08-11 the DRA gates that remain can be set; an unknown one is refused
    Given the scenario:
      """
      feature-gates(DynamicResourceAllocation=true, DRAAdminAccess=true, DRAPrioritizedList=false)
      feature-gates(DRAAdminAcess=true)
      """
    Then the scenario is refused with "unknown feature gate 'DRAAdminAcess'"

  # B-003-08-12
  # v1.35: DynamicResources is part of the default profile unconditionally.
  Scenario: B-003-08-12 the default scheduler configuration runs DynamicResources
    Given the scenario:
      """
      claim none class=gpu.example.com selector("device.attributes['gpu.example.com'].model == 'h100'")
      pod p cpu=1 claims(gpu=none)
      expect pod p pending reason="2 cannot allocate all claims"
      """
    Then the expectations hold

  # B-003-08-01
  # B-003-08-03
  # The seed's manifests load as written: the template's stale apiVersion v1alpha2 is read as
  # v1alpha3 (its shape) and the DeviceClass's top-level name as metadata.name, each with a
  # warning. The slice is v1beta1's shape; v1.35 serves v1, v1beta2 and v1beta1.
  Scenario: B-003-08-03 the seed's pod-with-cats manifests allocate one large black cat per container claim
    Given the scenario:
      """
      node node-1 cpu=4 memory=8Gi
      include "cats-slice.yaml"
      include "pod-with-cats.yaml"
      expect pod pod-with-cats running on node-1
      expect claim pod-with-cats-cat-0-* allocated on node-1 devices(panther)
      expect claim pod-with-cats-cat-1-* allocated on node-1 devices(shadow)
      expect device kitten free
      """
    Then the expectations hold

  # B-003-08-02
  # B-003-08-06
  Scenario: B-003-08-02 a pod waits outside the queue for a claim or template that does not exist yet
    Given the scenario:
      """
      pod named cpu=1 claims(gpu=later)
      pod templated cpu=1 claims(gpu=template/later-template)
      at 5s expect pod named pending reason="could not find ResourceClaim \"default/later\""
      at 5s expect pod templated pending reason="pod \"default/templated\": ResourceClaim not created yet"
      at 10s create claim later class=gpu.example.com
      at 20s create claimtemplate later-template class=gpu.example.com
      expect pod named running on worker-1
      expect pod templated running on worker-2
      expect claim templated-gpu-* allocated on worker-2 devices(gpu-0)
      """
    Then the expectations hold

  # B-003-08-05
  # B-003-08-06
  Scenario: B-003-08-05 a claim allocated where the pod cannot go, and held by nobody, is deallocated and allocated again
    Given the scenario:
      """
      claim moved class=gpu.example.com allocated(worker-2/gpu-0)
      pod p cpu=1 claims(gpu=moved) node-selector(kubernetes.io/hostname=worker-1)
      expect pod p running on worker-1
      expect claim moved allocated on worker-1 devices(gpu-0)
      expect device worker-2/gpu-0 free
      """
    Then the expectations hold

  # B-003-08-05
  # B-003-07-04
  # second waits at PreEnqueue.  The claim's deallocation at 20s is an update second's
  # hint skips (its claim is still being deleted) and the deletion is no event
  # DynamicResources registers for, so second keeps its message (v1.35; kruleset before
  # its queueing hints retried it there).  A claim of that name created again is the
  # pod's claim created: its hint queues it.
  Scenario: B-003-08-05 a deleted claim still in use is being deleted for new pods, and goes with its last user
    Given the scenario:
      """
      claim shared class=gpu.example.com
      pod first cpu=1 claims(gpu=shared)
      at 10s delete claim shared
      at 10s create pod second cpu=1 claims(gpu=shared)
      at 15s expect pod second pending reason="resourceclaim \"shared\" is being deleted"
      at 15s expect claim shared reserved-for [first]
      at 20s delete pod first grace-period=0s
      at 20s expect claim shared deleted
      at 20s expect device worker-1/gpu-0 free
      at 25s expect pod second pending reason="resourceclaim \"shared\" is being deleted"
      at 30s create claim shared class=gpu.example.com
      expect pod second running on worker-1
      expect claim shared reserved-for [second]
      """
    Then the expectations hold
