"""``kruleset capacity``: how many more instances of a pod fit, and where.

The question cluster-capacity answers ("The cluster can schedule 52
instance(s) of the pod"), answered by the simulation itself: the cluster
(``--cluster FILE``, a dump, or a ``.kr`` file) is loaded and run to its end
as ``kruleset run`` would; then instances of the pod (``NAME-1``,
``NAME-2``, …) are created one after another, each scheduled by the same
scheduler as every other pod (every filter and score: affinity, spread,
ports, taints, quotas, DRA claims made from the pod's templates), until one
cannot be placed or ``--max`` are placed.  The answer is what creating that
many replicas one by one gives (``tests/test_capacity.py`` compares the two on
random clusters).

Choices, where cluster-capacity and the issue leave them open:

* Without ``--preempt`` the instances preempt nothing: they are created with
  ``preemptionPolicy: Never``, so the message that stops instance N+1 is the
  scheduler's FailedScheduling message for such a pod.  With ``--preempt``
  the pod's own policy holds; an instance that preempts waits (on the
  simulated clock) for its victims' grace periods, then binds; the victims
  are listed.
* Several ``--pod`` specs are placed in turn: the first until it stops, then
  the second on what is left, and so on.
* Instances are created in batches (doubling up to :data:`MAX_BATCH`) when
  they cannot preempt: identical pods of one priority are taken in creation
  order, each cycle seeing the binds before it, so a batch places them as
  one at a time would; the instances after the first that does not fit are
  deleted again (nothing is freed by them: they never bound).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import attrs

from .errors import KrulesetError, ScenarioError, Span
from .exitcode import ExitCode

__all__ = ["ACCEPTED_KINDS", "CapacityAnswer", "add_parser", "fit_instances", "main",
           "read_pod"]

#: What ``--pod`` takes: a Pod, or a workload whose pod template is used.
ACCEPTED_KINDS = ("Pod", "Deployment", "Job")
MAX_BATCH = 1024
#: Placements listed one by one in the text answer (all of them in JSON).
SHOWN = 20


@attrs.frozen(slots=True)
class CapacityAnswer:
    """How many instances of one pod spec fit, where, and what stopped the next.

    Fields: ``pod`` (the template's ``namespace/name``); ``count`` (instances
    placed); ``placements`` (each instance's node in the order placed: all of
    them, or the first ones when the rest were counted in ``filled``);
    ``stopped_by`` (the FailedScheduling message of instance ``count + 1``;
    ``None`` when the limit stopped it); ``victims`` (pods preempted, with
    ``preempt``); ``filled`` (``(node, instances)`` counted after
    ``placements`` as arithmetic).  :meth:`per_node` adds them up per node.
    """

    pod: str
    count: int
    placements: tuple[str, ...]  # in the order placed: all, or the first ones (see filled)
    stopped_by: str | None       # the FailedScheduling message of instance count+1
    victims: tuple[str, ...] = ()
    # Instances after ``placements``, per node, found as arithmetic (capacity_fast).
    filled: tuple[tuple[str, int], ...] = ()

    def per_node(self) -> dict[str, int]:
        """Instances per node, nodes in order of their first instance."""
        out = dict(Counter(self.placements))
        for node, k in self.filled:
            out[node] = out.get(node, 0) + k
        return out

    def to_json(self) -> dict[str, Any]:
        """As ``--format json`` prints it.

        ``placements`` is every instance's node in the order placed, or, when
        ``ordered`` is less than ``count``, the first ``ordered`` of them (the
        rest is in ``perNode``).
        """
        return {"pod": self.pod, "count": self.count, "placements": list(self.placements),
                "ordered": len(self.placements), "perNode": self.per_node(),
                "stoppedBy": self.stopped_by, "victims": list(self.victims)}


def add_parser(sub: Any) -> None:
    """``kruleset capacity``'s command line."""
    p = sub.add_parser("capacity", help="how many more instances of a pod fit, and where")
    p.add_argument("scenario", nargs="?", metavar="FILE.kr",
                   help="a .kr file (or a dump) whose end state is the cluster")
    p.add_argument("--cluster", action="append", metavar="FILE", default=[],
                   help="a kubectl get -A -o yaml|json dump (repeatable; - for stdin)")
    p.add_argument("--pod", action="append", metavar="POD.yaml", required=True,
                   help="a Pod, or a Deployment or Job whose template is used "
                        "(repeatable: placed in turn)")
    p.add_argument("--max", type=int, metavar="N", default=None,
                   help="stop after N instances of each pod")
    p.add_argument("--preempt", action="store_true",
                   help="instances preempt lower priorities as the pod's policy allows")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--allow-unknown-fields", action="store_true",
                   help="unknown fields in Kubernetes files are warnings, not errors")
    p.add_argument("--rules", action="append", default=[], metavar="MODULE_OR_FILE",
                   dest="rules_plugins",
                   help="load your own rules: a .py file or an importable module "
                        "(repeatable)")


def read_pod(path: str, *, allow_unknown_fields: bool = False) -> Any:
    """The Pod of ``--pod FILE``: a Pod, or a Deployment's or Job's template.

    Refuses (ScenarioError) a file holding anything else, or more than one object.
    """
    from .errors import STRICT
    from .manifests import load_manifests
    from .manifests.documents import read_documents
    from .model.objects import Deployment, Pod, Workload

    file = Path(path)
    if not file.is_file():
        raise ScenarioError(f"--pod {path}: no such file", Span(path, 0, 0, ""))
    kinds = [str(v.get("kind")) for _, v in read_documents(file) if isinstance(v, dict)]
    wrong = [k for k in kinds if k not in ACCEPTED_KINDS]
    if wrong or len(kinds) != 1:
        what = (f"a {wrong[0]}" if wrong else f"{len(kinds)} objects")
        raise ScenarioError(f"--pod {path}: holds {what}; --pod takes one Pod, Deployment or "
                            "Job (the pod template of a Deployment or Job is used)",
                            Span(path, 0, 0, ""), expected="kind: Pod, Deployment or Job")
    token = STRICT.set(not allow_unknown_fields)
    try:
        objects = load_manifests(file).objects
    finally:
        STRICT.reset(token)
    obj = objects[0]
    if isinstance(obj, (Deployment, Workload)):
        obj = obj.template
    assert isinstance(obj, Pod)
    # An instance is a pod of its own: no controller owns it, no node is named.
    return obj.replace(owner_kind="", owner_name="", node_name="")


def _instance(template: Any, name: str, preempt: bool) -> Any:
    changes: dict[str, Any] = {"name": name}
    if not preempt:
        changes["preemption_policy"] = "Never"
    return template.replace(**changes)


def _fresh_name(state: Any, namespace: str, base: str, start: int) -> tuple[str, int]:
    i = start
    while f"{namespace}/{base}-{i}" in state.pods:
        i += 1
    return f"{base}-{i}", i + 1


def _wait_for_victims(sim: Any, ps: Any) -> None:
    """A nominated instance binds once its victims are gone: move the clock to then."""
    while ps.node is None and not ps.gone and ps.nominated is not None:
        nxt = sim.next_termination()
        if nxt is None:
            return
        sim.now = max(sim.now, nxt)
        sim.state.now = sim.now
        sim.state.new_epoch()
        sim._settle()


def fit_instances(sim: Any, template: Any, *, limit: int | None, preempt: bool,
                  fast: bool = True) -> CapacityAnswer:
    """Create instances of ``template`` in ``sim`` (run to its end) until one does not fit.

    With ``fast``, a plain pod's instances after the first
    :data:`~kruleset.capacity_fast.ORDERED` are counted as arithmetic
    (:mod:`kruleset.capacity_fast`) instead of placed one by one.
    """
    from .capacity_fast import ORDERED, plain_fill, why_not_plain

    plain = fast and not preempt and limit is None and why_not_plain(sim, template) is None
    answer, last = _place(sim, template, limit=ORDERED if plain else limit, preempt=preempt)
    if not plain or answer.stopped_by is not None or last is None:
        return answer
    name, _ = _fresh_name(sim.state, template.namespace, template.name, answer.count + 1)
    fill, message = plain_fill(sim, last.pod.replace(name=template.name), name)
    return attrs.evolve(answer, count=answer.count + sum(fill.values()), stopped_by=message,
                        filled=tuple(fill.items()))


def _place(sim: Any, template: Any, *, limit: int | None, preempt: bool
           ) -> tuple[CapacityAnswer, Any]:
    """Instances placed by the simulation; the answer and the last instance placed."""
    from .sim.setup import create_pod

    state = sim.state
    placed: list[str] = []
    last = None
    victims: list[str] = []
    stopped: str | None = None
    counter = 1
    batch = 1
    while limit is None or len(placed) < limit:
        size = 1 if preempt else min(batch, MAX_BATCH)
        if limit is not None:
            size = min(size, limit - len(placed))
        made = []
        for _ in range(size):
            name, counter = _fresh_name(state, template.namespace, template.name, counter)
            sim.changed()
            ps = create_pod(sim, _instance(template, name, preempt))
            if ps is None:  # refused by API admission (a quota, a LimitRange)
                stopped = sim.decisions[-1].message
                break
            made.append(ps)
        state.new_epoch()
        sim._settle()
        for ps in made:
            if preempt:
                _wait_for_victims(sim, ps)
                victims.extend(sim.victims.get(ps.key, ()))
            if ps.node is not None and stopped is None:
                placed.append(ps.node)
                last = ps
            else:
                if stopped is None:
                    stopped = ps.schedule_message or "not scheduled"
                if not ps.gone:
                    # An instance that did not fit is taken back: it never bound.
                    sim.terminate(ps, "deleted", by="kruleset capacity", grace=0)
        if stopped is not None:
            break
        batch *= 2
    sim._settle()
    return CapacityAnswer(template.key, len(placed), tuple(placed), stopped,
                          tuple(victims)), last


def capacity(scenario: Any, templates: list[Any], *, limit: int | None,
             preempt: bool) -> list[CapacityAnswer]:
    """Each template's answer, placed in turn on the end state of ``scenario``."""
    from .model.objects import Namespace
    from .sim.core import Simulation
    from .sim.setup import create_object

    sim = Simulation(scenario)
    sim.run()
    answers = []
    for template in templates:
        if template.namespace not in sim.state.namespaces:
            create_object(sim, Namespace(template.namespace))
        answers.append(fit_instances(sim, template, limit=limit, preempt=preempt))
    return answers


def render_text(answers: list[CapacityAnswer]) -> str:
    """The answers for people."""
    lines = []
    for a in answers:
        lines.append(f"{a.pod}: the cluster can schedule {a.count} more instance(s) of the pod")
        if a.placements:
            shown = ", ".join(a.placements[:SHOWN])
            more = f", … ({a.count - SHOWN} more)" if a.count > SHOWN else ""
            lines.append(f"  in order: {shown}{more}")
            if len(per := a.per_node()) > SHOWN:
                lines.append(f"  on {len(per)} nodes; the most on one node: "
                             f"{max(per.values())}")
            per_sorted = sorted(a.per_node().items(), key=lambda kv: (-kv[1], kv[0]))
            lines.append("  per node: " + ", ".join(f"{n} {k}" for n, k in per_sorted[:SHOWN])
                         + (", …" if len(per_sorted) > SHOWN else ""))
        if a.victims:
            lines.append(f"  preempting: {', '.join(a.victims)}")
        if a.stopped_by is not None:
            lines.append(f"  instance {a.count + 1}: {a.stopped_by}")
        else:
            lines.append(f"  stopped at --max {a.count}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    """``kruleset capacity``: the answer on stdout; errors on stderr."""
    from .inputs import load_clusters, load_input, prepare_inputs

    if (args.scenario is None) == (not args.cluster):
        print("kruleset capacity: give either a FILE.kr (or a dump) or --cluster FILE",
              file=sys.stderr)
        return ExitCode.REFUSED
    if args.max is not None and args.max < 0:
        print("kruleset capacity: --max takes a number of instances, 0 or more",
              file=sys.stderr)
        return ExitCode.REFUSED
    files = [args.scenario] if args.scenario is not None else []
    try:
        templates = [read_pod(p, allow_unknown_fields=args.allow_unknown_fields)
                     for p in args.pod]
        with prepare_inputs(files, args.cluster) as (shown, inputs):
            if shown:
                scenario = load_input(shown[0], inputs,
                                      allow_unknown_fields=args.allow_unknown_fields)
            else:
                scenario = load_clusters(inputs, allow_unknown_fields=args.allow_unknown_fields)
            for n in scenario.notices:
                print(n, file=sys.stderr)
            answers = capacity(scenario, templates, limit=args.max, preempt=args.preempt)
    except ScenarioError as e:
        print(e.render(), file=sys.stderr)
        return ExitCode.REFUSED
    except KrulesetError as e:
        print(f"kruleset capacity: {e}", file=sys.stderr)
        return ExitCode.ERROR
    if args.format == "json":
        print(json.dumps({"version": 1, "pods": [a.to_json() for a in answers]}, indent=2))
    else:
        print(render_text(answers))
    return ExitCode.OK
