"""The MILP checker reads categorical splits and missing values (issue 53): on
HistGradientBoosting and LightGBM models with categories and NaNs it decides every weak-AXp
query as brute force over the splits' values does (the referee, :mod:`fxai.verify.grid`),
with and without ``missing``, with restricted domains, and at a size brute force cannot
enumerate."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier
from test_hist_gradient import _categorical

from fxai import explain, oracles, verify
from fxai.verify import grid
from fxai.verify.grid import GridChecker
from fxai.verify.scores import ScoreChecker, reads

lgb = pytest.importorskip("lightgbm")


def _has_nan(x) -> bool:
    return any(isinstance(v, float) and np.isnan(v) for v in x)


def _agree(model, x, missing: bool, domains=None) -> None:
    """MILP (alone, and after sampling) and brute force decide every subset alike."""
    n = len(x)
    sets = [set(s) for r in range(n + 1) for s in itertools.combinations(range(n), r)]
    want = GridChecker(model, x, missing, domains).weak_axps(sets)
    assert reads(model)
    for samples, leaves in ((0, False), (0, True), (64, True)):
        milp = ScoreChecker(model, x, domains, missing=missing, samples=samples,
                            leaves=leaves)
        assert [milp.entails(s) for s in sets] == want


@pytest.mark.heavy
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("text", [True, False])
def test_hist_gradient_categories_and_nan_as_brute_force(seed, text):
    model, X, cats = _categorical(seed, 2 + seed % 2, True, text)
    for x in X[:4]:
        for missing in (False, True) if _has_nan(x) is False else (True,):
            _agree(model, x, missing)


@pytest.mark.heavy
def test_hist_gradient_restricted_domains_as_brute_force():
    model, X, cats = _categorical(3, 2, True, True)
    x = next(x for x in X if not _has_nan(x))
    for domain in ([cats[0], cats[1]], [cats[0], cats[-1]], cats[1:3]):  # cats[-1]: unseen
        domain = sorted({*domain, x[1]}, key=str)
        domains = [None, domain, None]
        for missing in (False, True):
            _agree(model, x, missing, domains)


def _lightgbm(seed: int, classes: int):
    """Integer-coded categories (``categorical_feature``), NaNs in every column."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=400).round(1), rng.integers(0, 6, 400).astype(float),
                         rng.normal(size=400).round(1)])
    X[rng.random(X.shape) < 0.1] = np.nan
    y = ((np.nan_to_num(X[:, 0]) > 0) ^ np.isin(X[:, 1], [0, 3, 4])).astype(int)
    if classes == 3:
        y = y + (np.nan_to_num(X[:, 2]) > 0.5)
    model = lgb.LGBMClassifier(n_estimators=6, num_leaves=6, min_child_samples=5, verbose=-1,
                               random_state=seed, min_data_per_group=5,
                               cat_smooth=1).fit(X, y, categorical_feature=[1])
    return model, X


@pytest.mark.heavy
@pytest.mark.parametrize("seed", range(4))
def test_lightgbm_category_splits_and_nan_as_brute_force(seed):
    model, X = _lightgbm(seed, 2 + seed % 2)
    assert '"decision_type": "=="' in json.dumps(model.booster_.dump_model())
    for x in X[:4]:
        for missing in (False, True) if not np.isnan(x).any() else (True,):
            _agree(model, x, missing)
    x = next(x for x in X if not np.isnan(x).any()).copy()
    x[1] = 2.7  # a fraction and a negative code: read by their integer part toward 0
    _agree(model, x, False)
    x[1] = -0.5
    _agree(model, x, False)


def _mixed(rows: int = 600, seed: int = 0) -> pd.DataFrame:
    """13 columns: 8 numbers (a few NaNs), 5 categories (one with NaNs)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"n{i}": rng.normal(size=rows).round(2) for i in range(8)})
    for i, k in enumerate((3, 4, 5, 6, 8)):
        df[f"c{i}"] = pd.Categorical(rng.choice([f"v{j}" for j in range(k)], rows))
    df.loc[rng.random(rows) < 0.05, "n0"] = np.nan
    df.loc[rng.random(rows) < 0.05, "c0"] = np.nan
    score = (df.n0.fillna(0) + df.n1 - df.n2 + (df.c0 == "v1") - (df.c1 == "v2")
             + df.c4.isin(["v1", "v5", "v6"]))
    df["y"] = (score + rng.normal(scale=0.5, size=rows) > 0.5).astype(int)
    return df


def test_a_mixed_table_beyond_brute_force_is_decided():
    df = _mixed()
    X, y = df.drop(columns="y"), df.y
    model = HistGradientBoostingClassifier(max_iter=15, categorical_features="from_dtype",
                                           random_state=0).fit(X, y)
    chk = GridChecker(model, X.iloc[0].to_numpy(object), True)
    assert np.prod([len(v) for v in chk.values], dtype=float) > grid.LIMIT  # beyond it
    for i in (0, 1):
        row = X.iloc[i]
        o = oracles.for_model(model, row, missing=True)
        r = explain.all_xps(o)
        assert r.complete
        ok_a, ok_c = verify.check_all(model, row, r.axps, r.cxps, missing=True, time_limit=120)
        assert all(ok_a) and all(ok_c)
        wrong = [a[1:] for a in r.axps if len(a) > 1]  # not sufficient
        assert not any(verify.check_all(model, row, wrong, [], missing=True)[0])


def _routes(chk) -> None:
    """Every piece of the leaf search goes where the checker's reading sends its value."""
    from fxai.verify.score_leaves import LeafSearch

    search = LeafSearch(chk)
    for tree in chk._trees:
        for node in np.flatnonzero(tree.left >= 0):
            f = int(tree.feat[node])
            if f in chk.codes:
                reps = [float(code) for code, _ in chk.codes[f]]
            else:
                T = chk.cuts[f]
                reps = [chk._inside(T, k) for k in range(len(T) + 1)] + [np.nan] * (f in chk.m)
            mask = search._left(tree, int(node), len(reps))
            for k, v in enumerate(reps):
                x = chk.x.copy()
                x[f] = v
                assert mask[k] == chk._goes_left(tree, int(node), x), (f, k, v)


@pytest.mark.heavy
def test_the_leaf_search_routes_every_piece_as_the_checker_reads_the_model():
    for seed in range(3):
        model, X = _lightgbm(seed, 2)
        _routes(ScoreChecker(model, X[0], missing=True))
        model, X, _ = _categorical(seed, 3, True, True)
        _routes(ScoreChecker(model, X[0], missing=True))


@pytest.mark.heavy
def test_lightgbm_and_a_pipeline_on_the_mixed_table_are_decided():
    """The issue's other cases, small: LightGBM with integer-coded categories and NaNs, and
    a Pipeline of a OneHotEncoder, a scaler and a forest (its 5 categorical columns have
    7,560 combinations of values, each once a question of its own)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    df = _mixed()
    X, y = df.drop(columns="y"), df.y
    cats = [c for c in X.columns if c.startswith("c")]
    coded = X.copy()
    for c in cats:
        coded[c] = coded[c].cat.codes.replace(-1, np.nan).astype(float)
    lgbm = lgb.LGBMClassifier(n_estimators=20, verbose=-1, random_state=0).fit(
        coded, y, categorical_feature=cats)
    full = X.dropna()
    pipe = Pipeline([("pre", ColumnTransformer(
        [("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats),
         ("num", StandardScaler(), [c for c in X.columns if c not in cats])])),
        ("rf", RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0))]).fit(
        full, y[full.index])
    for model, row, options in ((lgbm, coded.iloc[0], {"missing": True}),
                                (pipe, full.iloc[0], {})):
        r = explain.all_xps(oracles.for_model(model, row, **options))
        assert r.complete
        ok_a, ok_c = verify.check_all(model, row, r.axps, r.cxps, time_limit=120, **options)
        assert all(ok_a) and all(ok_c)
        wrong = [a[1:] for a in r.axps if len(a) > 1]
        assert not any(verify.check_all(model, row, wrong, [], **options)[0])
