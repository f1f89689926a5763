"""Pods a `kubectl get -o yaml` dump shows as finished hold no resources."""

from pathlib import Path

import kruleset

DUMP = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status:
    capacity: {cpu: "2", memory: 4Gi, pods: "110"}
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: done, namespace: default}
  spec:
    nodeName: n1
    containers:
    - name: c
      resources: {requests: {cpu: "2"}}
  status: {phase: Succeeded}
"""


def test_a_succeeded_pod_from_a_dump_frees_its_node(tmp_path: Path) -> None:
    (tmp_path / "dump.yaml").write_text(DUMP)
    kr = tmp_path / "s.kr"
    kr.write_text('include "dump.yaml"\npod new requests(cpu=2)\n'
                  "expect pod done succeeded\nexpect pod new running on n1\n")
    result = kruleset.run(kruleset.load(kr))
    assert [r.passed for r in result.expectations] == [True, True], [
        r.message for r in result.expectations]
