"""The MILP checker against brute force, and rejecting non-explanations."""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fxai.models import boosted as B
from fxai.verify.boosted import BoostedChecker, check_axp, check_cxp
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


def random_model(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    domains = [list(range(int(rng.integers(2, 5)))) for _ in range(n)]
    X = np.column_stack([rng.choice(d, 160) for d in domains]).astype(float)
    s = X @ rng.normal(size=n) + rng.normal(scale=0.7, size=160)
    y = (s > np.median(s)).astype(int)
    model = B.train(X, y, trees=int(rng.integers(1, 7)), depth=int(rng.integers(1, 4)), seed=seed)
    return model, [int(rng.choice(d)) for d in domains], domains


def brute(model, x, domains):
    c = int(model.predict(np.asarray([x], np.float32))[0])

    def predict(points):  # XGBClassifier.predict; ties="change": a tie is never c
        points = np.asarray(points, np.float32)
        return np.where(model.predict_proba(points)[:, 1] == 0.5, 1 - c, model.predict(points))

    return BruteForceOracle(predict, domains, x)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), mode=st.sampled_from(["milp", "sampled", "enumerated"]))
def test_checker_agrees_with_brute_force(seed, mode):
    """Exact with the MILP alone, with sampled points first, and by enumeration."""
    model, x, domains = random_model(seed)
    margin = model.get_booster().inplace_predict(
        np.asarray([x], np.float32), predict_type="margin")
    assume(margin[0] != 0)  # a tied instance has no class under ties="change"
    bf = brute(model, x, domains)
    kw = {"milp": {"samples": 0, "enumerate_max": 0}, "sampled": {"enumerate_max": 0},
          "enumerated": {"enumerate_max": 10**6}}[mode]
    ch = BoostedChecker(model, domains=domains, **kw)
    n = len(x)
    subsets = [s for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    for s in subsets:
        cex = ch.counterexample(x, s)
        assert (cex is None) == bf.entails(s)
        if cex is not None:
            assert all(cex[i] == x[i] for i in s) and bf.predict([cex])[0] != bf.prediction
        free = [f for f in ch.used if f not in s]
        greedy = ch._descent([float(v) for v in x], free, bf.prediction) if free else None
        if greedy is not None:  # the greedy search only ever returns real counterexamples
            assert all(greedy[i] == x[i] for i in s) and bf.predict([greedy])[0] != bf.prediction
    axps, cxps = all_axps(bf), all_cxps(bf)
    assert all(ch.check_axp(x, s) for s in axps) and all(ch.check_cxp(x, s) for s in cxps)
    rng = np.random.default_rng(seed)
    for k in rng.choice(len(subsets), size=min(6, len(subsets)), replace=False):
        s = subsets[k]
        assert ch.check_axp(x, s) == (s in axps)
        assert ch.check_cxp(x, s) == (s in cxps)


def test_module_functions_accept_models_and_checkers(tmp_path):
    model, x, domains = random_model(5)
    bf = brute(model, x, domains)
    axp, cxp = sorted(all_axps(bf))[0], sorted(all_cxps(bf))[0]
    path = B.save(model, tmp_path / "m.json", {})
    ch = BoostedChecker(path, domains=domains)
    assert check_axp(ch, x, axp, domains=domains) and check_cxp(ch, x, cxp, domains=domains)
    assert check_axp(model, x, axp, domains=domains)
    assert not check_cxp(model.get_booster(), x, sorted(set(cxp) | {len(x)}), domains=domains)
    with pytest.raises(ValueError, match="other ties"):
        check_axp(ch, x, axp, ties="keep", domains=domains)
    with pytest.raises(ValueError, match="instance has"):
        ch.entails(x[:-1], [])


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_real_line_milp_agrees_with_enumeration(seed):
    """Without domains (features over the reals) the MILP and full enumeration agree."""
    model, x, _ = random_model(seed)
    margin = model.get_booster().inplace_predict(
        np.asarray([x], np.float32), predict_type="margin")
    assume(margin[0] != 0)
    milp = BoostedChecker(model, samples=0, enumerate_max=0)
    enum = BoostedChecker(model, enumerate_max=10**6)
    for k in range(len(x) + 1):
        for s in itertools.combinations(range(len(x)), k):
            assert milp.entails(x, s) == enum.entails(x, s)
