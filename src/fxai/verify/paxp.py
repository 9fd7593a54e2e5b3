"""Independent checks of ApproxPAXps: precision counted exactly, without the explainers' code.

The precision of a fixed set ``S`` at ``x`` is the fraction of the points that agree with
``x`` on ``S`` (uniform over the finite domains of the free features) that the model gives
``x``'s class. A :class:`PrecisionCounter` counts those points as integers:

* by enumeration, asking the model's own ``predict`` about every completion, when the
  free features that matter span at most ``exact_limit`` points;
* otherwise by the family's exact count: the leaf boxes of a scikit-learn tree (a product
  of domain-value counts per leaf), ``dd``'s satisfying-assignment count of the OBDD
  restricted to ``x_S``; for a binary ``CategoricalNB`` an integer bracket
  (:class:`fxai.verify.nbc.PrecisionChecker`).

:func:`check_approx_paxp` then asks of an ApproxPAXp exactly what the NBC paper's
Eq. (17) defines: precision ≥ δ, and precision < δ after removing any one feature
(local minimality; precision is not monotone, so no more is guaranteed or checked).
"""

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


class TreePrecision(PrecisionCounter):
    """A fitted scikit-learn ``DecisionTreeClassifier``: each leaf of ``x``'s class is a
    box (``lo < v <= t`` per tested feature, compared in float32 as scikit-learn does); it
    holds the product over the free tested features of their domain values in the box, if
    ``x`` lies in it on the fixed ones. Leaves are disjoint, so the sum is exact."""

    def __init__(self, clf, x, domains, exact_limit: int = 2**16):
        t = clf.tree_
        tested = sorted({int(f) for f in t.feature if f >= 0})
        missing = [f for f in tested if domains[f] is None]
        if missing:
            raise NotImplementedError(f"precision needs finite domains; {missing} are real")
        super().__init__(clf.predict, x, domains, tested, exact_limit)
        c = self.prediction
        self.boxes: list[dict[int, tuple[float, float]]] = []
        stack: list[tuple[int, dict[int, tuple[float, float]]]] = [(0, {})]
        while stack:
            k, box = stack.pop()
            if t.children_left[k] < 0:
                if clf.classes_[int(np.argmax(t.value[k][0]))] == c:
                    self.boxes.append(box)
                continue
            f, thr = int(t.feature[k]), float(t.threshold[k])
            lo, hi = box.get(f, (-np.inf, np.inf))
            stack.append((int(t.children_left[k]), {**box, f: (lo, min(hi, thr))}))
            stack.append((int(t.children_right[k]), {**box, f: (max(lo, thr), hi)}))

    @staticmethod
    def _inside(v, lo: float, hi: float) -> bool:
        v = float(np.float32(v))
        return lo < v <= hi

    def family_counts(self, fixed, level):
        if level:
            return None
        same = 0
        for box in self.boxes:
            n = 1
            for f in self.relevant:
                lo, hi = box.get(f, (-np.inf, np.inf))
                vals = [self.x[f]] if f in fixed else self.domains[f]
                n *= sum(self._inside(v, lo, hi) for v in vals)
            same += n
        return same, same


class BDDPrecision(PrecisionCounter):
    """An fxai ``OBDD`` (Boolean features): ``dd`` restricts the BDD to ``x_S`` and counts
    the satisfying assignments of the free support variables."""

    def __init__(self, obdd, x, exact_limit: int = 2**16):
        self.obdd = obdd
        support = sorted(int(v[1:]) for v in obdd.bdd.support(obdd.root))
        super().__init__(obdd.predict, x, [[0, 1]] * obdd.n_features, support, exact_limit)

    def family_counts(self, fixed, level):
        if level:
            return None
        bdd = self.obdd.bdd
        u = bdd.let({f"x{i}": bool(self.x[i]) for i in fixed if i in self.relevant},
                    self.obdd.root)
        free = [i for i in self.relevant if i not in fixed]
        ones = bdd.count(u, nvars=len(free)) if free else int(u == bdd.true)
        same = ones if self.prediction == 1 else 2 ** len(free) - ones
        return same, same


def precision_counter(model, x, domains=None) -> PrecisionCounter:
    """The exact counter of ``model``'s family (NBC, scikit-learn tree, OBDD)."""
    kind = type(model).__name__
    if kind == "CategoricalNB":
        from fxai.verify.nbc import PrecisionChecker

        return PrecisionChecker(model, x)
    if kind == "DecisionTreeClassifier":
        return TreePrecision(model, x, domains)
    if kind == "OBDD":
        return BDDPrecision(model, x)
    raise NotImplementedError(f"no independent precision count for {kind}")


def check_approx_paxp(counter: PrecisionCounter, axp: Iterable[int] | None,
                      xp: Iterable[int], delta: float, claimed: float | None = None
                      ) -> tuple[bool | None, tuple[Fraction, Fraction]]:
    """``(verified, (lo, hi))`` for an ApproxPAXp ``xp`` (grown from the AXp ``axp`` when
    given): a subset of the AXp, precision ≥ δ, below δ after any single removal, and the
    ``claimed`` precision (if any) within ``[lo, hi]`` up to float rounding. ``verified``
    is None when some precision lies too close to δ to decide; ``(lo, hi)`` brackets the
    precision of ``xp``."""
    xp = set(xp)
    bounds = counter.interval(xp)
    if axp is not None and not xp <= set(axp):
        return False, bounds
    if claimed is not None and not bounds[0] - 1e-12 <= claimed <= bounds[1] + 1e-12:
        return False, bounds
    first = counter.at_least(xp, delta)
    if first is not True:
        return first, bounds
    drops = [counter.at_least(xp - {i}, delta) for i in sorted(xp)]
    if any(d is True for d in drops):
        return False, bounds
    return (None if any(d is None for d in drops) else True), bounds
