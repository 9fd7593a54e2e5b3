"""The MILP checker against brute force, and rejecting non-explanations."""

import itertools

import numpy as np
import pytest
import xgboost as xgb
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


@pytest.mark.heavy
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


def near_cut_model(worst: float):
    """Two depth-1 trees on two features, intercept 0: leaves (1, worst) and (1, 0), so
    XGBoost's margins are 2, 1, 1 + worst and, at the worst point, exactly ``worst``."""
    import json

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]] * 5, dtype=np.float32)
    y = np.array([0, 1, 1, 0] * 5)
    clf = xgb.XGBClassifier(n_estimators=2, max_depth=1, base_score=0.5, n_jobs=1).fit(X, y)
    doc = json.loads(clf.get_booster().save_raw("json"))
    trees = doc["learner"]["gradient_booster"]["model"]["trees"]
    for k, (tree, low) in enumerate(zip(trees, [worst, 0.0], strict=True)):
        tree["split_indices"] = [k, 0, 0]  # x_k < 0.5: "yes" (low leaf), else 1.0
        tree["split_conditions"] = [0.5, low, 1.0]
        tree["base_weights"] = [0.0, low, 1.0]
    b = xgb.Booster()
    b.load_model(bytearray(json.dumps(doc).encode()))
    return b


@pytest.mark.parametrize("ties", ["change", "keep"])
@pytest.mark.parametrize("steps", [-3, -1, 0, 1, 3])
def test_milp_decides_exactly_within_1e7_of_the_cut(ties, steps):
    """Worst margin a few float32 steps (each < 4e-9 here, all within 1e-7) from the top
    of XGBoost's tie band: the MILP path (no enumeration, no sampling) must agree with
    XGBoost on both sides: a counterexample is the MILP's optimum (scored by XGBoost); the
    absence of one is proved by the exact band search."""
    from fxai.models.boosted import tie_band

    hi = np.float32(tie_band()[1])
    worst = hi
    for _ in range(abs(steps)):
        worst = np.nextafter(worst, np.float32(np.inf if steps > 0 else -np.inf))
    assert abs(float(worst) - float(hi)) < 1e-7
    b = near_cut_model(float(worst))
    x = [1.0, 1.0]
    corner = np.array([[0.0, 0.0]], np.float32)
    assert b.inplace_predict(corner, predict_type="margin")[0] == worst
    truth = bool(b.inplace_predict(corner)[0] > 0.5)  # class 1 kept at the worst point
    assert truth == (steps > 0)
    chk = BoostedChecker(b, ties=ties, samples=0, enumerate_max=0)
    assert chk.prediction(x) == 1
    assert chk.entails(x, []) == truth
    assert chk.band_queries == int(truth)  # a kept class is proved inside the band
    assert chk.entails(x, [0]) and chk.entails(x, [1])


@pytest.mark.parametrize("steps", [-1, 0, 1])
def test_milp_incumbent_short_of_the_optimum_is_not_trusted(monkeypatch, steps):
    """HiGHS may stop at an incumbent within its gap of the dual bound. Simulated: the first
    solve returns the best point with x_0 kept (margin >= 1, no change) beside the true dual
    bound. The checker must not conclude "entails" from it: the band search decides."""
    from scipy.optimize import Bounds

    from fxai.models.boosted import tie_band
    from fxai.verify import boosted as VB

    worst = np.float32(tie_band()[1])
    for _ in range(abs(steps)):
        worst = np.nextafter(worst, np.float32(np.inf if steps > 0 else -np.inf))
    chk = BoostedChecker(near_cut_model(float(worst)), samples=0, enumerate_max=0)
    real, calls = VB.milp, []

    def short(c, **kw):
        res = real(c, **kw)
        calls.append(res)
        if len(calls) == 1:
            lo, hi = kw["bounds"].lb.copy(), kw["bounds"].ub.copy()
            lo[chk._zvar[0, 0]] = hi[chk._zvar[0, 0]] = 0.0  # x_0 >= 0.5, as at x
            sub = real(c, **{**kw, "bounds": Bounds(lo, hi)})
            assert sub.fun >= res.mip_dual_bound + 0.5
            res.x, res.fun = sub.x, sub.fun
        return res

    monkeypatch.setattr(VB, "milp", short)
    assert chk.entails([1.0, 1.0], []) == (steps > 0)
    assert chk.band_queries == 1 and len(calls) >= 2


def test_milp_gap_options_reach_highs_without_warnings():
    """scipy forwards mip_abs_gap to HiGHS, which knows it: no other warning is raised."""
    import warnings

    chk = BoostedChecker(near_cut_model(0.5), samples=0, enumerate_max=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert chk.entails([1.0, 1.0], [])
