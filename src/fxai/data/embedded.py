"""Datasets bundled with installed packages (offline): scikit-learn and Orange3.

Each loader returns the table as strings of the original values (class labels by name) plus
the feature types, so :mod:`fxai.data.prepare` treats them like a parsed file.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fxai.errors import DataError

SKLEARN = {"iris", "wine", "breast_cancer", "digits"}


def _sklearn(name: str) -> tuple[pd.DataFrame, dict[str, str]]:
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")()
    names = [str(n) for n in bunch.feature_names]
    df = pd.DataFrame(bunch.data, columns=names)
    if name == "digits":
        df = df.astype(np.int64)
        labels = bunch.target.astype(str)
    else:
        labels = np.asarray(bunch.target_names)[bunch.target].astype(str)
    df["target"] = labels
    return df, dict.fromkeys(names, "numeric")


def _orange(name: str) -> tuple[pd.DataFrame, dict[str, str]]:
    import Orange.data

    table = Orange.data.Table(name)
    dom = table.domain
    cols: dict[str, object] = {}
    types: dict[str, str] = {}
    for i, var in enumerate(dom.attributes):
        col = table.X[:, i]
        if var.is_discrete:
            cols[var.name] = [var.values[int(v)] if not np.isnan(v) else "?" for v in col]
            types[var.name] = "binary" if len(var.values) <= 2 else "categorical"
        else:
            cols[var.name] = col
            types[var.name] = "numeric"
    cls = dom.class_var
    if cls is None or not cls.is_discrete:
        raise DataError(f"Orange dataset {name!r} has no discrete class variable.")
    cols["target"] = [cls.values[int(v)] for v in table.Y]
    return pd.DataFrame(cols), types


def load_embedded(loader: str, name: str) -> tuple[pd.DataFrame, dict[str, str]]:
    """``(table with a 'target' column, feature types)`` of an embedded dataset."""
    if loader == "sklearn" and name in SKLEARN:
        return _sklearn(name)
    if loader == "orange":
        return _orange(name)
    raise DataError(f"unknown embedded dataset {loader}:{name} (sklearn: {sorted(SKLEARN)}).")
