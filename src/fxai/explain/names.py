"""Results in feature names: ``names(o, result)`` maps the 0-based indices of any result.

The explainers return sorted 0-based indices; the oracle knows the feature names when
:func:`fxai.oracles.for_model` found them (the model's ``feature_names_in_``, an XGBoost
booster's ``feature_names`` or a ``domains`` DataFrame's columns).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from fxai.explain.exact import AllXps
from fxai.oracles.base import Oracle


def names(o: Oracle, result):
    """``result`` with every feature index replaced by its name on ``o``.

    ``result``: an index, a list/tuple/set of indices, a list of explanations, an FFA
    dict (keys mapped), an ``(ffa, complete)`` pair or an :class:`AllXps` (its ``axps``
    and ``cxps`` mapped). Without names on ``o`` the indices become ``"x0"``, ``"x1"``...

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from fxai import explain, oracles
    >>> X = pd.DataFrame({"age": [20, 30, 40, 50], "smoker": [0, 1, 0, 1]})
    >>> clf = DecisionTreeClassifier().fit(X, [0, 0, 0, 1])
    >>> o = oracles.for_model(clf, {"age": 50, "smoker": 1})
    >>> names(o, explain.find_axp(o)), names(o, explain.ffa(o))
    (['age'], ({'age': 1.0}, True))
    """
    label = list(o.feature_names) if o.feature_names is not None else [
        f"x{i}" for i in range(o.n_features)]

    def go(r):
        if r is None or isinstance(r, bool | float | str):
            return r
        if isinstance(r, int | np.integer):
            return label[int(r)]
        if isinstance(r, AllXps):
            return dataclasses.replace(r, axps=go(r.axps), cxps=go(r.cxps))
        if isinstance(r, Mapping):
            return {label[k]: v for k, v in r.items()}
        if isinstance(r, set | frozenset):
            return {go(v) for v in r}
        return type(r)(go(v) for v in r) if isinstance(r, tuple) else [go(v) for v in r]

    return go(result)
