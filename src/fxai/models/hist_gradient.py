"""scikit-learn's ``HistGradientBoostingClassifier`` read exactly, onto column codes.

Its trees test raw float64 values, ``x <= num_threshold`` going left, and route a missing
value (NaN) by each node's ``missing_go_to_left``. The raw score of class k is
``baseline[k]`` plus the leaves of its trees, added in float64 in iteration order
(``_raw_predict``); ``predict`` says class 1 iff the score is ``> 0`` for two classes, and
the first class of highest score otherwise. fxai reads it into a
:class:`~fxai.models.scores.ScoreEnsemble` over :mod:`fxai.models.coded` columns: a
feature's codes are the intervals between the raw values where some split changes side
(``nextafter(t, +inf)`` for ``x <= t``), then one code for a missing value. Its scores are
the library's bit for bit (two classes: ``[0, raw]``, whose first maximum is class 1 iff
``raw > 0``). A categorical feature (``categorical_features``) has a code per category the
model's ordinal encoder knows, then one for any other value: a node sends category j left
iff bit j of its bitset is set, and any other value the way of a missing one.
``missing``: read with a code for NaN (a value of every feature) or without (real features).
"""

from __future__ import annotations

import math

import numpy as np

from fxai.models.boosted import Tree
from fxai.models.coded import Column, Encoded, missing_value, recode
from fxai.models.schema import MISSING_HINT
from fxai.models.scores import ScoreEnsemble
from fxai.values import plain


def _layout(model) -> tuple[np.ndarray, list]:
    """(per input column of the trees, the original column it reads; per original column
    its categories, or None for a number). With categorical features the model's own
    ColumnTransformer puts their ordinal codes first, the numbers after, in column order."""
    n = int(model.n_features_in_)
    categorical = getattr(model, "is_categorical_", None)
    if getattr(model, "_preprocessor", None) is None or categorical is None:
        return np.arange(n), [None] * n
    encoder = model._preprocessor.named_transformers_["encoder"]
    cats: list = [None] * n
    for f, values in zip(np.flatnonzero(categorical), encoder.categories_, strict=True):
        values = [plain(v) for v in values]
        cats[int(f)] = tuple(values[:-1] if values and missing_value(values[-1]) else values)
    return np.concatenate([np.flatnonzero(categorical), np.flatnonzero(~categorical)]), cats


def from_sklearn(model, missing: bool = False) -> Encoded:
    """The :class:`Encoded` model of a fitted ``HistGradientBoostingClassifier``; with
    ``missing`` every feature has a code for a missing value (the last)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model)
    n = int(model.n_features_in_)
    names = getattr(model, "feature_names_in_", None)
    names = [str(v) for v in names] if names is not None else [f"x{i}" for i in range(n)]
    original, cats = _layout(model)
    k = int(model.n_trees_per_iteration_)
    width = 2 if k == 1 else k  # two classes: scores [0, raw]
    raw_trees = []  # (Tree with float64 thresholds, its nodes, its left-category bitsets)
    for iteration in model._predictors:
        for cls, predictor in enumerate(iteration):
            nodes = predictor.nodes
            leaf = nodes["is_leaf"].astype(bool)
            value = np.zeros((len(nodes), width))
            value[:, 1 if k == 1 else cls] = np.where(leaf, nodes["value"], 0.0)
            raw_trees.append((Tree(
                feature=original[nodes["feature_idx"].astype(np.int64)],
                threshold=nodes["num_threshold"].astype(np.float64),
                left=np.where(leaf, -1, nodes["left"].astype(np.int64)),
                right=np.where(leaf, -1, nodes["right"].astype(np.int64)),
                value=value), nodes, predictor.raw_left_cat_bitsets))
    cuts: list[set[float]] = [set() for _ in range(n)]
    for t, nodes, _ in raw_trees:
        for i in np.flatnonzero((t.left >= 0) & ~nodes["is_categorical"].astype(bool)):
            b = float(np.nextafter(t.threshold[i], math.inf))  # least x going right
            if math.isfinite(b):
                cuts[int(t.feature[i])].add(b)
    columns = tuple(
        Column(names[f], "number", bounds=tuple(sorted(cuts[f])), missing=missing)
        if cats[f] is None else Column(names[f], "category", values=cats[f], other=True,
                                       missing=missing)
        for f in range(n))
    sizes = [c.size for c in columns]

    def side_of(t: Tree, nodes, bitsets):
        def side(node: int):
            f, col = int(t.feature[node]), columns[int(t.feature[node])]
            known = len(col.values) if cats[f] is not None else len(col.bounds) + 1
            gone = [bool(nodes["missing_go_to_left"][node])] * (col.size - known)
            if cats[f] is not None:  # category j left iff bit j; other values as missing
                bits = bitsets[nodes["bitset_idx"][node]]
                j = np.arange(known)
                return f, np.append((bits[j // 32] >> (j % 32)) & 1 == 1, gone)
            b = float(np.nextafter(t.threshold[node], math.inf))
            below = np.arange(len(col.bounds) + 1) < (
                np.searchsorted(col.bounds, b) + 1 if math.isfinite(b) else
                (len(col.bounds) + 1 if b > 0 else 0))
            return f, np.append(below, gone)
        return side

    trees = tuple(recode(t, sizes, side_of(t, nd, bs)) for t, nd, bs in raw_trees)
    base = np.asarray(model._baseline_prediction, dtype=np.float64).reshape(-1)
    return Encoded(ScoreEnsemble(
        trees=trees,
        base=np.array([0.0, base[0]]) if k == 1 else base,
        divisor=1.0,
        classes=tuple(plain(c) for c in model.classes_),
        n_features=n,
        kind="HistGradientBoostingClassifier",
        feature_names=tuple(names),
    ), columns, MISSING_HINT)
