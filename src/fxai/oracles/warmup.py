"""Load compiled code up front, so that it stays out of the first explanation's time."""

from __future__ import annotations

import time

import numpy as np


def warm_up() -> float:
    """Load the tree-ensemble oracles' compiled search (numba, from its on-disk cache, or
    compiled on the very first use after installation) for both of its number types:
    float32 (XGBoost) and float64 (LightGBM, HistGradientBoosting, soft-vote forests);
    returns the seconds it took.

    Without it the first oracle of each number type in a process pays this (measured in
    docs/api.md: 9 s once after installation, then 0.3-1.7 s per process); later ones do not.

    Returns
    -------
    float
        The seconds the load took (process CPU time).

    Examples
    --------
    >>> warm_up() >= 0.0
    True
    """
    from fxai.models.boosted import Ensemble, Tree
    from fxai.models.scores import ScoreEnsemble
    from fxai.oracles.boosted import BoostedOracle
    from fxai.oracles.scores import ScoreOracle

    t0 = time.perf_counter()
    split = {"feature": np.array([0, 0, 0]), "threshold": np.array([0.5, 0, 0], np.float32),
             "left": np.array([1, -1, -1]), "right": np.array([2, -1, -1])}
    stump = Tree(**split, value=np.array([0, -1, 1], np.float32))  # x0 < 0.5: -1, else +1
    pair = Tree(**split, value=np.array([[0, 0], [1, 0], [0, 1]], np.float64))
    oracles = (BoostedOracle(Ensemble((stump,), 0.0, 1), [1.0]),
               ScoreOracle(ScoreEnsemble((pair,), np.zeros(2), 1.0, (0, 1), 1, "warm-up"),
                           [1.0]))
    for o in oracles:
        if o.entails([]) or not o.entails([0]):
            raise RuntimeError(f"{type(o).__name__} answers a one-stump model wrongly")
    return time.perf_counter() - t0
