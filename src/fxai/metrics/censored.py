"""Means over runs of which some were stopped by a time limit."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def censored_mean(times: Sequence[float], censored: Sequence[bool],
                  limits: Sequence[float | None] | float | None) -> float:
    """A lower bound of the mean time of runs of which the ``censored`` ones were stopped
    by their time limit: a finished run counts at its time, a censored one at its limit
    (it ran at least that long), or at its own time where no limit is known.

    Parameters
    ----------
    times : sequence of float
        Each run's time.
    censored : sequence of bool
        Whether each run was stopped by its limit.
    limits : sequence of float or None, float or None
        Each run's time limit, or one for all (None: unknown).

    Returns
    -------
    float
        The lower bound; NaN for no run.

    Examples
    --------
    Two runs of 1 s and 3 s, and one stopped at its 10-s limit after 9.5 s:

    >>> censored_mean([1.0, 3.0, 9.5], [False, False, True], 10.0)
    4.666666666666667
    >>> censored_mean([1.0, 9.5], [False, True], None)
    5.25
    """
    t = np.asarray(times, dtype=float)
    if not t.size:
        return float("nan")
    lim = np.asarray([np.nan if v is None else v for v in np.broadcast_to(
        np.asarray(limits, dtype=object), t.shape)], dtype=float)
    at = np.where(np.asarray(censored, dtype=bool) & ~np.isnan(lim), lim, t)
    return float(at.mean())
