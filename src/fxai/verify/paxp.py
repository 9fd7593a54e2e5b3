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

from collections.abc import Iterable
from fractions import Fraction

import numpy as np

from fxai.verify.counting import PrecisionCounter
from fxai.verify.nbc import PrecisionChecker
from fxai.verify.xpg import leaf_boxes


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
        self.boxes = [box for label, box in leaf_boxes(clf) if label == self.prediction]

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
