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
