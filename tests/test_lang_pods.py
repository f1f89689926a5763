"""Pod attributes, pod blocks and deployments."""

from __future__ import annotations

import pytest

from kruleset.errors import ScenarioError
from kruleset.lang import parse_text
from kruleset.model import (
    Container,
    Deployment,
    EmptyDir,
    LabelSelector,
    NodeAffinity,
    NodeSelectorTerm,
    Pod,
    PodAffinityTerm,
    Requirement,
    Resources,
    Toleration,
    TopologySpreadConstraint,
    WeightedNodeTerm,
    WeightedPodAffinityTerm,
)

GI = 2**30
MI = 2**20
HEAD = "priorityclass high value=1000\nruntimeclass kata overhead(cpu=250m, memory=120Mi)\n" \
       "node n1 cpu=8 memory=16Gi\n"


def pods(text: str) -> list[Pod]:
    return [o for o in parse_text(HEAD + text, "t.kr").objects if isinstance(o, Pod)]


def pod(text: str) -> Pod:
    [p] = pods(text)
    return p


def refused(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_text(HEAD + text, "t.kr")
    return info.value


def R(**kw: int) -> Resources:  # noqa: N802 - reads like a constructor
    return Resources.of({k.replace("_", "-"): v for k, v in kw.items()})


def test_shorthand_requests_name_the_container_after_the_pod() -> None:
    p = pod("pod ns/a cpu=500m memory=1Gi\n")
    assert (p.namespace, p.name, p.node_name) == ("ns", "a", "")
    assert p.containers == (Container("a", R(cpu=500, memory=GI)),)
    assert p.qos == "Burstable"


def test_pod_without_resources_is_besteffort_with_one_container() -> None:
    for text in ("pod a\n", "pod a besteffort\n"):
        p = pod(text)
        assert p.containers == (Container("a"),)
        assert p.qos == "BestEffort"


def test_limits_default_the_requests() -> None:
    p = pod("pod a limits(cpu=1, memory=1Gi)\n")
    assert p.containers[0].requests == R(cpu=1000, memory=GI)
    assert p.qos == "Guaranteed"
    q = pod("pod a requests(cpu=500m) limits(cpu=1, memory=1Gi)\n")
    assert q.containers[0].requests == R(cpu=500, memory=GI)
    assert q.containers[0].limits == R(cpu=1000, memory=GI)


def test_on_node_and_every_attribute() -> None:
    p = pod("pod team/a on n1 priorityclass=high preemption=Never labels(app=web, e=\"\") "
            "started=-2h grace-period=10s runtimeclass=kata "
            "usage(memory=1Gi, ephemeral-storage=2Gi, writable-layer=1Mi, inodes=1k, pids=100) "
            "not-ready static host-ports(8080, 53/UDP) node-selector(zone=a) "
            "gates(example.com/foo, bar)\n")
    assert p.node_name == "n1"
    assert (p.priority_class, p.priority, p.preemption_policy) == ("high", None, "Never")
    assert dict(p.labels) == {"app": "web", "e": ""}
    assert (p.started, p.grace_period) == (-7_200_000, 10_000)
    assert (p.runtime_class, p.overhead) == ("kata", R(cpu=250, memory=120 * MI))
    assert p.usage == {"memory": GI, "ephemeral-storage": 2 * GI, "writable-layer": MI,
                       "inodes": 1000, "pids": 100}
    assert p.ready is False and p.static is True
    assert p.host_ports == ((8080, "TCP"), (53, "UDP"))
    assert dict(p.node_selector) == {"zone": "a"}
    assert p.gates == ("example.com/foo", "bar")


def test_priority_forms() -> None:
    assert pod("pod a priority=-5\n").priority == -5
    p = pod("pod a priority=1000 priorityclass=high\n")
    assert (p.priority, p.priority_class) == (1000, "high")


def test_critical() -> None:
    p = pod("pod a critical\n")
    assert (p.priority_class, p.priority) == ("system-cluster-critical", None)
    q = pod("pod a critical priorityclass=system-node-critical\n")
    assert q.priority_class == "system-node-critical"
    r = pod("pod a critical priority=2000000000\n")
    assert r.priority == 2_000_000_000 and r.critical


def test_tolerations() -> None:
    p = pod("pod a tolerations(k=v:NoSchedule, k:NoExecute for 60s, k=v, k, *:NoSchedule, *, "
            "k:NoExecute for 1m30s)\n")
    assert p.tolerations == (
        Toleration("k", "Equal", "v", "NoSchedule"),
        Toleration("k", "Exists", "", "NoExecute", 60),
        Toleration("k", "Equal", "v", ""),
        Toleration("k", "Exists", "", ""),
        Toleration("", "Exists", "", "NoSchedule"),
        Toleration("", "Exists", "", ""),
        Toleration("k", "Exists", "", "NoExecute", 90),
    )


def test_pods_range_on_a_node() -> None:
    ps = pods("pods ns/web-[1..3] on n1 cpu=1\n")
    assert [p.key for p in ps] == ["ns/web-1", "ns/web-2", "ns/web-3"]
    assert [p.containers[0].name for p in ps] == ["web-1", "web-2", "web-3"]
    assert all(p.node_name == "n1" for p in ps)


def test_block_containers_and_init_containers() -> None:
    p = pod("pod a priority=3 {\n"
            "  container app requests(cpu=1) limits(cpu=2)\n"
            "  container log limits(memory=1Gi)\n"
            "  init-container side restart=Always requests(cpu=100m)\n"
            "  init-container setup limits(cpu=1)\n"
            "}\n")
    assert p.containers == (Container("app", R(cpu=1000), R(cpu=2000)),
                            Container("log", R(memory=GI), R(memory=GI)))
    assert p.init_containers == (Container("side", R(cpu=100), R(), True),
                                 Container("setup", R(cpu=1000), R(cpu=1000)))
    assert p.requests.cpu == 1100


def test_block_affinity_spread_emptydir() -> None:
    p = pod("pod a {\n"
            "  affinity node required zone in (a, b), cores > 4, metadata.name=n1 | !gpu\n"
            "  affinity node preferred weight=10 zone=a, cores < 8\n"
            "  affinity pod required app=web topology=kubernetes.io/hostname namespaces(team) "
            "match-label-keys(app) mismatch-label-keys(v)\n"
            "  anti-affinity pod preferred weight=5 app!=db, tier notin (x) topology=zone "
            "namespace-selector(env=prod)\n"
            "  affinity pod preferred weight=1 selector(x) topology=zone\n"
            "  anti-affinity pod required topology=zone\n"
            "  spread max-skew=1 topology=zone selector(app=web) min-domains=2\n"
            "  spread max-skew=2 topology=host when-unsatisfiable=ScheduleAnyway selector() "
            "match-label-keys(pod-template-hash) node-affinity-policy=Ignore "
            "node-taints-policy=Honor\n"
            "  emptydir scratch size-limit=1Gi medium=Memory usage=10Mi\n"
            "  emptydir logs\n"
            "}\n")
    assert p.node_affinity == NodeAffinity(
        (NodeSelectorTerm((Requirement("zone", "In", ("a", "b")),
                           Requirement("cores", "Gt", ("4",))),
                          (Requirement("metadata.name", "In", ("n1",)),)),
         NodeSelectorTerm((Requirement("gpu", "DoesNotExist"),))),
        (WeightedNodeTerm(10, NodeSelectorTerm((Requirement("zone", "In", ("a",)),
                                                Requirement("cores", "Lt", ("8",))))),))
    assert p.pod_affinity == (PodAffinityTerm(
        LabelSelector((Requirement("app", "In", ("web",)),)), "kubernetes.io/hostname",
        ("team",), None, ("app",), ("v",)),)
    assert p.pod_anti_affinity_preferred == (WeightedPodAffinityTerm(5, PodAffinityTerm(
        LabelSelector((Requirement("app", "NotIn", ("db",)),
                       Requirement("tier", "NotIn", ("x",)))), "zone",
        namespace_selector=LabelSelector((Requirement("env", "In", ("prod",)),)))),)
    assert p.pod_affinity_preferred == (WeightedPodAffinityTerm(1, PodAffinityTerm(
        LabelSelector((Requirement("x", "Exists"),)), "zone")),)
    assert p.pod_anti_affinity == (PodAffinityTerm(LabelSelector(), "zone"),)
    assert p.spread == (
        TopologySpreadConstraint(1, "zone", "DoNotSchedule",
                                 LabelSelector((Requirement("app", "In", ("web",)),)), 2),
        TopologySpreadConstraint(2, "host", "ScheduleAnyway", LabelSelector(), None,
                                 ("pod-template-hash",), "Ignore", "Honor"),
    )
    assert p.emptydirs == (EmptyDir("scratch", GI, True, 10 * MI), EmptyDir("logs"))


def test_spread_defaults() -> None:
    p = pod("pod a {\n  spread max-skew=1 topology=zone selector(app=web)\n}\n")
    c = p.spread[0]
    assert (c.when_unsatisfiable, c.node_affinity_policy, c.node_taints_policy,
            c.min_domains) == ("DoNotSchedule", "Honor", "Ignore", None)


def test_deployment_template() -> None:
    [d] = [o for o in parse_text(HEAD + "deployment ns/web replicas=3 priorityclass=high "
                                 "requests(cpu=1) labels(app=web)\n").objects
           if isinstance(o, Deployment)]
    assert (d.namespace, d.name, d.replicas) == ("ns", "web", 3)
    t = d.template
    assert (t.namespace, t.name, t.owner_kind, t.owner_name) == ("ns", "web", "ReplicaSet", "web")
    assert t.containers == (Container("web", R(cpu=1000)),)
    assert t.priority_class == "high" and dict(t.labels) == {"app": "web"}


@pytest.mark.parametrize(("text", "message", "column"), [
    ("pod a priorityclass=hgh\n", "unknown priority class 'hgh', did you mean 'high'?", 21),
    ("pod a cpu=-1\n", "cpu request may not be negative", 11),
    ("pod a requests(cpu=2) limits(cpu=1)\n", "the cpu limit is below its request", 23),
    ("pod a prority=5\n", "unknown pod attribute 'prority', did you mean 'priority'?", 7),
    ("pod a on n2\n", "unknown node 'n2'", 10),
    ("pod a cpu=\n", "missing value after 'cpu='", 11),
    ("pod a cpu = 1\n", "write cpu=1 without spaces around '='", 11),
    ("pod a critical priorityclass=high\n", "'critical' needs a priority of at least", 7),
    ("pod a critical priority=5\n", "but priority=5 gives 5", 7),
    ("pod a priority=5 priorityclass=high\n", "does not agree with priority class 'high'", 7),
    ("pod a runtimeclass=gvisor\n", "unknown runtime class 'gvisor'", 20),
    ("pod a tolerations(k:NoExecte)\n", "did you mean 'NoExecute'?", 21),
    ("pod a tolerations(k:NoSchedule for 10s)\n", "needs the NoExecute effect", 32),
    ("pod a tolerations(k:NoExecute for 1500ms)\n", "whole seconds", 35),
    ("pod a tolerations(*=v)\n", "takes no value", 19),
    ("pod a cpus=1\n", "unknown pod attribute 'cpus', did you mean 'cpu'?", 7),
    ("pod a requests(cpus=1)\n", "unknown resource 'cpus', did you mean 'cpu'?", 16),
    ("pod a requests(pods=1)\n", "'pods' is not a container resource", 16),
    ("pod a besteffort cpu=1\n", "no requests and no limits", 7),
    ("pod a cpu=1 requests(memory=1)\n", "both give requests", 7),
    ("pod a labels(x)\n", "expected key=value in labels", 14),
    ("pod a labels(x=1, x=2)\n", "label 'x' is given twice", 19),
    ("pod a labels(-x=1)\n", "not a valid label key", 14),
    ("pod a host-ports(70000)\n", "at most 65535", 18),
    ("pod a host-ports(53/ICMP)\n", "unknown protocol 'ICMP'", 21),
    ("pod a preemption=never\n", "unknown preemption policy 'never', did you mean 'Never'?", 18),
    ("pod a grace-period=-1s\n", "may not be negative", 20),
    ("pod a started=soon\n", "not a duration", 15),
    ("pod a usage(cpu=1)\n", "unknown key in usage(…) 'cpu'", 13),
    ("pod a labels\n", "'labels' is written NAME(…)", 7),
    ("pod a container(x)\n", "'container' is a block item", 7),
    ("pod a priority=1 priority=2\n", "'priority' is given twice", 18),
    ("pod a[1..2]\n", "use 'pods' for a range", 1),
    ("pods a cpu=1\n", "'pods' needs a range", 6),
    ("pod a\npod a\n", "pod 'default/a' is already declared (line 4)", 5),
    ("deployment d\n", "a deployment needs replicas=N", 13),
    ("deployment d replicas=-1\n", "at least 0", 23),
    ("deployment d replicas=1\npod d-1\n", "has the name deployment 'default/d' gives its pods",
     5),
    ("pod a/b/c\n", "not a pod reference", 5),
    ("pod a static\n", "a static pod is run by the kubelet of one node", 5),
    ("deployment d replicas=1 static\n", "cannot be static", 12),
    ("pod a*\n", "only allowed in expectations", 5),
])
def test_pod_refusals(text: str, message: str, column: int) -> None:
    err = refused(text)
    assert message in err.message, err.render()
    assert err.column == column, err.render()


@pytest.mark.parametrize(("block", "message", "line", "column"), [
    ("  affinty node required a=b\n", "unknown pod block item 'affinty', did you mean "
     "'affinity'?", 5, 3),
    ("  spread topology=zone selector(a=b)\n", "spread needs max-skew", 5, 10),
    ("  spread max-skew=1 topology=zone\n", "spread needs selector", 5, 34),
    ("  affinity pod required app=web\n", "pod affinity needs topology=KEY", 5, 32),
    ("  affinity node preferred zone=a\n", "expected weight=N", 5, 27),
    ("  affinity node preferred weight=101 zone=a\n", "at most 100", 5, 34),
    ("  affinity node required a=b |\n", "expected a node selector", 5, 31),
    ("  affinity node required metadata.name in (a, b)\n", "exactly one value", 5, 26),
    ("  affinity node preferred weight=1 a=b | c=d\n", "only allowed in affinity node required",
     5, 40),
    ("  affinity pod required a > 3 topology=zone\n", "only allowed in node affinity", 5, 25),
    ("  container x\n  container x\n", "container 'x' is declared twice", 6, 13),
    ("  init-container x restart=Never\n", "restart takes only Always", 5, 28),
    ("  cpu=1\n", "'cpu' is a pod attribute", 5, 3),
    ("  emptydir e medium=Disk\n", "unknown emptydir medium 'Disk'", 5, 21),
    ("  spread max-skew=1 topology=z selector() min-domains=2 "
     "when-unsatisfiable=ScheduleAnyway\n", "min-domains needs when-unsatisfiable=DoNotSchedule",
     5, 10),
])
def test_block_refusals(block: str, message: str, line: int, column: int) -> None:
    err = refused("pod a {\n" + block + "}\n")
    assert message in err.message, err.render()
    assert (err.line, err.column) == (line, column), err.render()


def test_first_line_requests_conflict_with_block_containers() -> None:
    err = refused("pod a cpu=1 {\n  container x requests(cpu=1)\n}\n")
    assert "describes the only container" in err.message
    assert (err.line, err.column) == (4, 7)
