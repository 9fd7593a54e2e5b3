"""STreeD optimal trees as scikit-learn trees (fxai.models.optimal_tree, xpg-train --learner
optimal): the converted tree predicts as STreeD on every point, keeps the depth and node
limits, is at least as accurate as CART under the same limits, and is explained and
verified like any tree."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pystreed import STreeDClassifier
from sklearn.tree import DecisionTreeClassifier
from test_dtree_learners import data, toy_training
from test_xpg_commands import run_records

from fxai.cli import main
from fxai.models.dtree import from_sklearn, tree_stats
from fxai.models.optimal_tree import binarise, candidate_splits, train_dt_optimal


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.integers(2, 4), real=st.booleans(),
       depth=st.integers(1, 4), nodes=st.integers(3, 15))
def test_converted_tree_predicts_as_streed_everywhere(seed, n_classes, real, depth, nodes):
    rng = np.random.default_rng(seed)
    n, m = 60, 4
    X = rng.normal(size=(n, m)).round(2) if real else rng.integers(0, 4, (n, m)).astype(float)
    y = rng.integers(0, n_classes, n) * 10  # class labels that are not 0..k-1
    clf, info = train_dt_optimal(X, y, depth, nodes, time_limit=30, max_thresholds=5)
    # STreeD's own tree, refitted on the same binary tests, predicts the same on every point:
    # the training rows, new rows, and every cell of the thresholds' grid
    splits = candidate_splits(X, 5)
    own = STreeDClassifier(max_depth=depth, max_num_nodes=(nodes - 1) // 2, time_limit=30,
                           random_seed=0).fit(binarise(X, splits), np.unique(y,
                                                                           return_inverse=True)[1])
    classes = np.unique(y)
    new = np.vstack([X, rng.normal(size=(200, m)) * 2,
                     np.array([[t] * m for _, t in splits]), X + 1e-9])
    assert np.array_equal(clf.predict(new), classes[own.predict(binarise(new, splits))])
    g = from_sklearn(clf)  # and the graph fxai explains routes them as scikit-learn does
    assert [g.predict_one(list(x)) for x in new] == clf.predict(new).tolist()
    stats = tree_stats(clf)
    assert stats["depth"] <= depth and (stats["n_nodes"] - 1) // 2 <= (nodes - 1) // 2
    assert info["optimal"] and info["binary_features"] == len(splits)


def test_optimal_tree_is_at_least_as_accurate_as_cart_within_the_same_limits():
    X, y = data(300, seed=3)
    for depth, nodes in ((2, 7), (3, 9), (4, 13)):
        opt, info = train_dt_optimal(X, y, depth, nodes, time_limit=60, max_thresholds=8)
        cart = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=(nodes + 1) // 2,
                                      random_state=0).fit(X, y)
        assert info["optimal"] and opt.score(X, y) >= cart.score(X, y)
    assert opt.score(X, y) > cart.score(X, y)  # strictly better somewhere


def test_candidate_splits_thin_out_to_max_thresholds():
    X = np.arange(100, dtype=float).reshape(-1, 1)
    mids = [t for _, t in candidate_splits(X, 4)]
    assert mids == [0.5, 33.5, 65.5, 98.5]  # evenly over the 99 midpoints, both ends kept
    assert len(candidate_splits(X, 1000)) == 99
    with pytest.raises(ValueError, match="max_thresholds must be positive"):
        candidate_splits(X, 0)


def test_bad_limits_and_one_class_data():
    X, y = data(50)
    with pytest.raises(ValueError, match="node count 1 >= 3"):
        train_dt_optimal(X, y, 3, 1, time_limit=1)
    with pytest.raises(ValueError, match="time_limit must be positive"):
        train_dt_optimal(X, y, 3, 7, time_limit=0)
    clf, info = train_dt_optimal(X, np.ones(50, int), 3, 7, time_limit=1)
    assert tree_stats(clf)["n_nodes"] == 1 and set(clf.predict(X)) == {1}


def test_xpg_train_optimal_then_explain_and_verify(tmp_path):
    ref, args = toy_training(tmp_path, "Toy,4,13\n")
    prep = tmp_path / "prepared"
    args += ["--out-dir", str(tmp_path / "dt-optimal"), "--learner", "optimal",
             "--size-reference", str(ref)]
    with pytest.raises(SystemExit, match="needs --time-limit, --max-thresholds"):
        main(args)
    assert main([*args, "--time-limit", "60", "--max-thresholds", "8"]) == 0
    meta = json.loads((tmp_path / "dt-optimal" / "toy.meta.json").read_text())
    assert meta["learner"].startswith("STreeD") and meta["optimal"] is True
    assert meta["depth"] <= 4 and meta["n_nodes"] <= 13 and meta["target_nodes"] == 13
    assert meta["time_limit_s"] == 60 and "pystreed" in meta["versions"]
    run = tmp_path / "run.jsonl"
    assert main(["xpg-explain", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                 "--model", str(tmp_path / "dt-optimal" / "toy.joblib"), "--out", str(run),
                 "--time-limit", "60", "--clock", "cpu", "--max-rows-all", "1000",
                 "--fraction", "0.3", "--seed", "0", "--max-instances", "15"]) == 0
    recs = run_records(run)
    assert len(recs) == 15 and all(r["status"] == "done" and r["verified"] for r in recs)


def test_a_search_stopped_by_its_limit_keeps_the_more_accurate_of_streed_and_cart():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 30))
    y = ((X[:, 0] > 0) ^ (X[:, 1] * X[:, 2] > 0.3) ^ (X[:, 3] + X[:, 4] > 1)).astype(int)
    clf, info = train_dt_optimal(X, y, 6, 63, time_limit=0.2, max_thresholds=16)
    assert not info["optimal"]
    cart = DecisionTreeClassifier(max_depth=6, max_leaf_nodes=32, random_state=0).fit(X, y)
    assert clf.score(X, y) == max(info["streed_train_accuracy"], cart.score(X, y))
    assert info["tree_from"] == ("cart" if cart.score(X, y) > info["streed_train_accuracy"]
                                 else "streed")
