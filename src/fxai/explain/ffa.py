"""Formal feature attribution: the fraction of AXps that contain each feature."""

from __future__ import annotations

from collections.abc import Iterable

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
    """FFA of ``o``'s instance by MARCO; returns ``(ffa, complete)``.

    Exact when ``complete`` is true (every AXp found within the time limit).
    """
    m = Marco(o, target=target, time_limit=time_limit, **kw)
    for _ in m:
        pass
    return ffa_from_axps(m.axps), m.complete
