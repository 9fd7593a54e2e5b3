"""Anytime FFA run on one test instance: MARCO-A, MARCO-C or MARCO-S with a time limit.

The instance is the K-th row id of a seeded permutation of the split's test rows (so the
first N runs of a dataset are N distinct random test instances whatever N is). Events are
appended and flushed to ``<out>.jsonl`` (stem of ``--out``) as they are found; the final
run record is written to ``--out`` (JSON) at the end. The explanations are checked
afterwards by ``fxai ffa-verify`` (its own job, so that re-checking never re-enumerates).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
import traceback
from pathlib import Path

import numpy as np
import pandas as pd

from fxai import explain, oracles
from fxai.cli import count, nonnegative, positive, positive_int
from fxai.data.split import pick_instance
from fxai.explain.marco import CLOCKS
from fxai.files import write_atomic
from fxai.models import load as load_model
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
    p.add_argument("--out", required=True, help="run record (JSON); events go to <stem>.jsonl")
    p.add_argument("--seed", type=count, default=0, help="seed of the instance permutation")
    p.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                   help="time stamps: process CPU time (as the reference code) or wall clock")
    p.add_argument("--window", type=positive_int, default=50, help="MARCO-S sliding window w")
    p.add_argument("--alpha", type=positive, default=2.0, help="MARCO-S gap ratio, condition (6)")
    p.add_argument("--eps", type=nonnegative, default=1.0, help="MARCO-S stability, condition (7)")
    p.add_argument("--switch-variant", choices=["paper", "code"], default="paper")
    p.add_argument("--unit-cxps", action="store_true",
                   help="test every feature alone as a CXp first (the reference --unit-mcs)")


def run_instance(o: Oracle, method: str, time_limit: float | None, events_path: Path,
                 clock: str = "cpu", switch: explain.SwitchRule | None = None,
                 unit_cxps: bool = False) -> dict:
    """Enumerate with ``method``; stream events to ``events_path``; return the result fields."""
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
    events_path.parent.mkdir(parents=True, exist_ok=True)
    with events_path.open("w") as fh:
        for ev in m:
            row = [round(ev.t, 6), ev.kind, [int(f) for f in ev.features]]
            events.append(row)
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            if len(events) % 500 == 0:
                LOG.info("%s: %d events, %d AXps, t=%.1fs", method, len(events),
                         len(m.axps), ev.t)
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
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    table = pd.read_csv(args.data)
    if "target" not in table.columns:
        raise SystemExit(f"{args.data}: no 'target' column (not a prepared table)")
    split = json.loads(Path(args.split).read_text())
    row = pick_instance(split["test"], args.instance, args.seed)
    x = table.drop(columns="target").iloc[row].to_numpy()
    record = {"dataset": Path(args.data).stem, "model": str(args.model), "instance": row,
              "k": args.instance, "x": x.tolist()}
    try:
        model = load_model(args.model, n_features=len(x))
        o = oracles.for_model(model, x)
        record["prediction"] = np.asarray(o.prediction).item()
        rule = explain.SwitchRule(w=args.window, alpha=args.alpha, eps=args.eps,
                                  variant=args.switch_variant)
        LOG.info("%s row %d (k=%d) %s, %d candidate features, limit %.0fs", record["dataset"],
                 row, args.instance, args.method, len(o.features), args.time_limit)
        record |= run_instance(o, args.method, args.time_limit, out.with_suffix(".jsonl"),
                               args.clock, rule, args.unit_cxps)
    except Exception as err:  # recorded, so aggregation can count and report failures
        LOG.error("run failed: %s", traceback.format_exc())
        record |= {"method": args.method, "status": "error", "error": repr(err), "time_s": None}
    write_atomic(out, json.dumps(record) + "\n")
    LOG.info("%s: %s, %s AXps, %s CXps, time %.2fs", args.method, record["status"],
             record.get("n_axps"), record.get("n_cxps"), record.get("time_s") or 0.0)
    return 0
