Feature: Critical-pod admission preemption (seed 000)

  # B-000-01-04 B-000-02-01 B-000-03-01 B-000-03-02 B-000-03-03 B-000-03-04 B-000-03-05
  # B-000-04-01 B-000-04-04 B-000-04-05
  # B-000-03-06: the document's example has 40M of BestEffort pods covering the
  # last 10M, but BestEffort pods request no memory, so upstream takes the
  # remaining 10M from the Burstable pods (upstream wins; see NOTES).
  Scenario: B-000-03-06 the 100M example
    Given the scenario:
      """
      node n1 cpu=4 memory=200M pods=10
      pod b on n1 requests(cpu=100m, memory=90M) limits(cpu=100m, memory=90M)
      pod bu1 on n1 requests(memory=25M) limits(memory=50M)
      pod bu2 on n1 requests(memory=25M) limits(memory=50M)
      pod be1 on n1
      pod be2 on n1
      pod filler on n1 requests(memory=60M) limits(memory=80M) priority=2000000000
      at 10s create pod kube-system/critical-a on n1 priority=2000000000 requests(memory=100M)
      expect victims of kube-system/critical-a = [b, bu2]
      expect pod kube-system/critical-a running on n1
      expect pod be1 running
      expect pod bu1 running
      expect pod b preempted by kube-system/critical-a
      """
    Then the expectations hold

  # B-000-01-01
  Scenario: B-000-01-01 a pod that is not critical is rejected and nothing is evicted
    Given the scenario:
      """
      node n1 cpu=1 memory=1Gi
      pod a on n1 requests(cpu=800m)
      at 10s create pod b on n1 priority=1000000000 requests(cpu=500m)
      expect pod b rejected reason="OutOfcpu"
      expect pod b rejected reason="Node didn't have enough resource: cpu, requested: 500, used: 800, capacity: 1000"
      expect pod a running
      """
    Then the expectations hold

  # B-000-01-02 B-000-01-03
  Scenario: B-000-01-03 a port conflict cancels preemption even when cpu is short too
    Given the scenario:
      """
      node n1 cpu=1 memory=1Gi
      pod a on n1 requests(cpu=800m) host-ports(80)
      at 10s create pod kube-system/c on n1 critical requests(cpu=500m) host-ports(80)
      expect pod kube-system/c rejected reason="NodePorts"
      expect pod a running
      expect victims of kube-system/c = []
      """
    Then the expectations hold

  # B-000-01-05 B-000-03-02 B-000-04-03
  Scenario: B-000-01-05 no set of pods can free the amounts
    Given the scenario:
      """
      node n1 cpu=1 memory=1Gi
      pod a on n1 requests(cpu=300m)
      at 10s create pod kube-system/c on n1 critical requests(cpu=1500m)
      expect pod kube-system/c rejected reason="preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 500), ]"
      expect pod a running
      """
    Then the expectations hold

  # B-000-02-02 B-000-02-03
  # Victims get reason Preempting (upstream's events.PreemptContainer constant is "Preempting").
  # B-000-02-05: the preemption metric is not observable in kruleset; its
  # observable consequence is the victim being preempted.
  Scenario: B-000-02-02 preemption may free more than is needed
    Given the scenario:
      """
      node n1 cpu=4 memory=1000M
      pod big on n1 requests(memory=250M) limits(memory=250M)
      pod rest on n1 priority=2000000000 requests(memory=700M)
      at 10s create pod kube-system/c on n1 priority=2000000000 requests(memory=250M)
      expect victims of kube-system/c = [big]
      expect pod big preempted by kube-system/c
      expect pod big failed
      """
    Then the expectations hold

  # B-000-02-04: a kill that fails is logged and skipped; kruleset's kills never
  # fail, so what is observable is that admission does not wait on them: the
  # critical pod runs while its victim is still terminating.
  Scenario: B-000-02-04 the critical pod is admitted while its victims terminate
    Given the scenario:
      """
      node n1 cpu=1 memory=1Gi
      pod a on n1 requests(cpu=800m) grace-period=60s
      at 10s create pod kube-system/c on n1 critical requests(cpu=500m)
      at 20s expect pod a terminating
      at 20s expect pod kube-system/c running on n1
      """
    Then the expectations hold

  # B-000-04-02
  Scenario: B-000-04-02 at equal distance the smaller request is chosen
    Given the scenario:
      """
      node n1 cpu=2 memory=2Gi
      pod large on n1 requests(cpu=900m, memory=600Mi) limits(cpu=900m, memory=600Mi)
      pod small on n1 requests(cpu=900m, memory=300Mi) limits(cpu=900m, memory=300Mi)
      at 10s create pod kube-system/c on n1 critical requests(cpu=300m)
      expect victims of kube-system/c = [small]
      """
    Then the expectations hold
