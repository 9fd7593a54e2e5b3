"""Benchmark: the linear enumeration of a binary NBC's AXps (``fxai.explain.linear``)
against MARCO, per AXp.

Models with many AXps per instance: XLCs over ``n`` binary features of near-equal weights
(1 + 0.01 u, u uniform, seeded) and a bias that puts the threshold near the middle, at the
all-ones instance (about C(n, n/2) AXps: 10^4 to 10^6 for 16-22 features, more than any
limit for 40 and 60); and, for few AXps, binary
CategoricalNBs fitted on seeded random data (12-16 features). Per instance: the AXps the
linear stream yields within ``--limit`` CPU s (``linear.stream``, fresh oracle, start-up
included), then MARCO (``Marco(target="axp")``) under the same limit on the same oracle
kind, the CPU per AXp of each and their ratio; then the exact FFA (``explain.ffa``) of the
first model with at least 10^5 AXps. Writes ``<out>.csv`` and ``<out>.md``.

    .venv/bin/python -m benchmarks.nbc_linear [--limit 10] [--out results/bench/nbc_linear]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fxai import explain
from fxai.explain import linear
from fxai.models.nbc import XLC, train
from fxai.oracles.base import TimeLimitExceeded
from fxai.oracles.nbc import NBCOracle


def many(n: int, seed: int = 0) -> NBCOracle:
    """``n`` binary features of near-equal weights, at the all-ones instance."""
    rng = np.random.default_rng(seed)
    weights = tuple(np.array([0.0, 1.0 + 0.01 * rng.random()]) for _ in range(n))
    return NBCOracle(XLC(-n / 2 + 0.3, weights), [1] * n)


def few(n: int, seed: int) -> NBCOracle:
    """A CategoricalNB fitted on seeded random data over ``n`` features of 2-4 values."""
    rng = np.random.default_rng(seed)
    doms = [int(rng.integers(2, 5)) for _ in range(n)]
    y = rng.integers(0, 2, size=200)
    X = np.stack([np.where(rng.random(200) < 0.6, (y * rng.integers(0, d)) % d,
                           rng.integers(0, d, size=200)) for d in doms], axis=1)
    model = train(X, y, doms)
    return NBCOracle(model, [int(rng.integers(0, d)) for d in doms])


def linear_run(make, limit: float) -> tuple[int, float, bool]:
    """(AXps, CPU s, complete) of the stream, the oracle's construction included."""
    t0 = time.process_time()
    o = make()
    count, complete = 0, True
    try:
        for _ in linear.stream(o, "axp", time_limit=limit):
            count += 1
    except TimeLimitExceeded:
        complete = False
    return count, time.process_time() - t0, complete


def marco_run(make, limit: float) -> tuple[int, float, bool]:
    t0 = time.process_time()
    m = explain.Marco(make(), target="axp", time_limit=limit)
    for _ in m:
        pass
    return len(m.axps), time.process_time() - t0, m.complete


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--limit", type=float, default=10.0)
    p.add_argument("--out", default="results/bench/nbc_linear")
    args = p.parse_args(argv)
    for run in (linear_run, marco_run):  # compile and import once, outside the timings
        run(lambda: few(8, 99), args.limit)
    cases = [(f"near-equal n={n}", lambda n=n: many(n)) for n in (16, 18, 20, 22, 40, 60)]
    cases += [(f"fitted n={n} seed={s}", lambda n=n, s=s: few(n, s))
              for n in (12, 16) for s in (0, 1)]
    rows = []
    for name, make in cases:
        n_lin, t_lin, c_lin = linear_run(make, args.limit)
        n_mar, t_mar, c_mar = marco_run(make, args.limit)
        per_lin = t_lin / max(n_lin, 1) * 1e6
        per_mar = t_mar / max(n_mar, 1) * 1e6
        rows.append({"instance": name, "linear_axps": n_lin, "linear_s": t_lin,
                     "linear_complete": c_lin, "linear_us_per_axp": per_lin,
                     "marco_axps": n_mar, "marco_s": t_mar, "marco_complete": c_mar,
                     "marco_us_per_axp": per_mar if n_mar else float("nan"),
                     "marco_over_linear": per_mar / per_lin if n_mar else float("nan")})
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    big = next((make for name, make in cases
                if table.loc[table.instance == name, "linear_axps"].iloc[0] >= 100_000
                and table.loc[table.instance == name, "linear_complete"].iloc[0]), None)
    lines = [table.to_markdown(index=False, floatfmt=".2f")]
    if big is not None:
        o = big()
        t0 = time.process_time()
        scores, complete = explain.ffa(o, time_limit=args.limit)
        lines.append(f"\nExact FFA of the first complete instance with >= 10^5 AXps: "
                     f"{time.process_time() - t0:.2f} CPU s, complete={complete}, "
                     f"{len(scores)} features scored.")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(f"{args.out}.csv", index=False)
    Path(f"{args.out}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
