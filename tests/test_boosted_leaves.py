"""The compiled leaf search against brute force over every threshold interval, and the MILP."""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fxai.models import boosted as B
from fxai.verify.boosted import BoostedChecker
from fxai.verify.boosted_leaves import LeafProver


def random_model(seed: int):
    """Real-valued features (free features range over the reals), unbalanced classes (so a
    non-zero intercept), 1-10 trees."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    X = rng.normal(size=(200, n)).round(2)
    s = X @ rng.normal(size=n) + rng.normal(scale=0.7, size=200)
    y = (s > np.quantile(s, rng.uniform(0.15, 0.85))).astype(int)
    model = B.train(X, y, trees=int(rng.integers(1, 11)), depth=int(rng.integers(1, 5)), seed=seed)
    return model, [float(v) for v in X[int(rng.integers(200))]]


def brute_weak_axps(checker: BoostedChecker, x, sets, ties="change"):
    """Score every combination of one value per threshold interval of the free features."""
    c = checker.prediction(x)
    out = []
    for s in sets:
        free = [f for f in checker.used if f not in s]
        grids = [checker._choices(f) for f in free]
        pts = np.tile(np.asarray(x, np.float32), (int(np.prod([len(g) for g in grids])), 1))
        for f, g in zip(free, np.meshgrid(*grids, indexing="ij"), strict=True):
            pts[:, f] = g.ravel()
        proba = checker.booster.inplace_predict(pts)  # XGBClassifier.predict: proba > 0.5
        change = ((proba > 0.5) != bool(c)) | ((proba == 0.5) & (ties == "change"))
        out.append(not change.any())
    return out


def check_exact(seed, ties):
    model, x = random_model(seed)
    chk = BoostedChecker(model, ties=ties, samples=0, enumerate_max=0)
    assert abs(chk._margin(x)) > 1e-4, "a near-tied instance: pick another seed"
    n = len(x)
    sets = [set(s) for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    truth = brute_weak_axps(chk, x, sets, ties)
    assert LeafProver(chk).weak_axps(x, sets) == truth
    milp_only = LeafProver(chk, max_nodes=0)  # every query falls back to the MILP
    assert milp_only.weak_axps(x, sets) == truth and milp_only.fallbacks >= sum(truth)


@pytest.mark.heavy
@pytest.mark.parametrize("seed", range(10))
def test_box_search_is_exact_on_fixed_models(seed):
    check_exact(seed, "change")


@pytest.mark.heavy
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), ties=st.sampled_from(["change", "keep"]))
def test_box_search_is_exact(seed, ties):
    model, x = random_model(seed)
    assume(abs(BoostedChecker(model)._margin(x)) > 1e-4)
    check_exact(seed, ties)


def test_refuted_sets_come_with_xgboost_confirmed_points():
    model, x = random_model(7)
    chk = BoostedChecker(model)
    prover = LeafProver(chk)
    sets = [set(), {0}, set(range(len(x)))]
    out = prover.weak_axps(x, sets)
    assert out[-1] is True and out == brute_weak_axps(chk, x, sets)
    assert prover.fallbacks == 0


@pytest.mark.parametrize("seed", range(6))
def test_check_of_explanations_matches_brute_force(seed):
    """``check`` (queries as explanation minus one feature) against the brute-force AXps and
    CXps; wrong sets (a superset, a subset, a feature no tree uses) are rejected."""
    model, x = random_model(seed)
    chk = BoostedChecker(model)
    n = len(x)
    sets = [frozenset(s) for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    forced = dict(zip(sets, brute_weak_axps(chk, x, sets), strict=True))
    axps = [s for s in sets if forced[s] and not any(forced[s - {i}] for i in s)]
    cxps = [s for s in sets if not forced[frozenset(range(n)) - s]
            and all(forced[frozenset(range(n)) - s | {i}] for i in s)]
    prover = LeafProver(chk)
    ok_a, ok_c = prover.check(x, [sorted(a) for a in axps], [sorted(c) for c in cxps])
    assert all(ok_a) and all(ok_c) and axps
    others = [s for s in sets if s not in axps]
    ok_a, _ = prover.check(x, [sorted(s) for s in others], [])
    assert not any(ok_a)
    others = [s for s in sets if s not in cxps]
    _, ok_c = prover.check(x, [], [sorted(s) for s in others])
    assert not any(ok_c)


def test_balanced_classes_intercept_is_xgboosts_float32_one():
    """base_score near 0.5: XGBoost's float32 logit differs from the float64 one by ~100 ulps
    (the digits 1 vs 7 model of the default profile); the search must use XGBoost's."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(288, 4)).round(2)
    y = np.r_[np.ones(143), np.zeros(145)].astype(int)  # base_score 0.4965
    rng.shuffle(y)
    model = B.train(X, y, trees=5, depth=2, seed=0)
    chk = BoostedChecker(model)
    x = [float(v) for v in X[0]]
    sets = [set(s) for k in range(5) for s in itertools.combinations(range(4), k)]
    assert LeafProver(chk).weak_axps(x, sets) == brute_weak_axps(chk, x, sets)
