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
input).
"""

from __future__ import annotations

import numpy as np

from fxai.models.boosted import Tree
from fxai.models.scores import ScoreEnsemble
from fxai.values import plain

VOTES = ("soft", "hard")


def _strict_threshold(t: np.ndarray) -> np.ndarray:
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
            threshold=np.where(leaf, 0, _strict_threshold(t.threshold)).astype(np.float32),
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


def train(X, y, trees: int, depth: int, seed: int = 0, extra: bool = False):
    """A fitted ``RandomForestClassifier`` (``ExtraTreesClassifier`` if ``extra``)."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    cls = ExtraTreesClassifier if extra else RandomForestClassifier
    return cls(n_estimators=trees, max_depth=depth, random_state=seed, n_jobs=1).fit(X, y)
