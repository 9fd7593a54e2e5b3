"""Load the checkers' compiled code up front (what :func:`fxai.oracles.warm_up` does for the
oracles), e.g. once in the fork server of a local run instead of once per job."""

from __future__ import annotations

import time

import numpy as np


def warm_up() -> float:
    """Load the score checker's compiled leaf search (numba: from the on-disk cache, or
    compiled on its first use after installation), which checks soft-vote forests with
    impure leaves, LightGBM, HistGradientBoosting and multi-class XGBoost, by checking one
    explanation of a one-split scikit-learn forest; returns the process CPU seconds it took.

    No XGBoost or LightGBM model is run: their OpenMP thread pools do not survive a fork
    (a fork server's child that then loaded an XGBoost model waited for ever), so the
    binary XGBoost checker's leaf search is left to its first use.

    Examples
    --------
    >>> warm_up() >= 0.0
    True
    """
    from sklearn.ensemble import RandomForestClassifier

    from fxai.verify.check import check_all

    t0 = time.process_time()
    X = np.repeat([[0.0], [1.0]], 8, axis=0)
    y = np.r_[[0] * 6, [1] * 10]  # x0 = 0: a leaf of both classes (impure), class 0
    forest = RandomForestClassifier(n_estimators=1, max_depth=1, bootstrap=False,
                                    random_state=0).fit(X, y)
    if check_all(forest, X[0], [[0]], [[0]]) != ([True], [True]):
        raise RuntimeError("the score checker answers a one-split forest wrongly")
    return time.process_time() - t0
