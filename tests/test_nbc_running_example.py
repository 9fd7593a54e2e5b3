"""The NBC paper's running example (Figures 1-4, Examples 3.1-4.3) as exact tests.

Paper features are 1-based with values f=1, t=2; here features are 0-based, f=0, t=1.
Figure 2/3 print values computed from 2-decimal intermediates, hence the tolerance.
"""

import numpy as np
import pytest

from fxai.explain.paxp import approx_paxp
from fxai.models.nbc import XLC
from fxai.oracles.nbc import NBCOracle

# Pr(R_i = f | class), Pr(R_i = t | class) for class 0 (⊖) and class 1 (⊕)
TABLES = [
    [[0.97, 0.03], [0.05, 0.95]],  # R1: Pr(r1|⊖)=0.03, Pr(r1|⊕)=0.95
    [[0.05, 0.95], [0.95, 0.05]],  # R2: Pr(¬r2|⊖)=0.05, Pr(¬r2|⊕)=0.95
    [[0.66, 0.34], [0.98, 0.02]],  # R3
    [[0.25, 0.75], [0.80, 0.20]],  # R4
    [[0.97, 0.03], [0.05, 0.95]],  # R5
]
V = [1, 0, 0, 0, 1]  # (t, f, f, f, t)


@pytest.fixture
def oracle():
    xlc = XLC.from_log_probs(np.log([0.9, 0.1]), [np.log(t) for t in TABLES])
    return NBCOracle(xlc, V, decimals=3)


def test_figure3_xlc_values(oracle):
    x = oracle.xlc
    assert x.w0 == pytest.approx(-2.19, abs=0.01)
    got = [w for ws in x.weights for w in ws]  # v_1^1, v_1^2, ..., v_5^2 (f first)
    want = [-2.97, 3.46, 2.95, -2.95, 0.4, -2.83, 1.17, -1.32, -2.97, 3.46]
    assert got == pytest.approx(want, abs=0.011)
    assert oracle.prediction == 1
    assert oracle.gamma == pytest.approx(9.25, abs=0.04)
    assert oracle.deltas == pytest.approx([6.43, 5.90, 3.23, 2.49, 6.43], abs=0.015)
    assert oracle.phi == pytest.approx(15.23, abs=0.02)
    # decreasing δ_j: <δ1, δ5, δ2, δ3, δ4> as in Figure 3(b) (Example 3.2's text swaps
    # δ3 and δ4, contradicting the printed values 3.23 > 2.49)
    assert list(np.argsort(-oracle.deltas, kind="stable")) == [0, 4, 1, 2, 3]


def test_example32_axp_and_cxp(oracle):
    assert oracle.axp() == [0, 1, 4]
    assert oracle.entails([0, 1, 4]) and not oracle.entails([0, 4])
    # the six points listed after Example 3.2 are all predicted ⊕
    pts = [[1, 0, 0, 1, 1], [1, 0, 1, 0, 1], [1, 0, 1, 1, 1],
           [1, 1, 0, 0, 1], [1, 1, 0, 1, 1], [1, 1, 1, 0, 1]]
    assert list(oracle.xlc.predict(pts)) == [1] * 6
    cxp = oracle.min_cxp()
    assert len(cxp) == 2 and not oracle.entails(set(range(5)) - set(cxp))


def example41():
    return XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))


def test_example41_count_50():
    o = NBCOracle(example41(), [2, 2, 2, 2], decimals=0)
    assert o.count([]) == 50


def test_example42_count_6():
    # x2 = 1 and x4 = 3 (paper values 1..3 are our codes 0..2)
    o = NBCOracle(example41(), [2, 0, 2, 2], decimals=0)
    assert o.count([1, 3]) == 6


@pytest.mark.parametrize("decimals", [2, 3, 4])
def test_example43_precisions(oracle, decimals):
    o = NBCOracle(oracle.xlc, V, decimals=decimals)
    assert o.precision([0, 4]) == pytest.approx(7 / 8)
    assert o.precision([1, 4]) == pytest.approx(6 / 8)
    assert o.precision([0]) == pytest.approx(9 / 16)
    assert o.precision([0, 1, 4]) == 1.0
    assert o.count([0, 1, 4]) == 4


def test_example43_approx_paxp(oracle):
    axp = oracle.axp()
    # Example 4.3 tests features in index order; the paper's setup uses increasing δ_i
    for order in (axp, sorted(axp, key=lambda i: oracle.deltas[i])):
        res = approx_paxp(oracle, 0.85, seed=axp, order=order)
        assert res.features == [0, 4] and res.precision == pytest.approx(7 / 8)
        sound = approx_paxp(oracle, 0.85, seed=axp, order=order, sound=True)
        assert sound.features == [0, 4]
