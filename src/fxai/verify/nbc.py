"""Independent checks of NBC explanations (no code shared with the explainers).

Works on the fitted scikit-learn ``CategoricalNB`` itself:

* AXps: an NBC is additive, so per rival class the worst completion of a fixed set
  takes, per free feature, the value that most favours that rival; scikit-learn's own
  ``predict`` is asked about those points (and about the points with each explanation
  feature also freed, for subset-minimality). Near a tie, where scikit-learn's float
  rounding decides, it is asked about every completion.
* Precision (:class:`PrecisionChecker`): counted by scikit-learn's ``predict`` on every
  completion when there are few; else bracketed by exact integer counts of the class-score
  differences with every log-probability rounded down / up to a multiple of ``2**-k`` and
  a margin for the rounding of scikit-learn's float64 sums (binary: tight; more classes:
  a union bound over the rival classes), and, while a bracket contains δ, counted exactly
  by enumeration in scikit-learn's arithmetic up to ``ENUM_LIMIT`` completions; beyond
  (more classes), the bracket summed over a refined partition of the completions; if
  that never decides, no verdict (``None``) rather than a guess.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np
from sklearn.naive_bayes import CategoricalNB

from fxai.verify.counting import PrecisionCounter
from fxai.verify.named import named

BRUTE_LIMIT = 2**16  # completions predicted one by one near a tie (a set's free space)
# finest bracket 2**-60: beyond, the margin for scikit-learn's float64 sums dominates, so a
# point that close to a tie stays undecided (no verdict) instead of refining for ever
MAX_LEVEL = 13
# PrecisionChecker: completions counted by enumeration in scikit-learn's arithmetic (2**24
# points: 0.9-2.1 CPU s with 3-7 classes), after ENUM_LEVEL brackets fail to decide
ENUM_LIMIT = 2**24
ENUM_LEVEL = 2
# more classes and completions: the union-bound bracket refined over a partition of the
# completions (PrecisionChecker._refined) at 2**-12, up to REFINE_PARTS · 2**(level - 2)
# parts split per level, levels ENUM_LEVEL..REFINE_LEVELS
REFINE_BITS, REFINE_PARTS, REFINE_LEVELS = 12, 16, 5


def _predict_one(model: CategoricalNB, x) -> int:
    return int(np.flatnonzero(model.classes_ == model.predict(named(model, [x]))[0])[0])


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
        preds = np.searchsorted(self.model.classes_, self.model.predict(named(self.model, pts)))
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
        preds = np.searchsorted(self.model.classes_, self.model.predict(named(self.model, pts)))
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

    Up to ``exact_limit`` completions: scikit-learn's ``predict`` on each. Beyond, per
    level ``j`` an integer bracket with ``k = 8 + 4 j`` bits, then (up to ``enum_limit``
    completions, from level ``ENUM_LEVEL`` on or when no bracket fits) an exact count by
    enumeration in scikit-learn's own arithmetic (:meth:`enumerate_count`).

    The bracket: for the predicted class ``c`` and a rival ``j`` the score difference
    ``D = S_c - S_j`` is a sum of float64 log-probabilities, each an exact dyadic rational,
    so ``floor``/``ceil`` of ``p · 2**k`` bound every term by integers (scaling by a power of
    two is exact) and give integers ``L ≤ 2**k D ≤ U`` per point. scikit-learn sums each
    class's terms in float64, off by at most ``m`` (``(n + 2) 2**-52`` times the summed
    magnitudes); ``c`` surely beats ``j`` if ``L > 2**k m`` and surely loses (or ties) if
    ``U < -2**k m``. Exact integer histograms of ``L`` and ``U`` over the free features
    (beyond 2**62 points: modulo pairwise coprime moduli, restored exactly by the Chinese
    remainder theorem) count both per rival, while a histogram stays within
    ``max_columns`` columns. Binary models: the bracket is exact up to the points within
    the rounding band. More classes: a point is ``c`` only if ``c`` beats every rival, so
    ``#c ≤ min_j #(c possibly beats j)`` and, by the union bound on the rivals' wins,
    ``#c ≥ total - Σ_j #(c not surely beats j)`` — an approximation whose gap (the points
    where two rivals both beat ``c``) a finer ``k`` does not close; beyond ``enum_limit``
    it is summed over a refined partition of the completions (:meth:`_refined`), and a
    bracket that still contains δ gives no verdict (None), never a guess. Histograms are
    cached per (rival, k, side, free set) and extended feature by feature.
    """

    def __init__(self, model: CategoricalNB, x, exact_limit: int = 2**16,
                 max_columns: int = 2**22, enum_limit: int = ENUM_LIMIT):
        n = int(model.n_features_in_)
        doms = [list(range(t.shape[1])) for t in model.feature_log_prob_]
        super().__init__(model.predict, [int(v) for v in x], doms, range(n), exact_limit)
        self.c = int(np.searchsorted(model.classes_, self.prediction))
        self.rivals = [j for j in range(len(model.classes_)) if j != self.c]
        self.tables = [np.asarray(t, dtype=float) for t in model.feature_log_prob_]
        self.prior = np.asarray(model.class_log_prior_, dtype=float)
        size = abs(self.prior).sum() + sum(abs(t).max(axis=1).sum() for t in self.tables)
        self.margin = (n + 2) * 2.0**-52 * float(size)
        self.max_columns, self.enum_limit = max_columns, enum_limit
        self.moduli = _moduli(math.prod(len(d) for d in doms))
        self._hist: dict[tuple[int, int, str, frozenset[int]], tuple[np.ndarray, int]] = {}
        spread = [max(float(np.ptp(t[self.c] - t[j])) for j in self.rivals) if self.rivals
                  else 0.0 for t in self.tables]
        self.order = sorted(range(n), key=lambda i: -spread[i])
        self._parts: dict[frozenset[int], list] = {}

    @staticmethod
    def _bounds(row1, row0, k: int, side: str) -> np.ndarray:
        """Integer bounds on ``(row1 - row0) · 2**k``: lower (``side="L"``) or upper."""
        a, b = np.ldexp(np.asarray(row1, float), k), np.ldexp(np.asarray(row0, float), k)
        out = np.floor(a) - np.ceil(b) if side == "L" else np.ceil(a) - np.floor(b)
        return out.astype(np.int64)

    def _histogram(self, j: int, free: frozenset[int], k: int, side: str):
        """``(counts, offset)`` for ``D = S_c - S_j``: ``counts[:, i]`` (one row per
        modulus) the number of completions of ``free`` whose summed bound is ``offset + i``;
        None past ``max_columns``."""
        key = (j, k, side, free)
        if key in self._hist:
            return self._hist[key]
        cached = [f for (jj, kk, ss, f) in self._hist if (jj, kk, ss) == (j, k, side)
                  and f <= free]
        start = max(cached, key=len, default=frozenset())
        one = np.ones((max(len(self.moduli), 1), 1), dtype=np.int64)
        hist, offset = self._hist.get((j, k, side, start), (one, 0))
        for i in sorted(free - start):
            q = self._bounds(self.tables[i][self.c], self.tables[i][j], k, side)
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

    def _bracket(self, assign: dict[int, int], free: frozenset[int], total: int,
                 k: int) -> tuple[int, int] | None:
        """``(lower, upper)`` on the completions of class ``c`` with the features of
        ``assign`` set to its values, from ``2**-k`` histograms; None when a histogram
        exceeds ``max_columns``."""
        m = math.ceil(self.margin * 2.0**k)
        sure, possible = [], []
        for j in self.rivals:
            for side, out in (("L", sure), ("U", possible)):
                got = self._histogram(j, free, k, side)
                if got is None:
                    return None
                hist, offset = got
                base = int(self._bounds(self.prior[self.c], self.prior[j], k, side)) + sum(
                    int(self._bounds(self.tables[i][self.c][v], self.tables[i][j][v], k,
                                     side)) for i, v in assign.items())
                # c surely beats j when L > m, possibly when U >= -m
                first = (m + 1 if side == "L" else -m) - base - offset
                out.append(self._tail(hist, first))
        return max(0, total - sum(total - s for s in sure)), min(possible)

    def enumerate_count(self, fixed: Iterable[int], chunk: int = 2**18) -> int:
        """The completions of ``fixed`` that scikit-learn predicts as ``c``, counted in its
        own arithmetic: per point the joint log-likelihood summed in float64 feature by
        feature from 0 (``jll += feature_log_prob_[i][:, v]``), plus ``class_log_prior_``,
        then the first maximum (``argmax``) — the same roundings and tie rule as
        ``CategoricalNB.predict``, vectorised in chunks of at most ``chunk`` points (the
        leading free features are looped over, the others broadcast)."""
        return self._enumerate({i: self.x[i] for i in fixed}, chunk)

    def _enumerate(self, assign: dict[int, int], chunk: int = 2**18) -> int:
        free = [i for i in range(len(self.x)) if i not in assign]
        split = 0
        while math.prod(len(self.domains[i]) for i in free[split:]) > chunk:
            split += 1
        outer, n_cls = free[:split], len(self.prior)
        same = 0
        for combo in itertools.product(*(self.domains[i] for i in outer)):
            value = assign | dict(zip(outer, combo, strict=True))
            jll = np.zeros((1, n_cls))
            for i, t in enumerate(self.tables):
                if i in value:
                    jll = jll + t[:, value[i]]
                else:
                    jll = (jll[:, None, :] + t.T[None, :, :]).reshape(-1, n_cls)
            same += int(np.count_nonzero(np.argmax(jll + self.prior, axis=1) == self.c))
        return same

    def _refined(self, fixed: set[int], level: int) -> tuple[int, int] | None:
        """Many classes, too many completions to enumerate: the union-bound bracket summed
        over a partition of the completions, refined by splitting the part with the widest
        bracket on its next free feature (features in decreasing spread of their rival
        differences, so parts at one depth share their histograms); parts of at most
        ``exact_limit`` completions are enumerated. Each level splits up to
        ``REFINE_PARTS · 2**(level - ENUM_LEVEL)`` more parts (the per-part clipping at 0
        and the per-part minimum over the rivals tighten the sum)."""
        key = frozenset(fixed)
        if key not in self._parts:
            free = frozenset(range(len(self.x))) - key
            total = math.prod(len(self.domains[i]) for i in free)
            got = self._bracket({i: self.x[i] for i in key}, free, total, REFINE_BITS)
            if got is None:
                return None
            self._parts[key] = [({i: self.x[i] for i in key}, free, total, *got)]
        parts = self._parts[key]
        for _ in range(REFINE_PARTS * 2 ** (level - ENUM_LEVEL)):
            widest = max(range(len(parts)), key=lambda p: parts[p][4] - parts[p][3])
            assign, free, total, lo, hi = parts[widest]
            if hi == lo:
                break
            del parts[widest]
            if total <= max(self.exact_limit, 1):
                same = self._enumerate(assign)
                parts.append((assign, free, total, same, same))
                continue
            f = next(i for i in self.order if i in free)
            sub, each = free - {f}, total // len(self.domains[f])
            for v in self.domains[f]:
                got = self._bracket(assign | {f: v}, sub, each, REFINE_BITS)
                if got is None:
                    return None
                parts.append((assign | {f: v}, sub, each, *got))
        return sum(p[3] for p in parts), sum(p[4] for p in parts)

    def family_counts(self, fixed: set[int], level: int) -> tuple[int, int] | None:
        free = frozenset(range(len(self.x))) - fixed
        total = math.prod(len(self.domains[i]) for i in free)
        enumerable = total <= self.enum_limit
        if enumerable and level >= ENUM_LEVEL:
            same = self.enumerate_count(fixed)
            return same, same
        if len(self.rivals) > 1 and level >= ENUM_LEVEL:
            return self._refined(fixed, level) if level <= REFINE_LEVELS else None
        got = self._bracket({i: self.x[i] for i in fixed}, free, total, 8 + 4 * level) \
            if level <= MAX_LEVEL else None
        if got is None and enumerable:
            same = self.enumerate_count(fixed)
            return same, same
        return got


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
