"""ApproxPAXp is generic: any oracle with ``precision`` works (here brute force on tables)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fxai.explain.paxp import approx_paxp
from fxai.verify.brute import BruteForceOracle, is_axp


def table_oracle(seed: int, n: int) -> BruteForceOracle:
    rng = np.random.default_rng(seed)
    doms = [int(rng.integers(2, 4)) for _ in range(n)]
    table = np.where(rng.random(doms) < 0.7, 0, rng.integers(0, 2, size=doms))

    def predict(points):
        return table[tuple(np.asarray(points).T)]

    return BruteForceOracle(predict, [range(d) for d in doms],
                            [int(rng.integers(0, d)) for d in doms])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6),
       delta=st.sampled_from([0.5, 0.8, 0.95, 1.0]))
def test_weak_paxp_and_no_single_removal(seed, n, delta):
    o = table_oracle(seed, n)
    res = approx_paxp(o, delta)
    kept = set(res.features)
    assert o.precision(kept) >= delta and res.precision == pytest.approx(o.precision(kept))
    assert all(o.precision(kept - {i}) < delta for i in kept)
    if delta == 1.0:  # with δ = 1 it is an AXp
        assert is_axp(o, kept)


def test_seed_and_order_are_respected():
    o = table_oracle(5, 5)
    res = approx_paxp(o, 0.0, seed=[1, 3], order=[3, 1])
    assert res.features == [] and res.queries == 2
    with pytest.raises(ValueError, match="delta"):
        approx_paxp(o, 1.5)
    with pytest.raises(TypeError, match="precision_at_least"):
        approx_paxp(o, 0.9, sound=True)
