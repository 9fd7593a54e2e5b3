"""Benchmark: binary XGBoost, fxai's AXp beside PyXAI's tree-specific reason, warm and cold.

    .venv/bin/python -m benchmarks.xgboost_pyxai --pyxai VENV [--instances 10]
        [--trees 50] [--depth 3] [--out results/bench/xgboost-pyxai]

Model: ``XGBClassifier(n_estimators=50, max_depth=3, random_state=0)`` on scikit-learn's
breast_cancer (``train_test_split(test_size=0.25, random_state=0)``); the first
``--instances`` test rows. Process CPU s per row:

* fxai: one AXp (``explain.find_axp``: deletion, subset-minimal) warm (the model converted
  once, before the clock) and cold (a fresh copy of the model per row: conversion and leaf
  tables inside the clock);
* PyXAI 2.0.1 (``--pyxai VENV``: made there with ``pip install pyxai==2.0.1`` when absent,
  run in a process of its own): ``tree_specific_reason()``, warm (the model imported once)
  and cold (``Learning.ModelIO.import_models`` inside the clock). PyXAI 2.0.1's explainer
  keeps a history of the reasons in feature terms that fails on a model fitted without
  feature names (an IndexError in its ``to_features``); the worker switches that history
  off. A tree-specific reason is sufficient but need not be subset-minimal.

Every set of both tools is checked by fxai's independent checker: sufficient (fixing it
keeps the class) and subset-minimal (an AXp). Writes ``<out>.csv`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PYXAI = ["pyxai==2.0.1"]


def pyxai_worker(model_file: str, rows_file: str, out_file: str) -> None:
    """In PyXAI's environment: per row its tree-specific reason's features, warm and cold
    CPU s."""
    sys.argv = sys.argv[:1]  # PyXAI reads the command line when imported
    from pyxai import Explaining, Learning, Tools
    from pyxai.sources.explainers import Visualisation

    Tools.set_verbose(0)
    Visualisation.Visualisation.add_history = lambda *a, **k: None  # see the docstring
    with open(model_file, "rb") as f:
        model = pickle.load(f)
    rows = np.load(rows_file)
    _, warm = Learning.ModelIO.import_models(model, instances_type="tabular")
    out = []
    for x in rows:
        t0 = time.process_time()
        _, bt = Learning.ModelIO.import_models(model, instances_type="tabular")
        Explaining.initialize(bt, instance=x).tree_specific_reason()
        cold = time.process_time() - t0
        t0 = time.process_time()
        explainer = Explaining.initialize(warm, instance=x)
        reason = explainer.tree_specific_reason()
        cpu = time.process_time() - t0
        mapping = explainer._boosted_trees.map_id_binaries_to_features
        out.append({"cpu_s": cpu, "cold_s": cold,
                    "features": sorted({mapping[abs(lit)][0] - 1 for lit in reason})})
    Path(out_file).write_text(json.dumps(out))


def fxai_rows(model, rows) -> list[dict]:
    from fxai import explain, oracles

    oracles.warm_up()
    oracles.check_model(model)  # converted once, before the clocks of the warm rows
    out = []
    for x in rows:
        fresh = pickle.loads(pickle.dumps(model))
        t0 = time.process_time()
        explain.find_axp(oracles.for_model(fresh, x))
        cold = time.process_time() - t0
        t0 = time.process_time()
        axp = explain.find_axp(oracles.for_model(model, x))
        out.append({"cpu_s": time.process_time() - t0, "cold_s": cold, "features": axp})
    return out


def checked(model, x, features) -> str:
    """fxai's checker on a set: an AXp, sufficient only, or not sufficient."""
    from fxai import verify

    weak, _ = verify.weak_axp_fn(model, x)
    if weak([features]) != [True]:
        return "WRONG: not sufficient"
    return "AXp" if verify.check_all(model, x, [features], [])[0] == [True] else (
        "sufficient, not minimal")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pyxai", type=Path, required=True, help="PyXAI's virtual environment")
    p.add_argument("--instances", type=int, default=10)
    p.add_argument("--trees", type=int, default=50)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path("results/bench/xgboost-pyxai"))
    p.add_argument("--pyxai-worker", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.pyxai_worker:
        pyxai_worker(*args.pyxai_worker)
        return
    import pandas as pd
    import xgboost as xgb
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from benchmarks.forests import venv_python

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0)
    model = xgb.XGBClassifier(n_estimators=args.trees, max_depth=args.depth,
                              random_state=0).fit(Xtr, ytr)
    rows = Xte[:args.instances]
    py = venv_python(args.pyxai.resolve(), [*PYXAI, f"xgboost=={xgb.__version__}"])
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / name for name in ("model.pkl", "rows.npy", "out.json")]
        files[0].write_bytes(pickle.dumps(model))
        np.save(files[1], rows)
        subprocess.run([str(py), "-m", "benchmarks.xgboost_pyxai", "--pyxai", str(args.pyxai),
                        "--pyxai-worker", *map(str, files)], check=True)
        peer = json.loads(files[2].read_text())
    table = []
    for tool, got in (("fxai", fxai_rows(model, rows)), ("PyXAI", peer)):
        for i, (x, r) in enumerate(zip(rows, got, strict=True)):
            table.append({"tool": tool, "instance": i, "cpu_s": round(r["cpu_s"], 4),
                          "cold_s": round(r["cold_s"], 4), "size": len(r["features"]),
                          "check": checked(model, x, r["features"])})
            print(table[-1], flush=True)
    df = pd.DataFrame(table)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out.with_suffix(".csv"), index=False)
    summary = df.groupby("tool").agg(
        rows=("instance", "size"), warm_mean=("cpu_s", "mean"), warm_max=("cpu_s", "max"),
        cold_mean=("cold_s", "mean"), cold_max=("cold_s", "max"), size_mean=("size", "mean"),
        axps=("check", lambda c: int((c == "AXp").sum())),
        sufficient=("check", lambda c: int(c.str.startswith(("AXp", "sufficient")).sum())))
    md = (f"XGBoost {args.trees} trees depth {args.depth}, breast_cancer, first "
          f"{args.instances} test rows, process CPU s per row\n\n"
          + summary.round(4).to_markdown() + "\n")
    args.out.with_suffix(".md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
