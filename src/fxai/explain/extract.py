"""Deletion-based extraction of one AXp / one CXp from a seed (generic over oracles)."""

from __future__ import annotations

from collections.abc import Iterable

from fxai.oracles.base import Oracle


def find_axp(o: Oracle, seed: Iterable[int] | None = None, order: Iterable[int] | None = None):
    """One AXp (sorted feature list) inside ``seed`` (default: all of ``o.features``).

    ``seed`` must be a weak AXp. Features are tried for removal in ``order``
    (default ascending index); a feature stays only if freeing it breaks entailment.
    """
    fixed = set(o.features if seed is None else seed)
    for i in sorted(fixed) if order is None else [j for j in order if j in fixed]:
        fixed.discard(i)
        if not o.entails(fixed):
            fixed.add(i)
    return sorted(fixed)


def find_cxp(o: Oracle, seed: Iterable[int] | None = None, order: Iterable[int] | None = None):
    """One CXp (sorted feature list) inside ``seed`` (default: all of ``o.features``).

    ``seed`` must be a weak CXp: freeing it (fixing the rest) changes the prediction.
    Returns None when no CXp exists (the prediction is constant) and no seed was given.
    Features are tried in ``order``; each is re-fixed when a counterexample remains.
    When the oracle returns counterexample points, freed features on which the point
    agrees with the instance are re-fixed at once (as the reference code does).
    """
    feats = o.features
    free = set(feats if seed is None else seed)
    fixed = set(feats) - free
    cex = o.counterexample(fixed)
    if cex is None:
        if seed is None:
            return None
        raise ValueError("seed is not a weak CXp: fixing its complement entails the prediction")
    free = _shrink_by_point(o, free, cex)
    for i in sorted(free) if order is None else [j for j in order if j in free]:
        if i not in free:
            continue
        cex = o.counterexample((set(feats) - free) | {i})
        if cex is not None:
            free.discard(i)
            free = _shrink_by_point(o, free, cex)
    return sorted(free)


def _shrink_by_point(o: Oracle, free: set[int], point) -> set[int]:
    """Freed features whose counterexample value equals the instance's need not be free."""
    if not point:
        return free
    v = o.instance
    return {i for i in free if point[i] != v[i]}
