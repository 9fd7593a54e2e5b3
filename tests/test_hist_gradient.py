"""scikit-learn's HistGradientBoostingClassifier read exactly: the oracle's prediction is
``predict``'s on a grid over every threshold (both sides, and NaN), binary and 3-class,
with and without missing values; AXps and CXps are sufficient/necessary and minimal by brute
force with ``predict``, MARCO is complete and its AXps and CXps hit each other; the
independent checker agrees, also with a categorical feature (text or numbers, unseen
categories routed as missing ones); a NaN instance without ``missing=True`` is refused."""

import numpy as np
import pytest
from grid_checks import check_on_grid
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier

from fxai import explain, oracles


def _model(seed: int, classes: int, nan: bool):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).round(1)
    if nan:
        X[rng.random(X.shape) < 0.15] = np.nan
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] + rng.normal(scale=0.3, size=300) > 0).astype(int)
    if classes == 3:
        y = y + (z[:, 2] > 0.5)
    model = HistGradientBoostingClassifier(max_iter=6, max_depth=3, max_leaf_nodes=6,
                                           random_state=seed).fit(X, y)
    return model, X


def _grid(model, missing: bool) -> list[list[float]]:
    """Per feature: below every threshold, each threshold and the float just above it."""
    cuts = [set() for _ in range(model.n_features_in_)]
    for it in model._predictors:
        for p in it:
            for f, t in zip(p.nodes["feature_idx"], p.nodes["num_threshold"], strict=True):
                if np.isfinite(t):
                    cuts[f] |= {float(t), float(np.nextafter(t, np.inf))}
    return [[min(c, default=0.0) - 1, *sorted(c)] + [np.nan] * missing for c in cuts]


@pytest.mark.heavy
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]), nan=st.booleans())
def test_prediction_and_explanations_are_the_library_s_own(seed, classes, nan):
    model, X = _model(seed, classes, nan)
    for missing in (False, True) if nan else (False,):
        check_on_grid(model, X, _grid(model, missing), missing, "axp", rows=10)


@pytest.mark.heavy
def test_a_missing_value_needs_missing_true():
    model, X = _model(1, 2, True)
    row = next(x for x in X if np.isnan(x).any())
    with pytest.raises(ValueError, match="is missing \\(NaN\\): pass missing=True"):
        oracles.for_model(model, row)
    o = oracles.for_model(model, row, missing=True)
    assert "(missing)" not in str(explain.values(o)) and np.isnan(
        [v for v in explain.values(o) if isinstance(v, float)]).any()


def _categorical(seed: int, classes: int, nan: bool, text: bool):
    """A model with a categorical feature (text in a DataFrame, or numbers in an array)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=300).round(1), rng.normal(size=300).round(1)
    c = rng.choice(["w", "x", "y", "z"] if text else [0.0, 1.0, 2.0, 5.0], 300).astype(object)
    if nan:
        a[rng.random(300) < 0.15] = np.nan
        c[rng.random(300) < 0.15] = np.nan
    y = ((np.nan_to_num(a) > 0) ^ np.isin(c, ["x", "z", 1.0, 2.0])).astype(int)
    if classes == 3:
        y = y + (b > 0.5)
    X = pd.DataFrame({"a": a, "c": c, "b": b})
    model = HistGradientBoostingClassifier(
        max_iter=5, max_depth=3, max_leaf_nodes=6, random_state=seed,
        categorical_features=["c"] if text else [1]).fit(X if text else X.to_numpy(float), y)
    cats = list(model._preprocessor.named_transformers_["encoder"].categories_[0])
    cats = [v for v in cats if v == v]  # NaN aside
    unseen = "v" if text else 7.0
    return model, X.to_numpy(object), cats + [unseen]


@pytest.mark.heavy
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]), nan=st.booleans(),
       text=st.booleans())
def test_a_categorical_feature_is_read_by_category(seed, classes, nan, text):
    model, X, cats = _categorical(seed, classes, nan, text)
    for missing in (False, True) if nan else (False,):
        grid = _grid(model, missing)
        # the numbers' grid is by transformed column (categories first): a, b after c
        grid = [grid[1], cats + [np.nan] * missing, grid[2]]
        check_on_grid(model, X, grid, missing, "cxp", rows=10)


def test_fxai_explain_names_text_categories_and_classes(tmp_path):
    import json

    import joblib
    import pandas as pd

    from fxai.cli import main

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.normal(40, 10, 300).round(),
                      "colour": rng.choice(["red", "green", "blue"], 300),
                      "income": rng.normal(size=300).round(2)})
    y = np.where((X["age"] > 40) ^ (X["colour"] == "red"), "yes", "no")
    model = HistGradientBoostingClassifier(max_iter=5, categorical_features=["colour"]).fit(X, y)
    joblib.dump(model, tmp_path / "hgb.joblib")
    X.iloc[:3].to_csv(tmp_path / "rows.csv", index=False)
    out = tmp_path / "out.json"
    assert main(["explain", "--model", str(tmp_path / "hgb.joblib"), "--instances",
                 str(tmp_path / "rows.csv"), "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["instance"]["colour"] for r in rows] == list(X["colour"][:3])
    assert [r["prediction"] for r in rows] == list(model.predict(X.iloc[:3]))
    assert all(r["verified"] and r["complete"] for r in rows)
    assert all(set(f for a in r["axps"] for f in a) <= {"age", "colour", "income"} for r in rows)
    assert main(["explain", "--model", str(tmp_path / "hgb.joblib"), "--instances",
                 str(tmp_path / "rows.csv"), "--row", "2", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["rows"] == [dict(rows[1], **{
        k: v for k, v in json.loads(out.read_text())["rows"][0].items() if k.endswith("_s")})]
    assert main(["explain", "--model", str(tmp_path / "hgb.joblib"), "--instances",
                 str(tmp_path / "rows.csv"), "--row", "4", "--out", str(out)]) == 1
