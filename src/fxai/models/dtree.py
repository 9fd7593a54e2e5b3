"""Decision trees: scikit-learn CART (our substitute for the XpG paper's IAI trees).

Two learners: ``train_dt`` tunes the maximum depth on a validation split carved from the
training rows (as IAI's grid search would) and refits on all training rows; ``train_dt_sized``
grows a tree of a given depth and node count (the sizes the XpG paper's Table 2 publishes).
``tree_stats`` counts what a fitted tree uses (features, distinct thresholds). ``from_sklearn``
turns a fitted tree into a :class:`DecisionGraph` (finite features get value-set
literals, real ones intervals ``lo < x <= t``; edges no domain value can satisfy on
their path are dropped, so every path is consistent).

scikit-learn casts inputs to float32 and sends x left iff ``float32(x) <= t``. The graph
keeps float64 values, so each threshold t becomes the largest float64 value whose float32
rounding is <= t (:func:`float32_cut`): the graph routes every float64 point exactly as
``clf.predict`` does. A missing value (NaN), which scikit-learn routes by
``tree_.missing_go_to_left``, is no domain value: NaN in a domain is a ``ValueError``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from fxai.models.dgraph import DecisionGraph, Interval, Node, ValueSet
from fxai.values import plain


def train_dt(
    X: np.ndarray,
    y: np.ndarray,
    depths: Sequence[int] = (3, 4, 5, 6),
    val_size: float = 0.2,
    seed: int = 0,
) -> tuple[DecisionTreeClassifier, dict]:
    """Pick the depth with the best validation accuracy (ties: shallower), refit on all."""
    if not depths:
        raise ValueError("no candidate depth given")
    strat = y if np.unique(y, return_counts=True)[1].min() >= 2 else None
    Xt, Xv, yt, yv = train_test_split(X, y, test_size=val_size, random_state=seed, stratify=strat)
    scores = {}
    for d in sorted(depths):
        clf = DecisionTreeClassifier(max_depth=d, random_state=seed).fit(Xt, yt)
        scores[d] = float(clf.score(Xv, yv))
    best = max(scores, key=lambda d: (scores[d], -d))
    clf = DecisionTreeClassifier(max_depth=best, random_state=seed).fit(X, y)
    return clf, {"max_depth": best, "val_accuracy": scores}


def float32_cut(t: float) -> float:
    """The largest float64 x with ``float32(x) <= t``: scikit-learn's test ``x <= t`` on
    its float32 copy of a float64 input, as a float64 bound.

    Examples
    --------
    >>> t = 16777219.0  # between the float32 values 2^24 + 2 and 2^24 + 4
    >>> float(np.float32(t)) <= t, float32_cut(t)  # t itself rounds up, to 2^24 + 4
    (False, 16777218.999999996)
    """
    with np.errstate(over="ignore"):
        a = np.float32(t)
        if float(a) > t:  # (a > t would compare in float32)
            a = np.nextafter(a, np.float32(-np.inf))
        below = float(np.nextafter(a, np.float32(-np.inf)))
        b = np.nextafter(a, np.float32(np.inf))
        b64 = float(b) if np.isfinite(b) else 2 * float(a) - below  # past float32's max
        mid = (float(a) + b64) / 2  # exact; rounds to a or b (ties to even)
        return mid if np.float32(mid) == a else float(np.nextafter(mid, -np.inf))


SIZED_METHODS = ("leaves", "prune")


def train_dt_sized(
    X: np.ndarray,
    y: np.ndarray,
    depth: int,
    n_nodes: int,
    method: str = "leaves",
    seed: int = 0,
) -> tuple[DecisionTreeClassifier, dict]:
    """A tree of depth at most ``depth`` with about ``n_nodes`` nodes.

    ``leaves``: best-first CART with ``max_leaf_nodes = (n_nodes + 1) // 2`` (a binary tree
    with L leaves has 2L - 1 nodes). ``prune``: CART grown to ``depth``, then cost-complexity
    pruned with the largest alpha whose tree still has at least ``n_nodes`` nodes (or the full
    tree when it is smaller). Either can stop short of the target when leaves become pure.
    """
    if depth < 1 or n_nodes < 1:
        raise ValueError(f"target depth {depth} and node count {n_nodes} must be positive")
    if method == "leaves":
        leaves = max(2, (n_nodes + 1) // 2)
        clf = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=leaves, random_state=seed)
        clf.fit(X, y)
        info: dict = {"max_leaf_nodes": leaves}
    elif method == "prune":
        full = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
        clf, alpha = full, 0.0
        path = full.cost_complexity_pruning_path(X, y)
        for a in path.ccp_alphas[1:]:  # increasing alpha: ever smaller trees
            cand = DecisionTreeClassifier(max_depth=depth, ccp_alpha=float(a),
                                          random_state=seed).fit(X, y)
            if cand.tree_.node_count < n_nodes:
                break
            clf, alpha = cand, float(a)
        info = {"ccp_alpha": alpha}
    else:
        raise ValueError(f"unknown sized-tree method {method!r}; use one of {SIZED_METHODS}")
    return clf, {"method": method, "target_depth": depth, "target_nodes": n_nodes, **info}


def tree_stats(clf: DecisionTreeClassifier) -> dict:
    """Depth, node and leaf counts, features used and distinct (feature, threshold) splits."""
    t = clf.tree_
    inner = t.children_left >= 0
    return {
        "depth": int(clf.get_depth()),
        "n_nodes": int(t.node_count),
        "n_leaves": int(np.sum(~inner)),
        "features_used": int(len(np.unique(t.feature[inner]))),
        "thresholds": int(len({(int(f), float(v)) for f, v in
                               zip(t.feature[inner], t.threshold[inner], strict=True)})),
    }


def from_sklearn(clf: DecisionTreeClassifier, domains: Sequence | None = None) -> DecisionGraph:
    """The decision graph of a fitted tree; ``domains[i]`` lists feature i's values or is
    None (real-valued). Node ids are scikit-learn's; the class of a leaf is its argmax.
    The graph predicts every float64 point as ``clf.predict`` does (float32 comparisons).

    Examples
    --------
    >>> X = np.array([[16777218.0], [16777220.0]])  # adjacent float32 values
    >>> clf = DecisionTreeClassifier().fit(X, [0, 1])
    >>> g, t = from_sklearn(clf), clf.tree_.threshold[0]
    >>> t, clf.predict([[t]])[0], g.predict_one([t])  # t rounds to 16777220 in float32
    (np.float64(16777219.0), np.int64(1), 1)
    """
    t = clf.tree_
    n_feat = int(clf.n_features_in_)
    domains = list(domains) if domains is not None else [None] * n_feat
    if len(domains) != n_feat:
        raise ValueError(f"{len(domains)} domains for a tree over {n_feat} features")
    for f, d in enumerate(domains):
        if d is not None and any(isinstance(v, float) and math.isnan(v) for v in d):
            raise ValueError(f"the domain of feature {f} contains NaN: 'missing' is no domain "
                             "value (scikit-learn routes it by missing_go_to_left, which the "
                             "graph does not model; see docs/semantics.md)")
    full = [ValueSet(frozenset(d)) if d is not None else Interval() for d in domains]
    nodes: list[Node | None] = [None] * t.node_count
    stack: list[tuple[int, dict[int, object]]] = [(0, {})]
    while stack:
        k, cons = stack.pop()
        left, right = int(t.children_left[k]), int(t.children_right[k])
        if left < 0:
            nodes[k] = Node(label=plain(clf.classes_[int(np.argmax(t.value[k][0]))]))
            continue
        f, thr = int(t.feature[k]), float(t.threshold[k])
        cur = cons.get(f, full[f])
        edges = []
        for child, lit in ((left, _side(full[f], thr, True)), (right, _side(full[f], thr, False))):
            inter = cur.intersect(lit)
            if inter.empty():
                continue
            edges.append((lit, child))
            stack.append((child, {**cons, f: inter}))
        nodes[k] = Node(feature=f, edges=tuple(edges))
    placeholder = Node(label=plain(clf.classes_[0]))  # unreachable subtrees (dropped edges)
    return DecisionGraph([nd or placeholder for nd in nodes], n_feat, root=0, domains=domains)


def _side(full, thr: float, left: bool):
    """The literal of one branch of ``x <= thr`` over the feature's whole domain."""
    if isinstance(full, ValueSet):
        return ValueSet(frozenset(v for v in full.values if (float(np.float32(v)) <= thr) == left))
    cut = float32_cut(thr)
    return Interval(-math.inf, cut) if left else Interval(cut, math.inf)
