"""Independent checks of NBC explanations (no code shared with the explainers).

Works on the fitted scikit-learn ``CategoricalNB`` itself:

* AXps: an NBC is additive, so the worst completion of a fixed set takes, per free
  feature, the value that most favours the other class; scikit-learn's own ``predict``
  is asked about that point (and about the point with each explanation feature also
  freed, for subset-minimality).
* Precision: of the real-valued (float64) class-score differences, exact by enumerating
  every completion when there are few, else bracketed by histograms of the score sum
  with values rounded down / up at a fine resolution (refined when the bracket contains
  the threshold δ).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from sklearn.naive_bayes import CategoricalNB


def _score_diffs(model: CategoricalNB) -> tuple[float, list[np.ndarray]]:
    """Class-1 minus class-0 log scores: prior part and one array per feature."""
    prior = float(model.class_log_prior_[1] - model.class_log_prior_[0])
    return prior, [np.asarray(t[1] - t[0], dtype=float) for t in model.feature_log_prob_]


def _predict_one(model: CategoricalNB, x) -> int:
    return int(np.flatnonzero(model.classes_ == model.predict([x])[0])[0])


def _adversary(model: CategoricalNB, x):
    """(class of x, fixed set -> the completion that most favours the other class)."""
    x = [int(v) for v in x]
    c = _predict_one(model, x)
    _, diffs = _score_diffs(model)
    worst = [int(np.argmin(d)) if c == 1 else int(np.argmax(d)) for d in diffs]
    return c, lambda fixed: [v if i in fixed else worst[i] for i, v in enumerate(x)]


def weak_axp_fn(model: CategoricalNB, x):
    """Batched test "does fixing S to x force the prediction?" for sets S, by one call of
    scikit-learn's predict on the worst completion of each S."""
    c, adversary = _adversary(model, x)

    def weak_axps(sets: list[set[int]]) -> list[bool]:
        points = np.asarray([adversary(set(s)) for s in sets])
        return list(np.searchsorted(model.classes_, model.predict(points)) == c)

    return weak_axps


def check_axp(model: CategoricalNB, x, xp: Iterable[int]) -> bool:
    """True iff ``xp`` is an AXp of ``model`` at ``x``: fixing it forces the prediction,
    and freeing any one more feature lets scikit-learn predict the other class."""
    xp = sorted(set(xp))
    c, adversary = _adversary(model, x)
    rows = [adversary(set(xp))] + [adversary(set(xp) - {i}) for i in xp]
    pred = np.searchsorted(model.classes_, model.predict(np.asarray(rows)))
    return bool(pred[0] == c and np.all(pred[1:] != c))


class PrecisionChecker:
    """Precision of fixed sets for one instance of the real-valued (float64) NBC.

    ``interval(fixed)`` returns ``(lo, hi)`` with ``lo ≤ precision ≤ hi``: exact
    (``lo == hi``) by enumeration when the free space has at most ``exact_limit`` points,
    otherwise by two histograms of the summed class-score difference at resolution
    ``10**-decimals``, one with every value rounded down and one rounded up (they bracket
    the true count). Histograms are cached per free set and extended feature by feature.
    """

    def __init__(self, model: CategoricalNB, x, exact_limit: int = 2**20):
        self.x = [int(v) for v in x]
        self.c = _predict_one(model, self.x)
        self.prior, self.diffs = _score_diffs(model)
        self.exact_limit = exact_limit
        self._hist: dict[tuple[int, str, frozenset[int]], tuple[np.ndarray, int]] = {}

    def _base(self, fixed: set[int]) -> float:
        return self.prior + sum(float(self.diffs[i][self.x[i]]) for i in fixed)

    def _exact(self, fixed: set[int], free: list[int]) -> float:
        sums = np.full(1, self._base(fixed))
        for i in free:
            sums = np.add.outer(sums, self.diffs[i]).ravel()
        ones = int(np.count_nonzero(sums > 0))  # ties go to class 0, as argmax does
        return (ones if self.c == 1 else sums.size - ones) / sums.size

    def _histogram(self, free: frozenset[int], decimals: int, side: str):
        """``(probabilities, offset)``: P(Σ_free r(d_i) = offset + k) for integer-rounded
        ``r = floor`` or ``ceil`` of ``d_i · 10**decimals``."""
        key = (decimals, side, free)
        if key in self._hist:
            return self._hist[key]
        cached = [k[2] for k in self._hist if k[:2] == (decimals, side) and k[2] <= free]
        start = max(cached, key=len, default=frozenset())
        hist, offset = self._hist.get((decimals, side, start), (np.ones(1), 0))
        rnd = np.floor if side == "floor" else np.ceil
        for i in sorted(free - start):
            q = rnd(self.diffs[i] * 10.0**decimals).astype(np.int64)
            lo = int(q.min())
            out = np.zeros(hist.size + int(q.max()) - lo)
            for v in q - lo:
                out[v:v + hist.size] += hist / q.size
            hist, offset = out, offset + lo
        if hist.size <= 2_000_000:  # keep memory bounded; finer histograms are rare
            self._hist[key] = (hist, offset)
        return hist, offset

    def _p_class1(self, fixed: set[int], free: frozenset[int], decimals: int, side: str):
        """P(base + Σ r(d_i)·10**-decimals > 0), which bounds P(ν > 0) from below (floor)
        or above (ceil)."""
        hist, offset = self._histogram(free, decimals, side)
        need = int(np.floor(-self._base(fixed) * 10.0**decimals)) + 1 - offset
        return float(hist[max(need, 0):].sum())

    def interval(self, fixed: Iterable[int], decimals: int = 3) -> tuple[float, float]:
        fixed = set(fixed)
        free = [i for i in range(len(self.x)) if i not in fixed]
        if np.prod([float(self.diffs[i].size) for i in free]) <= self.exact_limit:
            p = self._exact(fixed, free)
            return p, p
        lo1 = self._p_class1(fixed, frozenset(free), decimals, "floor")
        hi1 = self._p_class1(fixed, frozenset(free), decimals, "ceil")
        return (lo1, hi1) if self.c == 1 else (1.0 - hi1, 1.0 - lo1)

    def at_least(self, fixed: Iterable[int], delta: float,
                 decimals: tuple[int, ...] = (3, 4, 5)) -> bool | None:
        """Whether precision ≥ δ; None if the finest resolution still brackets δ."""
        fixed = set(fixed)
        for d in decimals:
            lo, hi = self.interval(fixed, d)
            if lo >= delta:
                return True
            if hi < delta:
                return False
        return None


def check_approx_paxp(checker: PrecisionChecker, axp: Iterable[int], xp: Iterable[int],
                      delta: float) -> tuple[bool | None, tuple[float, float]]:
    """``(verified, (lo, hi))`` for an ApproxPAXp ``xp`` grown from AXp ``axp``: it must be a
    subset of the AXp, have precision ≥ δ, and every single removal must fall below δ.
    ``verified`` is None when a precision lies too close to δ to decide; ``(lo, hi)``
    brackets the precision of ``xp``."""
    xp = set(xp)
    bounds = checker.interval(xp)
    if not xp <= set(axp):
        return False, bounds
    first = checker.at_least(xp, delta)
    if first is not True:
        return first, bounds
    drops = [checker.at_least(xp - {i}, delta) for i in sorted(xp)]
    if any(d is True for d in drops):
        return False, bounds
    return (None if any(d is None for d in drops) else True), bounds
