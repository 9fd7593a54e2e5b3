"""Load compiled code up front, so that it stays out of the first explanation's time."""

from __future__ import annotations

import time

import numpy as np


def warm_up() -> float:
    """Load the boosted-tree oracle's compiled search (numba, from its on-disk cache, or
    compiled on the very first use after installation); returns the seconds it took.

    Without it the first boosted oracle of a process pays this (measured in docs/api.md:
    9 s once after installation, then 0.3-1.7 s per process); later ones do not.

    Examples
    --------
    >>> warm_up() >= 0.0
    True
    """
    from fxai.models.boosted import Ensemble, Tree
    from fxai.oracles.boosted import BoostedOracle

    t0 = time.perf_counter()
    stump = Tree(feature=np.array([0, 0, 0]), threshold=np.array([0.5, 0, 0], np.float32),
                 left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                 value=np.array([0, -1, 1], np.float32))  # x0 < 0.5: -1, else +1
    o = BoostedOracle(Ensemble((stump,), 0.0, 1), [1.0])
    if o.entails([]) or not o.entails([0]):
        raise RuntimeError("the boosted oracle answers a one-stump model wrongly")
    return time.perf_counter() - t0
