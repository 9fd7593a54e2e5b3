"""Formal feature attribution: the fraction of AXps that contain each feature."""

from __future__ import annotations

from collections.abc import Iterable

from fxai import clocks
from fxai.explain import linear
from fxai.explain.exact import all_xps, has_duality
from fxai.explain.marco import Marco
from fxai.oracles.base import Oracle, TimeLimitExceeded, valid_time_limit


def ffa_from_axps(axps: Iterable[Iterable[int]]) -> dict[int, float]:
    """FFA of each feature that occurs in some AXp (features in none have FFA 0).

    Parameters
    ----------
    axps : iterable of iterable of int
        Every AXp of the instance.

    Returns
    -------
    dict of int to float
        Per feature in some AXp, the share of the AXps that contain it.

    Examples
    --------
    The five AXps of the NBC paper's running example (instance (t, f, f, f, t)):

    >>> ffa_from_axps([(0, 2, 4), (0, 1, 4), (1, 2, 4), (0, 1, 2), (0, 3, 4)])
    {0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8}
    """
    counts: dict[int, int] = {}
    _count(axps, counts)
    return _shares(counts)


def ffa_from_cxps(cxps: Iterable[Iterable[int]]) -> dict[int, float]:
    """The FFA of :func:`ffa_from_axps` from every CXp of the instance, by counting the AXps
    instead of listing them.

    The AXps are the minimal sets that meet every CXp (hitting-set duality). The CXps, as a
    monotone CNF ``f`` over "feature i is fixed", are compiled into a BDD (CUDD, through
    ``dd``); its minimal true points ``f ∧ ∧_i (¬x_i ∨ ¬f[x_i := 0])`` are the AXps, and
    their count with and without each ``x_i`` gives the FFA (exact below 2^53 AXps: CUDD
    counts in doubles). The CXps must all be there: a missing one adds sets that are no AXp.

    Parameters
    ----------
    cxps : iterable of iterable of int
        Every CXp of the instance.

    Returns
    -------
    dict of int to float
        Per feature in some AXp, the share of the AXps that contain it.

    Examples
    --------
    The CXps of the NBC paper's running example (its AXps in :func:`ffa_from_axps`):

    >>> ffa_from_cxps([(0, 1), (0, 2), (1, 4), (2, 4), (0, 4), (1, 2, 3)])
    {0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8}
    """
    from dd import cudd

    cxps = [sorted({int(f) for f in c}) for c in cxps]
    if any(not c for c in cxps):
        raise ValueError("an empty CXp: freeing no feature cannot change the prediction")
    names = {f: f"x{f}" for f in sorted({f for c in cxps for f in c})}
    bdd = cudd.BDD()
    bdd.declare(*names.values())
    fn = bdd.true
    for c in sorted(cxps, key=len):
        clause = bdd.false
        for f in c:
            clause |= bdd.var(names[f])
        fn &= clause
    minimal = fn
    for name in names.values():
        minimal &= ~bdd.var(name) | ~bdd.let({name: False}, fn)
    n = len(names)
    counts = {-1: int(minimal.count(nvars=n))}
    for f, name in names.items():
        counts[f] = int((minimal & bdd.var(name)).count(nvars=n))
    return _shares({f: k for f, k in counts.items() if k})


def _count(axps: Iterable[Iterable[int]], counts: dict[int, int]) -> None:
    """Add each AXp's features to ``counts`` (key -1: the number of AXps), one at a time
    (a stream is not kept)."""
    for a in axps:
        counts[-1] = counts.get(-1, 0) + 1
        for f in a:
            counts[f] = counts.get(f, 0) + 1


def _shares(counts: dict[int, int]) -> dict[int, float]:
    total = counts.get(-1, 0)
    return {f: n / total for f, n in sorted(counts.items()) if f >= 0}


def ffa(o: Oracle, time_limit: float | None = None, target: str = "switch", **kw):
    """FFA of ``o``'s instance; returns ``(ffa, complete)``.

    Trees (:func:`~fxai.explain.exact.has_duality`) take the exact duality route, always
    complete. Binary NBCs and XLCs count the stream of their AXps
    (:mod:`fxai.explain.linear`; of the keywords only ``clock``). Other oracles run MARCO.
    The result is exact when ``complete`` is true (every AXp found within the time limit:
    seconds of CPU time by default, ``clock="wall"`` for the wall clock). ``target`` and the
    keywords go to :class:`~fxai.explain.marco.Marco`.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    time_limit : float or None
        Seconds (CPU time unless ``clock="wall"``).
    target : {"axp", "cxp", "switch"}
        MARCO's target, when MARCO is the route.
    **kw
        Keywords of :class:`~fxai.explain.marco.Marco` (``clock``, ``switch``, ...).

    Returns
    -------
    tuple of (dict of int to float, bool)
        The FFA of each feature in some AXp found, and whether every AXp was found.

    Examples
    --------
    A tree predicting ``x0 or (x1 and x2)`` at (1, 1, 1) has the AXps {x0} and {x1, x2}:

    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(3)
    >>> ffa(XpGOracle(tree, [1, 1, 1]), time_limit=60)
    ({0: 0.5, 1: 0.5, 2: 0.5}, True)
    """
    valid_time_limit(time_limit)
    if has_duality(o):
        return ffa_from_axps(all_xps(o).axps), True
    if linear.applies(o):
        counts: dict[int, int] = {}
        try:
            _count(linear.stream(o, "axp", time_limit=time_limit,
                                 clock=clocks.clock(kw.get("clock", "cpu"))), counts)
        except TimeLimitExceeded:
            return _shares(counts), False
        return _shares(counts), True
    m = Marco(o, target=target, time_limit=time_limit, **kw)
    for _ in m:
        pass
    return ffa_from_axps(m.axps), m.complete
