"""Enumerate all AXps and CXps (MARCO over the XpG) for the instances of a DT or OBDD.

Instances follow the XpG paper: the dataset's distinct rows, a seeded random 30 % of
them when there are more than 1000. One JSON line per instance goes to the run file through
:class:`fxai.runfile.RunWriter` (a killed run resumes); every explanation set is checked by
:mod:`fxai.verify.xpg`, which shares no code with the XpG.
"""

from __future__ import annotations

import argparse
import logging
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive, positive_int, share
from fxai.runfile import RunWriter, load_input

if TYPE_CHECKING:
    import numpy as np

LOG = logging.getLogger("fxai.xpg")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", choices=("dt", "obdd"), required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--model", required=True, help=".joblib (dt) or .bdd.json (obdd)")
    p.add_argument("--prepared", required=True,
                   help="folder of the prepared table <ds>.csv (data/prepared/<source>)")
    p.add_argument("--out", required=True, help="run file (JSON Lines)")
    # no defaults: the workflow passes config xpg.* and seed, whose schema states them
    p.add_argument("--time-limit", type=positive, required=True, help="seconds per instance")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="the clock of the time limit and of the tables' time columns: process "
                        "CPU time (cpu_s, not slowed by a loaded machine) or wall clock (time_s)")
    p.add_argument("--max-rows-all", type=positive_int, required=True,
                   help="explain every distinct row up to this many, else a fraction")
    p.add_argument("--fraction", type=share, required=True)
    p.add_argument("--max-instances", type=positive_int, default=None, help="cap (default profile)")
    p.add_argument("--seed", type=count, required=True)


def select_instances(X: np.ndarray, max_rows_all: int, fraction: float, seed: int,
                     cap: int | None = None) -> list[int]:
    """Row ids of the distinct rows (first occurrence); a seeded ``fraction`` of them, rounded
    up, when more than ``max_rows_all`` (the reading of the XpG paper's rule that reproduces
    most published #TI, docs/fidelity.md); then at most ``cap`` of those (seeded), sorted."""
    import numpy as np

    _, first = np.unique(X, axis=0, return_index=True)
    ids = np.sort(first)
    rng = np.random.default_rng(seed)
    if len(ids) > max_rows_all:
        ids = np.sort(rng.choice(ids, size=math.ceil(fraction * len(ids)), replace=False))
    if cap is not None and len(ids) > cap:
        ids = np.sort(rng.choice(ids, size=cap, replace=False))
    return [int(i) for i in ids]


def _load_graph(family: str, path: str, data, doms):
    """``(model, graph)``: the sklearn tree and its XpG, or the OBDD and its XpG."""
    from fxai.models import load as load_model
    from fxai.models.dtree import from_sklearn

    model = load_model(path, data.n_features, family=family)
    if family == "dt":
        return model, from_sklearn(model, domains=doms)
    return model, model.to_graph()


def explain_row(family: str, model, graph, doms, x: list, time_limit: float,
                clock: str = "cpu") -> dict:
    """All AXps and CXps of one instance (MARCO over the XpG, ``time_limit`` seconds of
    ``clock``) and their independent check.

    ``verified`` is None when nothing was found to check (e.g. a time limit hit before the
    first explanation); ``checked`` counts the explanations checked.
    """
    from fxai.explain.marco import Marco
    from fxai.oracles.xpg import XpGOracle
    from fxai.verify.xpg import BDDChecker, TreeChecker, check

    t0, c0 = time.perf_counter(), time.process_time()
    o = XpGOracle(graph, x)
    m = Marco(o, target="axp", time_limit=time_limit, clock=clock)
    events = [[round(e.t, 6), e.kind, list(e.features)] for e in m]
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if family == "dt":
        chk = TreeChecker(model, x, doms)
        ok, why = check(chk.weak_axp, chk.features, m.axps, m.cxps,
                        chk.all_cxps() if m.complete else None, m.complete)
    else:
        chk = BDDChecker(model, x)
        ok, why = check(chk.weak_axp, chk.features, m.axps, m.cxps, complete=m.complete)
    if chk.prediction != o.prediction:
        ok, why = False, f"checker predicts {chk.prediction}, XpG {o.prediction}"
    checked = len(m.axps) + len(m.cxps)
    rec = {"prediction": _plain(o.prediction), "status": "done" if m.complete else "timeout",
           "time_s": elapsed, "cpu_s": cpu, "clock": clock,
           "verified": ok if checked or not ok else None, "checked": checked,
           "axps": [list(a) for a in m.axps], "cxps": [list(c) for c in m.cxps],
           "events": events, "oracle_calls": o.calls}
    if why != "ok":
        rec["verify_note"] = why
    return rec


def explain_all(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai.data.prepared import finite_domains, load

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    data = load_input(lambda p: load(args.dataset, p), args.prepared, "prepared table of "
                      f"{args.dataset}")
    doms = finite_domains(data.domains)
    X = data.X
    model, graph = load_input(lambda p: _load_graph(args.family, p, data, doms), args.model,
                              f"{args.family} model")
    if args.family == "dt" and X.dtype.kind == "f":  # the values sklearn's tree compares
        X = X.astype(np.float32).astype(float)
    ids = select_instances(data.X, args.max_rows_all, args.fraction, args.seed,
                           args.max_instances)
    settings = {"family": args.family, "dataset": args.dataset, "time_limit": args.time_limit,
                "clock": args.clock}
    inputs = {"data": Path(args.prepared) / f"{args.dataset}.csv", "model": args.model}
    n_bad = 0
    with RunWriter(args.out, "xpg-explain", settings, inputs, ids,
                   f"xpg {args.family} {args.dataset}") as run:
        for row in run.todo:
            rec = {"dataset": args.dataset, "model": args.family, "instance": row,
                   "x": [v.item() for v in data.X[row]]}
            rec |= explain_row(args.family, model, graph, doms, [v.item() for v in X[row]],
                               args.time_limit, args.clock)
            n_bad += rec["verified"] is False
            run.write(rec, explanations=rec["checked"])
    LOG.info("%s (%s): %d runs failed their check", args.dataset, args.family, n_bad)
    return 0


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def run(args: argparse.Namespace) -> int:
    return explain_all(args)
