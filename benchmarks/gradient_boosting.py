"""Benchmark: one AXp of the gradient-boosting libraries' default 100-round models, side by
side.

    .venv/bin/python -m benchmarks.gradient_boosting [--instances 5] [--datasets ...]

Models (scikit-learn's own datasets, ``train_test_split(test_size=0.25, random_state=0)``,
every library at its defaults but the seed): ``XGBClassifier(random_state=0)``,
``lightgbm.LGBMClassifier(random_state=0, verbose=-1)`` and
``HistGradientBoostingClassifier(random_state=0)`` and
``GradientBoostingClassifier(random_state=0)`` (100 rounds each: one tree per round for
two classes, one per class and round for more; HistGradientBoosting stops early on more
than 10,000 rows only) on breast_cancer (2 classes, 30 features) and digits (10 classes, 64
features). Explained: the first ``--instances`` test rows. The compiled search is loaded
first (``oracles.warm_up``, printed: once per process). Per model: the conversion's CPU s
(``oracles.prepare``, once), then per row the CPU s of one AXp (``explain.find_axp``,
deletion, under ``--time-limit`` CPU s) cold (on a fresh copy of the model: its conversion
and leaf tables inside the clock, as for one row per process) and warm (on the model
converted once, the tables of earlier rows kept), and the check of the warm AXp by the
family's independent checker (``verify.check_all``: sufficient and subset-minimal) and
its CPU s. ``--libraries``: only those.

Writes ``<out>.csv`` (one row per library, dataset and instance; ``--out`` defaults to
``results/bench/gradient-boosting``) and ``<out>.md`` (per library and dataset: trees,
conversion s, mean and max CPU s per AXp warm and cold, mean AXp size, the AXps checked).
"""

from __future__ import annotations

import argparse
import csv
import pickle
import time
from pathlib import Path

import numpy as np

DATASETS = ("breast_cancer", "digits")
LIBRARIES = ("xgboost", "lightgbm", "hist_gradient", "gradient_boosting")


def _data(name: str):
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return train_test_split(X.astype(np.float64), y, test_size=0.25, random_state=0)


def _fit(library: str, X, y):
    if library == "xgboost":
        import xgboost as xgb

        return xgb.XGBClassifier(random_state=0).fit(X, y)
    if library == "lightgbm":
        import lightgbm as lgb

        return lgb.LGBMClassifier(random_state=0, verbose=-1).fit(X, y)
    if library == "gradient_boosting":
        from sklearn.ensemble import GradientBoostingClassifier

        return GradientBoostingClassifier(random_state=0).fit(X, y)
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(random_state=0).fit(X, y)


def _trees(model) -> int:
    from fxai import oracles

    converted = oracles.prepare(model)
    return len(getattr(converted, "model", converted).trees)


def _axp(model, x, time_limit: float):
    """One AXp (deletion) of ``model`` at ``x`` and its CPU s; None at the time limit."""
    from fxai import explain, oracles

    t0 = time.process_time()
    try:
        axp = explain.find_axp(oracles.for_model(model, x), time_limit=time_limit)
    except oracles.TimeLimitExceeded:
        axp = None
    return axp, time.process_time() - t0


def run(instances: int, datasets: list[str], time_limit: float,
        libraries: tuple[str, ...] = LIBRARIES) -> list[dict]:
    from fxai import oracles, verify

    print(f"compiled search loaded in {oracles.warm_up():.2f} s", flush=True)
    rows = []
    for ds in datasets:
        Xtr, Xte, ytr, _ = _data(ds)
        for lib in libraries:
            model = _fit(lib, Xtr, ytr)
            t0 = time.process_time()
            oracles.check_model(model)  # converted once, kept for for_model
            convert = time.process_time() - t0
            trees = _trees(model)
            for i in range(instances):
                x = Xte[i]
                cold = _axp(pickle.loads(pickle.dumps(model)), x, time_limit)[1]
                axp, cpu = _axp(model, x, time_limit)
                checked, check_s = "time limit", None
                if axp is not None:
                    t0 = time.process_time()
                    try:
                        ok_a, _ = verify.check_all(model, x, [axp], [], time_limit=60)
                        checked = "valid, minimal" if ok_a == [True] else "WRONG"
                    except oracles.TimeLimitExceeded:
                        checked = "unchecked"
                    check_s = round(time.process_time() - t0, 4)
                rows.append({"library": lib, "dataset": ds, "trees": trees,
                             "convert_s": round(convert, 3), "instance": i,
                             "axp_s": round(cpu, 4), "cold_s": round(cold, 4),
                             "size": None if axp is None else len(axp), "check": checked,
                             "check_s": check_s})
                print(rows[-1], flush=True)
    return rows


def _summary(rows: list[dict]) -> str:
    lines = ["| library | dataset | trees | conversion CPU s | AXp CPU s mean / max | cold AXp CPU "
             "s mean / max | AXp size mean | checked | check CPU s mean |",
             "|---|---|---|---|---|---|---|---|---|"]
    for lib in LIBRARIES:
        for ds in DATASETS:
            r = [x for x in rows if x["library"] == lib and x["dataset"] == ds]
            if not r:
                continue
            done = [x for x in r if x["size"] is not None]
            t = [x["axp_s"] for x in done] or [float("nan")]
            cold = [x["cold_s"] for x in r]
            ok = sum(x["check"] == "valid, minimal" for x in r)
            cut = len(r) - len(done)
            lines.append(f"| {lib} | {ds} | {r[0]['trees']} | {r[0]['convert_s']:.2f} | "
                         f"{np.mean(t):.3f} / {max(t):.3f}"
                         + (f" ({cut} at the time limit)" if cut else "") + " | "
                         f"{np.mean(cold):.3f} / {max(cold):.3f} | "
                         f"{np.mean([x['size'] for x in done] or [np.nan]):.1f} | "
                         f"{ok} of {len(r)} | "
                         f"{np.mean([x['check_s'] for x in done] or [np.nan]):.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instances", type=int, default=5)
    p.add_argument("--time-limit", type=float, default=60.0, help="CPU s per AXp")
    p.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    p.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=list(LIBRARIES))
    p.add_argument("--out", default="results/bench/gradient-boosting")
    args = p.parse_args()
    rows = run(args.instances, args.datasets, args.time_limit, tuple(args.libraries))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    table = _summary(rows)
    out.with_suffix(".md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
