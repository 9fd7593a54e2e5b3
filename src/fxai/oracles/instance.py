"""Instances and feature names from pandas and plain Python, checked before any oracle.

:func:`resolve` is what :func:`fxai.oracles.for_model` calls first. It reads the model's
feature names (scikit-learn's ``feature_names_in_``, XGBoost's ``feature_names``, else the
columns of a frame passed as ``domains``), turns the instance into one row of numbers in
the model's column order, and derives domains from a frame:

* the instance: a pandas Series or dict (by feature name, any order), a 1-row DataFrame,
  or a 1-D or one-row 2-D sequence/array (in column order);
* ``domains=frame`` (e.g. the training data): a categorical column ranges over its
  categories (over their codes ``0..k-1`` when they are not numbers, as in
  :func:`encode`; a column of text is categorical, its sorted values the categories), a
  boolean column over ``{0, 1}``, an integer column over the values it holds; float
  columns are real (``None``). A list of domains is used as given.

Every bad input raises ``ValueError`` saying what was expected: wrong length, unknown or
missing feature names, a value outside its feature's finite domain (also a CategoricalNB's
categories), a value that is not a number, a missing value (NaN; see docs/semantics.md), an
infinite one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np


def encode(frame):
    """``frame`` with categorical and text columns as their codes (the sorted labels'
    positions, as ``pd.Categorical`` orders them) and booleans as 0/1: the numbers the
    models are fitted on and the oracles read.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [0.5, 1.5], "colour": pd.Categorical(["red", "blue"]),
    ...                    "big": [True, False], "region": ["west", "east"]})
    >>> encode(df).to_dict("list")
    {'x': [0.5, 1.5], 'colour': [1, 0], 'big': [1, 0], 'region': [1, 0]}
    """
    out = frame.copy()
    for col in out.columns:
        s = _categorical(out[col])
        kind = s.dtype
        if kind.name == "category" and not _numeric(kind.categories):
            out[col] = s.cat.codes.astype(np.int64)
        elif kind.name == "bool":
            out[col] = s.astype(np.int64)
    return out


def _categorical(s):
    """A column of text (every value a string) as a pandas categorical, others unchanged."""
    if s.dtype.name in ("object", "string", "str") and len(s) and all(
            isinstance(v, str) for v in s):
        import pandas as pd

        return s.astype(pd.CategoricalDtype(sorted(set(s))))
    return s


def _numeric(values) -> bool:
    return all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
               for v in values)


def frame_domains(frame) -> tuple[list, list]:
    """(domains, category labels) per column of ``frame``: see the module docstring.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [0.5, 1.5], "n": [3, 1], "c": pd.Categorical(["r", "b"]),
    ...                    "b": [True, False]})
    >>> frame_domains(df)
    ([None, [1, 3], [0, 1], [0, 1]], [None, None, ['b', 'r'], None])
    """
    domains: list = []
    labels: list = []
    for col in frame.columns:
        s = _categorical(frame[col])
        lab = None
        if s.dtype.name == "category":
            cats = list(s.cat.categories)
            if _numeric(cats):
                dom = sorted(v.item() if hasattr(v, "item") else v for v in cats)
            else:
                dom, lab = list(range(len(cats))), cats
        elif s.dtype.name == "bool":
            dom = [0, 1]
        elif np.issubdtype(s.dtype, np.integer):
            dom = sorted(int(v) for v in np.unique(s.to_numpy()))
        else:
            dom = None
        domains.append(dom)
        labels.append(lab)
    return domains, labels


def model_names(model) -> list[str] | None:
    """The feature names the model was fitted with, or None."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = getattr(model, "feature_names", None)  # xgboost.Booster
        if callable(names) or isinstance(names, str):
            names = None
    return None if names is None else [str(n) for n in names]


def _n_features(model) -> int | None:
    for attr in ("n_features_in_", "n_features"):
        n = getattr(model, attr, None)
        if isinstance(n, int | np.integer):
            return int(n)
    if hasattr(model, "num_features"):  # xgboost.Booster
        return int(model.num_features())
    return None


def _is_frame(obj) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _row(x, names: list[str] | None, n: int | None) -> list:
    """The instance as a list in column order (values not yet checked)."""
    if _is_frame(x):
        if len(x) != 1:
            raise ValueError(f"a DataFrame instance must have exactly 1 row, not {len(x)}")
        x = x.iloc[0]
    if type(x).__name__ == "Series" or isinstance(x, Mapping):
        keys = [str(k) for k in x.keys()]
        if names is None:
            if isinstance(x, Mapping):
                raise ValueError("an instance given by feature name needs feature names: fit "
                                 "the model on a DataFrame or pass domains=<DataFrame>")
            return list(x.to_numpy(dtype=object))  # a Series: its order
        unknown = sorted(set(keys) - set(names))
        missing = [k for k in names if k not in set(keys)]
        if unknown or missing:
            raise ValueError(f"instance feature names do not match the model's {names}: "
                             f"unknown {unknown}, missing {missing}")
        vals = dict(zip(keys, (x[k] for k in x.keys()), strict=True))
        return [vals[k] for k in names]
    arr = np.asarray(x, dtype=object)
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 1:
        raise ValueError(f"an instance must be one row: got an array of shape {arr.shape}")
    return list(arr)


def _number(v, f: str):
    if isinstance(v, bool | np.bool_):
        return int(v)
    if isinstance(v, int | np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        return float(v)
    raise ValueError(f"feature {f}: value {v!r} is not a number")


def resolve(model, x, options: dict) -> tuple[list, dict, list[str] | None, list]:
    """(instance as numbers in column order, options with list domains, feature names, per
    feature its category labels or None).

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> df = pd.DataFrame({"x": [0.5, 1.5, 2.5], "c": pd.Categorical(["r", "b", "r"])})
    >>> clf = DecisionTreeClassifier().fit(encode(df), [0, 1, 0])
    >>> resolve(clf, {"c": "b", "x": 1.0}, {"domains": df})
    ([1.0, 0], {'domains': [None, [0, 1]]}, ['x', 'c'], [None, ['b', 'r']])
    >>> resolve(clf, {"c": "g", "x": 1.0}, {"domains": df})
    Traceback (most recent call last):
    ...
    ValueError: feature 'c': value 'g' is not one of its categories ['b', 'r']
    """
    options = dict(options)
    names = model_names(model)
    labels: list = []
    domains = options.get("domains")
    if _is_frame(domains):
        cols = [str(c) for c in domains.columns]
        if names is not None and cols != names:
            raise ValueError(f"the domains frame's columns {cols} differ from the model's "
                             f"feature names {names}")
        names = cols
        domains, labels = frame_domains(domains)
        options["domains"] = domains
    n = _n_features(model)
    if n is None and names is not None:
        n = len(names)
    row = _row(x, names, n)
    if n is not None and len(row) != n:
        raise ValueError(f"instance has {len(row)} values, the model {n} features"
                         + (f" {names}" if names else ""))
    finite = _finite_domains(model, domains, len(row))
    out = []
    for i, v in enumerate(row):
        f = repr(names[i]) if names else str(i)
        lab = labels[i] if i < len(labels) else None
        if lab is not None and not isinstance(v, int | float | np.number | bool | np.bool_):
            if v not in lab:
                raise ValueError(f"feature {f}: value {v!r} is not one of its categories {lab}")
            v = lab.index(v)
        v = _number(v, f)
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"feature {f} is missing (NaN): an instance must give every "
                             "feature a value (fxai does not model missing values; see "
                             "docs/semantics.md)")
        if isinstance(v, float) and math.isinf(v):
            raise ValueError(f"feature {f}: value {v!r} is not finite (the models' own "
                             "predict refuses infinity)")
        dom = finite[i]
        if dom is not None and v not in dom:
            shown = list(dom) if len(dom) <= 20 else f"{len(dom)} values"
            raise ValueError(f"feature {f}: value {v!r} is outside its domain {shown}")
        out.append(v)
    return out, options, names, [labels[i] if i < len(labels) else None for i in range(len(out))]


def _finite_domains(model, domains: Sequence | None, n: int) -> list:
    """Per feature the set of allowed values, or None (real)."""
    if type(model).__name__ == "CategoricalNB" and hasattr(model, "n_categories_"):
        return [set(range(int(k))) for k in model.n_categories_]
    if domains is None:
        return [None] * n
    if len(domains) != n:
        raise ValueError(f"domains has {len(domains)} entries, the instance {n} values")
    return [None if d is None else set(d) for d in domains]
