# Part of a cluster dump: `include "FILE" namespaces(…) selector(…)` keeps the
# namespaced objects of some namespaces and the pods (and workload templates)
# whose labels match; nodes are always kept (LANGUAGE.md §9).  The dump is
# examples/dump/cluster.json: three nodes, a web Deployment (2 of its 4
# replicas running, required anti-affinity per host), redis-0 on node-1 and
# a batch report on the tainted node-3.
Feature: include reads part of a cluster dump

  Scenario: namespaces(…) leaves the other namespaces' pods out, freeing their nodes
    Given the scenario:
      """
      include "../../examples/dump/cluster.json" namespaces(batch)
      pod big requests(cpu=3)
      expect pod batch/nightly-report running on node-3
      expect pod big running on node-1
      """
    Then the expectations hold

  Scenario: selector(…) keeps the matching pods only; the web Deployment's template does not match
    Given the scenario:
      """
      include "../../examples/dump/cluster.json" selector(app=redis)
      pod big requests(cpu=3500m)
      expect pod shop/redis-0 running on node-1
      expect pod big running on node-2
      """
    Then the expectations hold

  Scenario: selector(…) keeps a workload whose pod template matches: it goes on creating pods
    Given the scenario:
      """
      include "../../examples/dump/cluster.json" selector(app=web)
      pod big requests(cpu=2300m)
      expect pods shop/web-* running count=2
      expect pod shop/web-2 pending
      expect pod big running on node-1
      """
    Then the expectations hold

  Scenario: a filter that names no namespace is refused
    Given the scenario:
      """
      include "../../examples/dump/cluster.json" namespaces()
      """
    Then the scenario is refused with "expected at least one entry"

  Scenario: an unknown option of include is refused
    Given the scenario:
      """
      include "../../examples/dump/cluster.json" labels(app=web)
      """
    Then the scenario is refused with "unknown include option 'labels'"
