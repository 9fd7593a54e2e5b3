"""The NBC oracle: entailment by the XLC slack, precision by the counting DP (Section 4.2).

``entails(S)``: with the features outside ``S`` free, the worst case loses
``Σ_{i∉S} δ_i``; the prediction is kept iff that stays below ``Γ``.

``precision(S)``: the paper's pseudo-polynomial count. Weights are scaled to integers
with ``decimals`` places (paper: 3); the distribution of the summed integer loss of the
free features is built by vectorised shifted additions (one per distinct loss value of
each free feature), truncated at the threshold (mass beyond it never comes back, losses
being non-negative), in float64 probabilities (no overflow for any number of features).
Distributions are cached per free set, so a deletion loop that frees one feature at a
time costs one convolution per accepted feature and ``d_i`` look-ups per test.

``precision_bounds(S, decimals)`` rounds losses down / up instead of to nearest, giving
rigorous bounds on the precision of the real-valued model; ``precision_at_least`` decides
``precision ≥ δ`` for the real-valued model by refining those bounds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from sklearn.naive_bayes import CategoricalNB

from fxai.models.nbc import XLC, Slack, axp, min_cxp, slack
from fxai.oracles.base import Oracle
from fxai.oracles.registry import register

MAX_COLUMNS = 2_000_000  # largest DP row used when refining bounds


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


def _threshold(gamma_units: float, prediction: int) -> int:
    """Largest integer total loss that keeps the prediction (``< Γ`` for 1, ``≤ Γ`` for 0)."""
    if prediction == 1:
        return int(np.ceil(gamma_units)) - 1
    return int(np.floor(gamma_units))


class NBCOracle(Oracle):
    """Oracle for a binary NBC (``CategoricalNB`` or an :class:`XLC`) at instance ``x``."""

    def __init__(self, model: CategoricalNB | XLC, x, decimals: int = 3):
        self.xlc = model if isinstance(model, XLC) else XLC.from_categorical_nb(model)
        self.instance = [int(v) for v in x]
        self.n_features = self.xlc.n_features
        self.slack: Slack = slack(self.xlc, self.instance)
        self.prediction = self.slack.prediction
        self.decimals = decimals
        self.scaled_slack = slack(self.xlc.scaled(decimals), self.instance)
        self.dp = _CountDP(
            list(self.scaled_slack.losses),
            _threshold(self.scaled_slack.gamma, self.scaled_slack.prediction),
        )
        self._bound_dps: dict[tuple[int, str], _CountDP] = {}
        self.precision_calls = 0

    # --- Section 3: AXp / CXp of the XLC -------------------------------------------------
    @property
    def gamma(self) -> float:
        return self.slack.gamma

    @property
    def deltas(self) -> np.ndarray:
        return self.slack.deltas

    @property
    def phi(self) -> float:
        return self.slack.phi

    def axp(self) -> list[int]:
        """The polynomial-time AXp (sorting the ``δ_i``)."""
        return axp(self.slack)

    def min_cxp(self) -> list[int] | None:
        """A minimum-size CXp (largest ``δ_i`` first), or None if the prediction is constant."""
        return min_cxp(self.slack)

    def _free(self, fixed: Iterable[int]) -> frozenset[int]:
        fixed = set(fixed)
        bad = [i for i in fixed if not 0 <= i < self.n_features]
        if bad:
            raise ValueError(f"feature indices {bad} outside 0..{self.n_features - 1}")
        return frozenset(range(self.n_features)) - fixed

    def entails(self, fixed: Iterable[int]) -> bool:
        self.calls += 1
        free = self._free(fixed)
        return bool(self.slack.keeps(sum(float(self.deltas[i]) for i in free)))

    def counterexample(self, fixed: Iterable[int]):
        """The worst-case point: every free feature takes its largest-loss value."""
        self.calls += 1
        free = self._free(fixed)
        if self.slack.keeps(sum(float(self.deltas[i]) for i in free)):
            return None
        return [int(np.argmax(self.slack.losses[i])) if i in free else v
                for i, v in enumerate(self.instance)]

    # --- Section 4.2: counting ------------------------------------------------------------
    def precision(self, fixed: Iterable[int]) -> float:
        """Precision of ``fixed`` by the scaled DP (the paper's method, ``decimals`` places).

        This is exact for the integer-scaled model (the DP's float64 sum is rounded to the
        nearest multiple of 1/N over the N completions, so that an exact tie with δ is not
        lost to a last-bit rounding); for the real-valued one use
        :meth:`precision_bounds` / :meth:`precision_at_least`.

        Examples
        --------
        >>> xlc = XLC(1.0, tuple(np.array([0.0, -v]) for v in (0.7, 0.7, 0.3)))
        >>> NBCOracle(xlc, [0, 0, 0]).precision(set())  # 4 of the 8 points: loss < Γ = 1
        0.5
        """
        self.precision_calls += 1
        if self.scaled_slack.prediction != self.prediction:
            return 0.0  # scaling flipped the prediction of the instance itself
        free = self._free(fixed)
        p = self.dp.keep_probability(free)
        space = math.prod(int(self.xlc.domain_sizes[i]) for i in free)
        return round(p * space) / space if space <= 2**40 else p

    def count(self, fixed: Iterable[int]) -> int:
        """Number of points with ``x_S = v_S`` and the same prediction (scaled DP)."""
        free = self._free(fixed)
        space = int(np.prod([self.xlc.domain_sizes[i] for i in free], dtype=object))
        return round(self.precision(set(range(self.n_features)) - free) * space)

    def _bound_dp(self, decimals: int, side: str) -> _CountDP | None:
        key = (decimals, side)
        if key not in self._bound_dps:
            k = 10.0**decimals
            rnd = np.floor if side == "upper" else np.ceil
            losses = [rnd(loss * k) for loss in self.slack.losses]
            g = self.slack.gamma * k
            if self.prediction == 1:
                t = int(np.ceil(g)) - 1
            else:
                t = int(np.floor(g))
            if t - sum(int(loss.min()) for loss in losses) + 1 > MAX_COLUMNS:
                return None
            self._bound_dps[key] = _CountDP(losses, t)
        return self._bound_dps[key]

    def precision_bounds(self, fixed: Iterable[int], decimals: int) -> tuple[float, float]:
        """Rigorous ``(lower, upper)`` bounds on the real-valued model's precision.

        Losses rounded up (down) can only lose (gain) points, so the integer counts bracket
        the true one. Returns ``(0, 1)`` when the DP row would exceed ``MAX_COLUMNS``.
        """
        free = self._free(fixed)
        lo, hi = self._bound_dp(decimals, "lower"), self._bound_dp(decimals, "upper")
        if lo is None or hi is None:
            return 0.0, 1.0
        return lo.keep_probability(free), hi.keep_probability(free)

    def precision_at_least(self, fixed: Iterable[int], delta: float,
                           max_decimals: int = 7) -> bool:
        """Sound decision ``precision(S) ≥ δ`` for the real-valued model.

        Starts from the bounds at ``decimals`` places and adds places while ``δ`` lies
        between them; if still undecided, answers False (never claims a false guarantee).
        The bounds are fractions of the ``N`` completions, so they are compared as counts
        (float64 sums rounded to the nearest integer, exact for ``N`` <= 2^40): an exact
        tie ``precision == δ`` is decided, not lost to a last-bit rounding.

        Examples
        --------
        >>> xlc = XLC(1.0, tuple(np.array([0.0, -v]) for v in (0.7, 0.7, 0.3 - 1e-9)))
        >>> o = NBCOracle(xlc, [0, 0, 0])  # two points at loss 1 - 1e-9: a near tie
        >>> o.precision_at_least(set(), 0.75), o.precision_at_least(set(), 0.5)
        (False, True)
        """
        fixed = set(fixed)
        space = math.prod(int(self.xlc.domain_sizes[i]) for i in self._free(fixed))
        exact = space <= 2**40
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


def _build(model: CategoricalNB | XLC, x, decimals: int = 3, **_) -> NBCOracle:
    """``for_model`` entry: domains are already in the fitted model, so extra options go."""
    return NBCOracle(model, x, decimals=decimals)


register(lambda m: isinstance(m, CategoricalNB | XLC), _build)
