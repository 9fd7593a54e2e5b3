"""MARCO enumeration of AXps and CXps on one incremental SAT solver.

One Boolean variable u_i per feature, true = feature i is free. Each AXp X adds the
clause (OR_{i in X} u_i) and each CXp Y adds (OR_{i in Y} not u_i); the clauses are the
same whatever the target. The target only sets the solver's preferred phases
(Giunchiglia & Maratea 2006): MinisatGH decides every variable in its preferred
phase, so with no auxiliary variables its model is subset-minimal in the preferred
literals. Preferring u_i true yields a minimal fixed set (a minimal hitting set of the
CXps: an AXp candidate); preferring false yields a minimal free set (a CXp candidate).
Flipping the phases switches target without losing any clause or learnt clause:
MARCO-A = target "axp", MARCO-C = "cxp", MARCO-S = "switch" (CXps first, then AXps).

Only MinisatGH gives that guarantee; other PySAT solvers (e.g. ``g3``, ``m22``) return
non-minimal models, which MARCO would record as "explanations", so they are rejected.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pysat.solvers import Solver

from fxai import clocks
from fxai.errors import interruptible
from fxai.explain.extract import find_axp, find_cxp
from fxai.explain.known import Known, warm_up
from fxai.explain.switching import SwitchRule
from fxai.oracles.base import Oracle, TimeLimitExceeded, valid_time_limit

_OUT_OF_TIME = object()  # a question stopped by the time limit
# PySAT's names for MinisatGH (pysat.solvers.SolverNames.minisatgh)
MINIMAL_MODEL_SOLVERS = ("mgh", "msat-gh", "minisat-gh")


@dataclass(frozen=True)
class Event:
    """One explanation found ``t`` seconds after the enumeration started.

    ``kind`` is ``"axp"`` or ``"cxp"``; ``features`` are sorted 0-based feature indices.

    Attributes
    ----------
    t : float
        Seconds since the enumeration started.
    kind : {"axp", "cxp"}
    features : tuple of int

    Examples
    --------
    >>> ev = Event(0.25, "axp", (0, 3))
    >>> ev.kind, ev.features
    ('axp', (0, 3))
    """

    t: float
    kind: str  # "axp" or "cxp"
    features: tuple[int, ...]


class Marco:
    """Anytime enumeration; iterate for events. After iteration: ``complete``,
    ``switched_at`` (seconds, or None), ``axps``, ``cxps``.

    ``target`` is ``"axp"`` (MARCO-A), ``"cxp"`` (MARCO-C) or ``"switch"`` (MARCO-S, with
    ``switch`` deciding when; default :class:`SwitchRule`). ``clock`` stamps events and
    bounds ``time_limit`` with process ``"cpu"`` seconds (the default, as the workflow) or
    ``"wall"`` seconds; the time left also bounds each oracle question (as CPU seconds:
    the tree-ensemble oracles stop inside a long one, and an extraction between its
    questions), so one long question cannot overrun the limit.
    ``unit_cxps=True`` first tests every feature alone as a CXp (the authors' ``--unit-mcs``
    pre-pass) and records those found before the hitting-set loop. ``solver`` must name
    MinisatGH (see the module docstring); any other solver is a ``ValueError``.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    target : {"axp", "cxp", "switch"}
        MARCO-A, MARCO-C or MARCO-S.
    time_limit : float or None
        Seconds of ``clock`` for the whole enumeration.
    switch : SwitchRule or None
        MARCO-S's switch condition (default :class:`SwitchRule`).
    clock : {"cpu", "wall"}
        The clock of the time limit and of the events' times.
    solver : str
        The hitting-set solver (MinisatGH only).
    unit_cxps : bool
        Test every feature alone as a CXp first.

    Examples
    --------
    All AXps and CXps of the NBC paper's running example (instance (t, f, f, f, t)),
    with MARCO-A:

    >>> import numpy as np
    >>> from fxai.models.nbc import XLC
    >>> from fxai.oracles.nbc import NBCOracle
    >>> tables = [[[0.97, 0.03], [0.05, 0.95]], [[0.05, 0.95], [0.95, 0.05]],
    ...           [[0.66, 0.34], [0.98, 0.02]], [[0.25, 0.75], [0.80, 0.20]],
    ...           [[0.97, 0.03], [0.05, 0.95]]]
    >>> nbc = XLC.from_log_probs(np.log([0.9, 0.1]), [np.log(t) for t in tables])
    >>> m = Marco(NBCOracle(nbc, [1, 0, 0, 0, 1]), target="axp", time_limit=60)
    >>> [(ev.kind, ev.features) for ev in m][:3]
    [('cxp', (2, 4)), ('cxp', (1, 4)), ('cxp', (1, 2, 3))]
    >>> m.complete
    True
    >>> sorted(m.axps)
    [(0, 1, 2), (0, 1, 4), (0, 2, 4), (0, 3, 4), (1, 2, 4)]
    >>> sorted(m.cxps)
    [(0, 1), (0, 2), (0, 4), (1, 2, 3), (1, 4), (2, 4)]
    >>> Marco(NBCOracle(nbc, [1, 0, 0, 0, 1]), solver="g3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: MARCO needs MinisatGH (solver 'mgh'), ... 'g3' returns non-minimal models
    """

    def __init__(
        self,
        o: Oracle,
        target: str = "axp",
        time_limit: float | None = None,
        switch: SwitchRule | None = None,
        clock: str = "cpu",
        solver: str = "mgh",
        unit_cxps: bool = False,
    ):
        if target not in ("axp", "cxp", "switch"):
            raise ValueError(f"target must be 'axp', 'cxp' or 'switch', not {target!r}")
        self.o, self.target, self.time_limit = o, target, valid_time_limit(time_limit)
        if solver not in MINIMAL_MODEL_SOLVERS:
            raise ValueError(f"MARCO needs MinisatGH (solver 'mgh'), whose models are "
                             f"subset-minimal; {solver!r} returns non-minimal models")
        self.rule = (switch or SwitchRule()) if target == "switch" else None
        self.clock = clocks.clock(clock)
        self.solver_name = solver
        self.unit_cxps = unit_cxps
        self.feats = list(o.features)
        self.var = {f: k + 1 for k, f in enumerate(self.feats)}
        self.axps: list[tuple[int, ...]] = []
        self.cxps: list[tuple[int, ...]] = []
        self.known = Known(o.n_features, adaptive=True)  # the same, for the extractions
        self.complete = False
        self.switched_at: float | None = None
        self._calls: tuple[int, int | None] = (0, 0)  # oracle's count at start, at end

    @property
    def oracle_calls(self) -> int:
        """Oracle questions asked by this enumeration (so far, while it runs); ``o.calls``
        counts over the oracle's lifetime.

        Examples
        --------
        >>> from fxai.verify.brute import BruteForceOracle
        >>> o = BruteForceOracle(lambda p: p[:, 0] | (p[:, 1] & p[:, 2]), [[0, 1]] * 3,
        ...                      [1, 1, 1])  # x0 or (x1 and x2) at (1, 1, 1)
        >>> m1, m2 = Marco(o, target="cxp"), Marco(o, target="axp")
        >>> _, _ = list(m1), list(m2)
        >>> m1.oracle_calls, m2.oracle_calls, o.calls
        (9, 11, 20)
        """
        start, end = self._calls
        return (getattr(self.o, "calls", 0) if end is None else end) - start

    def __iter__(self) -> Iterator[Event]:
        self._calls = (getattr(self.o, "calls", 0), None)
        try:
            yield from self._events()
        finally:
            self._calls = (self._calls[0], getattr(self.o, "calls", 0))

    def _events(self) -> Iterator[Event]:
        warm_up()  # the known sets' compiled scan, loaded before the clock starts
        t0 = self.clock()
        phase = "cxp" if self.target == "switch" else self.target
        with Solver(name=self.solver_name, bootstrap_with=[]) as sat:
            for v in self.var.values():  # declare every variable
                sat.add_clause([v, -v])
            self._set_phase(sat, phase)
            if self.unit_cxps:  # the reference code's pre-pass (--unit-mcs): CXps of size 1
                everything = set(self.feats)
                for f in self.feats:
                    found = self._ask(t0, self.o.counterexample, everything - {f})
                    if found is _OUT_OF_TIME:
                        return
                    if found is not None:
                        yield self._record(sat, "cxp", [f], self.clock() - t0)
            while True:
                if self.time_limit is not None and self.clock() - t0 >= self.time_limit:
                    return
                if self.rule is not None and phase == "cxp" and self.rule.needed():
                    phase = "axp"
                    self.switched_at = self.clock() - t0
                    self._set_phase(sat, phase)
                with interruptible():
                    found = sat.solve()
                if not found:
                    self.complete = True
                    return
                # (variable k + 1 is feature feats[k]: the model lists them in that order)
                free = {f for f, lit in zip(self.feats, sat.get_model(), strict=True) if lit > 0}
                fixed = set(self.feats) - free
                found = self._ask(t0, self._explain, phase, fixed, free)
                if found is _OUT_OF_TIME:
                    return
                kind, xp = found
                yield self._record(sat, kind, xp, self.clock() - t0)
                if not xp:  # an empty AXp: the prediction is constant, nothing else exists
                    self.complete = True
                    return

    def _explain(self, phase: str, fixed: set[int], free: set[int]) -> tuple[str, list[int]]:
        """The explanation a candidate gives: itself, or one extracted from it."""
        if phase == "axp":
            if self.o.entails(fixed):
                return "axp", sorted(fixed)
            return "cxp", find_cxp(self.o, seed=free, known=self.known)
        if not self.o.entails(fixed):
            return "cxp", sorted(free)
        return "axp", find_axp(self.o, seed=fixed, check_seed=False, known=self.known)

    def _ask(self, t0: float, question, *args):
        """``question(*args)`` under the time left (the oracle checks it inside long
        questions), or ``_OUT_OF_TIME``."""
        left = None if self.time_limit is None else self.time_limit - (self.clock() - t0)
        if left is not None and left <= 0:
            return _OUT_OF_TIME
        try:
            with self.o.time_limit(left):
                return question(*args)
        except TimeLimitExceeded:
            return _OUT_OF_TIME

    def _set_phase(self, sat: Solver, phase: str) -> None:
        sign = 1 if phase == "axp" else -1
        sat.set_phases([sign * v for v in self.var.values()])

    def _record(self, sat: Solver, kind: str, xp: list[int], t: float) -> Event:
        self.known.add(kind, xp)
        if kind == "axp":
            self.axps.append(tuple(xp))
            sat.add_clause([self.var[f] for f in xp])
        else:
            self.cxps.append(tuple(xp))
            sat.add_clause([-self.var[f] for f in xp])
        if self.rule is not None:
            self.rule.record(kind, len(xp))
        return Event(t, kind, tuple(xp))
