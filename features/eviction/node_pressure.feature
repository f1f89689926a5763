Feature: Node-pressure eviction (seed 001, seed 003 §12)

  # B-001-03-01 B-001-03-04 B-001-03-06 B-001-03-07 B-001-05-02 B-001-05-03 B-001-05-05
  # B-003-12-01 B-003-12-06 B-003-12-12 B-003-12-16 B-003-12-20 B-003-12-21 B-003-12-22
  # B-003-12-29 B-003-11-29 B-003-12-04 B-003-12-28
  # B-001-05-06 B-003-12-02: a hard eviction's grace period is upstream's 1s (older kubelets: 0s).
  Scenario: B-003-12-16 a hard memory threshold evicts the pod most over its request, one per pass
    Given the scenario:
      """
      node n1 cpu=4 memory=1Gi
      kubelet * {
        eviction-hard memory.available<100Mi
      }
      pod within on n1 requests(memory=400Mi) limits(memory=400Mi) usage(memory=300Mi)
      pod low on n1 priority=-5 requests(memory=100Mi) usage(memory=90Mi)
      pod over on n1 priority=100 requests(memory=50Mi) usage(memory=300Mi)
      pod over2 on n1 priority=100 requests(memory=50Mi) usage(memory=200Mi)
      at 20s usage pod within memory=400Mi
      at 20s expect node n1 condition MemoryPressure
      at 20s expect pod over terminating
      at 20s expect pod over2 running
      at 21s expect pod over failed
      expect evictions = [over]
      expect pod over evicted reason=MemoryPressure
      expect pod low running
      """
    Then the expectations hold

  # B-003-12-14 B-003-12-15 B-001-03-05 B-003-12-21 B-003-12-24 B-001-02-02
  Scenario: B-003-12-14 a soft threshold raises the condition at once and evicts after its grace period
    Given the scenario:
      """
      node n1 cpu=4 memory=2Gi
      kubelet * {
        eviction-hard memory.available<100Mi
        eviction-soft memory.available<1.5Gi
        eviction-soft-grace-period memory.available=1m30s
        eviction-max-pod-grace-period 20s
      }
      pod a on n1 requests(memory=100Mi) usage(memory=700Mi) grace-period=60s
      at 10s create pod be on n1
      at 10s expect node n1 condition MemoryPressure
      at 10s expect node n1 taint node.kubernetes.io/memory-pressure:NoSchedule
      expect pod be rejected reason="The node had condition: [MemoryPressure]. "
      at 80s expect pod a running
      at 90s expect pod a terminating
      at 109s expect pod a terminating
      at 110s expect pod a failed
      expect evictions = [a]
      """
    Then the expectations hold

  # B-003-12-24 B-001-03-05: the condition stays for the pressure transition period.
  Scenario: B-003-12-24 the condition is held for the transition period after the signal recovers
    Given the scenario:
      """
      node n1 cpu=4 memory=1Gi
      kubelet * {
        eviction-hard memory.available<100Mi
        eviction-pressure-transition-period 1m
      }
      at 0s usage node n1 memory.available=50Mi
      at 15s usage node n1 memory.available=500Mi
      at 60s expect node n1 condition MemoryPressure
      at 70s expect node n1 condition MemoryPressure false
      at 70s expect node n1 taint node.kubernetes.io/memory-pressure:NoSchedule absent
      """
    Then the expectations hold

  # B-001-02-01 B-001-02-02 B-001-02-03 B-001-02-04 B-001-02-05 B-001-02-06 B-003-06-18
  # Upstream admits critical pods under any pressure and, under DiskPressure (alone or with
  # MemoryPressure), rejects every other pod; seed 001's older code differed (upstream wins).
  Scenario: B-001-02-03 under DiskPressure every pod but a critical one is rejected
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi ephemeral-storage=10Gi
      kubelet * {
        eviction-hard nodefs.available<1Gi memory.available<100Mi
      }
      at 0s usage node n1 nodefs.available=500Mi memory.available=50Mi
      at 5s create pod g on n1 requests(cpu=1, memory=1Gi) limits(cpu=1, memory=1Gi)
      at 5s create pod kube-system/c on n1 critical
      at 5s create pod p
      expect pod g rejected reason="The node had condition: [MemoryPressure DiskPressure]. "
      expect pod kube-system/c running on n1
      expect pod p pending reason="untolerated taint"
      """
    Then the expectations hold

  # B-003-12-03 B-003-12-25 B-001-04-01 B-001-04-02 B-003-12-36 B-003-12-37
  # B-001-04-03: reclaim functions never fail in kruleset.
  Scenario: B-003-12-25 unused images are deleted before any pod is evicted
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi ephemeral-storage=10Gi images(unused=4Gi)
      kubelet * {
        eviction-hard nodefs.available<1Gi
        eviction-minimum-reclaim nodefs.available=500Mi
      }
      pod a on n1 usage(ephemeral-storage=2Gi)
      at 10s usage node n1 nodefs.available=512Mi
      expect pod a running
      expect evictions = []
      """
    Then the expectations hold

  # B-003-12-37 B-003-12-38 B-001-03-02 B-003-12-36: reclaim that leaves the signal past the
  # threshold but not past threshold + minimum reclaim still evicts a pod.
  Scenario: B-003-12-37 minimum reclaim: freeing less than the minimum still evicts a pod
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi ephemeral-storage=10Gi images(unused=700Mi)
      kubelet * {
        eviction-hard memory.available<500Mi nodefs.available<1Gi imagefs.available<100Gi
        eviction-minimum-reclaim memory.available=0Mi nodefs.available=500Mi imagefs.available=2Gi
      }
      pod a on n1 usage(ephemeral-storage=2Gi)
      at 10s usage node n1 nodefs.available=512Mi
      expect pod a evicted reason=DiskPressure
      """
    Then the expectations hold

  # B-003-12-13 B-003-12-43 B-003-12-44 B-003-12-07: the 10GiB example: 500Mi hard threshold and
  # 1.5Gi system-reserved; allocatable is 8.5Gi.
  Scenario: B-003-12-43 the 10GiB node with 500Mi threshold and system-reserved 1.5Gi
    Given the scenario:
      """
      node n1 cpu=8 memory=10Gi reserved(memory=1.5Gi)
      kubelet * {
        eviction-hard memory.available<500Mi
      }
      pod a on n1 requests(memory=8Gi) limits(memory=8Gi) usage(memory=8Gi)
      at 5s create pod b on n1 requests(memory=1Gi)
      at 10s usage node n1 memory.available=400Mi
      expect pod b rejected reason="OutOfmemory"
      expect pod a evicted reason=MemoryPressure
      """
    Then the expectations hold

  # B-003-12-30 B-003-12-45 B-003-12-31: only pods within their requests remain; the lowest
  # priority goes; a static pod is never evicted.
  Scenario: B-003-12-30 when system daemons overrun, the lowest-priority pod within requests goes
    Given the scenario:
      """
      node n1 cpu=4 memory=2Gi
      kubelet * {
        eviction-hard memory.available<100Mi
      }
      pod high on n1 priority=1000 requests(memory=500Mi) limits(memory=500Mi) usage(memory=400Mi)
      pod lowest on n1 priority=1 requests(memory=500Mi) limits(memory=500Mi) usage(memory=400Mi)
      pod kube-system/static-low on n1 static priority=0 usage(memory=100Mi)
      at 10s usage node n1 memory.available=50Mi
      expect evictions = [lowest]
      expect pod kube-system/static-low running
      """
    Then the expectations hold

  # B-003-12-32 B-003-12-06: PID pressure ranks by priority.
  Scenario: B-003-12-32 PID pressure evicts the lowest-priority pod
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi pid-max=1000
      kubelet * {
        eviction-hard pid.available<100
      }
      pod busy on n1 priority=10 usage(pids=800)
      pod idle on n1 priority=1 usage(pids=50)
      at 10s usage pod busy pids=870
      expect pod idle evicted reason=PIDPressure
      expect pod busy running
      """
    Then the expectations hold

  # B-003-12-33 B-003-12-34 B-003-12-09 B-003-12-10 B-003-12-26: with a dedicated imagefs, nodefs
  # ranks by logs and volumes only.
  Scenario: B-003-12-34 with a dedicated imagefs a nodefs signal ranks by logs and local volumes
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi ephemeral-storage=10Gi imagefs=100Gi
      kubelet * {
        eviction-hard nodefs.available<1Gi
        filesystems nodefs+imagefs
      }
      pod layers on n1 usage(writable-layer=50Gi, ephemeral-storage=1Gi)
      pod logs on n1 usage(ephemeral-storage=8Gi)
      at 10s usage pod logs ephemeral-storage=8500Mi
      expect evictions = [logs]
      """
    Then the expectations hold

  # B-003-12-19 B-003-12-35 B-003-12-27 B-003-12-10: custom containerfs thresholds are ignored.
  Scenario: B-003-12-19 containerfs thresholds copy nodefs and a custom one is ignored
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi ephemeral-storage=10Gi
      kubelet * {
        eviction-hard nodefs.available<100Mi containerfs.available<9Gi
      }
      pod a on n1 usage(ephemeral-storage=2Gi)
      expect evictions = []
      """
    Then the expectations hold

  # Local storage: B-003-12-01 (emptyDir sizeLimit, ephemeral-storage limits)
  Scenario: B-003-12-01 a pod over its ephemeral-storage limit is evicted without node pressure
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi ephemeral-storage=100Gi
      pod a on n1 limits(ephemeral-storage=1Gi) usage(ephemeral-storage=2Gi)
      pod b on n1 limits(ephemeral-storage=4Gi) usage(ephemeral-storage=2Gi)
      expect pod a evicted reason=EphemeralStorage
      expect pod b running
      """
    Then the expectations hold
