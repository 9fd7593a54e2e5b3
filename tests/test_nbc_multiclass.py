"""Multi-class NBCs and ties: the oracle against brute force over scikit-learn's predict.

Random small multi-class ``CategoricalNB`` models and constructed exact ties (mirrored
counts): the oracle's prediction is scikit-learn's on every point, entailment and
counterexamples are exact, AXps/CXps are sufficient (or changing) and subset-minimal,
MARCO's enumeration is complete and dual, precision is exact where the free space is
enumerated and a sound bracket (union bound) beyond.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import CategoricalNB

from fxai import explain, oracles, verify
from fxai.explain.paxp import approx_paxp
from fxai.models.nbc import XLC, NBCTables, train
from fxai.oracles import nbc as nbc_oracle
from fxai.oracles.nbc import NBCOracle
from fxai.verify import nbc as nbc_verify
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps, is_axp, is_cxp
from fxai.verify.nbc import PrecisionChecker, check_axp
from fxai.verify.paxp import check_approx_paxp


def random_nbc(seed: int, n: int, k: int, max_dom: int = 3):
    """A CategoricalNB with ``k`` classes fitted on random skewed data, and an instance."""
    rng = np.random.default_rng(seed)
    doms = [int(rng.integers(2, max_dom + 1)) for _ in range(n)]
    y = rng.integers(0, k, size=80)
    y[:k] = np.arange(k)
    X = np.stack([np.where(rng.random(80) < 0.6, (y * rng.integers(1, d + 1)) % d,
                           rng.integers(0, d, size=80)) for d in doms], axis=1)
    model = train(X, y, doms, alpha=float(rng.uniform(0.3, 2.0)))
    return model, doms, [int(rng.integers(0, d)) for d in doms]


def grid(doms) -> np.ndarray:
    return np.array(list(itertools.product(*[range(d) for d in doms])), dtype=int)


def brute(model, doms, x) -> BruteForceOracle:
    """Brute force over scikit-learn's own predictions (class indices, tabulated once)."""
    table = np.searchsorted(model.classes_, model.predict(grid(doms))).reshape(doms)
    return BruteForceOracle(lambda pts: table[tuple(np.asarray(pts).T)],
                            [range(d) for d in doms], x)


def mirrored(seed: int, n: int = 6, k: int = 2) -> CategoricalNB:
    """Every class sees the same random rows up to a cyclic shift of the values (for two
    classes: ``x`` and ``1 - x``): many exact ties between class scores in real arithmetic,
    which scikit-learn's float sums and first-index rule decide."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, k, size=(int(rng.integers(5, 40)), n))
    X = np.concatenate([(base + c) % k for c in range(k)])
    return train(X, np.repeat(np.arange(k), len(base)), [k] * n)


def subsets(n, rng, m=10):
    return [set(np.flatnonzero(rng.random(n) < 0.5).tolist()) for _ in range(m)]


def assert_exact(model, doms, x, sets):
    o, b = oracles.for_model(model, x), brute(model, doms, x)
    assert o.prediction == b.prediction
    weak = verify.weak_axp_fn(model, x)[0](sets)
    for s, w in zip(sets, weak, strict=True):
        truth = b.entails(s)
        assert o.entails(s) == truth == w
        cex = o.counterexample(s)
        assert (cex is None) == truth
        if cex is not None:
            assert all(cex[i] == x[i] for i in s)
            assert np.searchsorted(model.classes_, model.predict([cex]))[0] != o.prediction
    return o, b


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 5), k=st.integers(3, 5))
def test_prediction_is_sklearns_on_every_point(seed, n, k):
    model, doms, _ = random_nbc(seed, n, k)
    pts = grid(doms)
    want = np.searchsorted(model.classes_, model.predict(pts))
    assert [NBCOracle(model, p).prediction for p in pts] == want.tolist()
    tables = NBCTables.from_categorical_nb(model)
    assert np.array_equal(tables.joint_log_likelihood(pts), model._joint_log_likelihood(pts))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), k=st.integers(3, 5))
def test_entails_axp_cxp_against_brute(seed, n, k):
    model, doms, x = random_nbc(seed, n, k)
    o, b = assert_exact(model, doms, x, subsets(n, np.random.default_rng(seed)))
    axp = o.axp()
    assert is_axp(b, axp) and check_axp(model, x, axp) and tuple(axp) in all_axps(b)
    cxps = all_cxps(b)
    cxp = o.min_cxp()
    if cxp is None:
        assert not cxps
    else:
        assert is_cxp(b, cxp) and len(cxp) == min(len(c) for c in cxps)
    ok_a, ok_c = verify.check_all(model, x, [axp], [cxp] if cxp else [])
    assert all(ok_a) and all(ok_c)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), k=st.integers(3, 4))
def test_marco_complete_and_dual(seed, n, k):
    model, doms, x = random_nbc(seed, n, k)
    o, b = oracles.for_model(model, x), brute(model, doms, x)
    want_a, want_c = all_axps(b), all_cxps(b)
    for target in ("axp", "cxp"):
        m = explain.Marco(o, target=target, time_limit=60)
        list(m)
        assert m.complete
        assert {tuple(a) for a in m.axps} == want_a and {tuple(c) for c in m.cxps} == want_c
    ok_a, ok_c = verify.check_all(model, x, sorted(want_a), sorted(want_c))
    assert all(ok_a) and all(ok_c)
    assert not any(verify.check_all(model, x, [list(a) + [f] for a in want_a
                                               for f in range(n) if f not in a], [])[0])


@pytest.mark.heavy
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), k=st.integers(3, 5),
       delta=st.sampled_from([0.5, 0.75, 0.9]))
def test_precision_exact_and_union_bound(seed, n, k, delta):
    model, doms, x = random_nbc(seed, n, k)
    o, b = oracles.for_model(model, x), brute(model, doms, x)
    sets = subsets(n, np.random.default_rng(seed + 1)) + [set(), set(range(n))]
    for s in sets:  # small free spaces: counted exactly
        p = b.precision(s)
        assert o.precision(s) == p and o.precision_at_least(s, delta) == (p >= delta)
        assert tuple(map(float, PrecisionChecker(model, x).interval(s))) == (p, p)
    res = approx_paxp(o, delta, seed=o.axp(), sound=True)
    kept = set(res.features)
    assert b.precision(kept) >= delta and all(b.precision(kept - {i}) < delta for i in kept)
    assert check_approx_paxp(PrecisionChecker(model, x), o.axp(), kept, delta)[0] is True
    # beyond EXACT_LIMIT: the union bound and its rigorous bracket
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nbc_oracle, "EXACT_LIMIT", 0)
        union_bound_brackets(model, x, b, sets, delta)


def union_bound_brackets(model, x, b, sets, delta):
    o = NBCOracle(model, x)
    for s in sets:
        p = b.precision(s)
        for d in (2, 4):
            lo, hi = o.precision_bounds(s, d)
            assert lo - 1e-12 <= p <= hi + 1e-12
        if o.precision_at_least(s, delta):
            assert p >= delta
        lo, hi = PrecisionChecker(model, x, exact_limit=0).interval(s)
        assert lo - 1e-12 <= p <= hi + 1e-12
    res = approx_paxp(o, delta, seed=o.axp(), sound=True)  # sound: precision >= δ
    assert b.precision(res.features) >= delta


@pytest.mark.parametrize(("seed", "k"), [(112, 2), (2, 2), (11, 3), (5, 3)])
def test_mirrored_counts_exact_ties(seed, k):
    """Exact ties in real arithmetic, decided by scikit-learn's float sums and its first-
    index rule: the oracle agrees with predict on every point, and entailment, AXps and
    CXps of tied instances agree with brute force over every fixed set."""
    n = 6 if k == 2 else 4
    model = mirrored(seed, n, k)
    doms = [k] * n
    pts = grid(doms)
    jll = NBCTables.from_categorical_nb(model).joint_log_likelihood(pts)
    ties = np.isclose(jll.max(axis=1, keepdims=True), jll, rtol=0, atol=1e-12).sum(1) > 1
    assert ties.sum() >= 6  # the construction does tie
    every = [set(c) for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    for x in pts[ties][:10].tolist():
        o, b = assert_exact(model, doms, x, every)
        assert tuple(o.axp()) in all_axps(b)
        cxp = o.min_cxp()
        assert cxp is None or is_cxp(b, cxp)


def test_mirrored_ties_of_the_issue():
    """Issue 18: on this mirrored model the sign of the float sum of per-feature
    differences (the binary XLC, the old oracle's rule) disagrees with scikit-learn's
    predict at four tied points; the oracle explains the class scikit-learn predicts."""
    model = mirrored(112)
    pts = grid([2] * 6)
    sk = model.predict(pts)
    old = XLC.from_categorical_nb(model).predict(pts)
    assert np.count_nonzero(old != sk) == 4
    for x in pts[old != sk]:
        o = NBCOracle(model, x)
        assert o.prediction == sk[np.all(pts == x, axis=1)][0] != old[np.all(pts == x, axis=1)][0]


def test_near_tie_band_is_searched():
    """Worst completions that tie exactly: decided point by point, not by the float sum of
    differences (which can land on either side of 0)."""
    logp = np.log([[0.3, 0.7], [0.7, 0.3]])
    tables = NBCTables(np.log([0.5, 0.5]), (logp, logp, logp[::-1], logp[::-1]))
    x = [1, 1, 1, 1]  # class 0: .7 .7 .3 .3 / class 1: .3 .3 .7 .7: a tie, class 0 wins
    o = NBCOracle(tables, x)
    assert o.prediction == int(tables.predict([x])[0]) == 0
    b = BruteForceOracle(tables.predict, [[0, 1]] * 4, x)
    for r in range(5):
        for s in itertools.combinations(range(4), r):
            assert o.entails(s) == b.entails(s)
    assert o.axp() in [list(a) for a in all_axps(b)]


def test_too_many_near_ties_fail_loudly(monkeypatch):
    """A tied instance and three features that no class prefers: freeing them leaves 8
    tied completions to predict; with room for 4 the oracle refuses rather than guess."""
    logp = np.log([[0.3, 0.7], [0.7, 0.3]])
    same = np.log([[0.4, 0.6], [0.4, 0.6]])
    tables = NBCTables(np.log([0.5, 0.5]), (logp, logp[::-1], same, same, same))
    x = [1, 1, 0, 0, 0]
    assert NBCOracle(tables, x).entails([0, 1])  # 8 completions, all predicted 0
    monkeypatch.setattr(nbc_oracle, "BAND_LIMIT", 4)
    with pytest.raises(nbc_oracle.NearTieError, match="more than 4 completions tie"):
        NBCOracle(tables, x).entails([0, 1])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 12), k=st.integers(2, 4))
def test_rounding_band_bounds_every_float_error(seed, n, k):
    """``pair_error`` bounds the distance between scikit-learn's float score difference,
    the pair XLC's float sum, and the exact (rational) difference of the float tables."""
    from fractions import Fraction

    model, doms, _ = random_nbc(seed, n, k, max_dom=4)
    tables = NBCTables.from_categorical_nb(model)
    rng = np.random.default_rng(seed)
    pts = np.stack([rng.integers(0, d, size=20) for d in doms], axis=1)
    jll = tables.joint_log_likelihood(pts)
    for c, j in itertools.permutations(range(k), 2):
        band = tables.pair_error(c, j)
        nu = tables.pair(c, j).nu(pts)
        for p, row, xlc in zip(pts, jll, nu, strict=True):
            sk = Fraction(row[c]) - Fraction(row[j])  # scikit-learn compares the two floats
            exact = Fraction(tables.prior[c]) - Fraction(tables.prior[j]) + sum(
                Fraction(t[c, v]) - Fraction(t[j, v]) for t, v in zip(tables.tables, p,
                                                                      strict=True))
            assert abs(sk - exact) <= band / 2
            assert abs(Fraction(xlc) - exact) <= band / 2


def sklearn_count(model, doms, x, fixed) -> int:
    """Completions of ``fixed`` that scikit-learn's own predict gives ``x``'s class."""
    pts = grid(doms)
    pts = pts[np.all(pts[:, sorted(fixed)] == np.asarray(x)[sorted(fixed)], axis=1)]
    return int(np.count_nonzero(model.predict(pts) == model.predict([x])[0]))


@pytest.mark.heavy
@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 7), k=st.integers(2, 5))
@example(seed=1, n=7, k=2)  # issue 35: a bracket 2 points wide, within the default width
def test_precision_checker_counts_and_brackets_against_predict(seed, n, k):
    """Past scikit-learn's predict on every completion (exact_limit=0): the enumeration in
    scikit-learn's arithmetic (in chunks of 4 points, so the outer loop runs) counts exactly
    what predict gives, the integer brackets of levels 0 and 1 (union bound for k > 2)
    contain that count, their refinements over parts of the completions (k > 2, no
    enumeration) are nested and contain it, the checker's interval refined to width 0 is
    the exact precision, and its default interval contains it and is at most 1e-3 wide
    (it stops refining there: 1235..1237 of 2304 on the example)."""
    model, doms, x = random_nbc(seed, n, k, max_dom=4)
    bounds_only = PrecisionChecker(model, x, exact_limit=0, enum_limit=0)
    checker = PrecisionChecker(model, x, exact_limit=0)
    for s in subsets(n, np.random.default_rng(seed + 1), 6) + [set(), set(range(n))]:
        want = sklearn_count(model, doms, x, s)
        assert checker.enumerate_count(s, chunk=4) == want
        total = int(np.prod([doms[i] for i in range(n) if i not in s]))
        for level in (0, 1):
            lo, hi, tot = bounds_only.counts(s, level)
            assert tot == total and lo <= want <= hi
        for level in range(2, nbc_verify.REFINE_LEVELS + 1):  # refined: nested brackets
            got = bounds_only.counts(s, level)
            if got is not None:
                assert lo <= got[0] <= want <= got[1] <= hi
                lo, hi = got[:2]
        assert checker.interval(s, width=0) == (Fraction(want, total),) * 2
        lo, hi = checker.interval(s)
        assert lo <= Fraction(want, total) <= hi and hi - lo <= Fraction(1e-3)


@pytest.mark.parametrize(("seed", "k"), [(112, 2), (2, 2), (11, 3), (5, 3)])
def test_precision_enumeration_follows_predict_at_exact_ties(seed, k):
    """Mirrored counts (exact ties in real arithmetic, decided by float rounding and the
    first-index rule): the enumeration counts what predict gives for every fixed set."""
    n = 6 if k == 2 else 4
    model, doms = mirrored(seed, n, k), [k] * n
    pts = grid(doms)
    jll = NBCTables.from_categorical_nb(model).joint_log_likelihood(pts)
    ties = np.isclose(jll.max(axis=1, keepdims=True), jll, rtol=0, atol=1e-12).sum(1) > 1
    every = [set(c) for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    for x in pts[ties][:6].tolist():
        checker = PrecisionChecker(model, x, exact_limit=0)
        for s in every:
            assert checker.enumerate_count(s, chunk=8) == sklearn_count(model, doms, x, s)


def test_multiclass_precision_above_2_16_points_is_decided_exactly():
    """Three classes, 17 binary features (2**17 completions of the empty set, past the
    old 2**16 enumeration limit, where the checker said None): precision ≥ δ is decided
    exactly at δ = the precision itself and one point above it (no bracket can decide
    that), as scikit-learn's predict counts over all 2**17 points."""
    model, doms, x = random_nbc(3, 17, 3, max_dom=2)
    assert doms == [2] * 17
    want = sklearn_count(model, doms, x, set())
    assert 0 < want < 2**17
    checker = PrecisionChecker(model, x)
    assert checker.at_least(set(), want / 2**17) is True
    assert checker.at_least(set(), (want + 1) / 2**17) is False
    lo, hi = PrecisionChecker(model, x, enum_limit=0).interval(set())  # the union bound
    assert lo <= Fraction(want, 2**17) <= hi
