"""scikit-learn's ``GradientBoostingClassifier`` read exactly into a
:class:`~fxai.models.scores.ScoreEnsemble`.

Its raw score of class k (``decision_function``) is the init estimator's raw prediction,
then stage after stage ``learning_rate`` times the leaf its regression tree for k reaches,
added in float64 (``predict_stages``: ``out += scale * value``); its trees compare
``float32(x) <= t`` as a forest's do (read as ``x < t'``,
:func:`fxai.models.forest.strict_threshold`). ``predict`` says class 1 iff the raw score is
``>= 0`` with two classes, and the first class of highest score otherwise. fxai reads
the leaves as ``learning_rate * value`` (the same float64 product) and, with two classes,
scores ``[raw, 0]`` over the classes in reverse order, whose first maximum is class 1 iff
``raw >= 0``. Only an init estimator of constant raw prediction is read (the default prior
or ``init="zero"``); another is refused.
"""

from __future__ import annotations

import numpy as np

from fxai.models.boosted import Tree
from fxai.models.forest import strict_threshold
from fxai.models.scores import ScoreEnsemble
from fxai.values import plain


def _constant_init(model) -> bool:
    from sklearn.dummy import DummyClassifier

    init = model.init_
    return (isinstance(init, str) and init == "zero") or (
        type(init) is DummyClassifier and init.strategy == "prior")


def from_sklearn(model) -> ScoreEnsemble:
    """The :class:`ScoreEnsemble` of a fitted ``GradientBoostingClassifier``.

    Examples
    --------
    >>> from sklearn.ensemble import GradientBoostingClassifier
    >>> X, y = [[0], [1], [2], [3]], [0, 1, 1, 0]
    >>> clf = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> ens = from_sklearn(clf)
    >>> bool((ens.predict(X) == clf.predict(X)).all()), ens.classes
    (True, (1, 0))
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)
    if not _constant_init(model):
        raise TypeError(f"a GradientBoostingClassifier with init={model.init_!r}: fxai reads "
                        "the default init (the class prior) or init='zero', whose raw "
                        "prediction is the same for every row")
    n = int(model.n_features_in_)
    per = model.estimators_.shape[1]  # trees per stage: 1 for two classes
    width = max(2, per)
    lr = float(model.learning_rate)
    trees = []
    for stage in model.estimators_:
        for k, est in enumerate(stage):
            t = est.tree_
            left = np.asarray(t.children_left, dtype=np.int64)
            leaf = left < 0
            value = np.zeros((t.node_count, width))
            value[:, k] = np.where(leaf, lr * t.value[:, 0, 0], 0.0)
            trees.append(Tree(
                feature=np.where(leaf, 0, t.feature).astype(np.int64),
                threshold=np.where(leaf, 0, strict_threshold(t.threshold)).astype(np.float32),
                left=left, right=np.asarray(t.children_right, dtype=np.int64), value=value))
    init = np.asarray(model._raw_predict_init(np.zeros((1, n), np.float32))[0], np.float64)
    classes = tuple(plain(c) for c in model.classes_)
    names = getattr(model, "feature_names_in_", None)
    return ScoreEnsemble(
        trees=tuple(trees),
        base=np.array([init[0], 0.0]) if per == 1 else init,
        divisor=1.0,
        classes=classes[::-1] if per == 1 else classes,
        n_features=n,
        kind="GradientBoostingClassifier",
        feature_names=tuple(str(v) for v in names) if names is not None else None,
    )
