"""Benchmark: time per AXp and per ApproxPAXp of NBCs, and the size of the counting DP.

Uses the models, prepared data and splits a workflow run left (``results/<profile>/``),
re-times, for the same instances the workflow explains, the polynomial AXp and every
trimmed ApproxPAXp setting (fresh oracle each time, best of ``--repeat``; no
verification), and writes ``results/bench/nbc.csv`` and ``.md``: mean, p95 and max (wall
and process CPU time) per
dataset and decimal places, DP columns (mean, max), the feature-space size (log10, to show
why counts are kept as float64 probabilities: int64 stops at 9.2e18), and the machine load.

    .venv/bin/python -m benchmarks.nbc [--profile default] [--decimals 3 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from fxai.experiments.nbc import pick_instances, read_prepared, read_split
from fxai.explain.paxp import approx_paxp
from fxai.models import nbc
from fxai.oracles.nbc import NBCOracle


def _best(fn, repeat: int):
    """``(wall s, cpu s, result)``: the best of ``repeat`` runs (CPU time is the process's,
    insensitive to other jobs competing for the cores)."""
    best, cpu, out = np.inf, np.inf, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return best, cpu, out


def bench_dataset(ds: str, results: Path, cfg: dict, decimals: int, repeat: int,
                  seed: int) -> dict:
    X, _, sizes, _ = read_prepared(f"data/prepared/{ds}.csv")
    _, test = read_split(results / "splits" / f"{ds}.json")
    model = nbc.load(results / "models" / "nbc" / f"{ds}.joblib")
    rows = pick_instances(test, cfg.get("instances", 200), seed)
    t_axp, t_paxp, c_paxp, cols = [], [], [], []
    for row in rows:
        x = X[row]
        t, _, axp = _best(lambda x=x: NBCOracle(model, x, decimals).axp(), repeat)
        t_axp.append(t)
        for delta in cfg.get("deltas", [0.98, 0.95, 0.93, 0.90]):
            for target in cfg.get("targets", [9, 7, 4]):
                if len(axp) <= target:
                    continue

                def run(x=x, axp=axp, delta=delta):
                    o = NBCOracle(model, x, decimals)
                    order = sorted(axp, key=lambda i: (o.deltas[i], i))
                    approx_paxp(o, delta, seed=axp, order=order)
                    return o.dp.columns

                t, cpu, c = _best(run, repeat)
                t_paxp.append(t)
                c_paxp.append(cpu)
                cols.append(c)
    a = np.array(t_axp)
    p, q = (np.array(t_paxp), np.array(c_paxp)) if t_paxp else (np.zeros(1), np.zeros(1))
    return {
        "dataset": ds, "decimals": decimals, "n_instances": len(rows),
        "n_features": len(sizes), "log10_space": float(np.sum(np.log10(sizes))),
        "axp_mean_ms": 1e3 * a.mean(), "axp_p95_ms": 1e3 * np.percentile(a, 95),
        "axp_max_ms": 1e3 * a.max(), "n_paxp": len(t_paxp),
        "paxp_mean_ms": 1e3 * p.mean(), "paxp_p95_ms": 1e3 * np.percentile(p, 95),
        "paxp_max_ms": 1e3 * p.max(), "paxp_cpu_mean_ms": 1e3 * q.mean(),
        "paxp_cpu_p95_ms": 1e3 * np.percentile(q, 95), "paxp_cpu_max_ms": 1e3 * q.max(),
        "dp_columns_mean": float(np.mean(cols)) if cols else 0.0,
        "dp_columns_max": int(np.max(cols)) if cols else 0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--config", default=None, help="config file (default: by profile)")
    ap.add_argument("--decimals", type=int, nargs="+", default=[3])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--out", default="results/bench/nbc")
    args = ap.parse_args(argv)
    conf_path = args.config or ("config/paper.yaml" if args.profile == "paper"
                                else "config/config.yaml")
    conf = yaml.safe_load(Path(conf_path).read_text())
    cfg, results = conf.get("nbc") or {}, Path("results") / args.profile
    names = args.datasets or cfg.get("datasets", [])
    rows = []
    for ds in names:
        if not (results / "models" / "nbc" / f"{ds}.joblib").exists():
            print(f"{ds}: no model in {results}; run the workflow first")
            continue
        for d in args.decimals:
            rows.append(bench_dataset(ds, results, cfg, d, args.repeat, conf.get("seed", 0)))
            print({k: round(float(v), 3) if isinstance(v, float | np.floating) else v
                   for k, v in rows[-1].items()})
    df = pd.DataFrame(rows)
    if df.empty:
        return 1
    for d, g in df.groupby("decimals"):  # over all datasets and settings
        w = g["n_paxp"]
        mean = float((g["paxp_mean_ms"] * w).sum() / max(w.sum(), 1))
        cpu = float((g["paxp_cpu_mean_ms"] * w).sum() / max(w.sum(), 1))
        print(f"decimals {d}: ApproxPAXp over {int(w.sum())} runs: wall mean {mean:.2f} ms, "
              f"max {g['paxp_max_ms'].max():.2f} ms; CPU mean {cpu:.2f} ms, "
              f"max {g['paxp_cpu_max_ms'].max():.2f} ms")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False)
    load = os.getloadavg()
    out.with_suffix(".md").write_text(
        f"# NBC benchmark (profile {args.profile}, best of {args.repeat}, "
        f"load average {load[0]:.1f} on {os.cpu_count()} cores)\n\n"
        + df.to_markdown(index=False, floatfmt=".3f") + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
