"""fxai.attribution against the definitions, by brute force on random small models.

Every family: scikit-learn trees (repeated tests on a path: the per-leaf route), random
OMDDs (read-once DAGs, multi-class: the DP route), OBDDs from decision lists, naive Bayes,
XGBoost. The brute-force Shapley value averages marginal contributions over all orders of
the players, with ``v`` from the model's own predictions on every completion.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_boosted_oracle import random_model
from test_nbc_brute import random_nbc
from test_xpg_random import random_dlist, random_omdd, random_sklearn_tree

from fxai import attribution, oracles
from fxai.attribution import formal, heuristic
from fxai.attribution.shapley import _slice_means, from_game
from fxai.models.dtree import from_sklearn
from fxai.models.nbc import XLC
from fxai.models.obdd import OBDD
from fxai.oracles.nbc import NBCOracle
from fxai.oracles.xpg import XpGOracle
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps, completions


def brute_v(predict, domains, x, fixed, c, value="probability", background=None):
    if background is None:
        pts = completions(domains, x, fixed)
    else:
        pts = np.array(background, dtype=float)
        pts[:, list(fixed)] = np.asarray(x, dtype=float)[list(fixed)]
    y = np.asarray(predict(pts))
    return float(np.mean(y == c)) if value == "probability" else float(np.mean(y))


def brute_shapley(predict, domains, x, c, value="probability", background=None):
    """Average over all orders of the n features of each one's marginal contribution."""
    n = len(x)
    cache = {}

    def v(s):
        key = frozenset(s)
        if key not in cache:
            cache[key] = brute_v(predict, domains, x, key, c, value, background)
        return cache[key]

    phi = np.zeros(n)
    for order in itertools.permutations(range(n)):
        before: set[int] = set()
        for i in order:
            phi[i] += v(before | {i}) - v(before)
            before.add(i)
    return phi / math.factorial(n), v(set()), v(set(range(n)))


def check(o, predict, domains, value="probability", routes=("auto",), **kw):
    want, v0, vn = brute_shapley(predict, domains, list(o.instance), o.prediction, value)
    for route in routes:
        got = attribution.shapley(o, value=value, route=route, domains=domains, **kw)
        assert got == pytest.approx(want, abs=1e-9), route
        assert sum(got) == pytest.approx(vn - v0, abs=1e-12)  # efficiency
    return want


@pytest.mark.parametrize("seed", range(12))
def test_sklearn_trees(seed):
    rng = np.random.default_rng(seed)
    clf, domains, X = random_sklearn_tree(rng, int(rng.integers(2, 6)))
    g = from_sklearn(clf, domains=domains)
    x = [int(v) for v in X[rng.integers(len(X))]]
    check(XpGOracle(g, x), clf.predict, domains, routes=("auto", "graph", "subsets", "grid"))


@pytest.mark.parametrize("seed", range(12))
def test_read_once_graphs_probability_and_class_value(seed):
    rng = np.random.default_rng(300 + seed)
    g = random_omdd(rng, int(rng.integers(2, 6)))
    assert g.is_read_once()
    x = [int(rng.integers(len(d))) for d in g.domains]
    o = XpGOracle(g, x)
    check(o, g.predict, g.domains, routes=("auto", "graph", "subsets", "grid"))
    check(o, g.predict, g.domains, value="class", routes=("graph", "grid"))


@pytest.mark.parametrize("seed", range(8))
def test_obdds_from_decision_lists(seed):
    rng = np.random.default_rng(400 + seed)
    n = int(rng.integers(2, 6))
    obdd = OBDD.from_decision_list(random_dlist(rng, n))
    x = [int(v) for v in rng.integers(0, 2, n)]
    o = oracles.for_model(obdd, x)
    check(o, obdd.predict, [[0, 1]] * n, routes=("auto", "graph", "subsets"))


@pytest.mark.parametrize("seed", range(8))
def test_naive_bayes(seed):
    model, doms, x = random_nbc(seed, int(np.random.default_rng(seed).integers(2, 6)))
    o = oracles.for_model(model, x)
    check(o, model.predict, [list(range(d)) for d in doms])


@pytest.mark.parametrize("seed", range(6))
def test_naive_bayes_counting_route_on_an_exactly_scaled_model(seed):
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(2, 6))
    xlc = XLC(float(rng.integers(-3, 4)) + 0.5,
              tuple(rng.integers(-3, 4, int(rng.integers(2, 4))).astype(float)
                    for _ in range(n)))
    x = [int(rng.integers(len(w))) for w in xlc.weights]
    o = NBCOracle(xlc, x, decimals=1)  # every weight a multiple of 0.1: counted exactly
    check(o, xlc.predict, [list(range(len(w))) for w in xlc.weights],
          routes=("subsets", "grid"))


@pytest.mark.parametrize("seed", range(6))
def test_boosted_trees(seed):
    model, x, domains = random_model(600 + seed, n_max=5, dom_max=3)
    o = oracles.for_model(model, x, domains=domains, ties="keep")
    check(o, lambda P: model.predict(np.asarray(P, np.float32)).astype(int), domains)


@pytest.mark.parametrize("seed", range(6))
def test_grid_means_equal_numpy_means_of_each_slice_to_the_last_bit(seed):
    """The audit ranks tied scores: the grid route's one-pass means are ``np.mean`` of each
    coalition's slice exactly (the table holds 0/1 or class numbers)."""
    rng = np.random.default_rng(700 + seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, int(rng.integers(1, 6))))
    table = rng.integers(0, 3 if seed % 2 else 2, shape).astype(float)
    at = [int(rng.integers(d)) for d in shape]
    want = [np.mean(table[tuple(a if m >> j & 1 else slice(None) for j, a in enumerate(at))])
            for m in range(1 << len(shape))]
    assert _slice_means(table, at).tolist() == want


@pytest.mark.heavy
@pytest.mark.parametrize("seed", range(6))
def test_background_route_matches_definition_and_shap_exact(seed):
    import shap

    rng = np.random.default_rng(700 + seed)
    clf, domains, X = random_sklearn_tree(rng, int(rng.integers(2, 6)))
    x = [int(v) for v in X[0]]
    bg = X[rng.choice(len(X), 7, replace=False)].astype(float)
    o = oracles.for_model(clf, x, domains=domains)
    got = attribution.shapley(o, bg)
    want, v0, vn = brute_shapley(clf.predict, domains, x, o.prediction, background=bg)
    assert got == pytest.approx(want, abs=1e-12)
    assert sum(got) == pytest.approx(vn - v0, abs=1e-12)
    f = lambda P: (clf.predict(P) == o.prediction).astype(float)  # noqa: E731
    ref = shap.explainers.Exact(f, shap.maskers.Independent(bg, max_samples=len(bg)))
    assert got == pytest.approx(ref(np.asarray([x], float)).values[0].tolist(), abs=1e-9)


def test_from_game_rejects_a_bad_size_and_limits_are_enforced():
    with pytest.raises(ValueError, match="2\\^n values"):
        from_game(np.zeros(3))
    g = random_omdd(np.random.default_rng(1), 4)
    o = XpGOracle(g, [0] * 4)
    with pytest.raises(ValueError, match="max_features=2"):
        attribution.shapley(o, route="subsets", max_features=2)
    with pytest.raises(ValueError, match="value must be"):
        attribution.shapley(o, value="logit")


@pytest.mark.parametrize("seed", range(10))
def test_relevancy_and_indices_against_brute_force(seed):
    rng = np.random.default_rng(800 + seed)
    clf, domains, X = random_sklearn_tree(rng, int(rng.integers(2, 6)))
    x = [int(v) for v in X[rng.integers(len(X))]]
    o = oracles.for_model(clf, x, domains=domains)
    r = attribution.relevant(o)
    brute = BruteForceOracle(clf.predict, domains, x)
    axps, cxps = all_axps(brute), all_cxps(brute)
    assert r.complete and set(r.axps) == axps and set(r.cxps) == cxps
    assert r.features == sorted({f for a in axps for f in a})
    for name, scores in formal.indices(r.axps, r.cxps).items():
        assert sorted(f for f, s in scores.items() if s > 0) == r.features, name
        if name != "responsibility" and r.features:
            assert sum(scores.values()) == pytest.approx(1.0 if name != "ffa" else
                                                         sum(len(a) for a in axps) / len(axps))


def test_user_score_loading_and_checking():
    assert heuristic.load_score("fxai.attribution.heuristic:shap_score") is heuristic.shap_score
    for spec, msg in [("nocolon", "expected 'module:function'"),
                      ("fxai.attribution.heuristic:nope", "has no function 'nope'")]:
        with pytest.raises(ValueError, match=msg):
            heuristic.load_score(spec)
    with pytest.raises(ValueError, match="not finite"):
        heuristic.check_scores("m:f", [0.0, float("nan")], 2)


@pytest.mark.parametrize("family", ["dt", "obdd", "nbc", "bt"])
def test_shap_and_lime_give_one_finite_score_per_feature_deterministically(family):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (64, 4))
    y = X[:, 0] | (X[:, 1] & X[:, 2])
    if family == "dt":
        from sklearn.tree import DecisionTreeClassifier
        model = DecisionTreeClassifier(random_state=0).fit(X, y)
    elif family == "nbc":
        from fxai.models.nbc import train
        model = train(X, y, [2] * 4, alpha=1.0)
    elif family == "bt":
        from fxai.models import boosted
        model = boosted.train(X.astype(float), y, trees=3, depth=2, seed=0)
    else:
        model = OBDD.from_decision_list(random_dlist(rng, 4))
    names = list("abcd")
    for score in (heuristic.shap_score, heuristic.lime_score):
        a = score(model, X[:16], X[20], names)
        assert len(a) == 4 and np.all(np.isfinite(a))
        assert score(model, X[:16], X[20], names) == a


@pytest.mark.parametrize("seed", range(4))
def test_shap_kernel_explainer_is_the_exact_interventional_value(seed):
    """Up to 11 features KernelExplainer enumerates every coalition: on a deterministic model
    its value for the predicted class is attribution.shapley over the same background."""
    rng = np.random.default_rng(900 + seed)
    n = int(rng.integers(2, 6))
    obdd = OBDD.from_decision_list(random_dlist(rng, n))
    bg = rng.integers(0, 2, (9, n)).astype(float)
    x = [int(v) for v in rng.integers(0, 2, n)]
    o = oracles.for_model(obdd, x)
    got = heuristic.shap_score(obdd, bg, x, [f"f{i}" for i in range(n)])
    assert got == pytest.approx(attribution.shapley(o, bg), abs=1e-9)
