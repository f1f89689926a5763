# Seed 003 §10: bin packing with NodeResourcesFit's scoring strategies.
Feature: Bin packing (seed 003 §10)

  # B-003-10-01
  # B-003-10-05
  # B-003-10-06
  # B-003-10-07
  # Upstream scales the shape's 0-10 scores by 10 and rounds the weighted mean:
  # node 1 scores round(539/9) = 60 and node 2 round(625/9) = 69, the document's
  # 5 and 7 on its 0-10 scale; 1GB is taken as 1024Mi.
  Scenario: B-003-10-07 the worked RequestedToCapacityRatio example ranks node 2 (7) above node 1 (5)
    Given the scenario:
      """
      config scheduler "binpack-rtcr.yaml"
      node node1 cpu=8 memory=1Gi intel.com/foo=4
      node node2 cpu=8 memory=1Gi intel.com/foo=8
      pod used1 on node1 requests(cpu=1, memory=256Mi, intel.com/foo=1)
      pod used2 on node2 requests(cpu=6, memory=512Mi, intel.com/foo=2)
      pod incoming requests(cpu=2, memory=256Mi, intel.com/foo=2)
      expect pod incoming running on node2
      """
    Then the expectations hold

  # B-003-10-02
  Scenario: B-003-10-02 MostAllocated with weights cpu 1, memory 1, intel.com/foo 3, intel.com/bar 3 favours the fuller node
    Given the scenario:
      """
      config scheduler "binpack-most.yaml"
      node empty cpu=8 memory=16Gi intel.com/foo=4 intel.com/bar=4
      node half cpu=8 memory=16Gi intel.com/foo=4 intel.com/bar=4
      pod filler on half requests(cpu=4, memory=8Gi, intel.com/foo=2)
      pod incoming requests(cpu=1, memory=1Gi, intel.com/foo=1, intel.com/bar=1)
      expect pod incoming running on half
      """
    Then the expectations hold

  # B-003-10-03
  Scenario: B-003-10-03 shape 0→0, 100→10 packs; the reversed shape 0→10, 100→0 spreads
    Given the scenario:
      """
      config scheduler "binpack-pack.yaml"
      nodes n[1..2] cpu=8 memory=16Gi
      pod a requests(cpu=2, memory=2Gi)
      pod b requests(cpu=2, memory=2Gi)
      expect pod a running on n1
      expect pod b running on n1
      """
    Then the expectations hold

  # B-003-10-03
  Scenario: B-003-10-03 the reversed shape behaves like least-requested
    Given the scenario:
      """
      config scheduler "binpack-reverse.yaml"
      nodes n[1..2] cpu=8 memory=16Gi
      pod a requests(cpu=2, memory=2Gi)
      pod b requests(cpu=2, memory=2Gi)
      expect pod a running on n1
      expect pod b running on n2
      """
    Then the expectations hold

  # B-003-10-04
  # Without resources, cpu and memory count with weight 1 each: the node with
  # memory in use packs better (packing shape) than the one with cpu in use.
  Scenario: B-003-10-04 resources default to cpu and memory, each with weight 1
    Given the scenario:
      """
      config scheduler "binpack-pack.yaml"
      node cpu-used cpu=8 memory=16Gi
      node mem-used cpu=8 memory=16Gi
      pod c on cpu-used requests(cpu=2)
      pod m on mem-used requests(memory=12Gi)
      pod incoming requests(cpu=1, memory=1Gi)
      expect pod incoming running on mem-used
      """
    Then the expectations hold
