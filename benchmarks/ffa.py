"""Anytime-FFA benchmark: how fast each MARCO variant approaches the exact FFA.

    .venv/bin/python -m benchmarks.ffa [--instances 5] [--time-limit 60] [--out results/bench]
        [--trees 25] [--depth 3] [--datasets digits-1vs3 ...]

Models (seeded, 25 trees of depth 3 unless --trees/--depth say otherwise, trained here on
data shipped with scikit-learn):
``digits-1vs3``, ``digits-1vs7`` (8x8 digits) and ``breast-cancer``. For each test instance
MARCO-A, -C and -S (paper switching rule, w=50, alpha=2, eps=1) enumerate to completion or
the time limit (process CPU time). Per method: time to the exact FFA, numbers of AXps and
CXps, and the anytime quality as the area under each normalised metric curve over
normalised time [0, 1] (error and KL: lower is better; tau and RBO: higher is better), plus
the normalised time at which the error first drops to 0.1. Writes ``<out>/ffa.csv`` (per
instance) and ``<out>/ffa.md`` (means per dataset and method).
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import train_test_split

from fxai import explain, oracles
from fxai.experiments.ffa import run_instance
from fxai.metrics.curves import instance_curves, sample
from fxai.models import boosted

METHODS = ("marco-a", "marco-c", "marco-s")


def datasets():
    d = load_digits()
    for a, b in ((1, 3), (1, 7)):
        keep = np.isin(d.target, [a, b])
        yield f"digits-{a}vs{b}", d.data[keep], (d.target[keep] == b).astype(int)
    bc = load_breast_cancer()
    yield "breast-cancer", bc.data, bc.target


def area(curve, upto: float = 1.0, n: int = 2001) -> float:
    """Mean of the step function over normalised time [0, upto]."""
    grid = np.linspace(0, upto, n)
    return float(np.mean(sample(curve, grid)))


def first_below(curve, level: float) -> float:
    t, v = curve
    hit = np.flatnonzero(v <= level)
    return float(t[hit[0]]) if hit.size else np.nan


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--trees", type=int, default=25)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--datasets", nargs="+", help="a subset of the three (default: all)")
    args = ap.parse_args(argv)
    rows = []
    for name, X, y in datasets():
        if args.datasets and name not in args.datasets:
            continue
        tr, te = train_test_split(np.arange(len(y)), test_size=0.2, random_state=args.seed,
                                  stratify=y)
        model = boosted.train(X[tr], y[tr], trees=args.trees, depth=args.depth,
                              seed=args.seed)
        pick = np.random.default_rng(args.seed).permutation(np.sort(te))[: args.instances]
        for row in pick:
            x = X[row]
            recs = {}
            for m in METHODS:
                rule = explain.SwitchRule(w=50, alpha=2.0, eps=1.0)
                recs[m] = run_instance(oracles.for_model(model, x), m, args.time_limit,
                                       switch=rule)
            done = [r for r in recs.values() if r["complete"]]
            if not done:
                continue
            exact = explain.ffa_from_axps(done[0]["axps"])
            curves = instance_curves({m: r["events"] for m, r in recs.items()}, exact,
                                     done[0]["n_axps"])
            for m, r in recs.items():
                rows.append({
                    "dataset": name, "instance": int(row), "method": m,
                    "complete": r["complete"], "time_s": r["time_s"], "axps": r["n_axps"],
                    "cxps": r["n_cxps"], "switched_at_s": r["switched_at"],
                    **{f"auc_{k}": area(curves[k][m]) for k in ("error", "tau", "rbo", "kl")},
                    "t_error_0.1": first_below(curves["error"][m], 0.1),
                })
            print(name, row, {m: round(r["time_s"], 2) for m, r in recs.items()}, flush=True)
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "ffa.csv", index=False)
    mean = df.drop(columns=["instance", "complete", "switched_at_s"]).groupby(
        ["dataset", "method"]).mean().round(3)
    (out / "ffa.md").write_text(
        f"# Anytime FFA benchmark ({platform.processor() or platform.machine()}, "
        f"{args.trees} trees of depth {args.depth}, {args.instances} instances, "
        f"limit {args.time_limit}s, CPU time)\n\n"
        + mean.to_markdown() + "\n")
    print(mean.to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
