"""Benchmark: what checking costs beside explaining, per explanation, on models as people fit
them (the libraries' defaults).

    .venv/bin/python -m benchmarks.check_cost [--rows 2] [--time-limit 20] [--check-limit 40] \
        [--models xgb,lgbm,hgb,rf-soft,rf-hard,pipe] [--data breast_cancer,digits,mixed] \
        [--out results/bench/check_cost]

Per model and dataset, over ``--rows`` test rows: ``explain.all_xps`` under ``--time-limit``
CPU seconds, then ``verify.check_all`` of every AXp and CXp it returned under
``--check-limit`` (default: twice the time limit, issue 53's target ratio; process CPU
time). ``mixed`` is a seeded 13-column table of numbers and text categories with a few
missing values (HistGradientBoosting and LightGBM take it as it is, with
``missing=True``; the other models take its rows without missing values, categories as codes,
the Pipeline as text through a OneHotEncoder). Columns: ``explain_s`` and ``check_s`` (per
row, mean), ``xps`` (AXps and CXps per row), ``check_per_xp_ms``, ``ratio`` (check CPU over
explain CPU), ``over_limit_s`` (the most ``all_xps`` ran past its limit), ``decided``
(rows whose every explanation the checker decided) and why the others were not
(``undecided``: a near-tie band too large to list). Writes
``<out>.csv`` and ``<out>.md``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from fxai import explain, oracles, verify

MODELS = ("xgb", "lgbm", "hgb", "rf-soft", "rf-hard", "pipe")
DATA = ("breast_cancer", "digits", "mixed")


def mixed(seed: int = 0, n: int = 2000) -> tuple[pd.DataFrame, np.ndarray]:
    """13 columns: 8 numbers, 5 text categories; about 3% missing values."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"num{i}": rng.normal(size=n).round(2) for i in range(8)})
    for i, k in enumerate((2, 3, 4, 5, 8)):
        df[f"cat{i}"] = pd.Categorical(rng.choice([f"v{j}" for j in range(k)], n))
    score = df.num0 + 0.5 * df.num1 - (df.cat0 == "v1") + 0.8 * (df.cat2.isin(["v0", "v3"]))
    y = (score + rng.normal(scale=0.5, size=n) > 0.3).astype(int).to_numpy()
    for col in ("num2", "num5", "cat1", "cat3"):
        df.loc[rng.random(n) < 0.03, col] = np.nan
    return df, y


def load(name: str):
    """(features as a frame, labels, categorical columns)."""
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "mixed":
        X, y = mixed()
        return X, y, [c for c in X.columns if c.startswith("cat")]
    X, y = (load_breast_cancer if name == "breast_cancer" else load_digits)(
        return_X_y=True, as_frame=True)
    return X, y.to_numpy(), []


def fit(kind: str, X: pd.DataFrame, y, cats: list[str]):
    """(the fitted model, the frame it reads, the keywords of its explanation)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    nums = [c for c in X.columns if c not in cats]
    if kind in ("hgb", "lgbm"):
        if kind == "hgb":
            model = HistGradientBoostingClassifier(categorical_features="from_dtype",
                                                   random_state=0)
            return model.fit(X, y), X, {"missing": bool(X.isna().any().any())}
        import lightgbm as lgb

        coded = X.copy()
        for c in cats:  # LightGBM's categories: integer codes (NaN stays missing)
            coded[c] = coded[c].cat.codes.replace(-1, np.nan).astype(float)
        model = lgb.LGBMClassifier(verbose=-1, random_state=0)
        model.fit(coded, y, categorical_feature=cats or "auto")
        return model, coded, {"missing": bool(X.isna().any().any())}
    keep = ~X.isna().any(axis=1).to_numpy()
    X, y = X[keep], y[keep]
    if kind == "pipe":
        pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore",
                                                       sparse_output=False), cats),
                                 ("num", StandardScaler(), nums)])
        model = Pipeline([("pre", pre), ("rf", RandomForestClassifier(random_state=0))])
        return model.fit(X, y), X, {}
    coded = X.copy()
    for c in cats:
        coded[c] = coded[c].cat.codes
    if kind == "xgb":
        import xgboost as xgb

        return xgb.XGBClassifier(random_state=0).fit(coded, y), coded, {}
    model = RandomForestClassifier(random_state=0).fit(coded, y)
    return model, coded, {"vote": "hard" if kind == "rf-hard" else "soft"}


def measure(model, rows: pd.DataFrame, options: dict, limit: float, check_limit: float) -> dict:
    explain_s, check_s, xps, decided, why, over = [], [], [], 0, [], 0.0
    for _, x in rows.iterrows():
        t0 = time.process_time()
        o = oracles.for_model(model, x, **options)
        started = time.process_time()
        r = explain.all_xps(o, time_limit=limit)
        t1 = time.process_time()
        over = max(over, t1 - started - limit)
        try:
            verdict = verify.verdict(*verify.check_all(model, x, r.axps, r.cxps,
                                                       time_limit=check_limit, **options))
            decided += verdict is not None
            if verdict is not True:
                why.append("undecided" if verdict is None else "INVALID")
        except oracles.TimeLimitExceeded as e:
            why.append("time limit" if e.seconds is not None else "size")
        t2 = time.process_time()
        explain_s.append(t1 - t0)
        check_s.append(t2 - t1)
        xps.append(len(r.axps) + len(r.cxps))
    n = max(1, sum(xps))
    return {"explain_s": np.mean(explain_s), "check_s": np.mean(check_s),
            "xps": np.mean(xps), "check_per_xp_ms": sum(check_s) / n * 1e3,
            "ratio": sum(check_s) / max(sum(explain_s), 1e-9),
            "over_limit_s": max(over, 0.0), "decided": f"{decided}/{len(rows)}",
            "not_decided": ", ".join(sorted(set(why))) or "-"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2)
    p.add_argument("--time-limit", type=float, default=20.0)
    p.add_argument("--check-limit", type=float, default=None,
                   help="CPU s for checking a row (default: twice --time-limit)")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--data", default=",".join(DATA))
    p.add_argument("--out", default="results/bench/check_cost")
    args = p.parse_args(argv)
    from sklearn.model_selection import train_test_split

    out = []
    for data in args.data.split(","):
        X, y, cats = load(data)
        for kind in args.models.split(","):
            train, test, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model, frame, options = fit(kind, train, ytr, cats)
                rows = test.loc[:, list(frame.columns)] if kind != "lgbm" else None
                if kind == "lgbm":
                    rows = test.copy()
                    for c in cats:
                        rows[c] = rows[c].cat.codes.replace(-1, np.nan).astype(float)
                if kind not in ("hgb", "lgbm"):
                    rows = rows[~rows.isna().any(axis=1)]
                    if kind != "pipe":
                        for c in cats:
                            rows[c] = rows[c].cat.codes
                rec = measure(model, rows.head(args.rows), options, args.time_limit,
                              args.check_limit or 2 * args.time_limit)
            out.append({"data": data, "model": kind, **rec})
            print(out[-1], flush=True)
    table = pd.DataFrame(out)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(f"{args.out}.csv", index=False)
    Path(f"{args.out}.md").write_text(table.to_markdown(index=False, floatfmt=".2f") + "\n")
    print(table.to_markdown(index=False, floatfmt=".2f"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
