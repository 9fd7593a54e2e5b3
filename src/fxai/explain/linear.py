"""Every AXp and CXp of a binary naive Bayes classifier (or XLC) with polynomial delay
(Marques-Silva et al., "Explaining Naive Bayes and Other Linear Classifiers with Polynomial
Time and Delay", NeurIPS 2020), as a stream; also of a multi-class one at an instance where
a single rival class can beat the prediction at all (the others cannot even with every
feature free, beyond float rounding), whose pair then decides every question.

For the predicted class c and the rival, the oracle (:class:`~fxai.oracles.nbc.NBCOracle`)
has the margin ``Γ``, and per feature ``δ_i``, the most the margin drops when feature i is
freed; a set S fixed keeps c iff the freed features' total drop keeps the margin (``< Γ``
when a tie loses c, ``≤ Γ`` when it keeps it). So an AXp is a minimal set S of fixed
features whose δ sum passes ``Φ = Σ δ - Γ``, and a CXp a minimal set F of freed features
whose δ sum passes ``Γ``: both are minimal sets whose weight passes a threshold. With the
features sorted by decreasing δ, such a set is minimal iff it stops passing without its
last (smallest) feature, so a depth-first search that adds features in that order and
emits a set the moment it passes, pruning a branch when even all the features after it
cannot make it pass, visits only branches that lead to an output: polynomial delay. The
search is compiled (numba, :mod:`fxai.explain.linear_search`, loaded on the first
enumeration) and fills a buffer of sets, handed to Python in blocks.

Exactness. The oracle decides a sum within its float rounding band of the threshold by
enumerating the tied completions with scikit-learn's own arithmetic. The search treats a
comparison within twice that band as undecided: it neither prunes there nor trusts the
test, it emits the set as a candidate and searches on below it; every set emitted on or
below such a decision is a candidate that the oracle checks (it entails, and no feature
can be left out). Away from ties, which are rare, no oracle call is made.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from fxai import clocks
from fxai.explain.marco import Event
from fxai.oracles.base import Oracle, TimeLimitExceeded, valid_time_limit

BLOCK = 1 << 16  # feature indices per buffer handed to Python


def applies(o: Oracle) -> bool:
    """Is ``o`` an NBC / XLC oracle whose explanations this module enumerates: two classes,
    or more where at most one rival can beat the prediction even with every feature free?"""
    return _pair(o) is not None


def _pair(o: Oracle):
    """The oracle's one class pair that decides entailment (see :func:`applies`), or None."""
    from fxai.oracles.nbc import NBCOracle

    if not isinstance(o, NBCOracle):
        return None
    if o.n_classes == 2:
        return o.pairs[0]
    lows = [p.slack.gamma - float(p.slack.deltas.sum()) for p in o.pairs]
    active = [p for p, low in zip(o.pairs, lows, strict=True) if low <= 2.0 * p.band]
    if len(active) > 1:
        return None
    return active[0] if active else o.pairs[int(np.argmin(lows))]


def stream(o: Oracle, kind: str = "axp", time_limit: float | None = None,
           clock=time.process_time) -> Iterator[tuple[int, ...]]:
    """Every AXp (``kind="axp"``) or CXp (``"cxp"``) of the binary NBC oracle ``o``, each
    a sorted tuple, as found; :class:`TimeLimitExceeded` once ``time_limit`` seconds of
    ``clock`` have passed (checked between blocks of explanations).

    The NBC paper's running example (Example 3.2 finds the AXp {R1, R2, R5}, here (0, 1, 4)):

    Examples
    --------
    >>> import numpy as np
    >>> from fxai.models.nbc import XLC
    >>> from fxai.oracles.nbc import NBCOracle
    >>> tables = [[[0.97, 0.03], [0.05, 0.95]], [[0.05, 0.95], [0.95, 0.05]],
    ...           [[0.66, 0.34], [0.98, 0.02]], [[0.25, 0.75], [0.80, 0.20]],
    ...           [[0.97, 0.03], [0.05, 0.95]]]
    >>> nbc = XLC.from_log_probs(np.log([0.9, 0.1]), [np.log(t) for t in tables])
    >>> o = NBCOracle(nbc, [1, 0, 0, 0, 1])
    >>> sorted(stream(o, "axp"))
    [(0, 1, 2), (0, 1, 4), (0, 2, 4), (0, 3, 4), (1, 2, 4)]
    >>> sorted(stream(o, "cxp"))
    [(0, 1), (0, 2), (0, 4), (1, 2, 3), (1, 4), (2, 4)]
    """
    if kind not in ("axp", "cxp"):
        raise ValueError(f"kind must be 'axp' or 'cxp', not {kind!r}")
    pair = _pair(o)
    if pair is None:
        raise TypeError("the linear enumeration is for NBC / XLC oracles with one class pair "
                        "that decides (two classes, or one rival that can win)")
    valid_time_limit(time_limit)
    prime()  # the compiled search loaded (or compiled) before the clock starts
    from fxai.explain.linear_search import passes, search

    t0 = clock()

    deltas = np.asarray(pair.slack.deltas, dtype=np.float64)
    order = np.argsort(-deltas, kind="stable").astype(np.int64)
    w = deltas[order]
    suffix = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])
    strict = bool(pair.slack.strict)
    # AXp: fixed S passes iff Σ_S δ > Φ (≥ if a tie keeps c); CXp: freed F iff Σ_F δ ≥ Γ
    # (> if a tie keeps c)
    theta = float(deltas.sum() - pair.slack.gamma) if kind == "axp" else pair.slack.gamma
    inclusive = (not strict) if kind == "axp" else strict
    state = _State(len(w))
    n = o.n_features
    empty = passes(0.0, theta, inclusive, 2.0 * pair.band)
    if empty == 1 or (empty < 0 and _exact(o, kind, ())):
        yield ()  # the empty set passes: it is the only minimal one
        return
    if empty < 0:
        state.meta[1] = 0  # the root itself is undecided: every set is a candidate
    while not state.done:
        if time_limit is not None and clock() - t0 > time_limit:
            raise TimeLimitExceeded(f"linear enumeration: time limit of {time_limit} s "
                                    "reached", time_limit)
        buf = np.empty(BLOCK + n + 2, dtype=np.int64)
        used = search(w, order, suffix, theta, inclusive, 2.0 * pair.band, buf,
                      state.idx, state.sums, state.nxt, state.meta)
        state.done = state.meta[0] < 0
        flat = buf[:used].tolist()
        at = 0
        while at < used:
            k, flagged = flat[at], flat[at + 1]
            xp = tuple(flat[at + 2:at + 2 + k])
            at += 2 + k
            if not flagged or _exact(o, kind, xp):
                yield xp


class Enumeration:
    """:func:`stream` with MARCO's interface (:class:`~fxai.explain.marco.Marco`): iterate
    for events, the AXps then the CXps (``target="cxp"``: the CXps first); after iteration
    ``complete``, ``axps``, ``cxps`` (kept, as MARCO keeps them; use :func:`stream` to keep
    none), ``oracle_calls`` and ``switched_at`` (always None). ``time_limit`` bounds both
    kinds together, in seconds of ``clock``.

    Examples
    --------
    >>> import numpy as np
    >>> from fxai.models.nbc import XLC
    >>> from fxai.oracles.nbc import NBCOracle
    >>> xlc = XLC(-2.0, tuple(np.array([0.0, 1.0]) for _ in range(3)))
    >>> m = Enumeration(NBCOracle(xlc, [1, 1, 1]), target="cxp")
    >>> [(ev.kind, ev.features) for ev in m], m.complete
    ([('cxp', (0,)), ('cxp', (1,)), ('cxp', (2,)), ('axp', (0, 1, 2))], True)
    """

    def __init__(self, o: Oracle, target: str = "axp", time_limit: float | None = None,
                 clock: str = "cpu"):
        if target not in ("axp", "cxp", "switch"):
            raise ValueError(f"target must be 'axp', 'cxp' or 'switch', not {target!r}")
        self.o, self.target, self.time_limit = o, target, valid_time_limit(time_limit)
        self.clock = clocks.clock(clock)
        self.axps: list[tuple[int, ...]] = []
        self.cxps: list[tuple[int, ...]] = []
        self.complete = False
        self.switched_at: float | None = None
        self._calls = (o.calls, None)

    @property
    def oracle_calls(self) -> int:
        start, end = self._calls
        return (self.o.calls if end is None else end) - start

    def __iter__(self) -> Iterator[Event]:
        prime()
        t0 = self.clock()
        self._calls = (self.o.calls, None)
        kinds = ("cxp", "axp") if self.target == "cxp" else ("axp", "cxp")
        try:
            for kind in kinds:
                left = None if self.time_limit is None else self.time_limit - (
                    self.clock() - t0)
                if left is not None and left <= 0:
                    return
                found = self.axps if kind == "axp" else self.cxps
                for xp in stream(self.o, kind, time_limit=left, clock=self.clock):
                    found.append(xp)
                    yield Event(self.clock() - t0, kind, xp)
            self.complete = True
        except TimeLimitExceeded:
            return
        finally:
            self._calls = (self._calls[0], self.o.calls)


class _State:
    """The search's stack between blocks: chosen positions, partial sums, next position
    per depth; ``meta``: depth (-1 when done), depth of the first node on the path whose
    sum may pass (undecided; a larger number when there is none)."""

    def __init__(self, n: int):
        self.idx = np.zeros(n + 1, dtype=np.int64)
        self.sums = np.zeros(n + 2)
        self.nxt = np.zeros(n + 2, dtype=np.int64)
        self.meta = np.array([0, n + 5], dtype=np.int64)
        self.done = False


def _exact(o: Oracle, kind: str, xp: tuple[int, ...]) -> bool:
    """Is ``xp`` an AXp / CXp of ``o`` (the oracle's exact entailment)?"""
    every = set(range(o.n_features))
    fixed = (lambda s: set(s)) if kind == "axp" else (lambda s: every - set(s))
    passes = (lambda s: o.entails(fixed(s))) if kind == "axp" else (
        lambda s: not o.entails(fixed(s)))
    return passes(xp) and not any(passes(set(xp) - {f}) for f in xp)


_primed = False


def prime() -> None:
    """:func:`warm_up`, once per process: the enumerations call it before their clock
    starts, so no time limit pays numba's load (or its compilation after installation)."""
    global _primed
    if not _primed:
        _primed = True  # (first: warm_up enumerates, which primes)
        warm_up()


def warm_up() -> float:
    """Load the compiled search (numba: from its on-disk cache, or compiled on its first
    use after installation) by enumerating the AXps of a two-feature naive Bayes
    classifier; returns the process CPU seconds it took.

    Examples
    --------
    >>> warm_up() >= 0.0
    True
    """
    from fxai.models.nbc import XLC
    from fxai.oracles.nbc import NBCOracle

    t0 = time.process_time()
    tables = [np.log([[0.9, 0.1], [0.2, 0.8]])] * 2  # two copies of one feature
    o = NBCOracle(XLC.from_log_probs(np.log([0.5, 0.5]), tables), [1, 1])
    if sorted(stream(o, "axp")) != [(0,), (1,)]:
        raise RuntimeError("the linear enumeration answers a two-feature model wrongly")
    return time.process_time() - t0
