"""scikit-learn trees through the library path compare like scikit-learn: float32(x) <= t.

A tree trained on adjacent float32 values has thresholds at their float64 midpoints, which
float32 rounds (ties to even) to either side; with |t| >= 2^24 float32 values are 2 or more
apart. Every routing, prediction and counterexample is checked against ``clf.predict``.
"""

import itertools

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles
from fxai.models.dtree import float32_cut, from_sklearn
from fxai.verify.xpg import TreeChecker


def adjacent_float32_tree(seed: int, base: float):
    """Two features whose training values are runs of consecutive float32 numbers from
    ``base``, with random labels (so most gaps hold a threshold)."""
    rng = np.random.default_rng(seed)
    cols = []
    for _ in range(2):
        v = [np.float32(base)]
        for _ in range(11):
            v.append(np.nextafter(v[-1], np.float32(np.inf)))
        cols.append(rng.permutation(np.array(v, dtype=np.float64)))
    X = np.column_stack(cols)
    y = rng.integers(0, 2, len(X))
    y[:2] = [0, 1]
    return DecisionTreeClassifier(random_state=seed).fit(X, y), X


def probes(clf, X) -> np.ndarray:
    """Float64 points at, just below and just above every threshold and training value."""
    t = clf.tree_.threshold[clf.tree_.feature >= 0]
    vals = np.concatenate([t, X.ravel()])
    near = np.concatenate([vals, np.nextafter(vals, -np.inf), np.nextafter(vals, np.inf)])
    near = np.unique(near)
    return np.array(list(itertools.product(near, near[::3])))


@pytest.mark.parametrize("base", [2.0**24 + 2, -(2.0**25), 3.0, 3e9])
@pytest.mark.parametrize("seed", range(3))
def test_graph_routes_float64_points_as_sklearn(seed, base):
    clf, X = adjacent_float32_tree(seed, base)
    P = probes(clf, X)
    assert np.array_equal(from_sklearn(clf).predict(P), clf.predict(P))


@pytest.mark.parametrize("base", [2.0**24 + 2, 3.0])
def test_oracle_predictions_and_counterexamples_match_sklearn(base):
    clf, X = adjacent_float32_tree(1, base)
    rng = np.random.default_rng(0)
    P = probes(clf, X)
    for x in P[rng.choice(len(P), 12, replace=False)]:
        o = oracles.for_model(clf, list(x))
        assert o.prediction == clf.predict([x])[0]
        chk = TreeChecker(clf, x)
        for fixed in [set(), {0}, {1}]:
            cex = o.counterexample(fixed)
            assert (cex is None) == chk.weak_axp(fixed)
            if cex is not None:
                assert clf.predict([cex])[0] != o.prediction
        assert chk.weak_axp(explain.find_axp(o))


def test_float32_cut_is_the_last_float64_rounding_to_or_below_t():
    for t in [16777219.0, 16777221.0, 0.1, -3.5, 1e30, 3.4028235e38]:
        cut = float32_cut(t)
        with np.errstate(over="ignore"):  # past float32's largest value: inf
            assert float(np.float32(cut)) <= t < float(np.float32(np.nextafter(cut, np.inf)))
