"""Benchmark: what ``oracles.for_model`` costs per instance, with and without conversion.

    .venv/bin/python -m benchmarks.api [--instances 50] [--out results/bench/api]

Models: the XGBoost models of ``benchmarks.boosted`` (seeded, built here) and a depth-6
scikit-learn tree on breast cancer. Per model, over ``--instances`` test rows (process CPU
time, robust to a loaded machine):

* ``first_ms``: the first ``for_model`` call on the model (converts it);
* ``cached_ms``: later ``for_model(model, x)`` calls (mean; the conversion is cached);
* ``uncached_ms``: ``prepare(model)`` + ``for_model`` per instance (what every call cost
  before the cache: the model converted again each time);
* ``oracle_ms``: ``for_model`` on the converted model (building the instance's oracle).

``warm_up_s`` is the one-off load of the boosted oracle's compiled code in this process.
Writes ``<out>.csv`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier

from benchmarks.boosted import datasets
from fxai import oracles


def mean_ms(fn, xs) -> float:
    t0 = time.process_time()
    for x in xs:
        fn(x)
    return (time.process_time() - t0) / len(xs) * 1e3


def measure(name: str, model, xs: np.ndarray) -> dict:
    t0 = time.process_time()
    oracles.for_model(model, xs[0])
    first = (time.process_time() - t0) * 1e3
    converted = oracles.prepare(model)
    return {
        "model": name,
        "first_ms": first,
        "cached_ms": mean_ms(lambda x: oracles.for_model(model, x), xs[1:]),
        "uncached_ms": mean_ms(lambda x: oracles.for_model(oracles.prepare(model), x), xs[1:]),
        "oracle_ms": mean_ms(lambda x: oracles.for_model(converted, x), xs[1:]),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="results/bench/api")
    args = p.parse_args(argv)
    warm = oracles.warm_up()
    print(f"warm_up: {warm:.3f} s", flush=True)
    rows = []
    rng = np.random.default_rng(args.seed)
    for name, (X, y, trees, depth) in datasets(args.seed).items():
        booster = xgb.XGBClassifier(n_estimators=trees, max_depth=depth,
                                    random_state=args.seed).fit(X, y).get_booster()
        xs = X[rng.choice(len(X), args.instances + 1, replace=False)]
        rows.append(measure(f"xgboost {name} ({trees} trees, depth {depth})", booster, xs))
        print(rows[-1], flush=True)
    X, y = load_breast_cancer(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=6, random_state=args.seed).fit(X, y)
    rows.append(measure("sklearn tree breast-cancer (depth 6)", tree,
                        X[rng.choice(len(X), args.instances + 1, replace=False)]))
    print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    df["warm_up_s"] = warm
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False, float_format="%.4f")
    out.with_suffix(".md").write_text(
        f"`for_model` per instance (ms of process CPU time, mean of {args.instances} instances "
        f"after the first); compiled code loaded first by `warm_up()` in {warm:.2f} s.\n\n"
        + df.drop(columns="warm_up_s").to_markdown(index=False, floatfmt=".2f") + "\n")
    print(f"wrote {out}.csv and {out}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
