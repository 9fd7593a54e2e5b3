"""Every explanation checked (issue 53): the checkers decide what people train."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

from fxai import explain, oracles, verify


def test_a_nan_category_with_missing_true_is_checked_not_a_crash():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=300),
                       "c": pd.Categorical(rng.choice(["u", "v", "w"], 300))})
    df.loc[rng.random(300) < 0.1, "c"] = np.nan
    y = ((df.a > 0) ^ (df.c == "v")).astype(int)
    model = HistGradientBoostingClassifier(max_iter=5, categorical_features="from_dtype",
                                           random_state=0).fit(df, y)
    for _, row in df[df.c.isna()].head(3).iterrows():
        o = oracles.for_model(model, row, missing=True)
        r = explain.all_xps(o)
        ok_a, ok_c = verify.check_all(model, row, r.axps, r.cxps, missing=True)
        assert all(ok_a) and all(ok_c)
