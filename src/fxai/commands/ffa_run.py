"""Anytime FFA runs on test instances: MARCO-A, MARCO-C or MARCO-S with a time limit.

Instance K is the K-th row id of a seeded permutation of the split's test rows (so the first
N runs of a dataset are N distinct random test instances whatever N is). One run file holds
the instances of one (dataset, method), a record a line (:class:`fxai.runfile.RunWriter`):
a killed job keeps its finished instances, and the instance it was in restarts from zero (its
event times would not be comparable otherwise). An input that cannot be read stops it with
a non-zero exit. The explanations are checked afterwards by ``fxai ffa-verify`` (its own
job, so that re-checking never re-enumerates).
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import pickle
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, nonnegative, positive, positive_int
from fxai.errors import DataError
from fxai.runfile import RunWriter
from fxai.version import code_version

if TYPE_CHECKING:
    from fxai import explain
    from fxai.oracles.base import Oracle

LOG = logging.getLogger("fxai.ffa_run")
METHODS = {"marco-a": "axp", "marco-c": "cxp", "marco-s": "switch"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="XGBoost JSON (.json/.ubj) or sklearn .joblib")
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv")
    p.add_argument("--split", required=True, help="split JSON with 'test' row ids")
    p.add_argument("--instance", type=count, nargs="+", required=True, metavar="K",
                   help="explain the K-th row of the seeded permutation of the test rows "
                        "(several: one record each, in this order)")
    p.add_argument("--method", choices=sorted(METHODS), required=True)
    p.add_argument("--time-limit", type=positive, required=True, help="seconds (per instance)")
    p.add_argument("--out", required=True,
                   help="run file (JSON Lines, a record per instance; <out>.partial until done)")
    # no defaults: the workflow passes seed, config ffa.clock and ffa.switch.* (the schema
    # states them)
    p.add_argument("--seed", type=count, required=True, help="seed of the instance permutation")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="time stamps: process CPU time (as the reference code) or wall clock")
    p.add_argument("--window", type=positive_int, required=True,
                   help="MARCO-S sliding window w")
    p.add_argument("--alpha", type=positive, required=True,
                   help="MARCO-S gap ratio, condition (6)")
    p.add_argument("--eps", type=nonnegative, required=True,
                   help="MARCO-S stability, condition (7)")
    p.add_argument("--switch-variant", choices=["paper", "code"], required=True)
    p.add_argument("--unit-cxps", action="store_true",
                   help="test every feature alone as a CXp first (the reference --unit-mcs)")


def run_instance(o: Oracle, method: str, time_limit: float | None, clock: str = "cpu",
                 switch: explain.SwitchRule | None = None, unit_cxps: bool = False,
                 on_event: Callable[[list], None] | None = None) -> dict:
    """Enumerate with ``method``, passing each event ``[t, kind, features]`` to ``on_event``
    as it is found; return the result fields."""
    from fxai import explain
    from fxai.explain.marco import CLOCKS

    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, not {method!r}")
    # prime the oracle outside the clock (compilation, caches), as the reference code does
    o.counterexample(set(o.features))
    o.counterexample(set())
    calls0 = getattr(o, "calls", 0)
    m = explain.Marco(o, target=METHODS[method], time_limit=time_limit, clock=clock,
                      switch=switch, unit_cxps=unit_cxps)
    events = []
    clk = CLOCKS[clock]
    start, start_wall = clk(), time.perf_counter()
    for ev in m:
        row = [round(ev.t, 6), ev.kind, [int(f) for f in ev.features]]
        events.append(row)
        if on_event is not None:
            on_event(row)
    elapsed, wall = clk() - start, time.perf_counter() - start_wall
    axps = [list(a) for a in m.axps]
    cxps = [list(c) for c in m.cxps]
    return {
        "method": method,
        "status": "done" if m.complete else "timeout",
        "time_s": round(elapsed, 6),
        "wall_s": round(wall, 6),
        "clock": clock,
        "unit_cxps": unit_cxps,
        "time_limit": time_limit,
        "complete": m.complete,
        "switched_at": m.switched_at,
        "oracle_calls": getattr(o, "calls", 0) - calls0,
        "n_axps": len(axps),
        "n_cxps": len(cxps),
        "axps": axps,
        "cxps": cxps,
        "ffa": ({str(f): v for f, v in explain.ffa_from_axps(axps).items()}
                if m.complete else None),
        "events": events,
    }


def in_own_process(fn: Callable[[], dict]) -> dict:
    """``fn()`` run in a forked child process (where ``os.fork`` exists), its result pickled
    back; an exception in the child is raised here. Each instance of a run file is then timed
    in a process of its own, as when a job runs one instance: the heap left by the earlier
    instances made the same enumeration up to ~15 % slower in CPU time (docs/benchmarks.md)."""
    if not hasattr(os, "fork"):
        return fn()
    r, w = os.pipe()
    # a SIGTERM during fork would be raised in fork's own hooks, which ignore exceptions:
    # held until the fork is done; then the parent stops as usual and the child just ends
    term = {signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, term)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, term)
        raise
    if pid == 0:  # child: never returns into the parent's code
        code = 0
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's run-file handler
            signal.pthread_sigmask(signal.SIG_UNBLOCK, term)
            try:
                data = pickle.dumps((True, fn()))
            except BaseException as e:  # noqa: BLE001 - passed to the parent, raised there
                code, data = 1, pickle.dumps((False, e))
            with os.fdopen(w, "wb") as fh:
                fh.write(data)
        finally:
            os._exit(code)
    os.close(w)
    try:
        with os.fdopen(r, "rb") as fh:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, term)
            data = fh.read()
    except BaseException:  # e.g. SIGTERM: the instance goes with this job
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        _, status = os.waitpid(pid, 0)
    if not data:
        raise RuntimeError(f"the process running the instance ended without a result "
                           f"(wait status {status})")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import explain, oracles
    from fxai.data.fetch import sha256_of
    from fxai.data.prepared import load, load_split
    from fxai.data.split import pick_instance
    from fxai.models import check_features
    from fxai.models import load as load_model

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    data_path = Path(args.data)
    data = load(data_path.stem, data_path.parent)  # checked against its recorded checksum
    _, test = load_split(args.split)
    rows = {}
    for k in args.instance:
        try:
            rows[k] = pick_instance(test, k, args.seed)
        except ValueError as e:
            raise DataError(f"--instance {k} with split {args.split}: {e} "
                            f"(use 0..{len(test) - 1})") from None
    model = load_model(args.model, n_features=data.n_features)
    check_features(model, args.model, data.n_features, args.data)
    base = {"code_version": code_version(), "dataset": data_path.stem,
            "model": str(args.model), "model_sha256": sha256_of(args.model)}
    rule = explain.SwitchRule(w=args.window, alpha=args.alpha, eps=args.eps,
                              variant=args.switch_variant)
    settings = {"seed": args.seed, "method": args.method, "time_limit": args.time_limit,
                "clock": args.clock, "unit_cxps": args.unit_cxps,
                "switch": [args.window, args.alpha, args.eps, args.switch_variant]}
    by_row = {row: k for k, row in rows.items()}
    writer = RunWriter(args.out, "ffa-run", settings, {"model": args.model, "data": args.data},
                       list(rows.values()), label=f"ffa {base['dataset']} {args.method}",
                       log=LOG)
    with writer:
        for row in writer.todo:
            k, x = by_row[row], data.X[row]
            try:
                o = oracles.for_model(model, x)
            except ValueError as e:  # e.g. a model trained on another dataset
                raise DataError(f"model {args.model} cannot explain row {row} of {args.data}: "
                                f"{e}") from None
            record = base | {"instance": row, "k": k, "x": x.tolist(),
                             "prediction": np.asarray(o.prediction).item()}
            LOG.info("k=%d: row %d, %d candidate features, limit %.0fs", k, row,
                     len(o.features), args.time_limit)

            record |= in_own_process(functools.partial(
                run_instance, o, args.method, args.time_limit, args.clock, rule, args.unit_cxps))
            writer.write(record, explanations=record["n_axps"] + record["n_cxps"])
            LOG.info("k=%d: %s, %s AXps, %s CXps, time %.2fs", k, record["status"],
                     record["n_axps"], record["n_cxps"], record["time_s"])
    return 0
