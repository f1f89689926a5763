# Seed 004 §1 and upstream's ElasticQuota semantics (CapacityScheduling PreFilter
# and accounting).  Any quota turns CapacityScheduling on.
Feature: ElasticQuota min, max and used (seed 004 §1)

  # B-004-01-01
  Scenario: B-004-01-01 ElasticQuota objects are read under both API groups; status.used is ignored
    Given the scenario:
      """
      node n1 cpu=16 memory=32Gi
      include "elasticquotas.yaml"
      pods ns-a/p-[1..3] requests(cpu=2)
      expect pods ns-a/p-* running count=3
      expect quota ns-a used(cpu=6)
      expect quota ns-b used(cpu=0)
      """
    Then the expectations hold

  # B-004-01-02
  Scenario: B-004-01-02 a namespace within its min runs its pods normally
    Given the scenario:
      """
      node n1 cpu=8 memory=32Gi
      quota ns-a min(cpu=6) max(cpu=10)
      pods ns-a/p-[1..3] requests(cpu=2)
      expect pods ns-a/p-* running count=3
      expect quota ns-a used(cpu=6)
      """
    Then the expectations hold

  # B-004-01-03
  Scenario: B-004-01-03 a namespace goes above its min by borrowing the unused min of another
    Given the scenario:
      """
      node n1 cpu=16 memory=32Gi
      quota ns-a min(cpu=4) max(cpu=10)
      quota ns-b min(cpu=6) max(cpu=10)
      pods ns-a/p-[1..4] requests(cpu=2)
      expect pods ns-a/p-* running count=4
      expect quota ns-a used(cpu=8)
      """
    Then the expectations hold

  # B-004-01-03
  Scenario: B-004-01-03 borrowing stops at the sum of all mins, even with max and node room left
    Given the scenario:
      """
      node n1 cpu=16 memory=32Gi
      quota ns-a min(cpu=4) max(cpu=10)
      quota ns-b min(cpu=2) max(cpu=10)
      pods ns-a/p-[1..4] requests(cpu=2)
      expect pods ns-a/p-* running count=3
      expect pod ns-a/p-4 pending reason="Pod ns-a/p-4 is rejected in PreFilter because total ElasticQuota used is more than min"
      """
    Then the expectations hold

  # B-004-01-03
  Scenario: B-004-01-03 the max check refuses a pod above max even when the other quotas' min is unused
    Given the scenario:
      """
      node n1 cpu=16 memory=32Gi
      quota ns-a min(cpu=4) max(cpu=6)
      quota ns-b min(cpu=20) max(cpu=20)
      pods ns-a/p-[1..4] requests(cpu=2)
      expect pods ns-a/p-* running count=3
      expect pod ns-a/p-4 pending reason="0/1 nodes are available: Pod ns-a/p-4 is rejected in PreFilter because ElasticQuota ns-a is more than Max."
      """
    Then the expectations hold

  Scenario: used plus request equal to max is not more than max
    Given the scenario:
      """
      node n1 cpu=16 memory=32Gi
      quota ns-a min(cpu=10) max(cpu=6)
      pods ns-a/p-[1..3] requests(cpu=2)
      expect pods ns-a/p-* running count=3
      expect quota ns-a used(cpu=6)
      """
    Then the expectations hold

  # B-004-01-05
  Scenario: B-004-01-05 memory is checked like cpu
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=8, memory=8Gi) max(cpu=8, memory=10Gi)
      pods ns-a/p-[1..3] requests(cpu=1, memory=4Gi)
      expect pods ns-a/p-* running count=2
      expect pod ns-a/p-3 pending reason="ElasticQuota ns-a is more than Max"
      expect quota ns-a used(cpu=2, memory=8Gi)
      """
    Then the expectations hold

  # B-004-01-05
  Scenario: B-004-01-05 a GPU max is enforced; a GPU left out of min counts as 0
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi nvidia.com/gpu=8
      quota ns-a min(cpu=8, memory=8Gi, nvidia.com/gpu=4) max(cpu=8, memory=8Gi, nvidia.com/gpu=2)
      quota ns-b min(cpu=8, memory=8Gi) max(cpu=8, memory=8Gi, nvidia.com/gpu=8)
      pods ns-a/p-[1..3] requests(cpu=1, nvidia.com/gpu=1)
      pods ns-b/g-[1..2] requests(cpu=1, nvidia.com/gpu=1)
      expect pods ns-a/p-* running count=2
      expect pod ns-a/p-3 pending reason="ElasticQuota ns-a is more than Max"
      expect pods ns-b/g-* running count=2
      expect quota ns-b used(nvidia.com/gpu=2)
      """
    Then the expectations hold

  Scenario: a resource left out of a max that is present counts as 0, so a pod requesting memory is refused
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=8, memory=8Gi) max(cpu=10)
      pod ns-a/cpu-only requests(cpu=1)
      pod ns-a/with-memory requests(cpu=1, memory=1Gi)
      expect pod ns-a/cpu-only running
      expect pod ns-a/with-memory pending reason="ElasticQuota ns-a is more than Max"
      """
    Then the expectations hold

  Scenario: an extended resource left out of max is unlimited
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi example.com/foo=10
      quota ns-a min(cpu=8, memory=8Gi, example.com/foo=10) max(cpu=8, memory=8Gi)
      pod ns-a/p requests(cpu=1, example.com/foo=5)
      expect pod ns-a/p running
      """
    Then the expectations hold

  Scenario: without a max a quota is unlimited in cpu, memory and ephemeral-storage
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=12, memory=32Gi)
      pods ns-a/p-[1..6] requests(cpu=2, memory=4Gi)
      expect pods ns-a/p-* running count=6
      """
    Then the expectations hold

  Scenario: without a min a quota guarantees nothing: its pods run only on other quotas' unused min
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a max(cpu=10)
      quota ns-b min(cpu=3) max(cpu=10)
      pods ns-a/p-[1..2] requests(cpu=2)
      expect pod ns-a/p-1 running
      expect pod ns-a/p-2 pending reason="total ElasticQuota used is more than min"
      """
    Then the expectations hold

  Scenario: pods of a namespace without a quota are neither checked nor counted
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=2) max(cpu=2)
      pods free/p-[1..3] requests(cpu=4, memory=1Gi)
      pod ns-a/q requests(cpu=2)
      expect pods free/p-* running count=3
      expect pod ns-a/q running
      expect quota ns-a used(cpu=2)
      """
    Then the expectations hold

  Scenario: a terminating pod still counts in used until it is gone
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=4) max(cpu=4)
      pod ns-a/old requests(cpu=4) grace-period=60s
      at 10s delete pod ns-a/old
      at 10s create pod ns-a/new requests(cpu=2)
      at 20s expect pod ns-a/old terminating
      at 20s expect quota ns-a used(cpu=4)
      at 20s expect pod ns-a/new pending reason="ElasticQuota ns-a is more than Max"
      expect pod ns-a/new running
      expect quota ns-a used(cpu=2)
      """
    Then the expectations hold

  Scenario: a pod that succeeded or failed no longer counts
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=4) max(cpu=4)
      pod ns-a/done requests(cpu=2)
      pod ns-a/broken requests(cpu=2)
      at 10s complete pod ns-a/done
      at 10s fail pod ns-a/broken
      at 20s expect quota ns-a used(cpu=0)
      """
    Then the expectations hold

  Scenario: a quota created later starts from 0 and ignores pods already running, as upstream's informers do
    Given the scenario:
      """
      node n1 cpu=16 memory=64Gi
      pod ns-a/early requests(cpu=4)
      at 10s create quota ns-a min(cpu=4) max(cpu=4)
      at 10s create pod ns-a/late requests(cpu=4)
      expect pod ns-a/early running
      expect pod ns-a/late running
      expect quota ns-a used(cpu=4)
      """
    Then the expectations hold

  # B-004-05-01
  Scenario: B-004-05-01 a scheduler configuration without CapacityScheduling ignores the quotas
    Given the scenario:
      """
      config scheduler "default-only.yaml"
      node n1 cpu=16 memory=64Gi
      quota ns-a min(cpu=2) max(cpu=2)
      pods ns-a/p-[1..3] requests(cpu=2)
      expect pods ns-a/p-* running count=3
      """
    Then the expectations hold
