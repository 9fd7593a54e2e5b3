"""The NBC oracle: entailment by the XLC slack per class pair, precision by counting.

The model is scikit-learn's ``CategoricalNB`` as it computes (:class:`NBCTables`: float64
scores, argmax, the first class on ties), with any number of classes. The prediction
``c`` is entailed by ``S`` iff no rival ``j`` can beat it: per pair, the score difference
``score_c - score_j`` is additive, so its minimum over the free features is
``Γ_j - Σ_{i∉S} δ_i^j`` (the binary XLC reduction of Section 3, once per rival).

Exactness. Those minima are real-valued sums of float differences; scikit-learn compares
two float sums. Both differ from the real difference by less than a rounding bound
``band_j`` (:meth:`NBCTables.pair_error`). A minimum above ``band_j`` proves the pair for
every completion; one below ``-band_j`` gives a counterexample (the worst point, checked
with the scikit-learn summation). In between (an exact or near tie), every completion
whose difference lies within the band is enumerated and predicted as scikit-learn does
(:class:`NearTieError` beyond ``BAND_LIMIT`` of them). So ``prediction``, ``entails`` and
``counterexample`` are exact for scikit-learn's ``predict``, ties included.

``precision(S)`` of a binary NBC: the paper's pseudo-polynomial count. Weights are scaled
to integers with ``decimals`` places (paper: 3); the distribution of the summed integer loss of the
free features is built by vectorised shifted additions (one per distinct loss value of
each free feature), truncated at the threshold (mass beyond it never comes back, losses
being non-negative), in float64 probabilities (no overflow for any number of features).
Distributions are cached per free set, so a deletion loop that frees one feature at a
time costs one convolution per accepted feature and ``d_i`` look-ups per test.

``precision_bounds(S, decimals)`` rounds losses down / up instead of to nearest, giving
rigorous bounds on the precision of the real-valued model; ``precision_at_least`` decides
``precision ≥ δ`` for the real-valued model by refining those bounds.

Multi-class precision: exact (scikit-learn's float scores, every completion counted) when
the free space has at most ``EXACT_LIMIT`` points. Beyond, the event "c wins" is the
intersection over rivals of "c beats j", and the oracle uses the union (Bonferroni)
bound ``precision ≥ 1 - Σ_j Pr[j beats c]`` with one pair DP per rival: ``precision`` is
that lower bound for the scaled model; ``precision_bounds`` gives rigorous ``(1 - Σ_j
(1 - lo_j), min_j hi_j)`` from the pairs' rounded-down / -up DPs, and
``precision_at_least`` decides with them (a True is a guarantee; undecided answers False).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction

import numpy as np
from sklearn.naive_bayes import CategoricalNB

from fxai.errors import NearTieError
from fxai.models.nbc import XLC, NBCTables, Slack, slack
from fxai.oracles.base import Oracle
from fxai.oracles.registry import register

MAX_COLUMNS = 2_000_000  # largest DP row used when refining bounds
EXACT_LIMIT = 2**20  # multi-class precision: completions counted one by one up to this
BAND_LIMIT = 2**16  # near-tied completions predicted one by one before giving up


class _CountDP:
    """``P(Σ_free L ≤ T)`` for integer losses ``L`` with a distribution cache per free set.

    Losses may be negative (values better than the instance's), so each feature's losses
    are shifted by their minimum ``m_i ≤ 0``; a free set ``F`` then keeps the prediction
    iff its shifted sum is ``≤ T - Σ_F m_i``. Rows are truncated at the largest such
    threshold (shifted losses are non-negative: mass beyond it never comes back).
    """

    def __init__(self, losses: list[np.ndarray], threshold: int):
        self.threshold = threshold
        self.taps, self.shift = [], []
        for loss in losses:
            vals, counts = np.unique(loss.astype(np.int64), return_counts=True)
            self.shift.append(int(vals[0]))
            self.taps.append((vals - vals[0], counts / loss.size))
        self.columns = max(threshold - sum(self.shift), -1) + 1
        self.cache: dict[frozenset[int], np.ndarray] = {}
        self.cdf: dict[frozenset[int], np.ndarray] = {}
        self.last: frozenset[int] | None = None
        if self.columns > 0:
            start = np.zeros(self.columns)
            start[0] = 1.0
            self.cache[frozenset()] = start

    def _convolve(self, dist: np.ndarray, i: int) -> np.ndarray:
        vals, probs = self.taps[i]  # vals[0] == 0 (shifted), increasing
        out = dist * probs[0]
        tmp = np.empty_like(dist)
        for v, p in zip(vals[1:], probs[1:], strict=True):
            if v >= dist.size:
                break
            n = dist.size - v
            np.multiply(dist[:n], p, out=tmp[:n])
            out[v:] += tmp[:n]
        return out

    def _dist(self, free: frozenset[int]) -> np.ndarray:
        """Distribution of the summed shifted loss of ``free`` (truncated)."""
        if free in self.cache:
            return self.cache[free]
        base = max((k for k in self.cache if k <= free), key=len)
        dist = self.cache[base]
        for i in sorted(free - base):
            dist = self._convolve(dist, i)
        self.cache[free] = dist
        return dist

    def _cdf(self, free: frozenset[int]) -> np.ndarray:
        if free not in self.cdf:
            self.cdf[free] = np.cumsum(self._dist(free))
        return self.cdf[free]

    def keep_probability(self, free: frozenset[int]) -> float:
        """``P(Σ_{i ∈ free} L_i ≤ threshold)``.

        A deletion loop asks for ``kept ∪ {i}`` where ``kept`` is the previous query's free
        set (if it was accepted) or its overlap with this one (if not). That base is built
        once (one convolution) and the answer takes ``d_i`` look-ups into its cumulative sum.
        """
        last, self.last = self.last, free
        t = self.threshold - sum(self.shift[i] for i in free)
        if t < 0:
            return 0.0
        if free not in self.cache and last is not None and len(free - last) == 1 \
                and len(last - free) <= 1:
            base = last & free
            (i,) = free - base
            vals, probs = self.taps[i]
            ok = vals <= t
            return float(np.dot(probs[ok], self._cdf(base)[t - vals[ok]]))
        return float(self._cdf(free)[t])


def _threshold(gamma_units: float, strict: bool) -> int:
    """Largest integer total loss that keeps the prediction (``< Γ`` if strict, else ``≤``)."""
    return int(np.ceil(gamma_units)) - 1 if strict else int(np.floor(gamma_units))


class _Pair:
    """The predicted class ``c`` against rival ``j`` at an instance: the pair XLC
    ``score_c - score_j``, its slack (``c`` must stay strictly ahead iff ``j < c``) and the
    float rounding band of that difference."""

    def __init__(self, nbc: NBCTables, x: list[int], c: int, j: int):
        self.j = j
        self.xlc = nbc.pair(c, j)
        self.slack = slack(self.xlc, x, prediction=1, strict=j < c)
        self.band = nbc.pair_error(c, j)


class NBCOracle(Oracle):
    """Oracle for an NBC (``CategoricalNB``, :class:`NBCTables` or a binary :class:`XLC`)
    at instance ``x``; ``prediction`` is the class index scikit-learn predicts.

    ``decimals`` sets the scaling of the counting DP (:meth:`precision`). The NBC paper's
    running example (Figures 1-3; features R1..R5 are 0..4, value f = 0, t = 1), whose
    printed values are rounded from 2-decimal intermediates:

    Examples
    --------
    >>> import numpy as np
    >>> from fxai.models.nbc import XLC
    >>> tables = [[[0.97, 0.03], [0.05, 0.95]], [[0.05, 0.95], [0.95, 0.05]],
    ...           [[0.66, 0.34], [0.98, 0.02]], [[0.25, 0.75], [0.80, 0.20]],
    ...           [[0.97, 0.03], [0.05, 0.95]]]  # Pr(R_i = f, t | ⊖), (... | ⊕)
    >>> nbc = XLC.from_log_probs(np.log([0.9, 0.1]), [np.log(t) for t in tables])
    >>> o = NBCOracle(nbc, [1, 0, 0, 0, 1])  # (t, f, f, f, t)
    >>> o.prediction, round(o.gamma, 2), round(o.phi, 2)  # paper: ⊕, 9.25, 15.23
    (1, 9.22, 15.23)
    >>> [round(float(d), 2) for d in o.deltas]  # paper: 6.43, 5.90, 3.23, 2.49, 6.43
    [6.42, 5.89, 3.23, 2.48, 6.42]
    >>> o.axp(), o.entails([0, 1, 4]), o.entails([0, 4])  # Example 3.2
    ([0, 1, 4], True, False)
    >>> o.precision([0, 4]), o.precision([0])  # Example 4.3: 7/8 and 9/16
    (0.875, 0.5625)
    """

    def __init__(self, model: CategoricalNB | NBCTables | XLC, x, decimals: int = 3):
        if isinstance(model, NBCTables):
            self.nbc = model
        elif isinstance(model, XLC):
            self.nbc = NBCTables.from_xlc(model)
        else:
            self.nbc = NBCTables.from_categorical_nb(model)
        self.instance = [int(v) for v in x]
        self.n_features = self.nbc.n_features
        self.n_classes = self.nbc.n_classes
        self.sizes = sizes = self.nbc.domain_sizes
        if len(self.instance) != self.n_features:
            raise ValueError(f"instance has {len(self.instance)} values, the model "
                             f"{self.n_features} features")
        for i, (v, d) in enumerate(zip(self.instance, sizes, strict=True)):
            if not 0 <= v < d:
                raise ValueError(f"feature {i}: value {v} outside its domain 0..{d - 1}")
        self.prediction = int(self.nbc.predict([self.instance])[0])
        c = self.prediction
        self.pairs = [_Pair(self.nbc, self.instance, c, j)
                      for j in range(self.n_classes) if j != c]
        self._gammas = np.array([p.slack.gamma for p in self.pairs])
        self._deltas = np.stack([p.slack.deltas for p in self.pairs])  # (rivals, features)
        self.decimals = decimals
        self.xlc = self.slack = None  # the paper's binary quantities
        if self.n_classes == 2:
            self.xlc = self.nbc.pair(1, 0)
            self.slack = replace(self.pairs[0].slack, prediction=c)  # c against the other
            self.scaled_slack = slack(self.xlc.scaled(decimals), self.instance)
            self.dp = _CountDP(list(self.scaled_slack.losses),
                               _threshold(self.scaled_slack.gamma, self.scaled_slack.strict))
        self._pair_dps: list[_CountDP] | None = None
        self._bound_dps: dict[tuple[int, int, str], _CountDP | None] = {}
        self.precision_calls = 0

    # --- Section 3: AXp / CXp of the XLC, per rival class --------------------------------
    def _binary(self, name: str) -> Slack:
        if self.slack is None:
            raise ValueError(f"{name} is defined for a binary NBC; this one has "
                             f"{self.n_classes} classes")
        return self.slack

    @property
    def gamma(self) -> float:
        """``Γ``: the margin of the instance towards its prediction (binary NBC).

        The NBC paper's Example 4.1 model (``ν(x) = -7 + Σ x_i``) at (3, 3, 3, 3): ν = 5.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2]).gamma
        5.0
        """
        return self._binary("gamma").gamma

    @property
    def deltas(self) -> np.ndarray:
        """``δ_i``: the largest loss of each feature when freed (with more classes: the
        largest over the rivals, an ordering hint for deletion).

        The Example 4.1 model of :attr:`gamma`: each feature drops from 3 to 1 at worst.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2]).deltas.tolist()
        [2.0, 2.0, 2.0, 2.0]
        """
        return self._deltas.max(axis=0)

    @property
    def phi(self) -> float:
        """``Φ = Σ δ_i - Γ``: ``S`` is a weak AXp iff ``Σ_{i∈S} δ_i > Φ`` (≥ for class 0).

        The Example 4.1 model of :attr:`gamma`: Φ = 8 - 5, so two fixed features (δ sum 4)
        suffice and one (2) does not.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2]).phi
        3.0
        """
        return self._binary("phi").phi

    def axp(self) -> list[int]:
        """An AXp in polynomial time: free features in increasing ``δ_i`` while the rest
        still entails the prediction (for a binary NBC, the paper's sort of the ``δ_i``).

        The NBC paper's Example 4.1 model (``ν(x) = -7 + Σ x_i``, values 1, 2, 3 coded
        0, 1, 2): at (3, 3, 3, 3) any two free features keep the sum above 7.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2]).axp()
        [2, 3]
        """
        fixed = set(range(self.n_features))
        for i in np.argsort(self.deltas, kind="stable"):
            if self.entails(fixed - {int(i)}):
                fixed.discard(int(i))
        return sorted(fixed)

    def min_cxp(self) -> list[int] | None:
        """A minimum-size CXp, or None if the prediction is constant: per rival, the
        fewest features of largest ``δ_i^j`` whose freeing lets it win; the smallest over
        rivals (then made subset-minimal under the float model, which changes nothing
        away from ties).

        The Example 4.1 model of :meth:`axp`: three features must change at (3, 3, 3, 3).

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2]).min_cxp()
        [0, 1, 2]
        """
        every = set(range(self.n_features))
        best: list[int] | None = None
        for deltas in self._deltas:
            order = [int(i) for i in np.argsort(-deltas, kind="stable")]
            for m in range(1, self.n_features + 1 if best is None else len(best)):
                if not self.entails(every - set(order[:m])):
                    best = sorted(order[:m])
                    break
        if best is not None:
            for i in list(best):
                if not self.entails(every - (set(best) - {i})):
                    best.remove(i)
        return best

    def _free(self, fixed: Iterable[int]) -> frozenset[int]:
        fixed = set(fixed)
        bad = [i for i in fixed if not 0 <= i < self.n_features]
        if bad:
            raise ValueError(f"feature indices {bad} outside 0..{self.n_features - 1}")
        return frozenset(range(self.n_features)) - fixed

    def _points(self, free: list[int], values: np.ndarray) -> np.ndarray:
        pts = np.tile(np.asarray(self.instance, dtype=np.intp), (len(values), 1))
        pts[:, free] = values
        return pts

    def _near_ties(self, pair: _Pair, free: list[int]) -> list[int] | None:
        """A completion of ``free`` that scikit-learn does not predict ``c``, among those
        whose pair difference is within ``band`` of 0 (all others are decided by it)."""
        losses, deltas = pair.slack.losses, pair.slack.deltas
        need = pair.slack.gamma - pair.band  # a total loss below this keeps c ahead
        rest = np.concatenate([np.cumsum([deltas[i] for i in free][::-1])[::-1], [0.0]])
        sums, values = np.zeros(1), np.zeros((1, 0), dtype=np.intp)
        for k, i in enumerate(free):
            grown = sums[:, None] + losses[i][None, :]
            rows, vals = np.nonzero(grown + rest[k + 1] >= need)
            sums, values = grown[rows, vals], np.column_stack([values[rows], vals])
            if len(sums) > BAND_LIMIT:
                raise NearTieError(
                    f"more than {BAND_LIMIT} completions tie (within float rounding) "
                    f"between classes {self.prediction} and {pair.j}: not checked")
        pts = self._points(free, values)
        bad = np.flatnonzero(self.nbc.predict(pts) != self.prediction)
        return pts[bad[0]].tolist() if bad.size else None

    def _witness(self, free: frozenset[int]) -> list[int] | None:
        """A completion of ``free`` predicted otherwise, or None (exact, see the module)."""
        cols = sorted(free)
        lows = self._gammas - self._deltas[:, cols].sum(axis=1)  # min difference per rival
        order = np.argsort(lows, kind="stable")
        for k in order:
            pair = self.pairs[k]
            if lows[k] < -pair.band:  # the worst point is beaten by a margin
                worst = [int(np.argmax(pair.slack.losses[i])) for i in cols]
                pt = self._points(cols, np.asarray([worst], dtype=np.intp))
                if self.nbc.predict(pt)[0] == self.prediction:
                    raise AssertionError("NBC rounding band too small: report this model")
                return pt[0].tolist()
        for k in order:
            if abs(lows[k]) <= self.pairs[k].band:
                pt = self._near_ties(self.pairs[k], cols)
                if pt is not None:
                    return pt
        return None

    def entails(self, fixed: Iterable[int]) -> bool:
        """True iff no completion of the free features is predicted otherwise (exact).

        The Example 4.1 model of :meth:`axp` at (3, 3, 3, 3): ``Γ = 5``, each ``δ_i = 2``.

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> o.gamma, o.entails([0, 1]), o.entails([0])
        (5.0, True, False)
        """
        self.calls += 1
        return self._witness(self._free(fixed)) is None

    def counterexample(self, fixed: Iterable[int]):
        """A point agreeing on ``fixed`` that scikit-learn predicts otherwise (the worst
        point for the most beaten rival, or a tied one), None when ``fixed`` entails.

        The Example 4.1 model of :meth:`axp`:

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> o.counterexample([0]), o.counterexample([0, 1])
        ([2, 0, 0, 0], None)
        """
        self.calls += 1
        return self._witness(self._free(fixed))

    # --- Section 4.2: counting ------------------------------------------------------------
    def _space(self, free: frozenset[int]) -> int:
        return math.prod(self.sizes[i] for i in free)

    def exact_count(self, fixed: Iterable[int]) -> int:
        """Completions of ``fixed`` that scikit-learn predicts ``c``, counted one by one
        (every class score summed as scikit-learn sums it, in one array per feature).

        Examples
        --------
        >>> t = NBCTables(np.log([0.5, 0.5]), (np.log([[0.9, 0.1], [0.1, 0.9]]),) * 2)
        >>> NBCOracle(t, [0, 1]).exact_count([])  # (0,0) and the tie (0,1); (1,0) ties too
        3
        """
        free = self._free(fixed)
        if self._space(free) > EXACT_LIMIT:
            raise ValueError(f"{self._space(free)} completions: more than EXACT_LIMIT")
        scores = np.zeros((self.n_classes, 1))
        for i in self.nbc.summed:
            t = self.nbc.tables[i]
            if i in free:
                scores = (scores[:, :, None] + t[:, None, :]).reshape(self.n_classes, -1)
            else:
                scores = scores + t[:, [self.instance[i]]]
        scores = scores + self.nbc.prior[:, None]
        return int(np.count_nonzero(np.argmax(scores, axis=0) == self.prediction))

    def precision(self, fixed: Iterable[int]) -> float:
        """Precision of ``fixed``: for a binary NBC by the scaled DP (the paper's method,
        ``decimals`` places); with more classes exact (:meth:`exact_count`) up to
        ``EXACT_LIMIT`` completions, else the union lower bound of the scaled pair DPs.

        The binary DP is exact for the integer-scaled model (its float64 sum is rounded to
        the nearest multiple of 1/N over the N completions, so that an exact tie with δ is
        not lost to a last-bit rounding); for the real-valued one use
        :meth:`precision_bounds` / :meth:`precision_at_least`.

        Examples
        --------
        >>> xlc = XLC(1.0, tuple(np.array([0.0, -v]) for v in (0.7, 0.7, 0.3)))
        >>> NBCOracle(xlc, [0, 0, 0]).precision(set())  # 4 of the 8 points: loss < Γ = 1
        0.5
        """
        self.precision_calls += 1
        free = self._free(fixed)
        space = self._space(free)
        if self.n_classes > 2:
            if space <= EXACT_LIMIT:
                return self.exact_count(set(range(self.n_features)) - free) / space
            if self._pair_dps is None:
                self._pair_dps = []
                for pair in self.pairs:
                    sc = slack(pair.xlc.scaled(self.decimals), self.instance, prediction=1,
                               strict=pair.slack.strict)
                    self._pair_dps.append(_CountDP(list(sc.losses),
                                                   _threshold(sc.gamma, sc.strict)))
            lost = sum(1.0 - dp.keep_probability(free) for dp in self._pair_dps)
            return max(0.0, 1.0 - lost)
        if self.scaled_slack.prediction != self.prediction:
            return 0.0  # scaling flipped the prediction of the instance itself
        p = self.dp.keep_probability(free)
        return round(p * space) / space if space <= 2**40 else p

    def count(self, fixed: Iterable[int]) -> int:
        """Number of points with ``x_S = v_S`` and the same prediction (:meth:`precision`
        times the number of completions).

        The NBC paper's Examples 4.1 (50 points) and 4.2 (x2 = 1 and x4 = 3: 6 points):

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> NBCOracle(xlc, [2, 2, 2, 2], decimals=0).count([])
        50
        >>> NBCOracle(xlc, [2, 0, 2, 2], decimals=0).count([1, 3])
        6
        """
        free = self._free(fixed)
        space = self._space(free)
        return round(self.precision(set(range(self.n_features)) - free) * space)

    def _bound_dp(self, k: int, decimals: int, side: str) -> _CountDP | None:
        """The DP of rival ``k``'s pair with losses rounded up (side "lower") or down."""
        key = (k, decimals, side)
        if key not in self._bound_dps:
            sl = self.pairs[k].slack
            scale = 10.0**decimals
            rnd = np.floor if side == "upper" else np.ceil
            losses = [rnd(loss * scale) for loss in sl.losses]
            t = _threshold(sl.gamma * scale, sl.strict)
            wide = t - sum(int(loss.min()) for loss in losses) + 1 > MAX_COLUMNS
            self._bound_dps[key] = None if wide else _CountDP(losses, t)
        return self._bound_dps[key]

    def precision_bounds(self, fixed: Iterable[int], decimals: int) -> tuple[float, float]:
        """Rigorous ``(lower, upper)`` bounds on the real-valued model's precision.

        Losses rounded up (down) can only lose (gain) points, so the integer counts bracket
        the true one. With more classes, per rival ``j`` they bracket ``Pr[c beats j]``, and
        ``(1 - Σ_j (1 - lo_j), min_j hi_j)`` brackets the precision. Returns ``(0, 1)`` when
        a DP row would exceed ``MAX_COLUMNS``. Integer weights (the Example 4.1 model of
        :meth:`axp`) give equal bounds:

        Examples
        --------
        >>> from fxai.models.examples import nbc_example
        >>> xlc = nbc_example()
        >>> lo, hi = NBCOracle(xlc, [2, 2, 2, 2]).precision_bounds([], decimals=0)
        >>> lo == hi == 50 / 81
        True
        """
        free = self._free(fixed)
        los, his = [], []
        for k in range(len(self.pairs)):
            lo, hi = self._bound_dp(k, decimals, "lower"), self._bound_dp(k, decimals, "upper")
            if lo is None or hi is None:
                return 0.0, 1.0
            los.append(lo.keep_probability(free))
            his.append(hi.keep_probability(free))
        return max(0.0, 1.0 - sum(1.0 - p for p in los)), min(his)

    def precision_at_least(self, fixed: Iterable[int], delta: float,
                           max_decimals: int = 7) -> bool:
        """Sound decision ``precision(S) ≥ δ`` for the real-valued model.

        Starts from the bounds at ``decimals`` places and adds places while ``δ`` lies
        between them; if still undecided, answers False (never claims a false guarantee).
        The bounds are fractions of the ``N`` completions, so they are compared as counts
        (float64 sums rounded to the nearest integer, exact for ``N`` <= 2^40): an exact
        tie ``precision == δ`` is decided, not lost to a last-bit rounding. With more
        classes and at most ``EXACT_LIMIT`` completions, the exact count decides.

        Examples
        --------
        >>> xlc = XLC(1.0, tuple(np.array([0.0, -v]) for v in (0.7, 0.7, 0.3 - 1e-9)))
        >>> o = NBCOracle(xlc, [0, 0, 0])  # two points at loss 1 - 1e-9: a near tie
        >>> o.precision_at_least(set(), 0.75), o.precision_at_least(set(), 0.5)
        (False, True)
        """
        fixed = set(fixed)
        space = self._space(self._free(fixed))
        if self.n_classes > 2 and space <= EXACT_LIMIT:
            return self.exact_count(fixed) >= Fraction(delta) * space
        exact = space <= 2**40 and self.n_classes == 2
        need = Fraction(delta) * space if exact else delta
        for d in range(self.decimals, max_decimals + 1):
            lo, hi = self.precision_bounds(fixed, d)
            if exact:
                lo, hi = round(lo * space), round(hi * space)
            if lo >= need:
                return True
            if hi < need:
                return False
        return False


def _build(model: CategoricalNB | XLC | NBCTables, x, decimals: int = 3, domains=None) -> NBCOracle:
    """``for_model`` entry: the domains are the fitted model's (``domains`` only names the
    features and their categories, see :mod:`fxai.models.schema`)."""
    return NBCOracle(model, x, decimals=decimals)


register(lambda m: isinstance(m, CategoricalNB | XLC | NBCTables), _build)
