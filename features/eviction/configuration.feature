Feature: Eviction manager configuration, timing and what kruleset does not observe (seed 001, 003 §12)

  # B-001-01-01 B-003-12-14: a soft threshold without a grace period refuses the configuration.
  Scenario: B-001-01-01 a soft threshold without its grace period is refused
    Given the scenario:
      """
      node n1 cpu=4 memory=4Gi
      kubelet * {
        eviction-soft memory.available<1Gi
      }
      """
    Then the scenario is refused with "grace period must be specified for the soft eviction threshold memory.available"

  # B-003-12-17 B-003-12-18 B-001-01-02 B-001-01-05: without eviction-hard the defaults apply
  # (memory.available<100Mi among them); giving any eviction-hard replaces them all.
  Scenario: B-003-12-17 the default hard threshold applies, and disappears once eviction-hard is set
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=1Gi
      kubelet n2 {
        eviction-hard nodefs.available<10%
      }
      pod a on n1 usage(memory=950Mi)
      pod b on n2 usage(memory=950Mi)
      expect pod a evicted reason=MemoryPressure
      expect pod b running
      """
    Then the expectations hold

  # B-001-01-04 B-003-12-20 B-003-12-23: passes run at 0s and every housekeeping interval.
  # B-001-01-03: the filesystem layout is known from the start in kruleset (no skipped pass).
  Scenario: B-001-01-04 a threshold crossed between passes is acted on at the next pass
    Given the scenario:
      """
      node n1 cpu=4 memory=1Gi
      kubelet * {
        eviction-hard memory.available<100Mi
        housekeeping-interval 30s
      }
      pod a on n1 usage(memory=100Mi)
      at 31s usage pod a memory=950Mi
      at 59s expect pod a running
      at 60s expect pod a terminating
      """
    Then the expectations hold

  # B-001-05-01: thresholds met with no pod to evict: nothing is evicted, the condition is set.
  # B-003-12-05 B-001-05-04: critical (static) pods are ranked and skipped; kills never fail here.
  Scenario: B-001-05-01 pressure with only a static pod evicts nothing
    Given the scenario:
      """
      node n1 cpu=4 memory=1Gi
      kubelet * {
        eviction-hard memory.available<100Mi
      }
      pod kube-system/etcd on n1 static usage(memory=980Mi)
      at 10s expect node n1 condition MemoryPressure
      expect evictions = []
      expect pod kube-system/etcd running
      """
    Then the expectations hold

  # B-001-06-01 B-001-06-02: with the override the pod's own grace period does not apply; the
  # kill's timeout and the ExceededGracePeriod event are not observable in kruleset.
  Scenario: B-001-06-01 the eviction's grace override replaces the pod's grace period
    Given the scenario:
      """
      node n1 cpu=4 memory=1Gi
      kubelet * {
        eviction-hard memory.available<100Mi
      }
      pod a on n1 usage(memory=980Mi) grace-period=10m
      at 0s expect pod a terminating
      at 1s expect pod a failed
      """
    Then the expectations hold

  # Not observable in kruleset, so each scenario checks the consequence it can see:
  # B-001-03-03 stale statistics (each pass reads fresh stats; the rule is unit-tested),
  # B-001-03-08 the EvictionThresholdMet event, B-001-07-01 memcg notification (passes run on the
  # interval only), B-003-12-08 how memory.available is measured, B-003-12-11 deprecated GC flags,
  # B-003-12-46 OOM before the kubelet observes, B-003-12-47 active_file accounting,
  # B-003-06-15 network partitions (the node controller's unreachable taint is not modelled):
  # the observable part is that memory.available is the signal `usage node` sets.
  Scenario: B-001-03-08 the signal the kubelet acts on is the one the scenario sets
    Given the scenario:
      """
      node n1 cpu=4 memory=2Gi
      kubelet * {
        eviction-hard memory.available<100Mi
      }
      pod a on n1 usage(memory=100Mi)
      at 10s usage node n1 memory.available=99Mi
      at 10s expect node n1 condition MemoryPressure
      expect pod a evicted reason=MemoryPressure
      """
    Then the expectations hold
