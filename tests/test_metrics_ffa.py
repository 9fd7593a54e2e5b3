"""FFA distance metrics on hand-made vectors with worked values, both variants."""

import math

import pytest

from fxai.metrics import dense_ranks, ffa_error, kendall_tau, kl_divergence, rbo, rbo_ext


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
    assert rbo_ext(a, a) == pytest.approx(1.0)
    assert rbo_ext(a, b) == pytest.approx(0.9)  # (0.1/0.9)*0.81 + 0.81
    assert rbo_ext([{"a"}], [{"b"}]) == 0.0
    assert rbo_ext([], a) == 0.0
    with pytest.raises(ValueError, match="persistence"):
        rbo_ext(a, b, p=1.0)


def test_rbo_ordering_variants_differ():
    approx, exact = {0: 1, 1: .5, 2: .25}, {0: 1, 1: .25, 2: .5}
    # most important first: A = (1, .5, 1) -> 2.034/9 + .729
    assert rbo(approx, exact) == pytest.approx(2.034 / 9 + 0.729)
    # least important first: A = (0, 1, 1) -> 1.539/9 + .729
    assert rbo(approx, exact, variant="code") == pytest.approx(1.539 / 9 + 0.729)


def test_rbo_ties_and_uneven_lengths():
    # approx ranks {0,1} tied (one rank), exact 0 then 1: s=1, l=2, A=(2/3, 1)
    val = (0.1 / 0.9) * (0.9 * 2 / 3 + 0.81 + 0.81 * (2 / 3) * 0.5) + 0.81 * (1 / 6 + 2 / 3)
    assert rbo({0: .5, 1: .5}, {0: 1, 1: .5}) == pytest.approx(val)
    assert val == pytest.approx(0.8616667, abs=1e-6)


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
