"""Random forests (scikit-learn ``RandomForestClassifier`` / ``ExtraTreesClassifier``) read
into a :class:`~fxai.models.scores.ScoreEnsemble`, with either vote rule.

``vote="soft"`` is scikit-learn's ``predict``: ``predict_proba`` adds the trees' leaf class
fractions (``tree_.value``) in float64 in tree order (its order with ``n_jobs=1``; with more
jobs its threads add in the order they finish, which can differ in the last bit), divides by
the number of trees, and ``predict`` takes the first class of highest probability.
``vote="hard"`` is the majority vote of the literature: each tree votes for its leaf's first
class of highest fraction (``DecisionTreeClassifier.predict``), and the first class with the
most votes wins. scikit-learn compares ``float32(x) <= t``; a tree here reads ``x < t'``
with ``t'`` the float32 value after the largest float32 ``<= t`` (the same routing of every
input). A forest fitted on data with NaN routes a missing value by each node's
``missing_go_to_left`` (a split of threshold +inf sends every number left and NaN right);
:func:`coded` reads it onto :mod:`fxai.models.coded` columns with a code for NaN.
"""

from __future__ import annotations

import math

import numpy as np

from fxai.models.boosted import Tree
from fxai.models.coded import Column, Encoded, recode
from fxai.models.schema import MISSING_HINT
from fxai.models.scores import ScoreEnsemble
from fxai.values import plain

VOTES = ("soft", "hard")


def strict_threshold(t: np.ndarray) -> np.ndarray:
    """``t'`` (float32) with ``float32(x) <= t  <=>  float32(x) < t'`` for every x."""
    a = t.astype(np.float32)
    a = np.where(a.astype(np.float64) > t, np.nextafter(a, np.float32(-np.inf)), a)
    return np.nextafter(a, np.float32(np.inf)).astype(np.float32)


def from_sklearn(clf, vote: str = "soft") -> ScoreEnsemble:
    """The :class:`ScoreEnsemble` of a fitted single-output forest under ``vote``.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> X, y = [[0], [1], [2], [3]], [0, 1, 1, 0]
    >>> clf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> ens = from_sklearn(clf)
    >>> bool((ens.predict(X) == clf.predict(X)).all()), ens.kind
    (True, 'RandomForestClassifier (soft vote)')
    """
    from sklearn.utils.validation import check_is_fitted

    if vote not in VOTES:
        raise ValueError(f"vote must be one of {VOTES}, not {vote!r}")
    check_is_fitted(clf)
    if getattr(clf, "n_outputs_", 1) != 1:
        raise ValueError("only single-output forests are supported")
    k = len(clf.classes_)
    trees = []
    for est in clf.estimators_:
        t = est.tree_
        frac = t.value[:, 0, :k].astype(np.float64)
        value = frac if vote == "soft" else np.eye(k)[np.argmax(frac, axis=1)]
        left = np.asarray(t.children_left, dtype=np.int64)
        leaf = left < 0
        trees.append(Tree(
            feature=np.where(leaf, 0, t.feature).astype(np.int64),
            threshold=np.where(leaf, 0, strict_threshold(t.threshold)).astype(np.float32),
            left=left,
            right=np.asarray(t.children_right, dtype=np.int64),
            value=np.where(leaf[:, None], value, 0.0),
        ))
    names = getattr(clf, "feature_names_in_", None)
    return ScoreEnsemble(
        trees=tuple(trees),
        base=np.zeros(k),
        divisor=float(len(trees)) if vote == "soft" else 1.0,
        classes=tuple(plain(c) for c in clf.classes_),
        n_features=int(clf.n_features_in_),
        kind=f"{type(clf).__name__} ({vote} vote)",
        feature_names=tuple(str(n) for n in names) if names is not None else None,
    )


def right_bound(t: float) -> float:
    """The least float64 x that scikit-learn sends right of threshold ``t``
    (``float32(x) > t``): x goes left iff ``x < right_bound(t)``."""
    a = np.float32(t)
    if float(a) > t:
        a = np.nextafter(a, np.float32(-np.inf))  # the largest float32 <= t
    mid = (float(a) + float(np.nextafter(a, np.float32(np.inf)))) / 2  # exact in float64
    return mid if float(np.float32(mid)) > t else float(np.nextafter(mid, math.inf))


def coded(clf, vote: str = "soft") -> Encoded:
    """The :class:`~fxai.models.coded.Encoded` model of a fitted forest over its raw
    columns with a code for NaN (the last): a number's code is its interval between the
    values where some split changes side (:func:`right_bound`), NaN goes the way of each
    node's ``missing_go_to_left``; the scores are :func:`from_sklearn`'s.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> X, y = [[0.0], [1.0], [float("nan")], [3.0]], [0, 1, 1, 0]
    >>> enc = coded(RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y))
    >>> [enc.read([v])[0] for v in (0.0, 3.0, float("nan"))] == [[0], [2], [3]]
    True
    """
    ens = from_sklearn(clf, vote)
    n = ens.n_features
    cuts: list[set[float]] = [set() for _ in range(n)]
    for est in clf.estimators_:
        t = est.tree_
        for node in np.flatnonzero(t.children_left >= 0):
            if math.isfinite(t.threshold[node]):
                cuts[int(t.feature[node])].add(right_bound(float(t.threshold[node])))
    names = ens.feature_names or tuple(f"x{i}" for i in range(n))
    columns = tuple(Column(names[f], "number", bounds=tuple(sorted(cuts[f])), missing=True)
                    for f in range(n))

    def side_of(est):
        t = est.tree_

        def side(node: int):
            f, col = int(t.feature[node]), columns[int(t.feature[node])]
            thr = float(t.threshold[node])
            below = np.ones(len(col.bounds) + 1, dtype=bool)  # +inf: every number left
            if math.isfinite(thr):
                below = np.arange(len(col.bounds) + 1) <= col.bounds.index(right_bound(thr))
            return f, np.append(below, bool(t.missing_go_to_left[node]))
        return side

    trees = tuple(recode(tree, [c.size for c in columns], side_of(est))
                  for tree, est in zip(ens.trees, clf.estimators_, strict=True))
    return Encoded(ScoreEnsemble(trees=trees, base=ens.base, divisor=ens.divisor,
                                 classes=ens.classes, n_features=n, kind=ens.kind,
                                 feature_names=ens.feature_names), columns, MISSING_HINT)


def train(X, y, trees: int, depth: int, seed: int = 0, extra: bool = False):
    """A fitted ``RandomForestClassifier`` (``ExtraTreesClassifier`` if ``extra``)."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    cls = ExtraTreesClassifier if extra else RandomForestClassifier
    return cls(n_estimators=trees, max_depth=depth, random_state=seed, n_jobs=1).fit(X, y)
