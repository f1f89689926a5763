"""A cluster at real size for the HTML report's browser tests and screenshots.

300 nodes named as EKS names them, stretched to 60 characters (the width the
report must lay out), about 3,500 pods: 3,000 running from the start, 400
scheduled at 10 s, 30 high-priority pods preempting at 20 s, 60 pods too big
for any node left pending with a failed expectation, and a node drained at
40 s (evictions through the API).
"""

from __future__ import annotations

__all__ = ["NAME_LENGTH", "node_name", "scenario_text"]

NAME_LENGTH = 60


def node_name(i: int) -> str:
    """``ip-10-0-1-17.eu-west-1.compute.internal``, padded with its node group to 60."""
    base = f"ip-10-{i // 200}-{i // 10 % 20}-{i % 10 + 10}.eu-west-1.compute.internal"
    return (base + "-ng-general-purpose-" + "x" * NAME_LENGTH)[:NAME_LENGTH - 4] + f"{i:04d}"


def scenario_text(nodes: int = 300, per_node: int = 10) -> str:
    names = [node_name(i) for i in range(nodes)]
    lines = [f'scenario "{nodes} nodes, {nodes * per_node + 490} pods"',
             "priorityclass high value=1000"]
    lines += [f"node {n} cpu=4 memory=16Gi" for n in names]
    lines += [f"pods p{i}-[1..{per_node}] on {n} cpu=300m memory=1Gi started=-{i % 60}s"
              for i, n in enumerate(names)]
    lines += ["at 10s create pods web-[1..400] cpu=500m memory=512Mi",
              "at 20s create pods big-[1..30] priorityclass=high cpu=2 memory=1Gi",
              "at 30s create pods huge-[1..60] cpu=3 memory=1Gi",
              f"at 40s drain node {names[5]}",
              "expect pods default/web-* running count=400",
              "expect pods default/big-* running count=30",
              "expect pods default/huge-* running count=60",
              "run until 2m"]
    return "\n".join(lines) + "\n"
