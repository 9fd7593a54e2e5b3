"""The checker at exact ties: hand-built models whose class changes only where the library's
own arithmetic (its summation order and rounding, its tie rule) makes a tie that real
arithmetic does not see, and only when four features are set at once. Every leaf
combination near the tie has the same real margin, so the MILP's optimum may be one the
library keeps: ``check_all`` must find the one it does not (it accepted the empty set as an
AXp before the near-tie band was decided exactly).

Each feature is cut at 1.5, 2.5, ..., 10.5 by trees that score nothing (so that random
completions rarely reach the region below 0.5 where the tie lives) and at 0.5 by two trees
per feature that move the score by +1 and -1 (the first four trees, then the other four)."""

from __future__ import annotations

import itertools
import json
import re

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from fxai import explain, oracles, verify

N = 4
X_IN = np.full(N, 11.0)  # the instance: right of every cut
GRID = [np.arange(0.0, 12.0)] * N  # a point in every piece of every feature


def stumps(up: float, down: float) -> list[tuple[int, float, float, float]]:
    """(feature, threshold, left value, right value) per tree, in the trees' order."""
    blank = [(f, t, 0.0, 0.0) for f in range(N) for t in np.arange(1.5, 11.0)]
    return (blank + [(f, 0.5, up, 0.0) for f in range(N)]
            + [(f, 0.5, down, 0.0) for f in range(N)])


def hist_gradient(base: float, trees) -> HistGradientBoostingClassifier:
    """A binary HistGradientBoostingClassifier of one split per tree (``trees`` as
    :func:`stumps`) and intercept ``base``: class 1 iff its float64 sum, tree by tree, is
    > 0."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 12, (100, N))
    m = HistGradientBoostingClassifier(max_iter=len(trees), max_depth=2, learning_rate=1.0,
                                       early_stopping=False, random_state=0)
    m.fit(X, (X[:, 0] > 6).astype(int))
    assert len(m._predictors) == len(trees)
    for (pred,), (f, t, left, right) in zip(m._predictors, trees, strict=True):
        nodes = np.zeros(3, dtype=pred.nodes.dtype)
        nodes[0]["feature_idx"], nodes[0]["num_threshold"] = f, t
        nodes[0]["missing_go_to_left"], nodes[0]["left"], nodes[0]["right"] = 1, 1, 2
        nodes["is_leaf"] = [0, 1, 1]
        nodes["value"] = [0.0, left, right]
        pred.nodes = nodes
    m._baseline_prediction = np.array([[base]])
    return m


def hist_gradient_tie() -> HistGradientBoostingClassifier:
    """Real score 2^-51 everywhere; below 0.5 on all four features the float64 sum passes 4,
    where 2^-51 is half a unit and rounds away: 0, a tie, class 0."""
    return hist_gradient(2.0**-51, stumps(1.0, -1.0))


def gradient_boosting_tie() -> GradientBoostingClassifier:
    """A binary GradientBoostingClassifier (init "zero", learning rate 1) of one split per
    tree, left iff float32(x) <= t, class 1 iff its float64 sum, tree by tree, is >= 0.
    A first tree adds 2^-51 everywhere, then +1 below 0.5 per feature, then -1, -1, -1 and
    -(1 + 2^-51): the real score is 2^-51 or 0 everywhere, class 1 (a tie is class 1 here).
    Below 0.5 on all four features the sum passes 4 + 2^-51, which rounds to 4, and ends at
    -2^-51: class 0; with any three, every partial sum is exact."""
    trees = [(0, 0.5, 2.0**-51, 2.0**-51)] + [(f, t, 0.0, 0.0) for f in range(N)
                                                for t in np.arange(1.5, 11.0)]
    trees += [(f, 0.5, 1.0, 0.0) for f in range(N)]
    trees += [(f, 0.5, -1.0 - (2.0**-51 if f == N - 1 else 0.0), 0.0) for f in range(N)]
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 12, (100, N))
    m = GradientBoostingClassifier(n_estimators=len(trees), max_depth=1, learning_rate=1.0,
                                   init="zero", random_state=0)
    m.fit(X, rng.integers(0, 2, len(X)))  # noise: every stage splits
    for (est,), (f, t, left, right) in zip(m.estimators_, trees, strict=True):
        tree = est.tree_
        assert tree.node_count == 3
        tree.feature[0], tree.threshold[0] = f, t
        tree.value[tree.children_left[0], 0, 0] = left
        tree.value[tree.children_right[0], 0, 0] = right
    return m


def xgboost_model(per_class, objective: str) -> xgb.XGBClassifier:
    """An XGBClassifier whose round r has, per class j, the tree ``per_class[j][r]`` (one
    split each, as :func:`stumps`; XGBoost sends x left iff float32(x) < t) and intercept 0:
    a class's margin is the float32 sum of its trees, in order."""
    k, rounds = max(2, len(per_class)), len(per_class[0])
    X = np.random.default_rng(0).uniform(0, 12, (300, N))
    m = xgb.XGBClassifier(n_estimators=rounds, max_depth=1, base_score=0.5 if k == 2 else 0.0,
                          objective=objective).fit(X, np.arange(300) % k)
    doc = json.loads(m.get_booster().save_raw("json"))
    trees = doc["learner"]["gradient_booster"]["model"]["trees"]
    assert len(trees) == len(per_class) * rounds
    for i, tree in enumerate(trees):
        f, t, left, right = per_class[i % len(per_class)][i // len(per_class)]
        tree.update(split_indices=[f, 0, 0], split_conditions=[t, left, right],
                    base_weights=[0.0, left, right], left_children=[1, -1, -1],
                    right_children=[2, -1, -1], parents=[2147483647, 0, 0],
                    default_left=[0, 0, 0], split_type=[0, 0, 0],
                    loss_changes=[1.0, 0.0, 0.0], sum_hessian=[2.0, 1.0, 1.0])
        tree["tree_param"]["num_nodes"] = "3"
    booster = xgb.Booster()
    booster.load_model(bytearray(json.dumps(doc), "utf-8"))
    m._Booster = booster
    return m


def xgboost_tie(objective: str) -> xgb.XGBClassifier:
    """Three classes (margins 0, 2^-22 + the stumps, -1): class 1; below 0.5 on all four
    features the float32 sum of class 1 passes 4, where 2^-22 is half a unit and rounds
    away: margins 0 and 0 tie, and the first class, 0, wins."""
    trees = [(0, 1.5, 2.0**-22, 2.0**-22)] + stumps(1.0, -1.0)
    blank = [(0, 1.5, 0.0, 0.0)] * len(trees)
    return xgboost_model([blank, trees, [(0, 1.5, -1.0, -1.0)] + blank[1:]], objective)


def xgboost_binary_tie() -> xgb.XGBClassifier:
    """One margin, 2^-22 + the stumps (class 1); below 0.5 on all four features it is 0:
    probability exactly 0.5, class 0 for XGBClassifier.predict."""
    return xgboost_model([[(0, 1.5, 2.0**-22, 2.0**-22)] + stumps(1.0, -1.0)],
                         "binary:logistic")


def lightgbm_tie() -> lgb.LGBMClassifier:
    """As :func:`hist_gradient_tie` in LightGBM (its float64 sum of trees, in order; the
    intercept in a first tree): raw score 0 below 0.5 on all four features, probability
    0.5 and class 0."""
    trees = [(0, 1.5, 2.0**-51, 2.0**-51)] + stumps(1.0, -1.0)
    X = np.random.default_rng(0).uniform(0, 12, (300, N))
    m = lgb.LGBMClassifier(n_estimators=len(trees), num_leaves=2, min_child_samples=1,
                           verbose=-1).fit(X, (X[:, 0] > 6).astype(int))
    head, tail = m.booster_.model_to_string().split("Tree=0", 1)
    text = [re.sub(r"tree_sizes=.*\n", "", head)]  # the trees' byte sizes change
    for i, (f, t, left, right) in enumerate(trees):  # left iff x <= t; NaN as 0
        text.append(f"Tree={i}\nnum_leaves=2\nnum_cat=0\nsplit_feature={f}\nsplit_gain=1\n"
                    f"threshold={float(t)!r}\ndecision_type=2\nleft_child=-1\nright_child=-2\n"
                    f"leaf_value={float(left)!r} {float(right)!r}\nleaf_weight=1 1\n"
                    "leaf_count=1 1\ninternal_value=0\ninternal_weight=2\ninternal_count=2\n"
                    "is_linear=0\nshrinkage=1\n\n\n")
    text.append("end of trees" + tail.split("end of trees", 1)[1])
    m._Booster = lgb.Booster(model_str="".join(text))
    return m


def forest(trees) -> RandomForestClassifier:
    """A 3-class soft-vote RandomForestClassifier of one split per tree: ``trees`` as
    (feature, threshold, left leaf's class fractions, right leaf's) in the trees' order
    (left iff float32(x) <= t); its predict adds the fractions in float64, tree by tree,
    divides by the number of trees and takes the first class of highest probability."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 12, (300, N))
    m = RandomForestClassifier(n_estimators=len(trees), max_depth=1, random_state=0)
    m.fit(X, np.arange(300) % 3)
    for est, (f, t, left, right) in zip(m.estimators_, trees, strict=True):
        tree = est.tree_
        assert tree.node_count == 3
        tree.feature[0], tree.threshold[0] = f, t
        tree.value[tree.children_left[0], 0] = left
        tree.value[tree.children_right[0], 0] = right
    return m


def forest_tie() -> RandomForestClassifier:
    """Class 1's probabilities 0.65, 0.45, 0.2, 4/7 at the instance and 0.3, 0.85, 0.65, 3/7
    below 0.5 in the trees of features 0-3, then the other way round in a second tree each:
    the same sum everywhere in real arithmetic, but float64 adds them in another order below
    0.5; there, and only when all four features are below 0.5, class 1's sum equals class
    0's (which five last trees make so: 0.8125 four times, then what is left): a tie, and
    the first class, 0, wins. Twelve trees before them cut each feature at 1.5, 2.5 and 3.5
    and give classes 0 and 1 a half each."""
    at, below = [0.65, 0.45, 0.2, 4 / 7], [0.3, 0.85, 0.65, 3 / 7]

    def leaf(p):
        return [0.0, p, 1.0 - p]

    blank = [(f, t, [0.5, 0.5, 0.0], [0.5, 0.5, 0.0]) for f in range(N) for t in (1.5, 2.5, 3.5)]
    first = [(f, 0.5, leaf(below[f]), leaf(at[f])) for f in range(N)]
    second = [(f, 0.5, leaf(at[f]), leaf(below[f])) for f in range(N)]
    col1 = 0.0
    for _, _, left, _ in blank + first + second:  # class 1's sum below 0.5 everywhere
        col1 += left[1]
    col0, rest = 0.5 * len(blank), []
    for _ in range(4):
        rest.append(0.8125)
        col0 += 0.8125
    rest.append(col1 - col0)
    balance = [(0, 1.5, [q, 0.0, 1.0 - q], [q, 0.0, 1.0 - q]) for q in rest]
    return forest(blank + first + second + balance)


def scaled(model) -> Pipeline:
    """``model`` behind a StandardScaler that leaves every value as it is."""
    scaler = StandardScaler().fit(np.array([[-1.0] * N, [1.0] * N]))
    return Pipeline([("scale", scaler), ("model", model)])


def brute_force(model, x, grid) -> tuple[list[list[int]], list[list[int]]]:
    """All AXps and CXps of ``model`` at ``x`` over ``grid`` by the library's predict."""
    pts = np.array(list(itertools.product(*grid)))
    cls = model.predict(pts)
    c = model.predict(np.asarray([x]))[0]
    n = len(x)

    def kept(fixed) -> bool:
        agree = np.all(pts[:, sorted(fixed)] == np.asarray(x)[sorted(fixed)], axis=1)
        return bool(np.all(cls[agree] == c))

    sets = [frozenset(s) for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    weak = {s: kept(s) for s in sets}
    axps = [sorted(s) for s in sets if weak[s] and not any(weak[s - {i}] for i in s)]
    cxps = [sorted(set(range(n)) - s) for s in sets
            if not weak[s] and all(weak[s | {i}] for i in set(range(n)) - s)]
    return axps, cxps


MODELS = {
    "hist_gradient": hist_gradient_tie,
    "gradient_boosting": gradient_boosting_tie,
    "forest_soft": forest_tie,
    "lightgbm": lightgbm_tie,
    "xgboost_softprob": lambda: xgboost_tie("multi:softprob"),
    "xgboost_softmax": lambda: xgboost_tie("multi:softmax"),
    "xgboost_binary": xgboost_binary_tie,
    "pipeline_xgboost": lambda: scaled(xgboost_tie("multi:softprob")),
}


@pytest.mark.heavy
@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_tie_that_needs_four_features_is_a_counterexample(name):
    model = MODELS[name]()
    low = np.full(N, 0.0)
    assert model.predict([X_IN])[0] == 1 and model.predict([low])[0] == 0
    for k in range(N):  # any three moved: the class stays
        assert model.predict([np.r_[low[:k], X_IN[k:]]])[0] == 1
    axps, cxps = brute_force(model, X_IN, GRID)
    assert axps == [[0], [1], [2], [3]] and cxps == [[0, 1, 2, 3]]
    assert verify.check_all(model, X_IN, axps=[[], *axps], cxps=cxps) == (
        [False, True, True, True, True], [True])
    o = oracles.for_model(model, X_IN)
    assert sorted(map(list, explain.all_xps(o).axps)) == axps


def test_check_all_takes_ties_as_for_model_does():
    model = xgboost_binary_tie()
    low = np.zeros(N)  # margin 0: probability exactly 0.5, class 0 for predict
    o = oracles.for_model(model, low, ties="keep")
    r = explain.all_xps(o)
    axps, cxps = [list(a) for a in r.axps], [list(c) for c in r.cxps]
    assert o.prediction == 0 and axps
    assert verify.check_all(model, low, axps, cxps, ties="keep") == (
        [True] * len(axps), [True] * len(cxps))
    for call in (lambda: oracles.for_model(model, low),
                 lambda: verify.check_all(model, low, axps, cxps)):
        with pytest.raises(ValueError, match="exactly 0.5"):
            call()
    with pytest.raises(ValueError, match="ties must be"):
        verify.check_all(model, low, axps, cxps, ties="first")
    hgb = hist_gradient_tie()
    with pytest.raises(TypeError, match="takes no keyword 'ties'"):
        oracles.for_model(hgb, X_IN, ties="keep")
    with pytest.raises(TypeError, match="takes no keyword 'ties'"):
        verify.check_all(hgb, X_IN, [[0]], [], ties="keep")


def test_the_leaf_search_goes_on_past_a_near_tie(monkeypatch):
    """Every pick of the search's first dive is a near tie (the margin 2^-51); the
    counterexample, below 0.5 on feature 0 (a last tree scores -1 there), is found by
    going on, without a MILP."""
    from fxai.verify.scores import ScoreChecker

    model = hist_gradient(2.0**-51, stumps(1.0, -1.0) + [(0, 0.5, -1.0, 0.0)])
    chk = ScoreChecker(model, X_IN, samples=0)

    def no_milp(*args):
        raise AssertionError("the MILP was asked")

    monkeypatch.setattr(ScoreChecker, "_milp", no_milp)
    point = chk.counterexample({1, 2, 3})
    assert point[0] <= 0.5 and model.predict([point])[0] == 0
