"""Independent checks of NBC explanations (no code shared with the explainers).

Works on the fitted scikit-learn ``CategoricalNB`` itself:

* AXps: an NBC is additive, so the worst completion of a fixed set takes, per free
  feature, the value that most favours the other class; scikit-learn's own ``predict``
  is asked about that point (and about the point with each explanation feature also
  freed, for subset-minimality).
* Precision (:class:`PrecisionChecker`): counted by scikit-learn's ``predict`` on every
  completion when there are few, else (binary models) bracketed by exact integer counts of
  the class-score difference with every log-probability rounded down / up to a multiple
  of ``2**-k`` (refined while the bracket contains δ) and a margin for the rounding of
  scikit-learn's own float64 sums.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from sklearn.naive_bayes import CategoricalNB

from fxai.verify.paxp import PrecisionCounter


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
        if not self.binary:
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
