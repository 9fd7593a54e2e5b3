"""Benchmark: the tree-ensemble oracles at scale, beside the binary boosted-tree oracle.

    .venv/bin/python -m benchmarks.ensembles [--instances 3] [--time-limit 30]

Models on scikit-learn's digits (8x8, 64 features, 10 classes), trained here (seeded):

* ``rf``: ``RandomForestClassifier``, 100 trees of depth 6 (soft vote; and hard vote);
* ``mbt``: ``XGBClassifier`` ``multi:softprob``, 50 rounds of depth 3 (50 trees per class,
  500 trees);
* ``bt``: binary ``XGBClassifier`` (digits 1 vs 3), 50 trees of depth 3, the binary oracle.

Per model (printed) the conversion to the oracles' form (``oracles.prepare``); per test
instance (process CPU seconds): the oracle's construction and first
question (the whole instance fixed; builds the per-class-pair tables), one AXp (deletion),
one CXp, MARCO-S enumeration of all AXps and CXps under ``--time-limit`` (complete or not,
with the counts found) and, when complete, the exact FFA from its AXps. Each instance runs
in a forked child process stopped once it has used ``--budget`` CPU seconds (read from
``/proc``, so Linux only); stages not reached by then are left empty (proving one
entailment of a 100-tree forest can take minutes, and the compiled search cannot be
interrupted). Writes ``<out>.csv`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue
import time
from pathlib import Path

import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier

from fxai import explain, oracles


def models(seed: int) -> dict:
    """name -> (model, vote, test rows)."""
    d = load_digits()
    rng = np.random.default_rng(seed)
    test = rng.permutation(len(d.target))
    tr, te = test[300:], test[:300]
    X, y = d.data, d.target
    rf = RandomForestClassifier(n_estimators=100, max_depth=6, random_state=seed,
                                n_jobs=1).fit(X[tr], y[tr])
    mbt = xgb.XGBClassifier(n_estimators=50, max_depth=3, objective="multi:softprob",
                            random_state=seed, n_jobs=1).fit(X[tr], y[tr])
    keep = np.isin(y, [1, 3])
    tr_b, te_b = tr[keep[tr]], te[keep[te]]
    bt = xgb.XGBClassifier(n_estimators=50, max_depth=3, random_state=seed,
                           n_jobs=1).fit(X[tr_b], (y[tr_b] == 3).astype(int))
    return {
        "rf soft (100 trees, depth 6, 10 classes)": (rf, "soft", X[te]),
        "rf hard (100 trees, depth 6, 10 classes)": (rf, "hard", X[te]),
        "mbt (50 trees/class, depth 3, 10 classes)": (mbt, None, X[te]),
        "bt binary 1vs3 (50 trees, depth 3)": (bt, None, X[te_b]),
    }


def cpu(fn):
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def measure(converted, x, time_limit: float, out) -> None:
    """Put each stage's result on the queue ``out`` as soon as it is known (child process;
    ``converted``: the model as ``oracles.prepare`` returns it, so that the child does not
    call XGBoost, whose OpenMP threads do not survive a fork)."""
    o, t_build = cpu(lambda: oracles.for_model(converted, x))
    _, t_first = cpu(lambda: o.entails(o.features))
    out.put({"features": len(o.features), "build_s": t_build + t_first})
    axp, t_axp = cpu(lambda: explain.find_axp(o))
    out.put({"axp_s": t_axp, "axp_len": len(axp)})
    _, t_cxp = cpu(lambda: explain.find_cxp(o))
    out.put({"cxp_s": t_cxp})
    m = explain.Marco(o, target="switch", time_limit=time_limit, clock="cpu")
    _, t_all = cpu(lambda: list(m))
    out.put({"marco_s": t_all, "complete": m.complete, "axps": len(m.axps),
             "cxps": len(m.cxps)})
    if m.complete:
        _, t_ffa = cpu(lambda: explain.ffa_from_axps([list(a) for a in m.axps]))
        out.put({"exact_ffa_s": t_all + t_ffa})
    out.put(None)


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bounded(name: str, converted, x, time_limit: float, budget: float) -> dict:
    """:func:`measure` in a forked child process, stopped once it used ``budget`` CPU s."""
    q: mp.Queue = mp.Queue()
    child = mp.get_context("fork").Process(target=measure, args=(converted, x, time_limit, q))
    child.start()
    row: dict = {"model": name}
    while True:
        try:
            part = q.get(timeout=0.5)
        except queue.Empty:
            if child.is_alive() and cpu_of(child.pid) < budget:
                continue
            child.terminate()
            row["stopped"] = True
            break
        if part is None:
            break
        row |= part
    child.join()
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=3)
    p.add_argument("--time-limit", type=float, default=30.0, help="CPU s per enumeration")
    p.add_argument("--budget", type=float, default=60.0,
                   help="CPU seconds per (model, instance), all stages")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="results/bench/ensembles")
    args = p.parse_args(argv)
    oracles.warm_up()  # compiled code on disk for the children
    rows = []
    for name, (model, vote, xs) in models(args.seed).items():
        converted, t_convert = cpu(lambda m=model, v=vote: oracles.prepare(m, vote=v))
        print(f"{name}: converted in {t_convert:.2f} s", flush=True)
        for x in xs[:args.instances]:
            rows.append(bounded(name, converted, list(x), args.time_limit, args.budget))
            print(rows[-1], flush=True)
    cols = ["features", "build_s", "axp_s", "axp_len", "cxp_s", "marco_s", "complete",
            "axps", "cxps", "exact_ffa_s"]
    df = pd.DataFrame(rows).reindex(columns=["model", *cols, "stopped"])
    agg = df.groupby("model", sort=False).agg(
        instances=("model", "size"), **{c: (c, "mean") for c in cols if c != "complete"},
        complete=("complete", "sum"), stopped=("stopped", "count")).reset_index()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out.with_suffix(".csv"), index=False, float_format="%.4f")
    out.with_suffix(".md").write_text(
        f"Means over {args.instances} digits test instances (process CPU s) of the stages "
        f"reached within {args.budget:g} CPU s per instance (`stopped`: instances cut off); "
        f"MARCO-S under {args.time_limit:g} CPU s, `complete`: instances enumerated "
        "completely; exact FFA (enumeration + FFA) over the complete ones.\n\n"
        + agg.to_markdown(index=False, floatfmt=".3g") + "\n")
    print(f"wrote {out}.csv and {out}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
