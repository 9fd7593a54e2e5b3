"""One prediction everywhere: XGBClassifier.predict's, at the margins where it differs from
"margin > 0" (its float32 probability is exactly 0.5 on a band around 0), on hand-edited
one-stump XGBoost models; missing values; stand-ins below huge float32 thresholds."""

import json

import numpy as np
import pytest
import xgboost as xgb

from fxai import explain
from fxai.models import boosted as B
from fxai.oracles.boosted import BoostedOracle
from fxai.verify import check_all
from fxai.verify.boosted import BoostedChecker, check_axp
from fxai.verify.boosted_leaves import LeafProver

LO, HI = B.tie_band()
F32 = np.float32


def stump_model(left: float, right: float, threshold: float = 0.5) -> xgb.XGBClassifier:
    """XGBoost model over 2 features, intercept 0 (base_score 0.5), one stump on feature 0:
    margin ``left`` if x0 < threshold, else ``right`` (float32 values, edited into JSON)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    doc = json.loads(B.train(X, (X[:, 0] > 0).astype(int), trees=1, depth=1)
                     .get_booster().save_raw("json"))
    doc["learner"]["learner_model_param"]["base_score"] = "[5E-1]"
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    assert tree["left_children"] == [1, -1, -1] and tree["split_indices"][0] == 0
    tree["split_conditions"] = [float(F32(threshold)), float(F32(left)), float(F32(right))]
    tree["base_weights"] = [0.0, float(F32(left)), float(F32(right))]
    clf = xgb.XGBClassifier()
    clf.load_model(bytearray(json.dumps(doc).encode()))
    return clf


def margin_of(clf, x) -> float:
    return float(clf.get_booster().inplace_predict(np.float32([x]), predict_type="margin")[0])


def test_tie_band_is_where_xgboost_probability_is_one_half():
    for m, proba in [(HI, 0.5), (np.nextafter(F32(HI), F32(1)), None), (LO, 0.5),
                     (np.nextafter(F32(LO), F32(-1)), None)]:
        clf = stump_model(m, 1.0)
        p = clf.predict_proba(np.float32([[-1.0, 0.0]]))[0, 1]
        assert (p == 0.5) == (proba == 0.5)
    assert clf_class(stump_model(HI, 1.0)) == 0
    assert clf_class(stump_model(np.nextafter(F32(HI), F32(1)), 1.0)) == 1
    assert 0 < HI < 1e-6 and -1e-6 < LO < 0


def clf_class(clf, x=(-1.0, 0.0)) -> int:
    return int(clf.predict(np.float32([x]))[0])


MARGINS = [5e-8, HI, float(np.nextafter(F32(HI), F32(1))), -1e-7, LO,
           float(np.nextafter(F32(LO), F32(-1))), 0.0, -0.0]


@pytest.mark.parametrize("m", MARGINS)
def test_every_component_predicts_as_xgbclassifier(m):
    clf = stump_model(m, 1.0)
    x = [-1.0, 0.0]
    assert margin_of(clf, x) == F32(m)
    want = clf_class(clf, x)
    assert B.from_booster(clf).predict([x])[0] == want
    assert BoostedOracle(clf, x, ties="keep").prediction == want
    assert BoostedChecker(clf, ties="keep").prediction(x) == want
    y = np.array([want, 1 - want])
    assert B.accuracy(clf, [x, x], y) == 0.5 == np.mean(clf.predict(np.float32([x, x])) == y)


@pytest.mark.parametrize("ties", ["keep", "change"])
def test_class_one_instance_can_fall_into_the_tie_band(ties):
    """x0 >= 0.5: margin 1 (class 1); x0 < 0.5: margin 5e-8 > 0, probability 0.5: class 0.
    So feature 0 is needed: the only AXp is [0] (with "margin > 0" it would be [])."""
    clf = stump_model(5e-8, 1.0)
    x = [1.0, 0.0]
    o = BoostedOracle(clf, x, ties=ties)
    assert o.prediction == 1 and not o.entails(set())
    cex = o.counterexample(set())
    assert clf_class(clf, cex) == 0
    assert explain.find_axp(o) == [0]
    assert check_axp(clf, x, [0], ties=ties) and not check_axp(clf, x, [], ties=ties)
    milp = BoostedChecker(clf, ties=ties, samples=0, enumerate_max=0)
    assert milp.check_axp(x, [0]) and not milp.check_axp(x, [])
    assert LeafProver(BoostedChecker(clf, ties=ties)).weak_axps(x, [set(), {0}]) == [False, True]
    assert check_all(clf, x, [[0], []], [[0]]) == ([True, False], [True])


@pytest.mark.parametrize("ties", ["keep", "change"])
def test_class_zero_instance_and_a_tie_on_the_negative_side(ties):
    """x0 < 0.5: margin -1e-7 < 0 but probability exactly 0.5 (a tie, class 0); x0 >= 0.5:
    margin -1 (class 0). Only with ties="change" is the tie a change of class."""
    clf = stump_model(-1e-7, -1.0)
    x = [1.0, 0.0]
    assert clf.predict_proba(np.float32([[0.0, 0.0]]))[0, 1] == 0.5
    o = BoostedOracle(clf, x, ties=ties)
    keeps = ties == "keep"
    assert o.prediction == 0 and o.entails(set()) == keeps
    chk = BoostedChecker(clf, ties=ties)
    assert chk.entails(x, set()) == keeps
    milp = BoostedChecker(clf, ties=ties, samples=0, enumerate_max=0)
    assert milp.entails(x, set()) == keeps
    assert LeafProver(chk).weak_axps(x, [set()]) == [keeps]


def test_missing_values_are_rejected_with_a_clear_error():
    clf = stump_model(-1.0, 1.0)
    x = [float("nan"), 0.0]
    with pytest.raises(ValueError, match=r"missing values \(NaN\) at features \[0\]"):
        BoostedOracle(clf, x)
    with pytest.raises(ValueError, match="missing values"):
        B.from_booster(clf).margin([x])
    with pytest.raises(ValueError, match="missing values"):
        BoostedChecker(clf).prediction(x)
    with pytest.raises(ValueError, match="missing values"):
        check_all(clf, x, [[0]], [])
    with pytest.raises(ValueError, match="domain of feature 1"):
        BoostedOracle(clf, [1.0, 0.0], domains=[None, [0.0, float("nan")]])


@pytest.mark.parametrize("threshold", [2.0**24 + 4, -(2.0**25) + 8, 3e9])
def test_stand_in_below_a_huge_threshold_is_below_it_in_float32(threshold):
    """float32(T - 1) == T once |T| >= 2^24 (ties to even): the value standing for "below T"
    must be float32's predecessor of T, or the counterexample is not one."""
    assert F32(threshold) == threshold and F32(threshold - 1) == F32(threshold)
    clf = stump_model(-1.0, 1.0, threshold=threshold)
    x = [threshold, 0.0]  # x0 = T goes right: class 1
    o = BoostedOracle(clf, x)
    assert o.prediction == 1 == clf_class(clf, x)
    cex = o.counterexample(set())
    assert clf_class(clf, cex) == 0
    for chk in (BoostedChecker(clf), BoostedChecker(clf, samples=0, enumerate_max=0)):
        assert chk.check_axp(x, [0]) and not chk.entails(x, set())
    assert LeafProver(BoostedChecker(clf)).weak_axps(x, [set()]) == [False]
