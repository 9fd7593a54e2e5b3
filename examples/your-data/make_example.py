"""Write the example of docs/your-data.md: loans.csv (a made-up table of 240 loan
applications, seeded) and loans-xgb.json (an XGBoost model fitted on it, a model "of your
own").

    .venv/bin/python examples/your-data/make_example.py

Both files are committed; this script is how they were made (same output on a rerun).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROWS = 240
SEED = 7


def make_table(rows: int = ROWS, seed: int = SEED) -> pd.DataFrame:
    """Integer-coded features, one text column (purpose) and the class `approved` (0/1):
    approved when income and history outweigh debt, with 5 % of labels flipped."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "age_band": rng.integers(0, 4, rows),
        "income_band": rng.integers(0, 4, rows),
        "employed": rng.integers(0, 2, rows),
        "credit_history": rng.integers(0, 3, rows),
        "debt_band": rng.integers(0, 4, rows),
        "guarantor": rng.integers(0, 2, rows),
        "purpose": rng.choice(["car", "education", "house"], rows),
    })
    score = (df["income_band"] + 2 * df["credit_history"] + df["employed"] + df["guarantor"]
             - 1.5 * df["debt_band"])
    approved = (score >= 2).astype(int)
    flip = rng.random(rows) < 0.05
    df["approved"] = np.where(flip, 1 - approved, approved)
    return df


def fit_model(df: pd.DataFrame):
    """An XGBoost classifier on every column but purpose (it records the column names)."""
    import xgboost as xgb

    X = df.drop(columns=["purpose", "approved"])
    model = xgb.XGBClassifier(n_estimators=8, max_depth=3, learning_rate=0.3,
                              tree_method="exact", n_jobs=1, random_state=SEED)
    return model.fit(X, df["approved"])


def main() -> None:
    df = make_table()
    df.to_csv(HERE / "loans.csv", index=False)
    fit_model(df).save_model(HERE / "loans-xgb.json")
    print(f"wrote {HERE / 'loans.csv'} ({len(df)} rows) and {HERE / 'loans-xgb.json'}")


if __name__ == "__main__":
    main()
