"""Enumerate all AXps and CXps (MARCO over the XpG) for the instances of a DT or OBDD.

Instances follow the XpG paper: the dataset's distinct rows, a seeded random 30 % of
them when there are more than 1000. One JSON line per instance is appended and flushed
(a rerun skips the instances already written); every explanation set is checked by
:mod:`fxai.verify.xpg`, which shares no code with the XpG.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import joblib
import numpy as np

from fxai.cli import count, positive, positive_int, share
from fxai.data.prepared import finite_domains, load
from fxai.explain.marco import Marco
from fxai.models.dtree import from_sklearn
from fxai.models.obdd import OBDD
from fxai.oracles.xpg import XpGOracle
from fxai.verify.xpg import BDDChecker, TreeChecker, check


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", choices=("dt", "obdd"), required=True)
    p.add_argument("--dataset", required=True)
    p.add_argument("--model", required=True, help=".joblib (dt) or .bdd.json (obdd)")
    p.add_argument("--prepared", default="data/prepared")
    p.add_argument("--out", required=True, help="run file (JSON Lines)")
    p.add_argument("--time-limit", type=positive, default=60.0, help="seconds per instance")
    p.add_argument("--max-rows-all", type=positive_int, default=1000,
                   help="explain every distinct row up to this many, else a fraction")
    p.add_argument("--fraction", type=share, default=0.3)
    p.add_argument("--max-instances", type=positive_int, default=None, help="cap (default profile)")
    p.add_argument("--seed", type=count, default=0)


def select_instances(X: np.ndarray, max_rows_all: int, fraction: float, seed: int,
                     cap: int | None = None) -> list[int]:
    """Row ids of the distinct rows (first occurrence); a seeded ``fraction`` of them when
    more than ``max_rows_all``; then at most ``cap`` of those (seeded), sorted."""
    _, first = np.unique(X, axis=0, return_index=True)
    ids = np.sort(first)
    rng = np.random.default_rng(seed)
    if len(ids) > max_rows_all:
        ids = np.sort(rng.choice(ids, size=int(round(fraction * len(ids))), replace=False))
    if cap is not None and len(ids) > cap:
        ids = np.sort(rng.choice(ids, size=cap, replace=False))
    return [int(i) for i in ids]


def _done_ids(path: Path) -> set[int]:
    if not path.exists():
        return set()
    ids = set()
    for line in path.read_text().splitlines():
        if line.strip():
            ids.add(int(json.loads(line)["instance"]))
    return ids


def explain_all(args: argparse.Namespace) -> int:
    data = load(args.dataset, args.prepared)
    doms = finite_domains(data.domains)
    X = data.X
    if args.family == "dt":
        clf = joblib.load(args.model)
        graph = from_sklearn(clf, domains=doms)
        if X.dtype.kind == "f":  # the values scikit-learn's tree compares (float32)
            X = X.astype(np.float32).astype(float)
    else:
        obdd = OBDD.load(args.model, data.n_features)
        graph = obdd.to_graph()
    ids = select_instances(data.X, args.max_rows_all, args.fraction, args.seed,
                           args.max_instances)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = _done_ids(out)
    todo = [i for i in ids if i not in done]
    print(f"{args.dataset} ({args.family}): {len(ids)} instances, {len(todo)} to explain",
          flush=True)
    n_bad = 0
    with out.open("a") as fh:
        for k, row in enumerate(todo):
            x = [v.item() for v in X[row]]
            rec = {"dataset": args.dataset, "model": args.family, "instance": row,
                   "x": [v.item() for v in data.X[row]]}
            try:
                t0, c0 = time.perf_counter(), time.process_time()
                o = XpGOracle(graph, x)
                m = Marco(o, target="axp", time_limit=args.time_limit)
                events = [[round(e.t, 6), e.kind, list(e.features)] for e in m]
                elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
                if args.family == "dt":
                    chk = TreeChecker(clf, x, doms)
                    ok, why = check(chk.weak_axp, chk.features, m.axps, m.cxps,
                                    chk.all_cxps() if m.complete else None, m.complete)
                else:
                    chk = BDDChecker(obdd, x)
                    ok, why = check(chk.weak_axp, chk.features, m.axps, m.cxps,
                                    complete=m.complete)
                if chk.prediction != o.prediction:
                    ok, why = False, f"checker predicts {chk.prediction}, XpG {o.prediction}"
                rec |= {"prediction": _plain(o.prediction),
                        "status": "done" if m.complete else "timeout",
                        "time_s": elapsed, "cpu_s": cpu, "verified": ok,
                        "axps": [list(a) for a in m.axps], "cxps": [list(c) for c in m.cxps],
                        "events": events, "oracle_calls": o.calls}
                if why != "ok":
                    rec["verify_note"] = why
                if not ok:
                    n_bad += 1
            except Exception as err:  # recorded, the run goes on
                rec |= {"status": "error", "error": f"{type(err).__name__}: {err}",
                        "time_s": None, "verified": None}
                n_bad += 1
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            if (k + 1) % 200 == 0:
                print(f"  {k + 1}/{len(todo)} instances", flush=True)
    print(f"{args.dataset} ({args.family}): done, {n_bad} unverified or failed", flush=True)
    return 0


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def run(args: argparse.Namespace) -> int:
    return explain_all(args)
