"""A converted model's input schema, and the one reader of a row against it.

:func:`read_row` is fxai's only row reader: a pandas Series or dict by feature name (any
order), a 1-row DataFrame, or a 1-D or one-row 2-D sequence/array in column order, turned
into a list in the model's column order. A :class:`Schema` (trees, forests, XGBoost, naive
Bayes, fxai's own models) then checks and numbers the values; an
:class:`~fxai.models.coded.Encoded` model (Pipelines, HistGradientBoosting, LightGBM) codes
them per column.

Finite domains come from a list (per feature its values, None for a real one) or from a
frame (e.g. the training data): a categorical column ranges over its categories (over
their codes ``0..k-1`` when they are not numbers, as in :func:`encode`; a column of text is
categorical, its sorted values the categories), a boolean column over ``{0, 1}``, an
integer column over the values it holds; float columns are real.

Every bad input raises ``ValueError`` saying what was expected: wrong length, unknown or
missing feature names, a value outside its feature's finite domain (also a CategoricalNB's
categories), a value that is not a number, a missing value (NaN; see docs/semantics.md), an
infinite one.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fxai.models.kinds import is_kind

NO_MISSING = ("an instance must give every feature a value (fxai does not model missing "
              "values here; see docs/semantics.md)")
#: the hint of a model whose reading can give every column a code for NaN (``missing``)
MISSING_HINT = ("pass missing=True (fxai explain: --missing) to explain it as a value of its "
                "own, routed as the model routes it (docs/semantics.md)")


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


def is_frame(obj) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def model_names(model) -> list[str] | None:
    """The feature names the model was fitted with, or None."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = getattr(model, "feature_names", None)  # xgboost.Booster
        if callable(names) or isinstance(names, str):
            names = None
    return None if names is None else [str(n) for n in names]


def n_features(model) -> int | None:
    for attr in ("n_features_in_", "n_features"):
        n = getattr(model, attr, None)
        if isinstance(n, int | np.integer):
            return int(n)
    if hasattr(model, "num_features"):  # xgboost.Booster
        return int(model.num_features())
    return None


def mismatch(given: Sequence[str], names: Sequence[str]) -> str:
    """How the names ``given`` differ from ``names``: the unknown ones (a typo?) and the
    missing ones, or the order."""
    unknown = [n for n in given if n not in set(names)]
    missing = [n for n in names if n not in set(given)]
    if unknown or missing:
        return f"unknown {unknown}, missing {missing}"
    return "the same names in another order (give them in the model's order)"


class PositionalWarning(UserWarning):
    """A row given by name was read by position: the model knows no feature names."""


def _one_row(x):
    if is_frame(x):
        if len(x) != 1:
            raise ValueError(f"a DataFrame instance must have exactly 1 row, not {len(x)}")
        return x.iloc[0]
    return x


def _keyed(x) -> bool:
    return type(x).__name__ == "Series" or isinstance(x, Mapping)


def _keys(x, names: Sequence[str], alias: Callable[[str], str] | None) -> list[str]:
    """The row's keys as the model names them (``alias``: the model's spelling of a user's
    name, e.g. LightGBM's spaces as underscores)."""
    keys = [str(k) for k in x.keys()]
    if alias is None:
        return keys
    known = set(names)
    return [k if k in known else alias(k) for k in keys]


def user_names(x, names: Sequence[str], alias: Callable[[str], str] | None = None) -> list[str]:
    """Per model feature the name the row ``x`` gives it (``names`` when ``x`` is not given by
    name): what explanations print."""
    x = _one_row(x)
    if not _keyed(x):
        return list(names)
    by = dict(zip(_keys(x, names, alias), (str(k) for k in x.keys()), strict=True))
    return [by.get(n, n) for n in names]


def read_row(x, names: Sequence[str] | None, n: int | None = None,
             alias: Callable[[str], str] | None = None) -> list:
    """The instance ``x`` as a list in the model's column order (values not yet checked).

    By name (a Series, dict or 1-row DataFrame) when ``names`` are known (``alias``: see
    :func:`user_names`); a Series for a model without names is read by position, with a
    :class:`PositionalWarning` naming the mapping (pass ``columns=`` to read it by name).
    """
    x = _one_row(x)
    if _keyed(x):
        keys = [str(k) for k in x.keys()]
        if names is None:
            if isinstance(x, Mapping):
                raise ValueError("an instance given by feature name needs feature names: fit "
                                 "the model on a DataFrame, pass columns=[...] (the model's "
                                 "features in order) or domains=<DataFrame>")
            if keys != [str(i) for i in range(len(keys))]:
                shown = ", ".join(f"{k} -> x{i}" for i, k in enumerate(keys[:10]))
                warnings.warn(f"the model has no feature names: the row's columns are read "
                              f"by position ({shown}{', ...' if len(keys) > 10 else ''}); "
                              "pass columns=[...] to read them by name",
                              PositionalWarning, stacklevel=4)
            return list(x.to_numpy(dtype=object))
        keys = _keys(x, names, alias)
        unknown = sorted(set(keys) - set(names))
        missing = [k for k in names if k not in set(keys)]
        if unknown or missing:
            raise ValueError(f"instance feature names do not match the model's {list(names)}: "
                             f"unknown {unknown}, missing {missing}")
        vals = dict(zip(keys, (x[k] for k in x.keys()), strict=True))
        return [vals[k] for k in names]
    arr = np.asarray(x, dtype=object)
    if arr.ndim == 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 1:
        raise ValueError(f"an instance must be one row: got an array of shape {arr.shape}")
    row = list(arr)
    n = len(names) if n is None and names is not None else n
    if n is not None and len(row) != n:
        raise ValueError(f"instance has {len(row)} values, the model {n} features"
                         + (f" {list(names)}" if names else ""))
    return row


def _number(v, f: str):
    if isinstance(v, bool | np.bool_):
        return int(v)
    if isinstance(v, int | np.integer):
        return int(v)
    if isinstance(v, float | np.floating):
        return float(v)
    raise ValueError(f"feature {f}: value {v!r} is not a number")


@dataclass(frozen=True)
class Schema:
    """The input schema of a model read over numbers: feature ``names`` (or None), how many
    features ``n`` (None: any), per feature its finite ``domains`` (None: real) and
    category ``labels`` (None: plain values)."""

    names: tuple[str, ...] | None
    n: int | None
    domains: tuple | None
    labels: tuple
    missing_hint: str = NO_MISSING

    @classmethod
    def of(cls, model, domains=None, columns: Sequence[str] | None = None) -> Schema:
        """The schema of ``model`` with ``domains`` (a list or a frame, see the module) and
        ``columns`` (the model's feature names in order, for a model fitted without)."""
        names = model_names(model)
        if columns is not None:
            columns = _columns(columns)
            if names is not None and columns != names:
                raise ValueError(f"columns {columns} differ from the feature names the model "
                                 f"was fitted with {names}: {mismatch(columns, names)}")
            names = columns
        labels: list = []
        listed = not is_frame(domains)  # a frame's domains name a CategoricalNB's categories
        if is_frame(domains):
            cols = [str(c) for c in domains.columns]
            if names is not None and cols != names:
                raise ValueError(f"the domains frame's columns {cols} differ from the model's "
                                 f"feature names {names}")
            names = cols
            domains, labels = frame_domains(domains)
        n = n_features(model)
        if n is None and names is not None:
            n = len(names)
        if n is not None and names is not None and len(names) != n:
            raise ValueError(f"{len(names)} column names {names} for a model of {n} features")
        finite = domains
        if is_kind(model, "nbc") and hasattr(model, "n_categories_"):
            finite = [list(range(int(k))) for k in model.n_categories_]
            _own_categories(domains if listed else None, finite, names)
        if finite is not None:
            if isinstance(finite, str | bytes) or not isinstance(finite, Sequence):
                raise TypeError("domains must be a list (per feature its values, or None for a "
                                f"real feature) or a DataFrame, not {type(finite).__name__}")
            if n is not None and len(finite) != n:
                raise ValueError(f"domains has {len(finite)} entries, the model {n} features")
            _finite_values(finite, names)
        width = n if n is not None else len(finite or labels)
        labels = [labels[i] if i < len(labels) else None for i in range(width)]
        out = cls(None if names is None else tuple(names), n,
                  None if finite is None else tuple(finite), tuple(labels))
        if is_kind(model, "forest"):  # NaN is a value of its coded reading
            out = dataclasses.replace(out, missing_hint=MISSING_HINT)
        return out

    @property
    def domain_list(self) -> list | None:
        """The domains as the oracles take them (a CategoricalNB's are its own)."""
        return None if self.domains is None else list(self.domains)

    def read(self, x) -> tuple[list, list]:
        """(the instance ``x`` as numbers in column order, per feature its labels or None)."""
        row = read_row(x, self.names, self.n)
        if self.domains is not None and len(self.domains) != len(row):
            raise ValueError(f"domains has {len(self.domains)} entries, the instance "
                             f"{len(row)} values")
        out = []
        for i, v in enumerate(row):
            f = repr(self.names[i]) if self.names else str(i)
            lab = self.labels[i] if i < len(self.labels) else None
            if lab is not None and not isinstance(v, int | float | np.number | bool | np.bool_):
                if v not in lab:
                    raise ValueError(f"feature {f}: value {v!r} is not one of its categories "
                                     f"{lab}")
                v = lab.index(v)
            v = _number(v, f)
            if isinstance(v, float) and math.isnan(v):
                raise ValueError(f"feature {f} is missing (NaN): {self.missing_hint}")
            if isinstance(v, float) and math.isinf(v):
                raise ValueError(f"feature {f}: value {v!r} is not finite (the models' own "
                                 "predict refuses infinity)")
            dom = None if self.domains is None else self.domains[i]
            if dom is not None and v not in set(dom):
                shown = list(dom) if len(dom) <= 20 else f"{len(dom)} values"
                raise ValueError(f"feature {f}: value {v!r} is outside its domain {shown}")
            out.append(v)
        return out, [self.labels[i] if i < len(self.labels) else None for i in range(len(out))]


def _finite_values(domains: Sequence, names) -> None:
    """ValueError for NaN or infinity in a domain (a row with it is refused: a domain lists
    the values a feature takes)."""
    for i, dom in enumerate(domains):
        for v in dom or ():
            if isinstance(v, float | np.floating) and not math.isfinite(v):
                f = repr(names[i]) if names else str(i)
                raise ValueError(f"the domain of feature {f} holds {float(v)!r}: a domain lists "
                                 "values a feature takes, and a row with a missing or infinite "
                                 "value is refused (HistGradientBoosting, LightGBM and forests "
                                 "take NaN with missing=True)")


def _columns(columns) -> list[str]:
    if isinstance(columns, str | bytes) or not isinstance(columns, Sequence) or not all(
            isinstance(c, str) for c in columns):
        raise TypeError(f"columns must be a list of feature names, not {columns!r}")
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns {list(columns)} repeat a name")
    return list(columns)


def _own_categories(domains, categories: list[list[int]], names) -> None:
    """A CategoricalNB ranges over its fitted categories 0..k-1: a list of ``domains`` must
    give each feature those (or None); ValueError naming the first feature that differs."""
    if domains is None:
        return
    if isinstance(domains, str | bytes) or not isinstance(domains, Sequence):
        raise TypeError("domains must be a list (per feature its values, or None) or a "
                        f"DataFrame, not {type(domains).__name__}")
    if len(domains) != len(categories):
        raise ValueError(f"domains has {len(domains)} entries, the model "
                         f"{len(categories)} features")
    for f, (d, cats) in enumerate(zip(domains, categories, strict=True)):
        if d is not None and sorted({float(v) for v in d}) != [float(c) for c in cats]:
            name = f"{names[f]!r}" if names is not None else f"{f}"
            raise ValueError(f"domains of feature {name}: {list(d)} are not the "
                             f"CategoricalNB's fitted categories {cats}; a naive Bayes model "
                             "ranges over all its categories (fit it with min_categories to "
                             "add some)")
