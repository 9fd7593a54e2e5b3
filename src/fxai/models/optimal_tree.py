"""Optimal decision trees (STreeD, ``pystreed``) as scikit-learn trees.

The XpG paper's trees come from Interpretable AI's optimal trees (proprietary); STreeD
(van der Linden et al., dynamic programming over depth-limited trees) is an open optimal
learner. It needs binary features, so each feature f gets the binary tests ``x_f <= t`` at
CART's candidate thresholds t (midpoints between consecutive distinct training values; at
most ``max_thresholds`` per feature, evenly spaced over them, when there are more): an
STreeD tree over those tests is a threshold tree over the original features, the same
discretisation CART splits. ``train_dt_optimal`` fits the tree of most training accuracy
with depth at most ``depth`` and at most ``(n_nodes - 1) / 2`` branching nodes (a binary tree
of #N nodes), within ``time_limit`` seconds of the wall clock (STreeD's clock). When the
limit stops the search (``info["optimal"]`` false), the best tree STreeD found is kept unless
the sized CART tree of the same limits (:func:`fxai.models.dtree.train_dt_sized`) is more
accurate on the training rows (``info["tree_from"]``: ``streed`` or ``cart``). It returns
the tree as a fitted
``DecisionTreeClassifier``: the rest of fxai (``from_sklearn``, the verifier, ``tree_stats``)
reads it like any CART tree. Its ``predict`` equals STreeD's own on every point: the tests
are evaluated as scikit-learn does (``float32(x) <= t``), and a leaf's value is its class
(``predict_proba`` is 0 or 1), the label STreeD gives it.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier
from sklearn.tree._tree import NODE_DTYPE, Tree

from fxai.models.dtree import train_dt_sized


def candidate_splits(X: np.ndarray, max_thresholds: int) -> list[tuple[int, float]]:
    """(feature, threshold) of each binary test: CART's midpoints between consecutive
    distinct float32 values of each feature, at most ``max_thresholds`` per feature.

    Examples
    --------
    >>> candidate_splits(np.array([[0, 1], [2, 1], [3, 1]]), 8)  # feature 1 is constant
    [(0, 1.0), (0, 2.5)]
    """
    if max_thresholds < 1:
        raise ValueError(f"max_thresholds must be positive, not {max_thresholds}")
    splits = []
    for f in range(X.shape[1]):
        v = np.unique(X[:, f].astype(np.float32)).astype(np.float64)
        mids = (v[:-1] + v[1:]) / 2
        if len(mids) > max_thresholds:
            mids = mids[np.unique(np.linspace(0, len(mids) - 1, max_thresholds).round()
                                  .astype(int))]
        splits += [(f, float(t)) for t in mids]
    return splits


def binarise(X: np.ndarray, splits: list[tuple[int, float]]) -> np.ndarray:
    """Column j is 1 where ``float32(x_f) <= t`` for ``splits[j] = (f, t)`` (scikit-learn's
    test, so the tree routes each point as its binary row says)."""
    X32 = np.asarray(X, dtype=np.float32).astype(np.float64)  # compared in float64, as sklearn
    out = np.empty((len(X32), len(splits)), dtype=np.intc)
    for j, (f, t) in enumerate(splits):
        out[:, j] = X32[:, f] <= t
    return out


def train_dt_optimal(
    X: np.ndarray,
    y: np.ndarray,
    depth: int,
    n_nodes: int,
    time_limit: float,
    max_thresholds: int = 16,
    seed: int = 0,
) -> tuple[DecisionTreeClassifier, dict]:
    """The STreeD tree of most training accuracy of depth <= ``depth`` and at most
    ``(n_nodes - 1) // 2`` branching nodes, as a fitted scikit-learn tree, and its facts."""
    from pystreed import STreeDClassifier

    if depth < 1 or n_nodes < 3:
        raise ValueError(f"target depth {depth} must be >= 1 and node count {n_nodes} >= 3")
    if time_limit <= 0:
        raise ValueError(f"time_limit must be positive, not {time_limit}")
    X = np.asarray(X, dtype=np.float64)
    classes, codes = np.unique(y, return_inverse=True)
    splits = candidate_splits(X, max_thresholds)
    B = binarise(X, splits)
    branching = min((n_nodes - 1) // 2, 2**depth - 1)  # no more than the depth allows
    learner = STreeDClassifier(max_depth=depth, max_num_nodes=branching, time_limit=time_limit,
                               random_seed=seed)
    t0, c0 = time.perf_counter(), time.process_time()
    if splits and len(classes) > 1:
        learner.fit(B, codes)
        root, optimal = learner.tree_, bool(learner.fit_result.is_optimal())
    else:  # nothing to split on: one leaf of the majority class
        root, optimal = None, True
    info = {"target_depth": depth, "target_nodes": n_nodes, "max_branching_nodes": branching,
            "time_limit_s": time_limit, "fit_time_s": time.perf_counter() - t0,
            "fit_cpu_s": time.process_time() - c0, "optimal": optimal,
            "max_thresholds": max_thresholds, "binary_features": len(splits),
            "tree_from": "streed"}
    clf = _sklearn_tree(root, splits, B, X.shape[1], codes, classes, depth)
    if root is not None and not np.array_equal(clf.predict(X), classes[learner.predict(B)]):
        raise RuntimeError("the converted tree disagrees with STreeD on its training rows")
    if not optimal:
        cart, _ = train_dt_sized(X, y, depth, n_nodes, "leaves", seed)
        info["streed_train_accuracy"] = float(clf.score(X, y))
        if cart.score(X, y) > info["streed_train_accuracy"]:
            clf, info["tree_from"] = cart, "cart"
    return clf, info


def _sklearn_tree(root, splits, B, n_features, codes, classes, depth) -> DecisionTreeClassifier:
    """A fitted ``DecisionTreeClassifier`` whose tree is STreeD's ``root`` (None: one leaf
    of the majority class); ``B`` holds the training rows' binary tests. STreeD sends a row
    right when its test holds (``x_f <= t``), scikit-learn left: the children swap."""
    n_cls = len(classes)
    rows: list[list] = []  # per node: left, right, feature, threshold, class counts, leaf label
    stack = [(root, np.arange(len(B)), -1, False, 0)]
    max_depth = 0
    while stack:
        node, idx, parent, is_left, d = stack.pop()
        k, max_depth = len(rows), max(max_depth, d)
        if parent >= 0:
            rows[parent][0 if is_left else 1] = k
        counts = np.bincount(codes[idx], minlength=n_cls).astype(float)
        if node is None or node.is_leaf_node():
            label = int(np.argmax(counts)) if node is None else int(node.label)
            rows.append([-1, -1, -2, -2.0, counts, label])
            continue
        j = int(node.feature)
        rows.append([0, 0, *splits[j], counts, None])
        go_left = B[idx, j].astype(bool)
        stack.append((node.left_child, idx[~go_left], k, False, d + 1))
        stack.append((node.right_child, idx[go_left], k, True, d + 1))
    nodes = np.zeros(len(rows), dtype=NODE_DTYPE)
    values = np.zeros((len(rows), 1, n_cls))
    for k, (left, right, f, t, counts, label) in enumerate(rows):
        n = counts.sum()
        frac = counts / n if n else np.full(n_cls, 1 / n_cls)
        nodes[k] = (left, right, f, t, 1 - float(frac @ frac), int(n), n, 0)
        values[k, 0] = frac if label is None else np.eye(n_cls)[label]
    tree = Tree(n_features, np.array([n_cls], dtype=np.intp), 1)
    tree.__setstate__({"max_depth": max_depth, "node_count": len(rows), "nodes": nodes,
                       "values": values})
    clf = DecisionTreeClassifier(max_depth=depth)
    clf.tree_, clf.classes_, clf.n_classes_ = tree, classes, n_cls
    clf.n_outputs_, clf.n_features_in_, clf.max_features_ = 1, n_features, n_features
    return clf
