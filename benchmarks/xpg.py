"""Benchmark: per-instance time to enumerate all AXps and CXps of DTs and OBDDs (XpG).

Uses the models and prepared data a workflow run left (``results/<profile>/models``),
re-times XpG construction + MARCO enumeration per instance (no verification), and writes
``results/bench/xpg.csv`` and ``.md`` with mean, p95 and max per dataset beside the
XpG paper's published average (Tables 1 and 2, ``time_avg_s``).

    .venv/bin/python -m benchmarks.xpg [--profile default] [--repeat 3] [--max-instances 500]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import joblib
import numpy as np
import pandas as pd

from fxai.data.prepared import finite_domains, load
from fxai.experiments.xpg import select_instances
from fxai.explain.marco import Marco
from fxai.models.dtree import from_sklearn
from fxai.models.obdd import OBDD
from fxai.oracles.xpg import XpGOracle
from fxai.report.tables import alias_map

REFERENCE = {"dt": "data/reference/xpg_table2_dt.csv", "obdd": "data/reference/xpg_table1_obdd.csv"}


def time_dataset(family: str, ds: str, models: Path, prepared: str, repeat: int,
                 cap: int | None, seed: int) -> np.ndarray:
    """Per-instance seconds (the minimum over ``repeat`` runs of each instance)."""
    data = load(ds, prepared)
    X = data.X
    if family == "dt":
        graph = from_sklearn(joblib.load(models / "dt" / f"{ds}.joblib"),
                             domains=finite_domains(data.domains))
        if X.dtype.kind == "f":
            X = X.astype(np.float32).astype(float)
    else:
        graph = OBDD.load(models / "obdd" / f"{ds}.bdd.json", data.n_features).to_graph()
    ids = select_instances(data.X, 1000, 0.3, seed, cap)
    times = np.empty(len(ids))
    for k, row in enumerate(ids):
        x = [v.item() for v in X[row]]
        best = np.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            m = Marco(XpGOracle(graph, x), target="axp")
            for _ in m:
                pass
            best = min(best, time.perf_counter() - t0)
        times[k] = best
    return times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="default")
    p.add_argument("--prepared", default="data/prepared")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--max-instances", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="results/bench/xpg")
    args = p.parse_args(argv)
    models = Path("results") / args.profile / "models"
    aliases = alias_map()
    rows = []
    for family in ("obdd", "dt"):
        ref = pd.read_csv(REFERENCE[family])
        ref["key"] = [aliases.get(d.lower(), d) for d in ref["dataset"]]
        for meta in sorted((models / family).glob("*.meta.json")):
            ds = json.loads(meta.read_text())["dataset"]
            t = time_dataset(family, ds, models, args.prepared, args.repeat,
                             args.max_instances, args.seed)
            pub = ref.loc[ref["key"] == aliases.get(ds.lower(), ds), "time_avg_s"]
            rows.append({"family": family, "dataset": ds, "instances": len(t),
                         "mean_s": t.mean(), "p95_s": np.percentile(t, 95), "max_s": t.max(),
                         "paper_avg_s": float(pub.iloc[0]) if len(pub) else np.nan})
            print(f"{family:4s} {ds:28s} n={len(t):5d} mean={t.mean() * 1e3:7.3f} ms "
                  f"p95={rows[-1]['p95_s'] * 1e3:7.3f} ms max={t.max() * 1e3:7.3f} ms", flush=True)
    if not rows:
        raise SystemExit(f"no models under {models}: run the workflow for profile "
                         f"{args.profile!r} first")
    df = pd.DataFrame(rows)
    df["at_or_below_paper"] = [None if np.isnan(p) else bool(m <= p)
                               for m, p in zip(df["mean_s"], df["paper_avg_s"], strict=True)]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False, float_format="%.6f")
    out.with_suffix(".md").write_text(
        "Per-instance time (s) to build the XpG and enumerate all AXps and CXps "
        f"(best of {args.repeat}; at most {args.max_instances} instances per dataset).\n\n"
        + df.to_markdown(index=False, floatfmt=".5f") + "\n")
    print(f"wrote {out}.csv and {out}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
