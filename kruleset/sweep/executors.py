"""Running a sweep's variants: local worker processes, or a Dask cluster.

Variants sharing everything before the failure (the same ``--set`` values,
profile and seed: a *group*) share one simulation: it runs up to ``--at``,
is paused there once that instant has settled, and each failure variant
continues from a copy of it.  The copy is a ``fork()``: the child process
gets the paused simulation as it is (copy-on-write, nothing serialised), and
sends back only the variant's :func:`summary`.  Before forking, the parent
moves its heap out of the cyclic collector's reach (``gc.freeze``) so a
child's collections do not touch, and copy, every page.

* :func:`run_local` (``-j N``): the command's process loads the scenario
  once and is the one that forks, at most N children at a time.  A group
  without a failure axis is one child that runs its variant from time 0
  (forked after loading, so the parsed cluster is shared too).
* :func:`run_dask` (``--dask tcp://HOST:8786``): the loaded scenario is
  scattered to every worker once (``broadcast=True``); each group's failures
  are split into one task per worker, which builds the group's simulation up
  to ``--at`` once and forks as many children at a time as the worker has
  threads.

Results are the same whatever runs them (each variant is a deterministic
simulation of the same scenario, and the copy holds exactly what a fresh run
would hold at ``--at``; :func:`run_replay` re-runs every variant from time 0
and the tests compare).  They are returned in variant order.

Where ``os.fork`` does not exist, the local executor replays each variant.
"""

from __future__ import annotations

import copyreg
import gc
import hashlib
import os
import pickle
import select
import sys
import traceback
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn

import attrs

from ..errors import KrulesetError, NotImplementedMechanism
from ..model.scenario import Scenario
from ..sim.core import Simulation
from .axes import Variant
from .failure import guard_removed, remove_nodes
from .variants import Choice, prepare

__all__ = ["Job", "Outcome", "run_dask", "run_local", "run_replay", "summary"]

Outcome = dict[str, Any]
Progress = Callable[[int], None]
PENDING_NAMES = 20  # pending pods named per variant (the count is always whole)


@attrs.frozen(slots=True)
class Job:
    """What every worker needs: the loaded scenario, the profile files, the failure time."""

    scenario: Scenario
    choices: Mapping[str, Choice]
    at: int


# --- one variant's summary ------------------------------------------------------------------

def _tally(decisions: Sequence[Any], digest: Any) -> tuple[int, int]:
    evictions = preemptions = 0
    for d in decisions:
        kind = d.kind
        if kind == "evicted":
            evictions += 1
        elif kind == "preempted":
            preemptions += 1
        digest.update(repr(d).encode())
    return evictions, preemptions


class _Base:
    """Counts of the decisions a group's variants share (made before the fork), taken once."""

    def __init__(self, sim: Simulation | None = None) -> None:
        self.count = 0
        self.digest = hashlib.sha256()
        self.evictions = self.preemptions = 0
        if sim is not None:
            self.count = len(sim.decisions)
            self.evictions, self.preemptions = _tally(sim.decisions, self.digest)


MESSAGE = 300  # characters of a failing expectation's message kept (a count lists every pod)


def _short(message: str) -> str:
    return message if len(message) <= MESSAGE else message[: MESSAGE - 1] + "…"


def summary(variant: Variant, sim: Simulation, result: Any, removed: int,
            base: _Base | None = None) -> Outcome:
    """What the table needs of one run (small: it crosses process boundaries)."""
    base = base or _Base()
    digest = base.digest.copy()
    ev, pre = _tally(sim.decisions[base.count:], digest)
    failing = [
        {"line": r.line, "text": r.expectation.text, "message": _short(r.message)}
        for r in result.expectations if not r.passed
    ]
    pending = [ps.key for ps in sim.state.pending()]
    status = ("error" if result.unsupported else "failed" if failing else "passed")
    return {
        "index": variant.index, "status": status, "error": None,
        "expectations": len(result.expectations), "failing": failing,
        "pending": len(pending), "pending_pods": sorted(pending)[:PENDING_NAMES],
        "evictions": base.evictions + ev, "preemptions": base.preemptions + pre,
        "removed": removed, "digest": digest.hexdigest()[:16],
    }


def _error(variant: Variant, exc: BaseException) -> Outcome:
    if isinstance(exc, NotImplementedMechanism | KrulesetError):
        message = str(exc)
    else:
        message = f"internal error (a bug in kruleset, please report it): " \
                  f"{type(exc).__name__}: {exc}"
        if os.environ.get("KRULESET_DEBUG"):
            message += "\n" + traceback.format_exc()
    return {"index": variant.index, "status": "error", "error": message, "expectations": 0,
            "failing": [], "pending": 0, "pending_pods": [], "evictions": 0, "preemptions": 0,
            "removed": 0, "digest": ""}


# --- fork pool ------------------------------------------------------------------------------

class ForkPool:
    """At most ``jobs`` forked children at a time, each sending one pickled outcome back."""

    def __init__(self, jobs: int, on_done: Callable[[int, Outcome], None]) -> None:
        self.jobs = max(1, jobs)
        self.on_done = on_done
        self.running: dict[int, tuple[int, Variant, list[bytes]]] = {}
        self.in_child = False
        self._fd = -1

    def fork(self, variant: Variant) -> bool:
        """Start a child for ``variant``: True in the child, False in the parent."""
        while len(self.running) >= self.jobs:
            self._reap()
        sys.stdout.flush()
        sys.stderr.flush()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            for fd in self.running:
                os.close(fd)
            self.running = {}
            self.in_child, self._fd = True, w
            return True
        os.close(w)
        self.running[r] = (pid, variant, [])
        return False

    def send(self, outcome: Outcome) -> NoReturn:
        """In the child: hand ``outcome`` to the parent and end the process at once."""
        try:
            data = memoryview(pickle.dumps(outcome))
            while data:
                data = data[os.write(self._fd, data):]
        finally:
            os._exit(0)  # no interpreter teardown: it would touch (and copy) the whole heap

    def wait(self) -> None:
        """Wait for every child still running."""
        while self.running:
            self._reap()

    def _reap(self) -> None:
        ready, _, _ = select.select(list(self.running), [], [])
        for fd in ready:
            pid, variant, chunks = self.running[fd]
            chunk = os.read(fd, 1 << 20)
            if chunk:
                chunks.append(chunk)
                continue
            os.close(fd)
            del self.running[fd]
            _, status = os.waitpid(pid, 0)
            try:
                outcome = pickle.loads(b"".join(chunks))
            except Exception:
                outcome = _error(variant, RuntimeError(
                    f"the worker process ended without a result (wait status {status})"))
            self.on_done(variant.index, outcome)


def _child(pool: ForkPool, variant: Variant, work: Callable[[], Outcome]) -> NoReturn:
    try:
        outcome = work()
    except BaseException as e:  # noqa: BLE001 - the child must answer whatever happens
        outcome = _error(variant, e)
    pool.send(outcome)


# --- one group ------------------------------------------------------------------------------

class _Stop(Exception):
    """Unwinds a parent's paused simulation once its variants are all forked."""


def _simulation(job: Job, variant: Variant) -> Simulation:
    scenario, profile = prepare(job.scenario, variant, job.choices)
    sim = Simulation(scenario, profile=profile)
    guard_removed(sim)
    return sim


def _check_at(sim: Simulation, at: int) -> None:
    from ..model.quantity import format_duration

    if sim.until is not None and at > sim.until:
        raise KrulesetError(f"--at {format_duration(at)} is after the scenario ends "
                            f"(run until {format_duration(sim.until)})")
    sim.wake(at)


def _fail(sim: Simulation, variant: Variant) -> int:
    f = variant.failure
    assert f is not None
    missing = [n for n in f.nodes if n not in sim.state.nodes]
    if missing:
        raise KrulesetError(f"node {missing[0]} does not exist at --at")
    why = f"{f.kind} {f.name} deleted by the sweep"
    return remove_nodes(sim, f.nodes, why)


def _warm(sim: Simulation) -> None:
    """Build the indexes the scheduler makes on first use, once, before the copies.

    A cluster loaded with every pod bound has not scheduled anything yet:
    without this each copy would index its 20,000 pods again.
    """
    from ..rules.scheduler.filters.topology_index import pod_index
    from ..rules.scheduler.node_selection import node_order

    pod_index(sim.state)
    node_order(sim.state)


def run_group(job: Job, variants: Sequence[Variant], pool: ForkPool) -> None:
    """Run variants sharing one prefix, reporting each outcome to ``pool.on_done``.

    At most one of them has no failure (it continues the paused simulation
    in this process); the others are forked from it at ``job.at``.
    """
    plain = [v for v in variants if v.failure is None]
    failing = [v for v in variants if v.failure is not None]
    head = plain[0] if plain else failing[0]
    try:
        sim = _simulation(job, head)
        _check_at(sim, job.at)
    except Exception as e:
        for v in variants:
            pool.on_done(v.index, _error(v, e))
        return
    mine: dict[str, Any] = {"variant": head if plain else None, "removed": 0, "base": None}

    def at_instant(s: Simulation) -> bool:
        if s.now != job.at or mine.get("fired"):
            return False
        mine["fired"] = True
        base = _Base(s)
        _warm(s)
        gc.freeze()
        try:
            for v in failing:
                if pool.fork(v):
                    mine.update(variant=v, base=base, removed=_fail(s, v))
                    return True
            pool.wait()
        finally:
            if not pool.in_child:
                gc.unfreeze()
        if not plain:
            raise _Stop
        return False

    sim.on_settled = at_instant
    try:
        result = sim.run()
        if not mine.get("fired"):
            raise KrulesetError("the scenario ended before --at")
        variant = mine["variant"]
        outcome = summary(variant, sim, result, mine["removed"], mine["base"])
    except _Stop:
        return
    except BaseException as e:
        if pool.in_child:
            pool.send(_error(mine["variant"], e))
        if isinstance(e, KeyboardInterrupt):
            raise
        for v in plain if mine.get("fired") else variants:
            pool.on_done(v.index, _error(v, e))
        return
    if pool.in_child:
        pool.send(outcome)
    pool.on_done(variant.index, outcome)


def _groups(variants: Iterable[Variant]) -> list[list[Variant]]:
    groups: dict[tuple[object, ...], list[Variant]] = {}
    for v in variants:
        groups.setdefault(v.prefix, []).append(v)
    return list(groups.values())


Done = Callable[[int, Outcome], None]


def _collect(progress: Progress | None) -> tuple[dict[int, Outcome], Done]:
    got: dict[int, Outcome] = {}

    def done(index: int, outcome: Outcome) -> None:
        got[index] = outcome
        if progress is not None:
            progress(len(got))

    return got, done


def run_local(job: Job, variants: Sequence[Variant], jobs: int,
              progress: Progress | None = None) -> list[Outcome]:
    """Every variant on this machine, ``jobs`` processes at a time; outcomes in variant order."""
    if not hasattr(os, "fork"):
        return run_replay(job, variants, progress)
    got, done = _collect(progress)
    pool = ForkPool(jobs, done)
    for group in _groups(variants):
        if any(v.failure is not None for v in group):
            run_group(job, group, pool)
            continue
        for v in group:  # no failure: the whole run in a child forked after loading
            if pool.fork(v):
                _child(pool, v, lambda v=v: replay_one(job, v))  # type: ignore[misc]
    pool.wait()
    return [got[v.index] for v in variants]


def run_replay(job: Job, variants: Sequence[Variant],
               progress: Progress | None = None) -> list[Outcome]:
    """Every variant simulated from time 0 in this process, one after the other (no copies)."""
    got, done = _collect(progress)
    for v in variants:
        try:
            done(v.index, replay_one(job, v))
        except Exception as e:
            done(v.index, _error(v, e))
    return [got[v.index] for v in variants]


def replay_one(job: Job, variant: Variant) -> Outcome:
    """One variant simulated from time 0 (its failure applied when ``--at`` has settled)."""
    sim = _simulation(job, variant)
    result, removed = run_failing_at(sim, job, variant)
    return summary(variant, sim, result, removed)


def run_failing_at(sim: Simulation, job: Job, variant: Variant) -> tuple[Any, int]:
    """Run ``sim`` from time 0, ``variant``'s failure applied once ``job.at`` has settled:
    the result and how many pods the failure removed."""
    _check_at(sim, job.at)
    removed: list[int] = []

    def at_instant(s: Simulation) -> bool:
        if s.now != job.at or removed:
            return False
        removed.append(_fail(s, variant) if variant.failure is not None else 0)
        return variant.failure is not None

    sim.on_settled = at_instant
    result = sim.run()
    if not removed:
        raise KrulesetError("the scenario ended before --at")
    return result, removed[0]


# --- Dask -----------------------------------------------------------------------------------

def _reduce_proxy(m: types.MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return types.MappingProxyType, (dict(m),)


def picklable() -> None:
    """Let read-only mappings (labels, arguments) be pickled, so a Scenario can be sent."""
    copyreg.pickle(types.MappingProxyType, _reduce_proxy)  # type: ignore[arg-type]


def _dask_task(job: Job, variants: list[Variant], jobs: int) -> list[Outcome]:
    """On a worker: one group's share of variants, forked ``jobs`` at a time."""
    if len(variants) == 1 and variants[0].failure is None:
        try:
            return [replay_one(job, variants[0])]
        except Exception as e:
            return [_error(variants[0], e)]
    got, done = _collect(None)
    if hasattr(os, "fork"):
        pool = ForkPool(jobs, done)
        run_group(job, variants, pool)
        pool.wait()
    else:  # pragma: no cover - a worker on a system without fork
        run_replay(job, variants)
    return [got[v.index] for v in variants]


#: How long dask.distributed may take to shake hands with a scheduler.
DASK_CONNECT_SECONDS = 10


def run_dask(job: Job, variants: Sequence[Variant], address: Any,
             progress: Progress | None = None) -> list[Outcome]:
    """Every variant on the Dask cluster at ``address`` (or a Client/cluster object)."""
    from dask.distributed import Client, as_completed

    picklable()
    own = not isinstance(address, Client)
    # A port that accepts connections but speaks no Dask (checked before: see
    # dask_address) must not hold the sweep for dask's default 30 s.
    client = Client(address, timeout=DASK_CONNECT_SECONDS) if own else address
    try:
        workers = client.scheduler_info()["workers"]
        if not workers:
            raise KrulesetError(f"the Dask cluster at {address} has no workers")
        slots = sorted((addr, max(1, int(w.get("nthreads", 1)))) for addr, w in workers.items())
        shared = client.scatter(job, broadcast=True)
        futures = []
        for group in _groups(variants):
            if not any(v.failure is not None for v in group):
                futures += [client.submit(_dask_task, shared, [v], 1, pure=False) for v in group]
                continue
            plain = [v for v in group if v.failure is None]
            failing = [v for v in group if v.failure is not None]
            shares = [failing[i::len(slots)] for i in range(len(slots))]
            shares[0] = plain + shares[0]
            for (addr, threads), share in zip(slots, shares, strict=True):
                if share:
                    futures.append(client.submit(_dask_task, shared, share, threads,
                                                 workers=[addr], allow_other_workers=True,
                                                 pure=False))
        got: dict[int, Outcome] = {}
        for fut in as_completed(futures):
            for outcome in fut.result():
                got[outcome["index"]] = outcome
            if progress is not None:
                progress(len(got))
        return [got[v.index] for v in variants]
    finally:
        if own:
            client.close()
