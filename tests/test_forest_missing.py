"""Random forests fitted on data with NaN (scikit-learn routes a missing value by each node's
``missing_go_to_left``; a split of threshold +inf sends every number left): explained and
checked on complete rows (bare and in a Pipeline), and on rows with NaN with
``missing=True``, against brute force with the library's own predict."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from fxai import explain, oracles, verify
from fxai.models.forest import right_bound

N = 3
ROWS = [[0.1, np.nan, -0.3], [np.nan, 0.2, 0.5], [0.1, 0.2, -0.3], [np.nan, np.nan, 1.0]]


def fitted(min_samples_leaf: int, seed: int) -> RandomForestClassifier:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, N))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    return RandomForestClassifier(6, max_depth=3, min_samples_leaf=min_samples_leaf,
                                  random_state=seed).fit(X, y)


def classes(model, vote: str, pts: np.ndarray) -> np.ndarray:
    """The library's class per point: the forest's predict, or the first class of most
    votes of its trees' own predict."""
    if vote == "soft":
        return model.predict(pts)
    votes = np.array([t.predict(pts.astype(np.float32)) for t in model.estimators_])
    return np.argmax([(votes == j).sum(axis=0) for j in range(len(model.classes_))], axis=0)


def grid(model, x, missing: bool) -> list[list[float]]:
    """Per feature a value in every interval between the forest's cuts, x's own (and NaN
    with ``missing``)."""
    out = []
    for f in range(N):
        cuts = sorted({right_bound(float(e.tree_.threshold[i])) for e in model.estimators_
                       for i in np.flatnonzero(e.tree_.children_left >= 0)
                       if e.tree_.feature[i] == f and np.isfinite(e.tree_.threshold[i])})
        out.append([cuts[0] - 1.0, *cuts, x[f]] + [np.nan] * missing)
    return out


def weak_axps(model, vote: str, x, missing: bool) -> dict[frozenset, bool]:
    pts = np.array(list(itertools.product(*grid(model, x, missing))))
    cls = classes(model, vote, pts)
    c = classes(model, vote, np.array([x]))[0]
    same = (pts == np.array(x)) | (np.isnan(pts) & np.isnan(np.array(x)))
    return {frozenset(s): bool(np.all(cls[same[:, list(s)].all(axis=1)] == c))
            for k in range(N + 1) for s in itertools.combinations(range(N), k)}


def brute_force(weak: dict[frozenset, bool]) -> tuple[list, list]:
    every = frozenset(range(N))
    axps = sorted(sorted(s) for s, w in weak.items()
                  if w and not any(weak[s - {i}] for i in s))
    cxps = sorted(sorted(every - s) for s, w in weak.items()
                  if not w and all(weak[s | {i}] for i in every - s))
    return axps, cxps


@pytest.mark.parametrize(("vote", "min_samples_leaf"), [("soft", 3), ("soft", 1),
                                                        ("hard", 3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_a_forest_fitted_with_nan_is_explained_and_checked_exactly(vote, min_samples_leaf,
                                                                   seed):
    model = fitted(min_samples_leaf, seed)
    for x in ROWS:
        for missing in (True, False):
            if not missing and np.isnan(x).any():
                with pytest.raises(ValueError, match="missing=True"):
                    oracles.for_model(model, x, vote=vote)
                continue
            weak = weak_axps(model, vote, x, missing)
            axps, cxps = brute_force(weak)
            o = oracles.for_model(model, x, vote=vote, missing=missing)
            assert o.prediction == model.classes_[classes(model, vote, np.array([x]))[0]]
            r = explain.all_xps(o)
            assert (sorted(map(sorted, r.axps)), sorted(map(sorted, r.cxps))) == (axps, cxps)
            assert verify.check_all(model, x, axps, cxps, vote=vote, missing=missing) == (
                [True] * len(axps), [True] * len(cxps))
            sets = [sorted(s) for s in weak]  # every set, as an AXp and as a CXp
            want_a = [s in axps for s in sets]
            want_c = [s in cxps for s in sets]
            assert verify.check_all(model, x, sets, sets, vote=vote, missing=missing) == (
                want_a, want_c)


def test_a_pipeline_ending_in_a_forest_fitted_with_nan():
    forest = fitted(3, 0)
    scaler = StandardScaler().fit(np.array([[-1.0] * N, [1.0] * N]))  # the identity
    pipe = Pipeline([("scale", scaler), ("forest", forest)])
    x = ROWS[2]
    axps, cxps = brute_force(weak_axps(forest, "soft", x, False))
    r = explain.all_xps(oracles.for_model(pipe, x))
    assert (sorted(map(sorted, r.axps)), sorted(map(sorted, r.cxps))) == (axps, cxps)
    assert verify.check_all(pipe, x, axps, cxps) == ([True] * len(axps), [True] * len(cxps))
