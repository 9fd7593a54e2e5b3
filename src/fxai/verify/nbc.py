"""Independent checks of NBC explanations (no code shared with the explainers).

Works on the fitted scikit-learn ``CategoricalNB`` itself:

* AXps: an NBC is additive, so per rival class the worst completion of a fixed set
  takes, per free feature, the value that most favours that rival; scikit-learn's own
  ``predict`` is asked about those points (and about the points with each explanation
  feature also freed, for subset-minimality). Near a tie, where scikit-learn's float
  rounding decides, it is asked about every completion.
* Precision (:class:`PrecisionChecker`): counted by scikit-learn's ``predict`` on every
  completion when there are few, else (binary models) bracketed by exact integer counts of
  the class-score difference with every log-probability rounded down / up to a multiple
  of ``2**-k`` (refined while the bracket contains δ) and a margin for the rounding of
  scikit-learn's own float64 sums; with more than two classes and more completions, no
  verdict (``None``) rather than a guess.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np
from sklearn.naive_bayes import CategoricalNB

from fxai.verify.counting import PrecisionCounter

BRUTE_LIMIT = 2**16  # completions predicted one by one near a tie (a set's free space)
# finest bracket 2**-60: beyond, the margin for scikit-learn's float64 sums dominates, so a
# point that close to a tie stays undecided (no verdict) instead of refining for ever
MAX_LEVEL = 13


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


class PrecisionChecker(PrecisionCounter):
    """Exact precision counts of a ``CategoricalNB`` at ``x`` (:mod:`fxai.verify.paxp`).

    Up to ``exact_limit`` completions: scikit-learn's ``predict`` on each. Beyond (binary
    models only): the class-1 score difference ``S`` is a sum of float64 log-probabilities,
    each an exact dyadic rational, so ``floor``/``ceil`` of ``p · 2**k`` bound every term by
    integers (exactly: scaling by a power of two is exact) and give integers
    ``L ≤ 2**k S ≤ U`` per point. scikit-learn sums each class's terms in float64, off by at
    most ``m`` (``(n + 2) 2**-52`` times the summed magnitudes); a point is surely class 1
    if ``L > 2**k m`` and surely class 0 if ``U < -2**k m``. Exact integer histograms of
    ``L`` and ``U`` over the free features (beyond 2**62 points: modulo pairwise coprime
    moduli, restored exactly by the Chinese remainder theorem) then bracket the count;
    level ``j`` uses ``k = 8 + 4 j`` bits while a histogram stays within ``max_columns``
    columns. Histograms are cached per (k, free set) and extended feature by feature.
    """

    def __init__(self, model: CategoricalNB, x, exact_limit: int = 2**16,
                 max_columns: int = 2**22):
        n = int(model.n_features_in_)
        doms = [list(range(t.shape[1])) for t in model.feature_log_prob_]
        super().__init__(model.predict, [int(v) for v in x], doms, range(n), exact_limit)
        self.binary = len(model.classes_) == 2
        self.c = int(np.searchsorted(model.classes_, self.prediction))
        self.tables = [np.asarray(t, dtype=float) for t in model.feature_log_prob_]
        self.prior = np.asarray(model.class_log_prior_, dtype=float)
        size = abs(self.prior).sum() + sum(abs(t).max(axis=1).sum() for t in self.tables)
        self.margin = (n + 2) * 2.0**-52 * float(size)
        self.max_columns = max_columns
        self.moduli = _moduli(math.prod(len(d) for d in doms))
        self._hist: dict[tuple[int, str, frozenset[int]], tuple[np.ndarray, int]] = {}

    @staticmethod
    def _bounds(row1, row0, k: int, side: str) -> np.ndarray:
        """Integer bounds on ``(row1 - row0) · 2**k``: lower (``side="L"``) or upper."""
        a, b = np.ldexp(np.asarray(row1, float), k), np.ldexp(np.asarray(row0, float), k)
        out = np.floor(a) - np.ceil(b) if side == "L" else np.ceil(a) - np.floor(b)
        return out.astype(np.int64)

    def _histogram(self, free: frozenset[int], k: int, side: str):
        """``(counts, offset)``: ``counts[:, j]`` (one row per modulus) the number of
        completions of ``free`` whose summed bound is ``offset + j``; None past
        ``max_columns``."""
        key = (k, side, free)
        if key in self._hist:
            return self._hist[key]
        cached = [f for (kk, ss, f) in self._hist if (kk, ss) == (k, side) and f <= free]
        start = max(cached, key=len, default=frozenset())
        one = np.ones((max(len(self.moduli), 1), 1), dtype=np.int64)
        hist, offset = self._hist.get((k, side, start), (one, 0))
        for i in sorted(free - start):
            q = self._bounds(self.tables[i][1], self.tables[i][0], k, side)
            lo, width = int(q.min()), hist.shape[1]
            if width + int(q.max()) - lo > self.max_columns:
                return None
            out = np.zeros((hist.shape[0], width + int(q.max()) - lo), dtype=np.int64)
            for v in q - lo:
                out[:, v:v + width] += hist
            if self.moduli:
                out %= np.asarray(self.moduli, dtype=np.int64)[:, None]
            hist, offset = out, offset + lo
        self._hist[key] = (hist, offset)
        return hist, offset

    def _tail(self, hist: np.ndarray, first: int) -> int:
        """Exact number of completions in columns ``first..`` (CRT over the moduli)."""
        sums = [int(r[max(first, 0):].sum()) for r in hist]
        if not self.moduli:
            return sums[0]
        big = math.prod(self.moduli)
        return sum(s * (big // m) * pow(big // m, -1, m) for s, m in zip(sums, self.moduli,
                                                                          strict=True)) % big

    def family_counts(self, fixed: set[int], level: int) -> tuple[int, int] | None:
        if not self.binary or level > MAX_LEVEL:
            return None
        k = 8 + 4 * level
        free = frozenset(range(len(self.x))) - fixed
        total = math.prod(len(self.domains[i]) for i in free)
        m = math.ceil(self.margin * 2.0**k)
        ones = []
        for side in ("L", "U"):
            got = self._histogram(free, k, side)
            if got is None:
                return None
            hist, offset = got
            base = int(self._bounds(self.prior[1], self.prior[0], k, side)) + sum(
                int(self._bounds(self.tables[i][1][self.x[i]], self.tables[i][0][self.x[i]],
                                 k, side)) for i in fixed)
            # class 1 surely when L > m, possibly when U >= -m
            first = (m + 1 if side == "L" else -m) - base - offset
            ones.append(self._tail(hist, first))
        lo1, hi1 = ones
        return (lo1, hi1) if self.c == 1 else (total - hi1, total - lo1)


def _moduli(total: int) -> list[int]:
    """No moduli when counts up to ``total`` fit int64 sums; else pairwise coprime moduli
    below 2**31 whose product exceeds ``total`` (counts are kept modulo each, exactly
    restored by the Chinese remainder theorem; a feature's shifted sums stay below 2**63)."""
    if total < 2**62:
        return []
    out, m = [], 2**31 - 1
    while math.prod(out) <= total:
        if all(math.gcd(m, o) == 1 for o in out):
            out.append(m)
        m -= 2
    return out
