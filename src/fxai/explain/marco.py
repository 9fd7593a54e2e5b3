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

import time
from collections.abc import Iterator
from dataclasses import dataclass

from pysat.solvers import Solver

from fxai.explain.extract import find_axp, find_cxp
from fxai.explain.switching import SwitchRule
from fxai.oracles.base import Oracle

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
# PySAT's names for MinisatGH (pysat.solvers.SolverNames.minisatgh)
MINIMAL_MODEL_SOLVERS = ("mgh", "msat-gh", "minisat-gh")


@dataclass(frozen=True)
class Event:
    """One explanation found ``t`` seconds after the enumeration started."""

    t: float
    kind: str  # "axp" or "cxp"
    features: tuple[int, ...]


class Marco:
    """Anytime enumeration; iterate for events. After iteration: ``complete``,
    ``switched_at`` (seconds, or None), ``axps``, ``cxps``.

    ``unit_cxps=True`` first tests every feature alone as a CXp (the authors' ``--unit-mcs``
    pre-pass) and records those found before the hitting-set loop. ``solver`` must name
    MinisatGH (see the module docstring); any other solver is a ``ValueError``.

    Examples
    --------
    >>> from fxai.verify.brute import BruteForceOracle
    >>> o = BruteForceOracle(lambda p: p[:, 0] & p[:, 1], [[0, 1], [0, 1]], [1, 1])
    >>> m = Marco(o, target="axp")
    >>> sorted((e.kind, e.features) for e in m), m.complete
    ([('axp', (0, 1)), ('cxp', (0,)), ('cxp', (1,))], True)
    >>> Marco(o, solver="g3")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: MARCO needs MinisatGH (solver 'mgh'), ... 'g3' returns non-minimal models
    """

    def __init__(
        self,
        o: Oracle,
        target: str = "axp",
        time_limit: float | None = None,
        switch: SwitchRule | None = None,
        clock: str = "wall",
        solver: str = "mgh",
        unit_cxps: bool = False,
    ):
        if target not in ("axp", "cxp", "switch"):
            raise ValueError(f"target must be 'axp', 'cxp' or 'switch', not {target!r}")
        self.o, self.target, self.time_limit = o, target, time_limit
        if solver not in MINIMAL_MODEL_SOLVERS:
            raise ValueError(f"MARCO needs MinisatGH (solver 'mgh'), whose models are "
                             f"subset-minimal; {solver!r} returns non-minimal models")
        self.rule = (switch or SwitchRule()) if target == "switch" else None
        self.clock = CLOCKS[clock]
        self.solver_name = solver
        self.unit_cxps = unit_cxps
        self.feats = list(o.features)
        self.var = {f: k + 1 for k, f in enumerate(self.feats)}
        self.axps: list[tuple[int, ...]] = []
        self.cxps: list[tuple[int, ...]] = []
        self.complete = False
        self.switched_at: float | None = None

    def __iter__(self) -> Iterator[Event]:
        t0 = self.clock()
        phase = "cxp" if self.target == "switch" else self.target
        with Solver(name=self.solver_name, bootstrap_with=[]) as sat:
            for v in self.var.values():  # declare every variable
                sat.add_clause([v, -v])
            self._set_phase(sat, phase)
            if self.unit_cxps:  # the reference code's pre-pass (--unit-mcs): CXps of size 1
                everything = set(self.feats)
                for f in self.feats:
                    if self.time_limit is not None and self.clock() - t0 >= self.time_limit:
                        return
                    if self.o.counterexample(everything - {f}) is not None:
                        yield self._record(sat, "cxp", [f], self.clock() - t0)
            while True:
                if self.time_limit is not None and self.clock() - t0 >= self.time_limit:
                    return
                if self.rule is not None and phase == "cxp" and self.rule.needed():
                    phase = "axp"
                    self.switched_at = self.clock() - t0
                    self._set_phase(sat, phase)
                if not sat.solve():
                    self.complete = True
                    return
                model = sat.get_model()
                free = {f for f in self.feats if model[self.var[f] - 1] > 0}
                fixed = set(self.feats) - free
                if phase == "axp":
                    if self.o.entails(fixed):
                        kind, xp = "axp", sorted(fixed)
                    else:
                        kind, xp = "cxp", find_cxp(self.o, seed=free)
                else:
                    if self.o.counterexample(fixed) is not None:
                        kind, xp = "cxp", sorted(free)
                    else:
                        kind, xp = "axp", find_axp(self.o, seed=fixed)
                yield self._record(sat, kind, xp, self.clock() - t0)
                if not xp:  # an empty AXp: the prediction is constant, nothing else exists
                    self.complete = True
                    return

    def _set_phase(self, sat: Solver, phase: str) -> None:
        sign = 1 if phase == "axp" else -1
        sat.set_phases([sign * v for v in self.var.values()])

    def _record(self, sat: Solver, kind: str, xp: list[int], t: float) -> Event:
        if kind == "axp":
            self.axps.append(tuple(xp))
            sat.add_clause([self.var[f] for f in xp])
        else:
            self.cxps.append(tuple(xp))
            sat.add_clause([-self.var[f] for f in xp])
        if self.rule is not None:
            self.rule.record(kind, len(xp))
        return Event(t, kind, tuple(xp))


def enumerate_xps(o: Oracle, target: str = "axp", time_limit: float | None = None, **kw) -> Marco:
    """MARCO over ``o``: iterate the result for :class:`Event` objects as they are found."""
    return Marco(o, target=target, time_limit=time_limit, **kw)
