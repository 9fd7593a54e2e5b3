"""NBC oracle, counting DP, ApproxPAXp and the independent checker against brute force."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fxai import oracles
from fxai.explain.paxp import approx_paxp
from fxai.models.nbc import XLC, train
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps, is_axp, is_cxp
from fxai.verify.nbc import PrecisionChecker, check_axp
from fxai.verify.paxp import check_approx_paxp


def random_nbc(seed: int, n: int, max_dom: int = 4):
    """A CategoricalNB fitted on random skewed data (mixed domain sizes) and an instance."""
    rng = np.random.default_rng(seed)
    doms = [int(rng.integers(2, max_dom + 1)) for _ in range(n)]
    y = rng.integers(0, 2, size=60)
    X = np.stack([np.where(rng.random(60) < 0.6, (y * rng.integers(0, d)) % d,
                           rng.integers(0, d, size=60)) for d in doms], axis=1)
    y[:2] = [0, 1]
    model = train(X, y, doms, alpha=float(rng.uniform(0.3, 2.0)))
    x = [int(rng.integers(0, d)) for d in doms]
    return model, doms, x


def brute(model, doms, x):
    """Brute force over scikit-learn's own predictions (tabulated once for speed)."""
    grid = np.stack([g.ravel() for g in np.meshgrid(*[np.arange(d) for d in doms],
                                                    indexing="ij")], axis=1)
    table = model.predict(grid).reshape(doms)

    def predict(points):
        return table[tuple(np.asarray(points).T)]

    return BruteForceOracle(predict, [range(d) for d in doms], x)


def subsets(n, rng, k=12):
    return [set(np.flatnonzero(rng.random(n) < 0.5).tolist()) for _ in range(k)]


@pytest.mark.heavy
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8))
def test_axp_cxp_entails_against_brute(seed, n):
    model, doms, x = random_nbc(seed, n)
    o, b = oracles.for_model(model, x), brute(model, doms, x)
    assert o.prediction == int(b.prediction)
    for s in subsets(n, np.random.default_rng(seed)):
        assert o.entails(s) == b.entails(s)
        cex = o.counterexample(s)
        assert (cex is None) == b.entails(s)
        if cex is not None:
            assert model.predict([cex])[0] != b.prediction
    axp = o.axp()
    assert is_axp(b, axp) and check_axp(model, x, axp)
    assert tuple(axp) in all_axps(b)
    cxp = o.min_cxp()
    cxps = all_cxps(b)
    if cxp is None:
        assert not cxps
    else:
        assert is_cxp(b, cxp) and len(cxp) == min(len(c) for c in cxps)


@pytest.mark.heavy
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8), decimals=st.integers(0, 3))
def test_counts_exact_for_scaled_model_and_bounds_bracket(seed, n, decimals):
    model, doms, x = random_nbc(seed, n)
    o = oracles.for_model(model, x, decimals=decimals)
    scaled = o.xlc.scaled(decimals)
    b_scaled = BruteForceOracle(scaled.predict, [range(d) for d in doms], x)
    b_real = brute(model, doms, x)
    rng = np.random.default_rng(seed + 1)
    for s in subsets(n, rng) + [set(), set(range(n))]:
        space = int(np.prod([doms[i] for i in range(n) if i not in s]))
        if b_scaled.prediction == o.prediction:
            assert o.count(s) == round(b_scaled.precision(s) * space)
        p = b_real.precision(s)
        lo, hi = o.precision_bounds(s, decimals)
        assert lo - 1e-12 <= p <= hi + 1e-12
        lo, hi = PrecisionChecker(model, x).interval(s)  # enumeration by predict
        assert float(lo) == float(hi) == p
        lo, hi = PrecisionChecker(model, x, exact_limit=0).interval(s)  # integer bracket
        assert lo <= Fraction(round(p * space), space) <= hi


def score_gap(o, fixed) -> float:
    """Distance of the nearest completion's summed loss to the threshold Γ (0: a tie)."""
    free = [i for i in range(o.n_features) if i not in fixed]
    return min(abs(o.slack.gamma - sum(c)) for c in
               itertools.product(*[o.slack.losses[i] for i in free]))


def assert_undecidable(o, fixed, p):
    """A feature the sound ApproxPAXp kept although dropping it keeps precision p >= δ:
    legitimate only if the rigorous bounds at the finest usable precision (d decimals)
    bracket p and some completion's score lies within their rounding, (n+1) 10^-d, of Γ."""
    usable = [d for d in range(o.decimals, 8) if o.precision_bounds(fixed, d) != (0.0, 1.0)]
    assert usable, "the bounds must be computable for these small models"
    lo, hi = o.precision_bounds(fixed, usable[-1])
    assert lo - 1e-12 <= p <= hi + 1e-12
    assert score_gap(o, fixed) <= (o.n_features + 1) * 10.0 ** -usable[-1]


def near_tie(eps: float):
    """Γ = 1 and losses 0.7, 0.7, 0.3 - eps: with every feature free, 6 of the 8 points keep
    the class (two with summed loss 1 - eps < Γ): precision exactly 0.75, AXp [1]."""
    xlc = XLC(1.0, (np.array([0.0, -0.7]), np.array([0.0, -0.7]), np.array([0.0, eps - 0.3])))
    x = [0, 0, 0]
    o, b = oracles.for_model(xlc, x), BruteForceOracle(xlc.predict, [[0, 1]] * 3, x)
    assert o.axp() == [1] and b.precision(set()) == 0.75
    assert score_gap(o, set()) == pytest.approx(eps, rel=1e-3)
    return o


def test_sound_approx_paxp_keeps_a_feature_at_a_real_near_tie():
    """eps = 1e-9: [1] could be dropped at δ = 0.75, but bounds rounded to the usable 6
    places (7: a DP row beyond MAX_COLUMNS) put the two near-tied points at 1.0, so the sound
    mode cannot guarantee it and keeps [1]."""
    o = near_tie(1e-9)
    assert approx_paxp(o, 0.75, seed=[1], sound=True).features == [1]
    assert_undecidable(o, set(), 0.75)
    assert o.precision_bounds(set(), 6) == (0.5, 0.75)  # the near-tied points lost, rounded up
    assert approx_paxp(o, 0.5, seed=[1], sound=True).features == []  # decidable: lo = 0.5


def test_sound_approx_paxp_refines_its_bounds_to_decide_a_near_tie():
    """eps = 1e-5: undecided at 3-4 places, decided at 5 (a coarser bound would keep [1])."""
    o = near_tie(1e-5)
    assert o.precision_bounds(set(), 4)[0] < 0.75 == o.precision_bounds(set(), 5)[0]
    assert approx_paxp(o, 0.75, seed=[1], sound=True).features == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8),
       delta=st.sampled_from([0.6, 0.75, 0.9, 0.95]))
@example(seed=22310, n=1, delta=0.6)  # an exactly tied score: no rounding can decide
@example(seed=141, n=2, delta=0.75)  # precision exactly δ: decided on counts, not floats
def test_approx_paxp_against_brute(seed, n, delta):
    model, doms, x = random_nbc(seed, n)
    o, b = oracles.for_model(model, x), brute(model, doms, x)
    axp = o.axp()
    order = sorted(axp, key=lambda i: o.deltas[i])
    res = approx_paxp(o, delta, seed=axp, order=order, sound=True)
    kept = set(res.features)
    assert kept <= set(axp)
    assert b.precision(kept) >= delta
    minimal = True
    for i in kept:  # minimal, except where no rigorous bound can decide (a near-tied score)
        if b.precision(kept - {i}) >= delta:
            minimal = False
            assert_undecidable(o, kept - {i}, b.precision(kept - {i}))
    p = b.precision(kept)
    ok, (lo, hi) = check_approx_paxp(PrecisionChecker(model, x), axp, kept, delta)
    assert ok == minimal and float(lo) == float(hi) == p
    # the paper's mode decides with the scaled DP: minimal w.r.t. the scaled model
    paper = approx_paxp(oracles.for_model(model, x), delta, seed=axp, order=order)
    scaled = oracles.for_model(model, x).xlc.scaled(3)
    bs = BruteForceOracle(scaled.predict, [range(d) for d in doms], x)
    if bs.prediction == o.prediction:
        assert set(paper.features) <= set(axp)
        assert bs.precision(paper.features) >= delta
        assert all(bs.precision(set(paper.features) - {i}) < delta for i in paper.features)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 7))
def test_checker_rejects_wrong_explanations(seed, n):
    model, doms, x = random_nbc(seed, n)
    o = oracles.for_model(model, x)
    axp = o.axp()
    checker = PrecisionChecker(model, x)
    assert check_approx_paxp(checker, axp, axp, 1.0) == (True, (1.0, 1.0))  # a 1-PAXp
    if axp:
        assert not check_axp(model, x, axp[1:])  # not sufficient
    extra = [i for i in range(n) if i not in axp]
    if extra:
        assert not check_axp(model, x, axp + extra[:1])  # not minimal
        assert check_approx_paxp(checker, axp, axp + extra[:1], 0.5)[0] is False


def test_xlc_rejects_bad_input():
    with pytest.raises(ValueError, match="binary"):
        XLC.from_log_probs([0.1, 0.2, 0.3], [])
    model, doms, x = random_nbc(1, 3)
    with pytest.raises(ValueError, match="outside its domain"):
        oracles.for_model(model, [d for d in doms])
