"""Anytime FFA run on one test instance: MARCO-A, MARCO-C or MARCO-S with a time limit.

The instance is the K-th row id of a seeded permutation of the split's test rows (so the
first N runs of a dataset are N distinct random test instances whatever N is). Events are
appended and flushed to ``<out>.partial`` (a :mod:`fxai.runfile` header line, then one event
a line) as they are found; the run record is written atomically to ``--out`` (JSON) at the
end and the partial removed. A killed run restarts from zero (its event times would not be
comparable otherwise); an input that cannot be read stops it with a non-zero exit. The
explanations are checked afterwards by ``fxai ffa-verify`` (its own job, so that re-checking
never re-enumerates).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, nonnegative, positive, positive_int
from fxai.errors import DataError
from fxai.files import write_atomic
from fxai.runfile import Partial, Progress, make_header
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
    p.add_argument("--instance", type=count, required=True,
                   help="K: explain the K-th row of the seeded permutation of the test rows")
    p.add_argument("--method", choices=sorted(METHODS), required=True)
    p.add_argument("--time-limit", type=positive, required=True, help="seconds (per instance)")
    p.add_argument("--out", required=True, help="run record (JSON); events stream to <out>.partial")
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


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import explain, oracles
    from fxai.data.fetch import sha256_of
    from fxai.data.prepared import load, load_split
    from fxai.data.split import pick_instance
    from fxai.models import load as load_model

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    out = Path(args.out)
    data_path = Path(args.data)
    data = load(data_path.stem, data_path.parent)  # checked against its recorded checksum
    _, test = load_split(args.split)
    try:
        row = pick_instance(test, args.instance, args.seed)
    except ValueError as e:
        raise DataError(f"--instance {args.instance} with split {args.split}: {e} "
                        f"(use 0..{len(test) - 1})") from None
    x = data.X[row]
    model = load_model(args.model, n_features=len(x))
    record = {"code_version": code_version(),  # first: provenance reads only a record's start
              "dataset": Path(args.data).stem, "model": str(args.model),
              "model_sha256": sha256_of(args.model), "instance": row, "k": args.instance,
              "x": x.tolist()}
    try:
        o = oracles.for_model(model, x)
    except ValueError as e:  # e.g. a model trained on another dataset
        raise DataError(f"model {args.model} cannot explain row {row} of {args.data}: "
                        f"{e}") from None
    record["prediction"] = np.asarray(o.prediction).item()
    rule = explain.SwitchRule(w=args.window, alpha=args.alpha, eps=args.eps,
                              variant=args.switch_variant)
    settings = {"instance": args.instance, "seed": args.seed, "method": args.method,
                "time_limit": args.time_limit, "clock": args.clock, "unit_cxps": args.unit_cxps,
                "switch": [args.window, args.alpha, args.eps, args.switch_variant]}
    events = Partial(out, make_header("ffa-run", settings, {"model": args.model,
                                                            "data": args.data}))
    if events.path.exists():  # MARCO cannot pick up where it stopped without skewing its times
        LOG.warning("%s: discarded: an interrupted anytime run restarts from zero", events.path)
    events.open([])
    label = f"ffa {record['dataset']} {args.method} k={args.instance}"
    LOG.info("%s: row %d, %d candidate features, limit %.0fs", label, row, len(o.features),
             args.time_limit)
    with Progress(label, unit="AXps") as progress:

        def on_event(ev: list) -> None:
            events.append(ev)
            progress.done += ev[1] == "axp"
            progress.explanations += 1

        record |= run_instance(o, args.method, args.time_limit, args.clock, rule,
                               args.unit_cxps, on_event)
    events.close()
    write_atomic(out, json.dumps(record) + "\n")
    events.path.unlink()
    LOG.info("%s: %s, %s AXps, %s CXps, time %.2fs", label, record["status"],
             record["n_axps"], record["n_cxps"], record["time_s"])
    return 0
