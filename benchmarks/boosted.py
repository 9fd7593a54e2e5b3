"""Boosted-tree oracle benchmark: oracle calls per second and time to exact FFA.

    .venv/bin/python -m benchmarks.boosted [--instances 5] [--time-limit 60] [--quick]

Models (seeded, built here from data shipped with scikit-learn or generated):
``digits-1vs3`` (sklearn 8x8 digits, 25 trees depth 3), ``breast-cancer`` (25 / 3),
``pixels100`` (100 quantised features, 25 / 3, the size of the paper's 10x10 MNIST) and
``bow1000`` (1000 sparse binary features, 40 / 4, the shape of the paper's Disaster model).

Part 1 replays the oracle queries that MARCO-A and MARCO-C really ask (recorded once per
instance) against the branch-and-bound oracle and the MILP of ``fxai.verify.boosted``
(HiGHS, without its random-point shortcut), and checks that both give the same answers.
Times are process CPU seconds (as the reference code's), robust to a loaded machine.
Part 2 times exact FFA per instance with MARCO-A, -C and -S. Writes
``<out>/boosted_oracle.csv``, ``<out>/boosted.csv`` and ``<out>/boosted.md``.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, make_classification

from fxai import explain
from fxai.models import boosted
from fxai.oracles.boosted import BoostedOracle
from fxai.report.tables import to_markdown
from fxai.verify.boosted import BoostedChecker

METHODS = {"MARCO-A": "axp", "MARCO-C": "cxp", "MARCO-S": "switch"}


def datasets(seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray, int, int]]:
    """name -> (X, y, trees, depth)."""
    d = load_digits()
    keep = np.isin(d.target, [1, 3])
    bc = load_breast_cancer()
    Xp, yp = make_classification(n_samples=3000, n_features=100, n_informative=50,
                                 n_redundant=20, random_state=seed)
    Xp = np.clip(np.round(Xp * 2), -4, 4)
    rng = np.random.default_rng(seed)
    Xb = (rng.random((4000, 1000)) < 0.02).astype(float)
    w = np.zeros(1000)
    w[rng.choice(1000, 200, replace=False)] = rng.normal(scale=2, size=200)
    yb = (Xb @ w + rng.normal(size=4000) > 0).astype(int)
    return {
        "digits-1vs3": (d.data[keep], (d.target[keep] == 3).astype(int), 25, 3),
        "breast-cancer": (bc.data, bc.target, 25, 3),
        "pixels100": (Xp, yp, 25, 3),
        "bow1000": (Xb, yb, 40, 4),
    }


class Recorder(BoostedOracle):
    """The oracle, remembering every fixed set it is asked about."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.log: list[list[int]] = []

    def counterexample(self, fixed, time_limit=None):
        fixed = sorted(fixed)
        self.log.append(fixed)
        return super().counterexample(fixed, time_limit)


def replay(model, ens, x, queries, n_milp: int) -> list[dict]:
    """Calls per second of both oracles on the same queries; asserts equal answers."""
    o = BoostedOracle(ens, x)
    t0 = time.process_time()
    ours = [o.entails(q) for q in queries]
    t_bb = time.process_time() - t0
    checker = BoostedChecker(model, samples=0)
    sample = queries[:n_milp]
    t0 = time.process_time()
    theirs = [checker.entails(x, q) for q in sample]
    t_milp = time.process_time() - t0
    if theirs != ours[: len(sample)]:
        raise AssertionError("branch and bound and MILP disagree")
    return [
        {"oracle": "branch-and-bound", "calls": len(queries), "seconds": t_bb},
        {"oracle": "milp-highs", "calls": len(sample), "seconds": t_milp},
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=5, help="test instances per dataset")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per FFA run")
    p.add_argument("--record-limit", type=float, default=5.0,
                   help="seconds of MARCO whose oracle queries are replayed")
    p.add_argument("--milp-calls", type=int, default=100, help="queries replayed on the MILP")
    p.add_argument("--ffa-datasets", nargs="+", default=["digits-1vs3", "breast-cancer"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="2 instances, short limits")
    p.add_argument("--out", default="results/bench")
    args = p.parse_args(argv)
    if args.quick:
        args.instances, args.time_limit, args.record_limit, args.milp_calls = 2, 10.0, 3.0, 50
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    thr_rows, ffa_rows = [], []
    for name, (X, y, trees, depth) in datasets(args.seed).items():
        rng = np.random.default_rng(args.seed)
        test = rng.permutation(len(y))
        n_test = len(y) // 5
        model = boosted.train(X[test[n_test:]], y[test[n_test:]], trees, depth, seed=args.seed)
        ens = boosted.from_booster(model)
        print(f"{name}: {trees} trees depth {depth}, {len(ens.used_features)}/{X.shape[1]} "
              f"features used", flush=True)
        for row in test[: args.instances]:
            x = X[row]
            for method in ("MARCO-A", "MARCO-C"):
                rec = Recorder(ens, x)
                marco = explain.Marco(rec, target=METHODS[method], time_limit=args.record_limit,
                                      clock="cpu")
                for _ in marco:
                    pass
                for r in replay(model, ens, x, rec.log, args.milp_calls):
                    thr_rows.append({"dataset": name, "instance": int(row), "queries": method,
                                     **r, "calls_per_s": r["calls"] / r["seconds"]})
            if name not in args.ffa_datasets:
                continue
            for method, target in METHODS.items():
                o = BoostedOracle(ens, x)
                m = explain.Marco(o, target=target, time_limit=args.time_limit, clock="cpu")
                t0 = time.process_time()
                for _ in m:
                    pass
                dt = time.process_time() - t0
                ffa_rows.append({"dataset": name, "instance": int(row), "method": method,
                                 "complete": m.complete, "seconds": dt, "axps": len(m.axps),
                                 "cxps": len(m.cxps), "oracle_calls": o.calls,
                                 "calls_per_s": o.calls / dt if dt > 0 else float("nan")})
                print(f"  {name} row {row} {method}: {'exact' if m.complete else 'timeout'} "
                      f"{dt:.2f}s, {len(m.axps)} AXps, {o.calls} calls", flush=True)
    thr = pd.DataFrame(thr_rows)
    ffa = pd.DataFrame(ffa_rows)
    thr.to_csv(out / "boosted_oracle.csv", index=False)
    ffa.to_csv(out / "boosted.csv", index=False)
    thr_sum = (thr.groupby(["dataset", "oracle"])[["calls", "seconds"]].sum()
               .assign(calls_per_s=lambda d: d.calls / d.seconds).reset_index())
    ffa_sum = (ffa.groupby(["dataset", "method"])
               .agg(instances=("instance", "count"), exact=("complete", "sum"),
                    mean_s=("seconds", "mean"), max_s=("seconds", "max"),
                    mean_axps=("axps", "mean"), calls_per_s=("calls_per_s", "mean"))
               .reset_index())
    md = [
        "# Boosted-tree oracle benchmark", "",
        f"Python {platform.python_version()}, {platform.machine()}; process CPU seconds; "
        f"FFA time limit {args.time_limit:g}s per run; seed {args.seed}.", "",
        "## Oracle calls per second (MARCO-A / MARCO-C query replay)", "",
        to_markdown(thr_sum.round(4)), "",
        "## Time to exact FFA per instance", "",
        to_markdown(ffa_sum.round(4)), "",
    ]
    (out / "boosted.md").write_text("\n".join(md))
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
