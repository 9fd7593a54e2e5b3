"""The independent MILP checker of multi-class XGBoost and random forests and the SAT
checker of hard-vote forests against brute force, and checkers found by model type."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import ExtraTreeClassifier
from test_score_oracle import KINDS, full_depth_forest, hard_votes, random_model

from fxai import explain, oracles, verify
from fxai.verify.brute import BruteForceOracle
from fxai.verify.scores import ScoreChecker
from fxai.verify.votes import VoteChecker


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_checker_entailment_matches_brute_force(kind, seed):
    model, predict, vote, x, domains = random_model(seed, kind, n_max=4)
    bf = BruteForceOracle(predict, domains, x)
    n = len(domains)
    sets = [set(s) for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    want = [bf.entails(s) for s in sets]
    for samples, leaves in ((0, False), (0, True), (64, True)):  # MILP alone, or not
        chk = ScoreChecker(model, x, domains, vote, samples=samples, leaves=leaves)
        assert [chk.entails(s) for s in sets] == want
        assert ScoreChecker(model, x, domains, vote, samples=samples,
                            leaves=leaves).weak_axps(sets) == want  # in one batch
    free = ScoreChecker(model, x, None, vote)  # real line: as the oracle without domains
    o = oracles.for_model(model, x, **({"vote": vote} if vote else {}))
    for fixed in itertools.combinations(range(n), n // 2):
        assert free.entails(fixed) == o.entails(fixed), fixed


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [3, 4])
def test_check_all_accepts_explanations_and_rejects_wrong_ones(kind, seed):
    model, _, vote, x, domains = random_model(seed, kind)
    o = oracles.for_model(model, x, domains=domains, **({"vote": vote} if vote else {}))
    m = explain.enumerate(o, target="axp")
    list(m)
    axps, cxps = [list(a) for a in m.axps], [list(c) for c in m.cxps]
    ok_a, ok_c = verify.check_all(model, x, axps, cxps, domains, vote=vote)
    assert all(ok_a) and all(ok_c)
    n = len(domains)
    wrong = [sorted(set(a) | {f}) for a in axps for f in range(n) if f not in a]  # not minimal
    wrong += [a[1:] for a in axps if a]  # not sufficient
    if wrong:
        assert not any(verify.check_all(model, x, wrong, [], domains, vote=vote)[0])


def test_checkers_are_found_by_type():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 2)
    y = np.array([0, 1, 1, 0] * 2)
    et = ExtraTreeClassifier(random_state=0).fit(X, y)  # a DecisionTreeClassifier subclass
    o = oracles.for_model(et, X[0], domains=[[0, 1], [0, 1]])
    axp = explain.find_axp(o)
    assert verify.check_all(et, X[0], [axp], [], [[0, 1], [0, 1]]) == ([True], [])
    with pytest.raises(TypeError, match="no checker for a model of type LogisticRegression; "
                                        "supported: .*RandomForestClassifier"):
        verify.check_all(LogisticRegression().fit(X, y), X[0], [[0]], [])


@pytest.mark.heavy
@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(2, 4), trees=st.sampled_from([1, 2, 4, 5]))
def test_sat_vote_checker_matches_brute_force_and_the_milp(cls, seed, k, trees):
    """Full-depth hard-vote forests with ties, binary and multi-class: the SAT checker (its
    formula shared by the model's instances) answers every query as brute force over the
    domains, and as the MILP checker over the reals; its counterexamples change the class."""
    model, domains, instances = full_depth_forest(cls, seed, k, trees)
    predict = hard_votes(model)
    n = len(domains)
    sets = [set(c) for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    for x in instances:
        bf = BruteForceOracle(predict, domains, x)
        sat, free = VoteChecker(model, x, domains), VoteChecker(model, x)
        milp = ScoreChecker(model, x, None, "hard", samples=0)
        assert sat.weak_axps(sets) == [bf.entails(s) for s in sets]
        assert free.weak_axps(sets) == [milp.entails(s) for s in sets]
        for s, p in zip(sets, free.counterexamples(sets), strict=True):
            assert p is None or (predict([p])[0] != bf.prediction and all(
                p[f] == x[f] for f in s))


def test_sat_vote_checker_follows_a_refitted_model():
    """The formula kept per model is rebuilt when the model is fitted again."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 3)
    rf = RandomForestClassifier(n_estimators=3, random_state=0)
    rf.fit(X, np.array([0, 1, 1, 0] * 3))
    assert VoteChecker(rf, [0.0, 0.0]).entails([0, 1])
    assert not VoteChecker(rf, [0.0, 0.0]).entails([])
    rf.fit(X, np.zeros(12, dtype=int) + np.array([0, 0, 0, 1] * 3))  # x1 and x2: class 1
    assert VoteChecker(rf, [0.0, 0.0]).entails([0]) and VoteChecker(rf, [0.0, 0.0]).entails([1])


def test_thresholds_no_float32_separates_are_one_cut():
    """Two trees cut feature 0 at float64 thresholds with no float32 between them (as
    iris's forests do): the interval between them holds no point, where both trees would
    vote class 1. Every point ties (one vote each), so class 0 is certain; the checkers
    used to find a "point" there (the SAT one then raised)."""
    X, y = [[0.0], [1.0]] * 2, [0, 1] * 2
    rf = RandomForestClassifier(n_estimators=2, max_depth=1, bootstrap=False,
                                random_state=0).fit(X, y)
    t1 = float(np.float32(0.7))
    t2 = float(np.nextafter(t1, np.inf))
    for est, t, (lo, hi) in zip(rf.estimators_, (t1, t2), ((0, 1), (1, 0)), strict=True):
        tree = est.tree_
        tree.feature[0], tree.threshold[0] = 0, t
        tree.value[1, 0, :], tree.value[2, 0, :] = np.eye(2)[lo], np.eye(2)[hi]
    assert VoteChecker(rf, [0.0]).entails([]) and VoteChecker(rf, [0.0], vote="soft").entails([])
    assert ScoreChecker(rf, [0.0], None, "hard", samples=0).entails([])
    assert oracles.for_model(rf, [0.0], vote="hard").entails([])


def test_milp_checker_reads_xgboost_float_splits_as_float32():
    """Iris's float features: XGBoost's splits are float32 values, read back from its text
    as the nearest float32 (the split XGBoost compares with); the MILP checker agrees with
    the oracle on every fixed set. (A cut moved to the next float32 made it raise on the
    default profile's iris model; this smaller model does not reproduce that.)"""
    import xgboost as xgb
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = xgb.XGBClassifier(n_estimators=20, max_depth=3, objective="multi:softprob",
                              n_jobs=1, random_state=0).fit(X, y)
    sets = [c for r in range(5) for c in itertools.combinations(range(4), r)]
    for x in X[::15].tolist():
        chk, o = ScoreChecker(model, x, samples=0), oracles.for_model(model, x)
        assert [chk.entails(s) for s in sets] == [o.entails(s) for s in sets]
