"""Independent checks of NBC explanations (no code shared with the explainers).

Works on the fitted scikit-learn ``CategoricalNB`` itself:

* AXps: an NBC is additive, so per rival class the worst completion of a fixed set
  takes, per free feature, the value that most favours that rival; scikit-learn's own
  ``predict`` is asked about those points (and about the points with each explanation
  feature also freed, for subset-minimality). Near a tie, where scikit-learn's float
  rounding decides, it is asked about every completion.
* Precision: exact by scikit-learn's ``predict`` on every completion when there are few;
  else bracketed, per rival ``j``, by histograms of the real-valued score difference
  with values rounded down / up at a fine resolution (refined when the bracket contains
  the threshold δ), combined as ``(1 - Σ_j (1 - lo_j), min_j hi_j)`` (exact bounds of
  an intersection; equal to the pair's for two classes).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np
from sklearn.naive_bayes import CategoricalNB

BRUTE_LIMIT = 2**16  # completions predicted one by one near a tie (a set's free space)


def _predict_one(model: CategoricalNB, x) -> int:
    return int(np.flatnonzero(model.classes_ == model.predict([x])[0])[0])


def _completions(x: list[int], sizes: list[int], fixed: set[int]) -> np.ndarray:
    axes = [[v] if i in fixed else range(d) for i, (v, d) in enumerate(zip(x, sizes,
                                                                           strict=True))]
    return np.array(list(itertools.product(*axes)), dtype=int)


class _Adversary:
    """The completions of a fixed set that most favour each rival class ``j`` over the
    predicted ``c`` (per free feature, the value minimising ``lPr(v|c) - lPr(v|j)``).

    In real arithmetic ``S`` entails ``c`` iff scikit-learn predicts ``c`` at all of them.
    scikit-learn sums floats; where a rival's real margin at its point is within
    ``tie_band`` of 0 (an exact or near tie, decided by rounding), every completion of
    the set is predicted instead (at most ``BRUTE_LIMIT``; beyond, ValueError).
    """

    def __init__(self, model: CategoricalNB, x):
        self.model, self.x = model, [int(v) for v in x]
        self.c = _predict_one(model, self.x)
        logp = [np.asarray(t, dtype=float) for t in model.feature_log_prob_]
        prior = np.asarray(model.class_log_prior_, dtype=float)
        self.sizes = [t.shape[1] for t in logp]
        self.rivals = [j for j in range(len(prior)) if j != self.c]
        self.diffs = [[t[self.c] - t[j] for t in logp] for j in self.rivals]
        self.prior = [float(prior[self.c] - prior[j]) for j in self.rivals]
        self.worst = [[int(np.argmin(d)) for d in ds] for ds in self.diffs]
        mag = sum(float(np.abs(t).max()) for t in logp) + float(np.abs(prior).max())
        self.tie_band = 1e-9 * max(1.0, mag)  # far above float64 rounding (~1e-16 · mag · n)

    def point(self, k: int, fixed: set[int]) -> list[int]:
        return [v if i in fixed else self.worst[k][i] for i, v in enumerate(self.x)]

    def margin(self, k: int, point: list[int]) -> float:
        return self.prior[k] + sum(float(d[v]) for d, v in zip(self.diffs[k], point,
                                                               strict=True))

    def entailed(self, sets: list[set[int]]) -> list[bool]:
        """Does each fixed set force ``c`` (batched predict on the adversarial points)?"""
        pts = [self.point(k, s) for s in sets for k in range(len(self.rivals))]
        preds = np.searchsorted(self.model.classes_, self.model.predict(np.asarray(pts)))
        preds = preds.reshape(len(sets), len(self.rivals))
        out = []
        for s, row, base in zip(sets, preds, range(0, len(pts), len(self.rivals)),
                                strict=True):
            if any(abs(self.margin(k, pts[base + k])) <= self.tie_band
                   for k in range(len(self.rivals))):
                out.append(self._brute(s))
            else:
                out.append(bool(np.all(row == self.c)))
        return out

    def _brute(self, fixed: set[int]) -> bool:
        space = math.prod(d for i, d in enumerate(self.sizes) if i not in fixed)
        if space > BRUTE_LIMIT:
            raise ValueError(f"a near tie with {space} completions: more than BRUTE_LIMIT")
        pts = _completions(self.x, self.sizes, fixed)
        preds = np.searchsorted(self.model.classes_, self.model.predict(pts))
        return bool(np.all(preds == self.c))


def weak_axp_fn(model: CategoricalNB, x):
    """Batched test "does fixing S to x force the prediction?" for sets S, by scikit-learn's
    predict on the worst completion per rival class (every completion near a tie)."""
    return _Adversary(model, x).entailed


def check_axp(model: CategoricalNB, x, xp: Iterable[int]) -> bool:
    """True iff ``xp`` is an AXp of ``model`` at ``x``: fixing it forces the prediction,
    and freeing any one more feature lets scikit-learn predict another class."""
    xp = sorted(set(xp))
    ok = _Adversary(model, x).entailed([set(xp)] + [set(xp) - {i} for i in xp])
    return bool(ok[0] and not any(ok[1:]))


class PrecisionChecker:
    """Precision of fixed sets for one instance of an NBC.

    ``interval(fixed)`` returns ``(lo, hi)`` with ``lo ≤ precision ≤ hi``: exact
    (``lo == hi``) by scikit-learn's ``predict`` on every completion when the free space
    has at most ``exact_limit`` points; otherwise, per rival class, by two histograms of
    the summed real-valued class-score difference at resolution ``10**-decimals``, one with
    every value rounded down and one rounded up (they bracket the true count of "the
    predicted class beats this rival"), combined over the rivals as ``(1 - Σ(1 - lo_j),
    min hi_j)``. Histograms are cached per free set and extended feature by feature.
    """

    def __init__(self, model: CategoricalNB, x, exact_limit: int = 2**20):
        self.adv = _Adversary(model, x)
        self.model, self.x, self.c = model, self.adv.x, self.adv.c
        self.exact_limit = exact_limit
        self._exact_cache: dict[frozenset[int], float] = {}
        self._hist: dict[tuple[int, int, str, frozenset[int]], tuple[np.ndarray, int]] = {}

    def _base(self, k: int, fixed: set[int]) -> float:
        return self.adv.prior[k] + sum(float(self.adv.diffs[k][i][self.x[i]]) for i in fixed)

    def _exact(self, fixed: set[int], free: list[int], chunk: int = 2**16) -> float:
        key = frozenset(fixed)
        if key not in self._exact_cache:
            self._exact_cache[key] = self._count(free, chunk)
        return self._exact_cache[key]

    def _count(self, free: list[int], chunk: int) -> float:
        sizes = [self.adv.sizes[i] for i in free]
        space = math.prod(sizes)
        hits = 0
        for start in range(0, space, chunk):
            flat = np.arange(start, min(start + chunk, space))
            pts = np.tile(np.asarray(self.x), (len(flat), 1))
            for i, size in zip(free[::-1], sizes[::-1], strict=True):  # mixed radix
                pts[:, i], flat = flat % size, flat // size
            pred = np.searchsorted(self.model.classes_, self.model.predict(pts))
            hits += int(np.count_nonzero(pred == self.c))
        return hits / space

    def _histogram(self, k: int, free: frozenset[int], decimals: int, side: str):
        """``(probabilities, offset)``: P(Σ_free r(d_i) = offset + k) for integer-rounded
        ``r = floor`` or ``ceil`` of rival ``k``'s ``d_i · 10**decimals``."""
        key = (k, decimals, side, free)
        if key in self._hist:
            return self._hist[key]
        cached = [h[3] for h in self._hist if h[:3] == (k, decimals, side) and h[3] <= free]
        start = max(cached, key=len, default=frozenset())
        hist, offset = self._hist.get((k, decimals, side, start), (np.ones(1), 0))
        rnd = np.floor if side == "floor" else np.ceil
        for i in sorted(free - start):
            q = rnd(self.adv.diffs[k][i] * 10.0**decimals).astype(np.int64)
            lo = int(q.min())
            out = np.zeros(hist.size + int(q.max()) - lo)
            for v in q - lo:
                out[v:v + hist.size] += hist / q.size
            hist, offset = out, offset + lo
        if hist.size <= 2_000_000:  # keep memory bounded; finer histograms are rare
            self._hist[key] = (hist, offset)
        return hist, offset

    def _p_beats(self, k: int, fixed: set[int], free: frozenset[int], decimals: int,
                 side: str) -> float:
        """P(base + Σ r(d_i)·10**-decimals > 0), or ``≥ 0`` when the rival comes later
        (the first class wins a tie): a lower (floor) or upper (ceil) bound of the
        probability that the predicted class beats rival ``k``."""
        hist, offset = self._histogram(k, free, decimals, side)
        scaled = -self._base(k, fixed) * 10.0**decimals
        strict = self.adv.rivals[k] < self.c
        need = (int(np.floor(scaled)) + 1 if strict else int(np.ceil(scaled))) - offset
        return float(hist[max(need, 0):].sum())

    def interval(self, fixed: Iterable[int], decimals: int = 3) -> tuple[float, float]:
        fixed = set(fixed)
        free = [i for i in range(len(self.x)) if i not in fixed]
        if np.prod([float(self.adv.sizes[i]) for i in free]) <= self.exact_limit:
            p = self._exact(fixed, free)
            return p, p
        los = [self._p_beats(k, fixed, frozenset(free), decimals, "floor")
               for k in range(len(self.adv.rivals))]
        his = [self._p_beats(k, fixed, frozenset(free), decimals, "ceil")
               for k in range(len(self.adv.rivals))]
        return max(0.0, 1.0 - sum(1.0 - p for p in los)), min(his)

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
