"""Inputs as the model was fitted: scikit-learn warns when a model fitted on a DataFrame is
given an array, so the checkers pass it a frame with the model's own column names."""

from __future__ import annotations

import numpy as np


def named(model, X) -> object:
    """``X`` (2-D) as a DataFrame with ``model.feature_names_in_`` when the model has them,
    else as an array.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier().fit(pd.DataFrame({"a": [0, 1]}), [0, 1])
    >>> named(clf, [[1.0]]).columns.tolist(), type(named(object(), [[1.0]])).__name__
    (['a'], 'ndarray')
    """
    X = np.asarray(X)
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return X
    import pandas as pd

    return pd.DataFrame(X, columns=names)


def as_fitted(model, X) -> object:
    """Rows of raw values as a HistGradientBoosting model with categorical features takes
    them: :func:`named`, its categorical columns as pandas categoricals of the categories
    its encoder knows (a column of text and NaN as object is not what it was fitted on; a
    value it does not know is missing, as its own predict reads it)."""
    X = named(model, X)
    if not hasattr(X, "infer_objects"):
        return X
    X = X.infer_objects()
    pre = getattr(model, "_preprocessor", None)
    if pre is None:
        return X
    import pandas as pd

    encoder = pre.named_transformers_["encoder"]
    for f, known in zip(np.flatnonzero(model.is_categorical_), encoder.categories_,
                        strict=True):
        known = [v for v in known if not (isinstance(v, float) and np.isnan(v))]
        col = X.columns[f]
        X[col] = pd.Categorical(X[col], categories=known)
    return X
