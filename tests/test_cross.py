"""Every algorithm on every model family: checked against brute force on small models."""

import numpy as np
import pytest
import xgboost as xgb
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import CategoricalNB
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles
from fxai.experiments.cross import explain_instance, verify_record
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


def _data(seed, n=5, k=3, rows=300):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, k, size=(rows, n))
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 2, rows)) % 2).astype(int)
    return X, y, [list(range(k))] * n


def _models(seed):
    X, y, doms = _data(seed)
    nbc = CategoricalNB(min_categories=3).fit(X, y)
    dt = DecisionTreeClassifier(max_depth=4, random_state=seed).fit(X, y)
    bt = xgb.XGBClassifier(n_estimators=5, max_depth=2, n_jobs=1, random_state=seed).fit(X, y)
    rf = RandomForestClassifier(n_estimators=4, max_depth=3, random_state=seed).fit(X, y)
    return X, doms, {"nbc": nbc, "dt": dt, "bt": bt, "rf": rf, "rfh": rf}


def hard_vote(rf, P) -> np.ndarray:
    """The first class with most votes of the trees' own predictions."""
    votes = np.array([t.predict(np.asarray(P, dtype=float)) for t in rf.estimators_], dtype=int)
    counts = np.stack([(votes == k).sum(axis=0) for k in range(len(rf.classes_))], axis=1)
    return rf.classes_[counts.argmax(axis=1)]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("family", ["nbc", "dt", "bt", "rf", "rfh"])
def test_every_algorithm_matches_brute_force(seed, family):
    X, doms, models = _models(seed)
    model = models[family]
    vote = {"rf": "soft", "rfh": "hard"}.get(family)
    x = [int(v) for v in X[seed]]
    o = oracles.for_model(model, x, domains=doms, vote=vote)
    res = explain_instance(o, time_limit=30, delta=0.9)
    predict = (lambda p: hard_vote(model, p)) if vote == "hard" else \
        (lambda p: model.predict(np.asarray(p)))
    brute = BruteForceOracle(predict, doms, x)
    axps, cxps = all_axps(brute), all_cxps(brute)
    for name in ("marco-a", "marco-c", "marco-s"):
        assert res[name]["complete"]
        assert {tuple(a) for a in res[name]["axps"]} == axps
        assert {tuple(c) for c in res[name]["cxps"]} == cxps
    assert tuple(res["axp"]["features"]) in axps
    exact = {str(f): v for f, v in explain.ffa_from_axps(axps).items()}
    assert res["ffa"]["exact"] == pytest.approx(exact) and res["ffa"]["methods_agree"]
    assert res["ffa"]["route"] == {"dt": "duality", "nbc": "linear"}.get(family, "marco")
    assert verify_record(res, model, x, doms, vote)
    if "approx_paxp" in res:
        p = res["approx_paxp"]
        assert brute.precision(p["features"]) >= 0.9 - 1e-9


def test_verify_record_rejects_a_wrong_axp():
    X, doms, models = _models(0)
    model, x = models["dt"], [int(v) for v in X[0]]
    res = explain_instance(oracles.for_model(model, x, domains=doms), 30, 0.9)
    res["axp"]["features"] = res["axp"]["features"][:-1]  # no longer sufficient
    assert not verify_record(res, model, x, doms)


def test_real_valued_tree_skips_approx_paxp_with_a_reason():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    dt = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    x = list(X[0])
    o = oracles.for_model(dt, x, domains=[None] * 3)
    res = explain_instance(o, time_limit=30, delta=0.9)
    assert "approx_paxp" not in res and "real" in res["approx_paxp_skipped"]
    assert res["marco-a"]["complete"] and verify_record(res, dt, x, [None] * 3)


@pytest.mark.parametrize("clock, complete", [("cpu", False), ("wall", True)])
def test_the_time_limit_runs_on_the_configured_clock(monkeypatch, clock, complete):
    """A CPU clock that jumps 100 s per reading: only runs on the CPU clock time out, and
    every time recorded is on the configured clock."""
    from fxai import clocks

    X, doms, models = _models(0)
    o = oracles.for_model(models["bt"], X[0], domains=doms)
    ticks = iter(range(0, 10**7, 100))
    monkeypatch.setitem(clocks.CLOCKS, "cpu", lambda: float(next(ticks)))
    res = explain_instance(o, 60.0, 0.95, clock=clock)
    assert [res[m]["complete"] for m in ("marco-a", "marco-c", "marco-s")] == [complete] * 3
    assert (res["axp"]["time_s"] >= 100) == (clock == "cpu")
