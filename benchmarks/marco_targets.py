"""Benchmark: which MARCO target yields AXps first under a time limit.

    .venv/bin/python -m benchmarks.marco_targets [--features 30] [--time-limit 5]

A ``CategoricalNB`` on ``--features`` columns of 500 random rows of 3 values (seed 0; the
class is the sum of the first third of the columns plus noise, over its median), its first
row explained by ``explain.all_xps(o, time_limit=..., target=...)`` for each target
(``"axp"``, ``"cxp"``, ``"switch"``; process CPU s). Prints and writes ``<out>.md`` with
the AXps and CXps each found.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--features", type=int, default=30)
    p.add_argument("--time-limit", type=float, default=5.0, help="CPU s per target")
    p.add_argument("--out", default="results/bench/marco_targets")
    args = p.parse_args(argv)
    from sklearn.naive_bayes import CategoricalNB

    from fxai import explain, oracles

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(500, args.features))
    score = X[:, :max(1, args.features // 3)].sum(axis=1) + rng.normal(0, 2, 500)
    y = (score > np.median(score)).astype(int)
    o = oracles.for_model(CategoricalNB().fit(X, y), X[0])
    lines = ["| target | AXps | CXps | complete |", "|---|---|---|---|"]
    for target in ("axp", "cxp", "switch"):
        r = explain.all_xps(o, time_limit=args.time_limit, target=target)
        lines.append(f"| {target} | {len(r.axps)} | {len(r.cxps)} | {r.complete} |")
        print(lines[-1], flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(
        f"MARCO targets, {args.features}-feature naive Bayes, {args.time_limit} CPU s each\n\n"
        + "\n".join(lines) + "\n")
    print(f"wrote {out}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
