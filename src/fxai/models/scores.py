"""Tree ensembles that predict the class of highest summed score: multi-class XGBoost and
random forests, read into one form.

A :class:`ScoreEnsemble` holds trees in XGBoost's array layout (:class:`~fxai.models.boosted.Tree`,
a float32 input ``x`` goes left iff ``x < threshold``) whose leaves carry one score per
class. The score of class k is ``(base[k] + sum_t leaf_t(x)[k]) / divisor``, added in tree
order in the ensemble's ``dtype``; the prediction is ``classes[argmax]``, the *first*
class of highest score on a tie (numpy's ``argmax``, which XGBoost and scikit-learn use):

* XGBoost ``multi:softmax`` / ``multi:softprob`` (:func:`fxai.models.scores.convert`):
  float32, tree ``i`` adds to class ``tree_info[i]`` only (``i % n_classes`` for one tree
  per class per round), ``base`` the per-class intercepts, divisor 1.
* scikit-learn ``RandomForestClassifier`` / ``ExtraTreesClassifier``
  (:func:`fxai.models.forest.from_sklearn`): float64, each tree adds its leaf's class
  fractions (soft vote, ``predict_proba``'s sum then ``/ n_trees``) or a one-hot vote for
  its leaf's first majority class (hard vote), base 0.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

import numpy as np

from fxai.models.boosted import (
    MULTI,
    Tree,
    _base_margin32,
    _read_trees,
    booster,
    flatten,
    from_booster,
    leaves,
    reject_missing,
    used_features,
)


@dataclass(frozen=True)
class ScoreEnsemble:
    """Trees whose leaves score every class (``Tree.value``: one row of ``n_classes``
    scores per node, in ``dtype``); ``kind`` names the model and its vote rule (a forest's
    says "soft vote" or "hard vote": only then are the vote oracles used).

    Examples
    --------
    >>> stump = Tree(feature=np.array([0, 0, 0]), threshold=np.float32([0.5, 0, 0]),
    ...              left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
    ...              value=np.float32([[0, 0, 0], [1, 0, 1], [0, 2, 0]]))
    >>> ens = ScoreEnsemble((stump,), np.float32([0, 0, 0]), 1.0, (0, 1, 2), 1, "example")
    >>> ens.predict([[0.0], [1.0]]).tolist()  # x < 0.5: classes 0 and 2 tie, 0 is first
    [0, 1]
    """

    trees: tuple[Tree, ...]
    base: np.ndarray
    divisor: float
    classes: tuple
    n_features: int
    kind: str
    feature_names: tuple[str, ...] | None = None

    @property
    def dtype(self) -> type:
        return self.base.dtype.type

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def scores(self, X) -> np.ndarray:
        """Per row and class the score, bit for bit the library's (sums in tree order in
        ``dtype``, then the division); missing values (NaN) are a ``ValueError``."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if X.shape[1] != self.n_features:
            raise ValueError(f"expected {self.n_features} features, got {X.shape[1]}")
        reject_missing(X, "input")
        X32 = X.astype(np.float32)
        total = np.tile(self.base, (len(X32), 1))
        leaf = leaves(self.flat, X32)
        for k, t in enumerate(self.trees):
            total += t.value[leaf[:, k]]
        return total / self.dtype(self.divisor)

    @functools.cached_property
    def flat(self) -> tuple:
        """The trees end to end (:func:`~fxai.models.boosted.flatten`)."""
        return flatten(self.trees)

    def predict_index(self, X) -> np.ndarray:
        """Index (into ``classes``) of each row's first class of highest score."""
        return np.argmax(self.scores(X), axis=1)

    def predict(self, X) -> np.ndarray:
        """Each row's class label."""
        return np.asarray(self.classes)[self.predict_index(X)]

    @functools.cached_property
    def used_features(self) -> list[int]:
        """Features tested in some split (the only ones that can be in an explanation)."""
        return used_features(self.trees)

    @functools.cached_property
    def is_vote(self) -> bool:
        """A majority vote: no intercept, every leaf one-hot, divisor 1 or the number of
        trees (a hard-vote forest, or a soft-vote one whose every leaf is pure): class
        scores are then vote counts (over the number of trees), exact in any float type and
        ordered, ties included, as the counts."""
        if ("vote" not in self.kind or self.divisor not in (1.0, float(len(self.trees)))
                or np.any(self.base != 0)):
            return False
        for t in self.trees:
            v = t.value[t.left < 0]
            if not (np.all((v == 0) | (v == 1)) and np.all(v.sum(axis=1) == 1)):
                return False
        return True

    @functools.cached_property
    def is_soft_vote(self) -> bool:
        """A soft vote with some impure leaf (a scikit-learn forest's ``predict``): float64
        scores, no intercept, a positive divisor, not :attr:`is_vote`."""
        return ("soft vote" in self.kind and self.dtype is np.float64
                and not np.any(self.base != 0) and self.divisor > 0 and not self.is_vote)


def convert(model):
    """An :class:`Ensemble` for a ``binary:logistic`` model, a
    :class:`~fxai.models.scores.ScoreEnsemble` for a ``multi:softmax`` /
    ``multi:softprob`` one (see :mod:`fxai.models.scores`)."""
    b = booster(model)
    doc = json.loads(b.save_raw("json"))
    objective = doc["learner"]["objective"]["name"]
    if objective in MULTI:
        return _multiclass(b, doc)
    return from_booster(b, doc)


def _multiclass(b, doc: dict):
    """The ``ScoreEnsemble`` of a multi-class booster: tree i adds its leaf to the margin of
    class ``tree_info[i]``; the per-class float32 intercepts are XGBoost's own."""
    learner = doc["learner"]
    param = learner["learner_model_param"]
    k = int(param["num_class"])
    if int(param.get("num_target", "1")) != 1 or k < 2:
        raise ValueError("only single-output multi-class models are supported")
    gb = learner["gradient_booster"]
    info = np.asarray(gb["model"]["tree_info"], dtype=np.int64)
    trees = []
    for t, cls in zip(_read_trees(gb), info, strict=True):
        value = np.zeros((len(t.value), k), dtype=np.float32)
        value[:, cls] = t.value
        trees.append(Tree(t.feature, t.threshold, t.left, t.right, value))
    names = b.feature_names
    return ScoreEnsemble(
        trees=tuple(trees),
        base=np.asarray(_base_margin32(doc), dtype=np.float32).reshape(k),
        divisor=1.0,
        classes=tuple(range(k)),
        n_features=int(param["num_feature"]),
        kind=f"XGBoost {learner['objective']['name']}",
        feature_names=tuple(names) if names else None,
    )
