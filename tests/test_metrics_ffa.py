"""FFA distance metrics on hand-made vectors with worked values, both variants."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import kendalltau

from fxai.metrics import (
    dense_ranks,
    ffa_error,
    kendall_tau,
    kl_divergence,
    rbo,
    rbo_ext,
    rbo_ext_code,
)
from fxai.metrics.ffa import tau_b


def test_error_is_manhattan_over_union():
    assert ffa_error({0: 0.5, 1: 1.0}, {0: 1.0, 2: 0.5}) == pytest.approx(2.0)
    assert ffa_error({}, {0: 1.0, 1: 0.5}) == pytest.approx(1.5)
    assert ffa_error({}, {}) == 0.0
    assert ffa_error({3: 0.25}, {3: 0.25}) == 0.0


def test_dense_ranks_share_ties():
    assert dense_ranks({4: 0.5, 1: 1.0, 2: 0.5, 0: 0.1}) == {4: 1, 1: 0, 2: 1, 0: 2}


@pytest.mark.parametrize("approx, exact, paper, code", [
    # tie on the approximate side only: tau-b 2/sqrt(6); code counts it discordant: 1/3
    ({0: 1, 1: .5, 2: .5}, {0: 1, 1: .5, 2: .25}, 2 / math.sqrt(6), 1 / 3),
    # identical rankings
    ({0: 1, 1: .5, 2: .5}, {0: 1, 1: .5, 2: .5}, 1.0, 1.0),
    # both sides all tied: paper 1 (both constant); code: a double tie is concordant
    ({0: .5, 1: .5}, {0: 1, 1: 1}, 1.0, 1.0),
    # a missing feature: approx [1, 0] vs exact constant -> paper 0; code rank 1 vs tie -> -1
    ({0: 1.0}, {0: .5, 1: .5}, 0.0, -1.0),
    # empty approximation (t = 0): paper 0; code all tied vs strict order -> -1
    ({}, {0: 1, 1: .5}, 0.0, -1.0),
    # single feature: paper 1 (constant both); code -1 (fewer than 2 features)
    ({0: 1}, {0: 1}, 1.0, -1.0),
    # reversed order of three features
    ({0: .1, 1: .2, 2: .3}, {0: .3, 1: .2, 2: .1}, -1.0, -1.0),
])
def test_kendall_tau_worked_values(approx, exact, paper, code):
    assert kendall_tau(approx, exact) == pytest.approx(paper)
    assert kendall_tau(approx, exact, variant="code") == pytest.approx(code)


def test_rbo_ext_textbook_values():
    a, b = [{"a"}, {"b"}], [{"b"}, {"a"}]
    for f in (rbo_ext, rbo_ext_code):
        assert f(a, a) == pytest.approx(1.0)
        assert f(a, b) == pytest.approx(0.9)  # (0.1/0.9)*0.81 + 0.81
        assert f([{"a"}], [{"b"}]) == 0.0
        assert f([], a) == 0.0
        with pytest.raises(ValueError, match="persistence"):
            f(a, b, p=1.0)


def singletons(items):
    return [{i} for i in items]


def test_rbo_ext_follows_webber_eq32_for_uneven_lengths():
    """Eq. 32 of Webber, Moffat & Zobel (2010) by hand, and the published example of the
    ``rbo`` package (PyPI): a ranking that is a prefix of the other has RBO_ext 1."""
    assert rbo_ext(singletons("a"), singletons("ab")) == pytest.approx(1.0)
    assert rbo_ext(singletons("abcde"), singletons("abcdefg")) == pytest.approx(1.0)
    # S = [a, b], L = [b, a, c]: A = (0, 1, 2/3), X_s = 2, X_l = 2:
    # (0.1/0.9) (0.81 + 0.729 (2/3) + 0.729 * 2 * 1/(2*3)) + 0.729 (0/3 + 2/2) = 0.9
    assert rbo_ext(singletons("ab"), singletons("bac")) == pytest.approx(0.9)
    # S = [a], L = [b, a]: A = (0, 1/2), X_s = 0, X_l = 1: (0.1/0.9)(0.81/2) + 0.81/2 = 0.45
    assert rbo_ext(singletons("a"), singletons("ba")) == pytest.approx(0.45)
    assert rbo_ext(singletons("ba"), singletons("a")) == pytest.approx(0.45)  # symmetric
    # the authors' code departs from eq. 32 here: A_2 = 2/3 instead of 1/2 (issue 11: 0.88)
    assert rbo_ext_code(singletons("a"), singletons("ab")) == pytest.approx(0.88)


def test_rbo_ordering_variants_differ():
    approx, exact = {0: 1, 1: .5, 2: .25}, {0: 1, 1: .25, 2: .5}
    # most important first: A = (1, .5, 1) -> 2.034/9 + .729
    assert rbo(approx, exact) == pytest.approx(2.034 / 9 + 0.729)
    # least important first: A = (0, 1, 1) -> 1.539/9 + .729
    assert rbo(approx, exact, variant="code") == pytest.approx(1.539 / 9 + 0.729)
    # an approximate FFA that has found only the top feature so far
    assert rbo({0: 1}, {0: 1, 1: .5}) == pytest.approx(1.0)


def test_rbo_ties_and_uneven_lengths():
    # paper: approx {0,1} tied (both enter at depth 1), exact 0 then 1, depth in items:
    # A = (2/(2+1), 1), X_s = 2: (0.1/0.9)(0.9 * 2/3 + 0.81) + 0.81 * 2/2
    paper = (0.1 / 0.9) * (0.9 * 2 / 3 + 0.81) + 0.81
    assert rbo({0: .5, 1: .5}, {0: 1, 1: .5}) == pytest.approx(paper)
    assert paper == pytest.approx(0.9666667, abs=1e-6)
    assert rbo_ext([{0, 1}], [{0, 1}]) == pytest.approx(1.0)
    # code: approx one rank {0,1}, exact two ranks; A = (2/3, 1) over ranks, s = 1, l = 2
    code = (0.1 / 0.9) * (0.9 * 2 / 3 + 0.81 + 0.81 * (2 / 3) * 0.5) + 0.81 * (1 / 6 + 2 / 3)
    assert rbo_ext_code([{0, 1}], [{0}, {1}]) == pytest.approx(code)
    assert code == pytest.approx(0.8616667, abs=1e-6)


def test_rbo_empty_and_zero_vectors():
    assert rbo({}, {0: 1}) == 0.0
    assert rbo({}, {0: 1}, variant="code") == 0.0
    assert rbo({0: 0.0}, {0: 1}) == 0.0  # zero FFA is not ranked in the paper variant
    assert rbo({0: 1, 1: .5}, {0: 1, 1: .5}, variant="code") == pytest.approx(1.0)


def test_kl_divergence_worked_values():
    assert kl_divergence({0: 1, 1: .5}, {0: 1, 1: 1}) == pytest.approx(0.5 * math.log(1.125))
    assert kl_divergence({0: 1}, {0: 1, 1: 1}) == math.inf
    assert kl_divergence({}, {0: 1}) == math.inf
    assert kl_divergence({0: .2, 1: .4}, {0: .2, 1: .4}) == pytest.approx(0.0)
    assert kl_divergence({}, {}) == 0.0
    # a feature only in the approximation costs nothing in KL(exact || approx) but rescales
    assert kl_divergence({0: 1, 1: 1}, {0: 1}) == pytest.approx(math.log(2))


def test_unknown_variant_is_rejected():
    with pytest.raises(ValueError, match="variant"):
        kendall_tau({0: 1}, {0: 1}, variant="authors")


# FFA-like values: few levels, so that ties are common
_levels = st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 2 / 3, 1.0])


@given(st.integers(2, 40).flatmap(lambda n: st.tuples(st.lists(_levels, min_size=n, max_size=n),
                                                      st.lists(_levels, min_size=n, max_size=n))))
def test_tau_b_is_scipys_statistic_bit_for_bit(xy):
    x, y = xy
    ours, theirs = tau_b(x, y), float(kendalltau(x, y).statistic)
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def test_tau_b_of_distinct_values_is_scipys():
    rng = np.random.default_rng(0)
    for n in (2, 3, 10, 60):
        x, y = rng.random(n), rng.random(n)
        assert tau_b(x, y) == float(kendalltau(x, y).statistic)
