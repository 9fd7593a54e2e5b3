"""ApproxPAXp (NBC paper, Algorithm 1): deletion against a precision threshold δ.

Generic over oracles that count: any oracle with ``precision(fixed)`` works. An oracle
may also offer ``precision_at_least(fixed, delta) -> bool`` (a sound decision for the
real model, e.g. with error-bounded counting); ``sound=True`` uses it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fxai.oracles.base import Oracle


@dataclass(frozen=True)
class ApproxPAXp:
    """Result: the features kept, their precision as the decision saw it, the number of
    precision questions asked and of passes over the candidates.

    Attributes
    ----------
    features : list of int
        The features kept, sorted.
    precision : float or None
        Their precision as the decision saw it.
    queries : int
        The precision questions asked.
    passes : int
        The passes over the candidates.
    """

    features: list[int]
    precision: float | None
    queries: int
    passes: int


def approx_paxp(o: Oracle, delta: float, seed: Iterable[int] | None = None,
                order: Iterable[int] | None = None, sound: bool = False) -> ApproxPAXp:
    """Drop features from ``seed`` (default all of ``o.features``) in ``order`` while the
    rest keeps precision ≥ ``delta``.

    Features outside the seed are free from the start (with an AXp as seed they never
    affect the prediction). The first pass is the paper's Algorithm 1. Precision is not
    monotone, so a feature kept early may become removable after a later removal; such
    features are tried again (further passes, usually none) until the result is an
    ApproxPAXp in the sense of Eq. (17): a WeakPAXp from which no single feature can be
    dropped (w.r.t. the oracle's ``precision`` or, if ``sound``, ``precision_at_least``).

    Parameters
    ----------
    o : Oracle
        An oracle that counts (``precision``).
    delta : float
        The precision threshold, in (0, 1].
    seed : iterable of int or None
        The features to start from (default: every candidate feature).
    order : iterable of int or None
        The order in which features are tried (default: ascending).
    sound : bool
        Decide by ``precision_at_least`` (error-bounded) instead of ``precision``.

    Returns
    -------
    ApproxPAXp

    Examples
    --------
    The NBC paper's Example 4.3: from the AXp {R1, R2, R5} of the running example,
    δ = 0.85 drops R2 and keeps {R1, R5}, of precision 7/8:

    >>> import numpy as np
    >>> from fxai.models.nbc import XLC
    >>> from fxai.oracles.nbc import NBCOracle
    >>> tables = [[[0.97, 0.03], [0.05, 0.95]], [[0.05, 0.95], [0.95, 0.05]],
    ...           [[0.66, 0.34], [0.98, 0.02]], [[0.25, 0.75], [0.80, 0.20]],
    ...           [[0.97, 0.03], [0.05, 0.95]]]
    >>> nbc = XLC.from_log_probs(np.log([0.9, 0.1]), [np.log(t) for t in tables])
    >>> o = NBCOracle(nbc, [1, 0, 0, 0, 1])
    >>> approx_paxp(o, delta=0.85, seed=[0, 1, 4])
    ApproxPAXp(features=[0, 4], precision=0.875, queries=4, passes=2)
    >>> approx_paxp(o, delta=0.85, seed=[0, 1, 4], sound=True).features
    [0, 4]
    """
    if not 0.0 <= delta <= 1.0:
        raise ValueError(f"delta must lie in [0, 1], got {delta}")
    if sound and not hasattr(o, "precision_at_least"):
        raise TypeError(f"{type(o).__name__} has no precision_at_least for sound=True")
    kept = set(o.features if seed is None else seed)
    todo = sorted(kept) if order is None else [j for j in order if j in kept]
    ranked = list(todo)
    queries, passes, last = 0, 0, None
    version, tested = 0, {}  # kept-set version at each feature's last test
    while todo:
        passes += 1
        for i in todo:
            trial = kept - {i}
            queries += 1
            if sound:
                ok = o.precision_at_least(trial, delta)
            else:
                p = o.precision(trial)
                ok = p >= delta
                if ok:
                    last = p
            if ok:
                kept, version = trial, version + 1
            tested[i] = version
        # precision is not monotone: re-test features last tested against a larger set
        todo = [j for j in ranked if j in kept and tested[j] < version]
    if not sound and last is None:
        last = o.precision(kept)
        queries += 1
    return ApproxPAXp(sorted(kept), None if sound else last, queries, passes)
