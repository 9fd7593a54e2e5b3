"""Exact precision counts of fixed sets: the base the families' counters share
(:mod:`fxai.verify.paxp`, :class:`fxai.verify.nbc.PrecisionChecker`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np

from fxai.verify.brute import completions

Counts = tuple[int, int, int]  # (lower, upper, total): lower ≤ #same class ≤ upper


class PrecisionCounter:
    """Exact precision of fixed sets for one model at ``x``.

    ``relevant`` are the features the model reads (the others never change its class),
    ``domains`` their values. Subclasses add ``family_counts(fixed, level)`` for spaces
    too large to enumerate: ``(lower, upper)`` counts over the relevant free features, or
    None when ``level`` is beyond their finest resolution (exact methods answer at level 0).
    """

    def __init__(self, predict, x: Sequence, domains: Sequence, relevant: Iterable[int],
                 exact_limit: int = 2**16):
        self.predict, self.x, self.exact_limit = predict, list(x), exact_limit
        self.domains = list(domains)
        self.relevant = sorted(relevant)
        self.prediction = predict(np.asarray([self.x]))[0]

    def family_counts(self, fixed: set[int], level: int) -> tuple[int, int] | None:
        raise NotImplementedError

    def counts(self, fixed: Iterable[int], level: int = 0) -> Counts | None:
        """``(lower, upper, total)`` over the relevant free features, None past the finest
        level."""
        fixed = set(fixed)
        free = [i for i in self.relevant if i not in fixed]
        total = math.prod(len(self.domains[i]) for i in free)
        if total <= self.exact_limit:
            if level:
                return None
            pts = completions(self._grid(), self.x, fixed)
            same = int(np.count_nonzero(self.predict(pts) == self.prediction))
            return same, same, total
        found = self.family_counts(fixed, level)
        return None if found is None else (*found, total)

    def _grid(self) -> list[list]:
        """Per feature: its domain if relevant, else ``x``'s value alone."""
        rel = set(self.relevant)
        return [list(self.domains[i]) if i in rel else [v] for i, v in enumerate(self.x)]

    def interval(self, fixed: Iterable[int], width: float = 1e-3) -> tuple[Fraction, Fraction]:
        """Bounds on the precision (equal when exact), refined until they are at most
        ``width`` apart or at the finest level; (0, 1) when nothing counts."""
        fixed = set(fixed)
        level, best = 0, (0, 1, 1)
        while (c := self.counts(fixed, level)) is not None:
            best, level = c, level + 1
            if c[1] - c[0] <= width * c[2]:
                break
        lo, hi, total = best
        return Fraction(lo, total), Fraction(hi, total)

    def at_least(self, fixed: Iterable[int], delta: float) -> bool | None:
        """Whether precision ≥ δ (``delta`` taken as the exact value of the float);
        None if even the finest bracket contains δ."""
        fixed, level = set(fixed), 0
        while (c := self.counts(fixed, level)) is not None:
            lo, hi, total = c
            need = Fraction(delta) * total
            if lo >= need:
                return True
            if hi < need:
                return False
            level += 1
        return None
