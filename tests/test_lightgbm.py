"""LightGBM read exactly: the oracle's prediction is ``LGBMClassifier.predict``'s on a grid
over every threshold (both sides, the band LightGBM reads as 0, NaN), binary and 3-class,
for each way it routes missing values; AXps and CXps are sufficient/necessary and minimal
by brute force with ``predict``, MARCO is complete, its AXps and CXps hit each other, and the
independent checker agrees, also with a categorical feature of integer codes (fractions,
negatives, NaN); the best iteration is the one explained; pandas categories are refused."""

import json

import numpy as np
import pytest
from grid_checks import check_on_grid
from hypothesis import given, settings
from hypothesis import strategies as st

from fxai import oracles
from fxai.models.lgbm import ZERO

lgb = pytest.importorskip("lightgbm")

ROUTES = {"nan": {}, "zero": {"zero_as_missing": True}, "none": {"use_missing": False}}


def _model(seed: int, classes: int, route: str, **extra):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)).round(1)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[rng.random(X.shape) < 0.05] = 0.0
    z = np.nan_to_num(X)
    y = (z[:, 0] + z[:, 1] + rng.normal(scale=0.3, size=300) > 0).astype(int)
    if classes == 3:
        y = y + (z[:, 2] > 0.5)
    model = lgb.LGBMClassifier(n_estimators=5, num_leaves=5, min_child_samples=5, verbose=-1,
                               random_state=seed, **ROUTES[route], **extra).fit(X, y)
    return model, X


def _grid(model, missing: bool) -> list[list[float]]:
    cuts = [{0.0, ZERO, -ZERO} for _ in range(model.n_features_in_)]
    stack = [t["tree_structure"] for t in model.booster_.dump_model()["tree_info"]]
    while stack:
        nd = stack.pop()
        if "split_feature" in nd:
            t = nd["threshold"]
            if nd["decision_type"] == "==":  # categories, with fractions and negatives
                cuts[nd["split_feature"]] |= {-1.5, -1.0, -0.5, *(
                    int(c) + d for c in t.split("||") for d in (0.0, 0.5, 1.0))}
            else:
                cuts[nd["split_feature"]] |= {t, float(np.nextafter(t, np.inf))}
            stack += [nd["left_child"], nd["right_child"]]
    return [[min(c) - 1, *sorted(c)] + [np.nan] * missing for c in cuts]


@pytest.mark.heavy
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]),
       route=st.sampled_from(sorted(ROUTES)))
def test_prediction_and_explanations_are_lightgbm_s_own(seed, classes, route):
    model, X = _model(seed, classes, route)
    for missing in (False, True):
        check_on_grid(model, X, _grid(model, missing), missing, "cxp", rows=12)


def test_the_binary_cut_is_lightgbm_s_and_not_zero():
    """A raw score a little above 0 is still class 0 for LightGBM's predict."""
    from fxai.models.lgbm import tie_cut

    h = tie_cut("binary sigmoid:1")
    assert 0 < h < 1e-15


def test_a_booster_and_the_best_iteration_of_early_stopping():
    model, X = _model(3, 2, "nan")
    b = model.booster_
    o1, o2 = oracles.for_model(model, X[0], missing=True), oracles.for_model(b, X[0],
                                                                             missing=True)
    assert o1.instance == o2.instance and o1.prediction == o2.prediction
    y = model.predict(X)
    es = lgb.LGBMClassifier(n_estimators=60, num_leaves=5, verbose=-1, random_state=0).fit(
        X[:200], y[:200], eval_X=X[200:], eval_y=y[200:],
        callbacks=[lgb.early_stopping(3, verbose=False)])
    assert 0 < es.booster_.best_iteration < 60
    enc = oracles.prepare(es)
    assert len(enc.model.trees) == es.booster_.best_iteration
    for x in X[:30]:
        assert oracles.for_model(es, x, missing=True).prediction == es.predict(x[None, :])[0]


@pytest.mark.heavy
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]))
def test_a_categorical_feature_of_integer_codes(seed, classes):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=400).round(1), rng.integers(0, 6, 400)]).astype(float)
    X[rng.random(400) < 0.1, 1] = np.nan
    y = ((X[:, 0] > 0) ^ np.isin(X[:, 1], [1, 3, 4])).astype(int)
    if classes == 3:
        y = y + (X[:, 1] == 2)
    model = lgb.LGBMClassifier(n_estimators=4, num_leaves=4, min_child_samples=5, verbose=-1,
                               min_data_per_group=5, cat_smooth=1, max_cat_to_onehot=2,
                               random_state=seed).fit(X, y, categorical_feature=[1])
    assert '"decision_type": "=="' in json.dumps(model.booster_.dump_model())
    for missing in (False, True):
        check_on_grid(model, X, _grid(model, missing), missing, "axp", rows=12)


def test_pandas_category_columns_are_refused():
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], 300))})
    y = (X["c"] == "v").astype(int)
    model = lgb.LGBMClassifier(n_estimators=3, verbose=-1, min_child_samples=5).fit(X, y)
    with pytest.raises(TypeError, match="pandas 'category' columns is not supported yet"):
        oracles.for_model(model, X.iloc[0])


def test_fxai_explain_reads_a_joblib_lgbm_classifier(tmp_path, capsys):
    import joblib
    import pandas as pd

    from fxai.cli import main

    model, X = _model(5, 3, "nan")
    joblib.dump(model, tmp_path / "lgbm.joblib")
    pd.DataFrame(X[:3], columns=[f"Column_{i}" for i in range(3)]).to_csv(
        tmp_path / "rows.csv", index=False)
    out = tmp_path / "out.json"
    assert main(["explain", "--model", str(tmp_path / "lgbm.joblib"), "--instances",
                 str(tmp_path / "rows.csv"), "--missing", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert all(r["verified"] and r["complete"] for r in rows)
    assert [r["prediction"] for r in rows] == list(model.predict(X[:3]))


def test_the_milp_checker_reads_values_near_0_as_lightgbm_does():
    """A split at -1e-35f: LightGBM reads x = -1e-35f as 0, which goes right."""
    from fxai.verify.scores import ScoreChecker

    text = ("tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
            "max_feature_idx=0\nobjective=binary sigmoid:1\nfeature_names=x\n"
            "feature_infos=[-1:1]\ntree_sizes=0\n\nTree=0\nnum_leaves=2\nnum_cat=0\n"
            "split_feature=0\nsplit_gain=1\nthreshold=-1.0000000180025095e-35\n"
            "decision_type=2\nleft_child=-1\nright_child=-2\nleaf_value=-1 1\n"
            "leaf_weight=1 1\nleaf_count=1 1\ninternal_value=0\ninternal_weight=2\n"
            "internal_count=2\nis_linear=0\nshrinkage=1\n\n\nend of trees\n")
    booster = lgb.Booster(model_str=text)
    assert booster.predict(np.array([[-ZERO], [-1e-30]])).round().tolist() == [1.0, 0.0]
    for x, c in ((-ZERO, 1), (-1e-30, 0)):
        milp = ScoreChecker(booster, [x])
        assert milp.c == c and milp.entails({0}) and not milp.entails(set())
        assert oracles.for_model(booster, [x]).prediction == c
