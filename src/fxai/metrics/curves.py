"""FFA metrics over time: per-instance curves, time normalisation, merging and averaging.

An anytime run is a list of events ``[t, "axp"|"cxp", [features]]``. After each AXp the
approximate FFA (fraction of the AXps found so far that contain each feature) is compared
with the exact FFA. Per instance, as the anytime-FFA paper's figures do:

* time is divided by the largest AXp-discovery time among the compared methods (so the
  last AXp of the slowest method is at 1; MARCO-C's later CXps lie beyond 1);
* the error is divided by the largest error over the methods' curves (the t = 0 value,
  the sum of the exact FFA), so every error curve starts at 1;
* the number of AXps is divided by the exact number of AXps (``variant="paper"``) or by
  the run's own number of AXps (``variant="code"``);
* KL infinity becomes 0.5 (paper) or twice the largest finite KL among the methods' curves
  (code; then the leading constant plateau of each *averaged* curve is shown as 0.5, as
  the reference plotting script does).

Every curve of the paper variant starts at t = 0 with the empty FFA (error 1, τ 0, RBO 0,
KL 0.5, 0 AXps). The code variant has the t = 0 point for all metrics but KL, whose
curve starts at the first AXp (its first value is held before).

Curves are step functions: merging several on the union of their times holds each one's
last value, and before its first point a curve takes its first value.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from fxai.metrics.ffa import FFA, _check_variant, ffa_error, kendall_tau, kl_divergence, rbo

METRICS = ("error", "tau", "rbo", "kl", "naxp")
KL_INF_PAPER = 0.5
Curve = tuple[np.ndarray, np.ndarray]


class AxpSteps:
    """The approximate FFA after selected AXps of one run, stored compactly.

    ``t[i]`` and ``n[i]`` are the time and the number of AXps found at the i-th kept AXp;
    ``steps[i]`` is ``(t, approximate FFA, n)`` with the FFA rebuilt on demand from integer
    counts (features in order of first appearance), so a run reduced to 2,000 steps takes
    kilobytes whatever its number of events. ``t_max`` is the largest AXp time of the run
    (every AXp, kept or not) and ``n_total`` its number of AXps.
    """

    def __init__(self, t: Sequence[float], n: Sequence[int], order: Sequence[int],
                 counts: Sequence[np.ndarray], t_max: float) -> None:
        self.t = np.asarray(t, dtype=float)
        self.n = np.asarray(n, dtype=np.int64)
        self.order = list(order)
        self.counts = list(counts)
        self.t_max = t_max
        self.n_total = int(self.n[-1]) if self.n.size else 0

    def __len__(self) -> int:
        return int(self.t.size)

    def ffa(self, i: int) -> dict[int, float]:
        """The approximate FFA at the i-th kept AXp (features in order of first appearance)."""
        n = int(self.n[i])
        return {f: c / n for f, c in zip(self.order, self.counts[i].tolist(), strict=False)}

    def __getitem__(self, i: int) -> tuple[float, dict[int, float], int]:
        i = range(len(self))[i]
        return float(self.t[i]), self.ffa(i), int(self.n[i])

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class StepsBuilder:
    """Builds :class:`AxpSteps` from a run's events fed one at a time (:meth:`add`).

    ``total`` is the run's number of AXps, needed in advance only to thin (``max_points``):
    the steps kept are after that many evenly spaced AXps (always the first and the last).
    """

    def __init__(self, total: int | None = None, max_points: int | None = None) -> None:
        self.keep: set[int] | None = None
        if max_points and total is not None and total > max_points:
            self.keep = set(np.linspace(0, total - 1, max_points).round().astype(int).tolist())
        elif max_points and total is None:
            raise ValueError("thinning to max_points needs the run's number of AXps")
        self.counts: Counter[int] = Counter()
        self.t: list[float] = []
        self.n_kept: list[int] = []
        self.snaps: list[np.ndarray] = []
        self.t_max, self.n = 0.0, 0

    def add(self, event: Sequence) -> None:
        t, kind, feats = event
        if kind != "axp":
            return
        self.n += 1
        self.t_max = max(self.t_max, float(t))
        counts = self.counts
        counts.update(map(int, feats))
        if self.keep is None or self.n - 1 in self.keep:
            self.t.append(float(t))
            self.n_kept.append(self.n)
            self.snaps.append(np.fromiter(counts.values(), dtype=np.int64, count=len(counts)))

    def steps(self) -> AxpSteps:
        return AxpSteps(self.t, self.n_kept, self.counts.keys(), self.snaps, self.t_max)


def axp_steps(events: Iterable[Sequence], max_points: int | None = None) -> AxpSteps:
    """The approximate FFA after each AXp event, in event order; with ``max_points``, after
    that many evenly spaced AXps only (always the first and the last), the counts still taken
    over every AXp. ``events`` may be a one-shot iterator only without ``max_points``.

    Examples
    --------
    >>> events = [[0.1, "cxp", [2, 4]], [0.2, "axp", [0, 2, 4]], [0.4, "axp", [0, 1, 4]]]
    >>> for t, ffa, n in axp_steps(events):
    ...     print(t, ffa, n)
    0.2 {0: 1.0, 2: 1.0, 4: 1.0} 1
    0.4 {0: 1.0, 2: 0.5, 4: 1.0, 1: 0.5} 2
    """
    total = None
    if max_points:
        events = events if isinstance(events, Sequence) else list(events)
        total = sum(1 for e in events if e[1] == "axp")
    b = StepsBuilder(total, max_points)
    for e in events:
        b.add(e)
    return b.steps()


def _raw_curve(steps: AxpSteps, exact: FFA, n_exact: int, metric: str, variant: str) -> Curve:
    n_run = steps.n_total
    start = not (variant == "code" and metric == "kl")
    points = ([(0.0, {}, 0)] if start else []) + list(steps)
    if metric == "error":
        vals = [ffa_error(a, exact) for _, a, _ in points]
    elif metric == "tau":
        vals = [kendall_tau(a, exact, variant) for _, a, _ in points]
    elif metric == "rbo":
        vals = [rbo(a, exact, variant=variant) for _, a, _ in points]
    elif metric == "kl":
        vals = [kl_divergence(a, exact) for _, a, _ in points]
    elif metric == "naxp":
        denom = n_exact if variant == "paper" else n_run
        vals = [n / denom if denom else 0.0 for _, _, n in points]
    else:
        raise ValueError(f"unknown metric {metric!r}; known: {METRICS}")
    return np.array([p[0] for p in points], dtype=float), np.array(vals, dtype=float)


def time_scale(runs: Mapping[str, Sequence[Sequence]]) -> float:
    """The largest AXp-discovery time among the runs (1.0 if none is positive).

    Examples
    --------
    >>> time_scale({"marco-a": [[0.2, "axp", [0]], [0.9, "cxp", [1]]],
    ...             "marco-c": [[0.5, "axp", [1]]]})
    0.5
    """
    t = max((float(e[0]) for ev in runs.values() for e in ev if e[1] == "axp"), default=0.0)
    return t if t > 0 else 1.0


def instance_curves(
    runs: Mapping[str, Sequence[Sequence]], exact: FFA, n_exact: int, variant: str = "paper",
    max_points: int | None = 2000,
) -> dict[str, dict[str, Curve]]:
    """Normalised curves ``{metric: {method: (t, values)}}`` for one instance.

    ``runs`` maps each method to its events; ``exact`` is the exact FFA and ``n_exact``
    the exact number of AXps. With ``max_points`` a run with more AXps is evaluated after
    that many evenly spaced AXps only (always the first and the last).

    One MARCO-A run on the NBC paper's running example, stopped after two AXps (the
    exact FFA has 5 AXps); time runs to 1 at the last AXp:

    Examples
    --------
    >>> events = [[0.1, "cxp", [2, 4]], [0.2, "axp", [0, 2, 4]], [0.4, "axp", [0, 1, 4]]]
    >>> exact = {0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8}
    >>> curves = instance_curves({"marco-a": events}, exact, n_exact=5)
    >>> t, error = curves["error"]["marco-a"]
    >>> t.tolist(), error.round(4).tolist()
    ([0.0, 0.5, 1.0], [1.0, 0.5333, 0.2667])
    >>> curves["naxp"]["marco-a"][1].tolist()
    [0.0, 0.2, 0.4]
    """
    steps = {m: axp_steps(ev, max_points) for m, ev in runs.items()}
    return steps_curves(steps, exact, n_exact, variant)


def steps_scale(steps: Mapping[str, AxpSteps]) -> float:
    """The largest AXp-discovery time among the runs' steps (1.0 if none is positive)."""
    t = max((s.t_max for s in steps.values()), default=0.0)
    return t if t > 0 else 1.0


def steps_curves(
    steps: Mapping[str, AxpSteps], exact: FFA, n_exact: int, variant: str = "paper",
    metrics: Sequence[str] = METRICS,
) -> dict[str, dict[str, Curve]]:
    """:func:`instance_curves` from the runs already reduced by :func:`axp_steps`, for
    ``metrics`` (default: all of :data:`METRICS`)."""
    _check_variant(variant)
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; known: {METRICS}")
    scale = steps_scale(steps)
    out: dict[str, dict[str, Curve]] = {}
    for metric in metrics:
        curves = {m: _raw_curve(st, exact, n_exact, metric, variant) for m, st in steps.items()}
        if metric == "error":
            top = max((float(v.max()) for _, v in curves.values() if v.size), default=0.0)
            curves = {m: (t, v / top if top > 0 else np.zeros_like(v))
                      for m, (t, v) in curves.items()}
        elif metric == "kl":
            finite = [float(x) for _, v in curves.values() for x in v if math.isfinite(x)]
            top = max(finite, default=0.0)
            cap = 2 * top if variant == "code" and top > 0 else KL_INF_PAPER
            curves = {m: (t, np.where(np.isinf(v), cap, v)) for m, (t, v) in curves.items()}
        out[metric] = {m: (t / scale, v) for m, (t, v) in curves.items()}
    return out


def sample(curve: Curve, grid: np.ndarray) -> np.ndarray:
    """Values of the step function ``curve`` at ``grid`` (hold last; first value before).

    Examples
    --------
    >>> import numpy as np
    >>> curve = (np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.5, 0.2]))
    >>> sample(curve, np.array([-1.0, 0.25, 0.5, 2.0])).tolist()
    [1.0, 1.0, 0.5, 0.2]
    """
    t, v = curve
    if t.size == 0:
        return np.full(grid.shape, np.nan)
    idx = np.searchsorted(t, grid, side="right") - 1
    return v[np.clip(idx, 0, None)]


def merge(curves: Sequence[Curve]) -> tuple[np.ndarray, np.ndarray]:
    """All curves sampled on the union of their times: ``(grid, matrix[curve, time])``.

    Examples
    --------
    >>> import numpy as np
    >>> a = (np.array([0.0, 0.5]), np.array([1.0, 0.5]))
    >>> b = (np.array([0.0, 0.7]), np.array([1.0, 0.0]))
    >>> grid, values = merge([a, b])
    >>> grid.tolist(), values.tolist()
    ([0.0, 0.5, 0.7], [[1.0, 0.5, 0.5], [1.0, 1.0, 0.0]])
    """
    grid = np.unique(np.concatenate([c[0] for c in curves])) if curves else np.array([])
    return grid, np.array([sample(c, grid) for c in curves])


def average(curves: Sequence[Curve], lead_value: float | None = None) -> Curve:
    """Mean of the curves on the union of their times (equal weight per curve).

    With ``lead_value`` the leading run of equal values of the mean is replaced by it
    (the reference code's treatment of KL plateaus).

    Examples
    --------
    >>> import numpy as np
    >>> a = (np.array([0.0, 0.5]), np.array([1.0, 0.5]))
    >>> b = (np.array([0.0, 0.7]), np.array([1.0, 0.0]))
    >>> grid, mean = average([a, b])
    >>> grid.tolist(), mean.tolist()
    ([0.0, 0.5, 0.7], [1.0, 0.75, 0.25])
    >>> average([a, b], lead_value=0.5)[1].tolist()  # leading plateau shown as 0.5
    [0.5, 0.75, 0.25]
    """
    grid, mat = merge([c for c in curves if c[0].size])
    if grid.size == 0:
        return grid, grid
    mean = np.nanmean(mat, axis=0)
    if lead_value is not None:
        lead = np.cumprod(mean == mean[0]).astype(bool)
        mean = np.where(lead, lead_value, mean)
    return grid, mean


def average_instances(
    per_instance: Sequence[Mapping[str, Mapping[str, Curve]]], variant: str = "paper",
) -> dict[str, dict[str, Curve]]:
    """``{metric: {method: mean curve}}`` over instances (each must have every method; the
    metrics of the first instance's curves).

    Two instances, one method, with curves from :func:`instance_curves`:

    Examples
    --------
    >>> first = instance_curves({"m": [[1.0, "axp", [0]]]}, {0: 1.0}, n_exact=1)
    >>> second = instance_curves({"m": [[2.0, "axp", [1]], [4.0, "axp", [0]]]},
    ...                          {0: 0.5, 1: 0.5}, n_exact=2)
    >>> t, error = average_instances([first, second])["error"]["m"]
    >>> t.tolist(), error.tolist()
    ([0.0, 0.5, 1.0], [1.0, 1.0, 0.0])
    """
    if not per_instance:
        return {}
    metrics = list(per_instance[0])
    methods = list(per_instance[0][metrics[0]])
    lead = {"kl": KL_INF_PAPER} if variant == "code" else {}
    return {metric: {m: average([inst[metric][m] for inst in per_instance], lead.get(metric))
                     for m in methods}
            for metric in metrics}
