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
    """Oracle for a binary NBC (``CategoricalNB`` or an :class:`XLC`) at instance ``x``.

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
        """``Γ``: the margin of the instance towards its prediction.

        The NBC paper's Example 4.1 model (``ν(x) = -7 + Σ x_i``) at (3, 3, 3, 3): ν = 5.

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> NBCOracle(xlc, [2, 2, 2, 2]).gamma
        5.0
        """
        return self.slack.gamma

    @property
    def deltas(self) -> np.ndarray:
        """``δ_i``: the largest loss of each feature when freed.

        The Example 4.1 model of :attr:`gamma`: each feature drops from 3 to 1 at worst.

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> NBCOracle(xlc, [2, 2, 2, 2]).deltas.tolist()
        [2.0, 2.0, 2.0, 2.0]
        """
        return self.slack.deltas

    @property
    def phi(self) -> float:
        """``Φ = Σ δ_i - Γ``: ``S`` is a weak AXp iff ``Σ_{i∈S} δ_i > Φ`` (≥ for class 0).

        The Example 4.1 model of :attr:`gamma`: Φ = 8 - 5, so two fixed features (δ sum 4)
        suffice and one (2) does not.

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> NBCOracle(xlc, [2, 2, 2, 2]).phi
        3.0
        """
        return self.slack.phi

    def axp(self) -> list[int]:
        """The polynomial-time AXp (sorting the ``δ_i``).

        The NBC paper's Example 4.1 model (``ν(x) = -7 + Σ x_i``, values 1, 2, 3 coded
        0, 1, 2): at (3, 3, 3, 3) any two free features keep the sum above 7.

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> NBCOracle(xlc, [2, 2, 2, 2]).axp()
        [2, 3]
        """
        return axp(self.slack)

    def min_cxp(self) -> list[int] | None:
        """A minimum-size CXp (largest ``δ_i`` first), or None if the prediction is constant.

        The Example 4.1 model of :meth:`axp`: three features must change at (3, 3, 3, 3).

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> NBCOracle(xlc, [2, 2, 2, 2]).min_cxp()
        [0, 1, 2]
        """
        return min_cxp(self.slack)

    def _free(self, fixed: Iterable[int]) -> frozenset[int]:
        fixed = set(fixed)
        bad = [i for i in fixed if not 0 <= i < self.n_features]
        if bad:
            raise ValueError(f"feature indices {bad} outside 0..{self.n_features - 1}")
        return frozenset(range(self.n_features)) - fixed

    def entails(self, fixed: Iterable[int]) -> bool:
        """True iff the worst case of the free features, ``Σ δ_i``, stays within ``Γ``.

        The Example 4.1 model of :meth:`axp` at (3, 3, 3, 3): ``Γ = 5``, each ``δ_i = 2``.

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> o.gamma, o.entails([0, 1]), o.entails([0])
        (5.0, True, False)
        """
        self.calls += 1
        free = self._free(fixed)
        return bool(self.slack.keeps(sum(float(self.deltas[i]) for i in free)))

    def counterexample(self, fixed: Iterable[int]):
        """The worst-case point: every free feature takes its largest-loss value.

        None when ``fixed`` entails the prediction. The Example 4.1 model of :meth:`axp`:

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> o = NBCOracle(xlc, [2, 2, 2, 2])
        >>> o.counterexample([0]), o.counterexample([0, 1])
        ([2, 0, 0, 0], None)
        """
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
        """Number of points with ``x_S = v_S`` and the same prediction (scaled DP).

        The NBC paper's Examples 4.1 (50 points) and 4.2 (x2 = 1 and x4 = 3: 6 points):

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> NBCOracle(xlc, [2, 2, 2, 2], decimals=0).count([])
        50
        >>> NBCOracle(xlc, [2, 0, 2, 2], decimals=0).count([1, 3])
        6
        """
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
        Integer weights (the Example 4.1 model of :meth:`axp`) give equal bounds:

        Examples
        --------
        >>> import numpy as np
        >>> from fxai.models.nbc import XLC
        >>> xlc = XLC(-7.0, tuple(np.array([1.0, 2.0, 3.0]) for _ in range(4)))
        >>> lo, hi = NBCOracle(xlc, [2, 2, 2, 2]).precision_bounds([], decimals=0)
        >>> lo == hi == 50 / 81
        True
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
