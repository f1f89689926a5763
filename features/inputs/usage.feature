# Usage as the kubelet reads it (issue 28): a container's own share of its
# pod's usage, checked against its ephemeral-storage limit as upstream's
# localStorageEviction (containerEphemeralStorageLimitEviction) does.
Feature: per-container usage and the kubelet's local-storage eviction

  Scenario: a container's logs and writable layer over its ephemeral-storage limit evict the pod
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi ephemeral-storage=100Gi
      pod two on n1 {
        container app requests(cpu=100m) limits(ephemeral-storage=1Gi)
        container side requests(cpu=100m) limits(ephemeral-storage=100Mi)
      }
      at 5s usage pod two container=side ephemeral-storage=60Mi writable-layer=30Mi
      at 10s expect pod two running
      at 15s usage pod two container=side writable-layer=50Mi
      at 20s expect pod two evicted
      """
    Then the expectations hold

  Scenario: with a dedicated image filesystem only the container's logs count
    Given the scenario:
      """
      kubelet * {
        filesystems nodefs+imagefs
      }
      node n1 cpu=4 memory=8Gi ephemeral-storage=100Gi imagefs=100Gi
      pod two on n1 {
        container app requests(cpu=100m) limits(ephemeral-storage=1Gi)
        container side requests(cpu=100m) limits(ephemeral-storage=100Mi)
      }
      at 5s usage pod two container=side ephemeral-storage=60Mi writable-layer=500Mi
      run until 1m
      expect pod two running
      """
    Then the expectations hold

  Scenario: a container the pod does not have is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod a on n1
      at 1s usage pod a container=nope memory=1Gi
      """
    Then the scenario is refused with "unknown container of pod default/a 'nope'"

  Scenario: node-1's Summary API document: the kubelet evicts the pod whose working set frees enough
    # examples/dump/summary-node-1.json: 9Gi available; redis-0 (priority 0) uses
    # 3.6Gi, under its request, as the web pod (priority 100000) does: redis-0 goes
    # first, memory.available then reads 12.6Gi and the web pod stays.
    Given the scenario:
      """
      include "../../examples/dump/cluster.json"
      include "../../examples/dump/summary-node-1.json"
      kubelet * {
        eviction-hard memory.available<10Gi
      }
      run until 1m
      expect pod shop/redis-0 evicted
      expect pod shop/web-7c9d6b5f4-2xk8p running on node-1
      """
    Then the expectations hold
