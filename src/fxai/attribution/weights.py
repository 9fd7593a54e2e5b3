"""The Shapley weight of a coalition, shared by the generic and the circuit routes."""

from __future__ import annotations

import math

import numpy as np


def shapley_weights(n: int) -> np.ndarray:
    """``w[k] = k!(n−k−1)!/n!``: the weight of a coalition of ``k`` of the other players.

    Examples
    --------
    >>> shapley_weights(3).tolist()  # 1/3, 1/6, 1/3
    [0.3333333333333333, 0.16666666666666666, 0.3333333333333333]
    """
    return np.array([math.factorial(k) * math.factorial(n - k - 1) / math.factorial(n)
                     for k in range(n)])
