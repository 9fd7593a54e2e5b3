"""Formal feature attribution: the fraction of AXps that contain each feature."""

from __future__ import annotations

from collections.abc import Iterable

from fxai.explain.exact import all_xps, has_duality
from fxai.explain.marco import Marco
from fxai.oracles.base import Oracle


def ffa_from_axps(axps: Iterable[Iterable[int]]) -> dict[int, float]:
    """FFA of each feature that occurs in some AXp (features in none have FFA 0)."""
    axps = [tuple(a) for a in axps]
    counts: dict[int, int] = {}
    for a in axps:
        for f in a:
            counts[f] = counts.get(f, 0) + 1
    return {f: n / len(axps) for f, n in sorted(counts.items())}


def ffa(o: Oracle, time_limit: float | None = None, target: str = "switch", **kw):
    """FFA of ``o``'s instance; returns ``(ffa, complete)``.

    Trees (:func:`fxai.explain.has_duality`) take the exact duality route (always
    complete); other oracles run MARCO with ``target`` (default MARCO-S) under
    ``time_limit`` (other keywords go to :class:`Marco`), exact when ``complete`` is true.

    Examples
    --------
    >>> from fxai import oracles
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = [[0, 0], [0, 1], [1, 0], [1, 1]], [0, 0, 0, 1]  # x0 and x1
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> ffa(oracles.for_model(tree, [0, 0], domains=[[0, 1], [0, 1]]))  # AXps {x0}, {x1}
    ({0: 0.5, 1: 0.5}, True)
    """
    if has_duality(o):
        return ffa_from_axps(all_xps(o).axps), True
    m = Marco(o, target=target, time_limit=time_limit, **kw)
    for _ in m:
        pass
    return ffa_from_axps(m.axps), m.complete
