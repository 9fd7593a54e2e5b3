"""scikit-learn's HistGradientBoostingClassifier read exactly: the oracle's prediction is
``predict``'s on a grid over every threshold (both sides, and NaN), binary and 3-class,
with and without missing values; AXps and CXps are sufficient/necessary and minimal by brute
force with ``predict``, MARCO is complete and its AXps and CXps hit each other; the
independent checker agrees; categorical features and a NaN instance without
``missing=True`` are refused."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier

from fxai import explain, oracles, verify


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


def _sufficient(model, grid, x, fixed, c) -> bool:
    pts = np.array([p for p in itertools.product(*[[x[i]] if i in fixed else g
                                                    for i, g in enumerate(grid)])])
    return bool(np.all(model.predict(pts) == c))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), classes=st.sampled_from([2, 3]), nan=st.booleans())
def test_prediction_and_explanations_are_the_library_s_own(seed, classes, nan):
    model, X = _model(seed, classes, nan)
    for missing in (False, True) if nan else (False,):
        grid = _grid(model, missing)
        pts = np.array(list(itertools.product(*grid)))
        step = max(1, len(pts) // 200)
        want = model.predict(pts[::step])
        got = [oracles.for_model(model, p, missing=True).prediction for p in pts[::step]]
        assert got == list(want)
        rows = [i for i in range(10) if missing or not np.isnan(X[i]).any()][:3]
        for i in rows:
            x, c = X[i], model.predict(X[i:i + 1])[0]
            o = oracles.for_model(model, x, missing=missing)
            assert o.prediction == c
            axp, cxp = explain.find_axp(o), explain.find_cxp(o)
            assert _sufficient(model, grid, x, set(axp), c)
            assert not any(_sufficient(model, grid, x, set(axp) - {f}, c) for f in axp)
            rest = set(range(3)) - set(cxp)
            assert not _sufficient(model, grid, x, rest, c)
            assert all(_sufficient(model, grid, x, rest | {f}, c) for f in cxp)
            m = explain.Marco(o, target="axp")
            list(m)
            assert m.complete and all(set(a) & set(b) for a in m.axps for b in m.cxps)
            assert verify.check_all(model, x, m.axps, m.cxps, missing=missing) == (
                [True] * len(m.axps), [True] * len(m.cxps))


def test_a_missing_value_needs_missing_true_and_categorical_features_are_refused():
    model, X = _model(1, 2, True)
    row = next(x for x in X if np.isnan(x).any())
    with pytest.raises(ValueError, match="is missing \\(NaN\\): pass missing=True"):
        oracles.for_model(model, row)
    o = oracles.for_model(model, row, missing=True)
    assert "(missing)" not in str(explain.values(o)) and np.isnan(
        [v for v in explain.values(o) if isinstance(v, float)]).any()
    with pytest.raises(TypeError, match="takes no keyword 'domains'"):
        oracles.for_model(model, X[0], domains=[None] * 3)
    Xc = np.column_stack([X[:, :2], np.arange(len(X)) % 3])
    cat = HistGradientBoostingClassifier(max_iter=3, categorical_features=[2]).fit(
        np.nan_to_num(Xc), (np.arange(len(X)) % 3 == 0).astype(int))
    with pytest.raises(TypeError, match="categorical features is not supported yet"):
        oracles.for_model(cat, [0.0, 0.0, 1.0])
