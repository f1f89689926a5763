# Kubernetes v1.35's DRA allocator and scheduler plugin on inputs the first scenarios do not
# reach: pools spread over nodes, the DRA CEL environment's libraries, allocator errors in the
# preemption dry run, validation before searching and the device limit. Each was compared with
# kube-scheduler v1.35.4 (tests/differential/test_dra_causes.py holds the YAML-only shapes:
# firstAvailable subrequests, admin access, duplicate device names across slices).
Feature: Dynamic resource allocation over v1.35's surface (seed 003 §8)

  # B-003-08-07
  # v1.35 counts a pool's slices over the whole cluster (checkSlicesInPool): a pool whose
  # two slices sit on two nodes is complete on both. The selector uses cel.bind, the
  # string extensions and a comprehension macro of the DRA CEL environment.
  Scenario: B-003-08-07 a pool spread over two nodes is complete, selected through CEL's libraries
    Given the scenario:
      """
      nodes worker-[1..2] cpu=2 memory=4Gi
      deviceclass gpu.example.com driver=gpu.example.com
      deviceclass nic.example.com driver=nic.example.com
      devices g0 on worker-1 driver=gpu.example.com pool=spread slices=2 attributes(model=a100)
      devices g1 on worker-2 driver=gpu.example.com pool=spread slices=2 attributes(model=T4)
      claim one class=gpu.example.com selector("cel.bind(m, device.attributes['gpu.example.com'].model.lowerAscii(), m.startsWith('t') && ['t4', 'h100'].exists(x, x == m))")
      pod p cpu=1 claims(gpu=one)
      expect pod p running on worker-2
      expect claim one allocated on worker-2 devices(g1)
      """
    Then the expectations hold

  # B-003-08-07
  # The allocator's error in the preemption dry run is the preemption's answer (upstream's
  # DryRunPreemption collects it; Preempt reports it when no node is a candidate).
  Scenario: B-003-08-07 an allocator error in the preemption dry run is reported, not preempted
    Given the scenario:
      """
      node worker-1 cpu=2 memory=4Gi
      priorityclass high value=1000
      deviceclass gpu.example.com driver=gpu.example.com
      devices g0 on worker-1 driver=gpu.example.com
      pod low on worker-1 cpu=2
      claim broken class=gpu.example.com selector("device.attributes['gpu.example.com'].model.size() > 0")
      pod p cpu=1 priorityclass=high claims(gpu=broken)
      expect pod p pending reason="0/1 nodes are available: 1 Insufficient cpu. preemption: running \"DynamicResources\" filter plugin: claim default/broken: selector #0: CEL runtime error: no such key: model"
      expect pod low running on worker-1
      """
    Then the expectations hold

  # B-003-08-07
  # v1.35 validates every request before searching: the All request over an incomplete pool
  # is an error although the first request could not be met anyway.
  Scenario: B-003-08-07 every request is validated before the search
    Given the scenario:
      """
      node worker-1 cpu=2 memory=4Gi
      deviceclass gpu.example.com driver=gpu.example.com
      deviceclass nic.example.com driver=nic.example.com
      devices g0 on worker-1 driver=gpu.example.com slices=2
      claim c {
        request nic class=nic.example.com
        request gpus class=gpu.example.com all
      }
      pod p cpu=1 claims(dev=c)
      expect pod p pending reason="running \"DynamicResources\" filter plugin: claim default/c, request gpus: asks for all devices, but resource pool gpu.example.com/worker-1 is currently being updated"
      """
    Then the expectations hold

  # B-003-08-07
  # The 32-device limit counts All requests (their matching devices) and ExactCount alike.
  Scenario: B-003-08-07 the device limit counts All requests too
    Given the scenario:
      """
      node worker-1 cpu=2 memory=4Gi
      deviceclass gpu.example.com driver=gpu.example.com
      devices gpu-[0..19] on worker-1 driver=gpu.example.com
      claim c {
        request every class=gpu.example.com all
        request more class=gpu.example.com count=13
      }
      pod p cpu=1 claims(dev=c)
      expect pod p pending reason="running \"DynamicResources\" filter plugin: claim default/c: number of requested devices 33 exceeds the claim limit of 32"
      """
    Then the expectations hold
