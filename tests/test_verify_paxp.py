"""The independent ApproxPAXp checker (fxai.verify.paxp) against brute force, and the
constructed NBC case whose scaled DP reported [] at precision 1.0 (true: 7/8)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles
from fxai.experiments.cross import explain_instance, verify_record
from fxai.explain.paxp import approx_paxp
from fxai.models.dlist import DecisionList, Rule
from fxai.models.nbc import train
from fxai.models.obdd import OBDD
from fxai.verify.brute import BruteForceOracle
from fxai.verify.paxp import check_approx_paxp, precision_counter


def constructed_nbc() -> CategoricalNB:
    """w0 = 1.0001 and three binary features that each lose 0.3334 at value 1."""
    m = CategoricalNB().fit(np.array([[0, 0, 0], [1, 1, 1]]), [0, 1])
    m.class_log_prior_ = np.array([0.0, 1.0001])
    m.feature_log_prob_ = [np.array([[0.0, 0.0], [0.0, -0.3334]]) for _ in range(3)]
    return m


def test_constructed_nbc_scaled_dp_is_the_root_cause():
    """At 3 decimals the losses round to 0.333: 3 x 0.333 < Γ = 1.000, so the paper's DP
    counts all 8 points; the real model loses (1, 1, 1) (1.0002 > 1.0001)."""
    m, x = constructed_nbc(), [0, 0, 0]
    o = oracles.for_model(m, x)
    assert m.predict([x])[0] == 1 and m.predict([[1, 1, 1]])[0] == 0
    assert o.axp() == [2] and o.precision(set()) == 1.0
    assert approx_paxp(o, 0.9, seed=o.axp()).features == []  # the wrong answer
    assert precision_counter(m, x).interval(set()) == (Fraction(7, 8), Fraction(7, 8))


@pytest.mark.parametrize("exact_limit", [2**16, 0])  # enumeration, integer bracket
def test_constructed_nbc_cross_record_is_right_and_a_wrong_one_is_rejected(exact_limit):
    m, x = constructed_nbc(), [0, 0, 0]
    res = explain_instance(oracles.for_model(m, x), time_limit=30, delta=0.9)
    p = res["approx_paxp"]
    assert p["features"] == [2] and p["sound"]
    assert verify_record(res, m, x, None)
    assert p["precision"] == 1.0 and p["precision_err"] == 0.0 and p["verified"] is True
    counter = type(precision_counter(m, x))(m, x, exact_limit=exact_limit)
    assert check_approx_paxp(counter, [2], [2], 0.9) == (True, (1, 1))
    assert check_approx_paxp(counter, [2], [], 0.9, claimed=1.0)[0] is False
    assert check_approx_paxp(counter, [2], [], 0.8, claimed=0.875)[0] is True
    assert check_approx_paxp(counter, [2], [], 0.8, claimed=1.0)[0] is False  # wrong number
    res["approx_paxp"] |= {"features": [], "precision_algorithm": 1.0}  # the old record
    assert not verify_record(res, m, x, None)
    assert res["approx_paxp"]["precision"] == 0.875


def random_model(family: str, seed: int):
    """(model, domains, x, oracle) of a small random model of ``family``."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    if family == "obdd":
        rules = [Rule(tuple((int(f), str(rng.choice(["==", "!="])), float(rng.integers(2)))
                            for f in rng.choice(n, size=int(rng.integers(1, min(3, n) + 1)),
                                                replace=False)), int(rng.integers(2)))
                 for _ in range(int(rng.integers(1, 6)))]
        model = OBDD.from_decision_list(DecisionList(rules + [Rule((), 1)], n, [0, 1]))
        doms = [[0, 1]] * n
    else:
        sizes = rng.integers(2, 5, n)
        X = np.column_stack([rng.integers(0, k, 120) for k in sizes])
        y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 120)) % 2
        y[:2] = [0, 1]
        doms = [list(range(k)) for k in sizes]
        model = (train(X, y, [int(k) for k in sizes], alpha=float(rng.uniform(0.3, 2)))
                 if family == "nbc" else
                 DecisionTreeClassifier(max_depth=4, random_state=seed).fit(X, y))
    x = [int(rng.integers(len(d))) for d in doms]
    return model, doms, x, oracles.for_model(model, x, domains=doms)


def truth(brute: BruteForceOracle, xp: set, delta: float) -> bool:
    return brute.precision(xp) >= delta and all(brute.precision(xp - {i}) < delta for i in xp)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("family", ["nbc", "dt", "obdd"])
def test_checker_against_brute_force(family, seed):
    """Family counts equal brute force; every subset of the AXp is judged an ApproxPAXp
    exactly when brute force says so (too small, non-minimal and correct sets alike); the
    algorithm's ApproxPAXp is accepted; a claimed precision off by one point is rejected."""
    model, doms, x, o = random_model(family, seed)
    brute = BruteForceOracle(lambda p: model.predict(np.asarray(p)), doms, x)
    counters = [precision_counter(model, x, doms)]
    counters.append(type(counters[0])(*((model, x, doms) if family == "dt" else (model, x)),
                                      exact_limit=0))  # the family's own count
    axp = explain.find_axp(o)
    undecided = 0
    for delta in (0.6, 0.75, 0.9):
        for k in range(len(axp) + 1):
            for xp in map(set, itertools.combinations(axp, k)):
                want = truth(brute, xp, delta)
                got = [check_approx_paxp(c, axp, xp, delta)[0] for c in counters]
                assert got[0] == want
                assert got[1] in (want, None)  # None: a score too near a tie to bracket
                undecided += got[1] is None
        res = approx_paxp(o, delta, seed=axp, sound=family == "nbc")
        p = brute.precision(res.features)
        space = int(np.prod([len(d) for i, d in enumerate(doms) if i not in res.features]))
        ok, (lo, hi) = check_approx_paxp(counters[0], axp, res.features, delta, res.precision)
        assert ok == truth(brute, set(res.features), delta) and float(lo) == float(hi) == p
        if family != "nbc":
            assert ok  # exact oracles: always a correct ApproxPAXp
        wrong = p + 1 / space if p < 1 else p - 1 / space  # one point off
        assert check_approx_paxp(counters[0], axp, res.features, delta, wrong)[0] is False
    assert undecided == 0, undecided  # no exact ties in these random models
    for s in [set(), set(axp), set(range(len(x)))]:
        lo, hi = counters[1].interval(s)
        assert lo <= Fraction(brute.precision(s)).limit_denominator(10**6) <= hi


@pytest.mark.parametrize("seed", range(4))
def test_nbc_counts_modulo_coprime_moduli_equal_int64_counts(seed):
    """Beyond 2**62 points the NBC histograms are kept modulo pairwise coprime moduli; the
    CRT restores the same integers as plain int64 counts."""
    from fxai.verify.nbc import PrecisionChecker, _moduli

    model, doms, x, _ = random_model("nbc", seed)
    plain = PrecisionChecker(model, x, exact_limit=0)
    crt = PrecisionChecker(model, x, exact_limit=0)
    crt.moduli = _moduli(2**100)
    assert len(crt.moduli) == 4 and math.prod(crt.moduli) > 2**100
    for s in [set(), {0}, set(range(1, len(x)))]:
        for level in range(3):
            assert crt.counts(s, level) == plain.counts(s, level)


def test_multiclass_nbc_counts_exactly_and_says_undecided_past_every_limit(monkeypatch):
    """Three classes: exact by scikit-learn's predict on every completion, and by the
    enumeration in its arithmetic past that limit; past the enumeration limit too, the
    union-bound bracket (4/27, 13/27) holds the precision 10/27, its refinement over parts
    of the completions reaches it, and without refinement a δ inside the bracket gets no
    verdict (never a guess)."""
    from fxai.verify import nbc
    from fxai.verify.nbc import PrecisionChecker

    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 3, size=(90, 4)), rng.integers(0, 3, 90)
    model = CategoricalNB(min_categories=3).fit(X, y)
    x = [int(v) for v in X[0]]
    brute = BruteForceOracle(lambda p: model.predict(np.asarray(p)), [range(3)] * 4, x)
    p = brute.precision({0})
    assert p == 10 / 27
    for exact_limit in (2**16, 0):
        lo, hi = PrecisionChecker(model, x, exact_limit=exact_limit).interval({0})
        assert lo == hi == Fraction(10, 27)
    big = PrecisionChecker(model, x, exact_limit=0, enum_limit=0)
    assert big.counts({0}, 1) == (4, 13, 27)  # k = 12
    assert big.interval({0}) == (Fraction(10, 27),) * 2 and big.at_least({0}, 0.4) is False
    monkeypatch.setattr(nbc, "REFINE_LEVELS", 1)  # no refinement: levels 0 and 1 only
    big = PrecisionChecker(model, x, exact_limit=0, enum_limit=0)
    assert big.at_least({0}, 0.4) is None and big.at_least({0}, 0.1) is True
    assert check_approx_paxp(big, None, {0}, 0.4)[0] is None
