"""Independent checker of AXps / CXps of hard-vote random forests (scikit-learn
``RandomForestClassifier`` / ``ExtraTreesClassifier``, ``vote="hard"``, and soft-vote ones
whose every leaf is pure): SAT, every counterexample confirmed by the library's own class
(the trees' ``predict`` for the hard vote, the forest's ``predict`` for the soft one).

Shares no code with the oracle (:mod:`fxai.oracles.votes`): the trees are read from
scikit-learn's ``tree_`` arrays by :class:`~fxai.verify.scores.ScoreChecker` (left iff
``float32(x) <= t``), whose cut binaries ``z[f, j]`` (x_f left of cut j) and domain value
binaries this checker takes as SAT variables, and it uses another solver (MiniSat 2.2) and
another cardinality encoding (the totalizer). Per tree and class a variable ``v`` implied by
each root-to-leaf path of a leaf voting that class (its first class of highest fraction),
and per tree and class a variable ``u`` ("votes that class") that excludes the tree's other
classes. Rival ``j`` beats the prediction ``c`` iff ``votes_j - votes_c >= [j > c]``
(first-max tie rule), i.e. ``#u(., j) + #not v(., c) >= #trees that can vote c + [j > c]``
(two classes: ``#not v(., c) >= ceil((T + [j > c]) / 2)`` less the trees that never vote
c): one constraint per class pair under a selector, kept with the model's formula. The MILP
of :class:`ScoreChecker` checks the same queries (the test suite compares them) but takes
seconds on a default forest.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable, Sequence
from itertools import pairwise

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from fxai.errors import interruptible
from fxai.verify.scores import ScoreChecker

# per model (weakly held): (its trees, its formulas by domains)
_FORMULAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

SOLVER = "minisat22"
CARD = EncType.totalizer


class _Formula:
    """The clauses of one forest over the checker's binaries (cut sides, domain values),
    its solver, and the selectors of the class pairs asked so far."""

    def __init__(self, chk: VoteChecker, trees):
        self.pool = pool = IDPool(start_from=chk._n_bin + 1)
        self.binary = chk.k == 2
        clauses = []
        for f, T in chk.cuts.items():
            z = [chk.z[f, j] + 1 for j in range(len(T))]
            clauses += [[-a, b] for a, b in pairwise(z)]  # left of cut j: of cut j + 1
            if f in chk.m and z:  # NaN: right of every cut
                clauses.append([-z[-1], -(chk.m[f] + 1)])
        for g in chk.groups:  # one row; each cut's side is the row's
            w = [v + 1 for v in g.vars]
            clauses += CardEnc.equals(w, 1, vpool=pool, encoding=EncType.pairwise).clauses
            for pos, k in enumerate(g.inputs):
                for j, t in enumerate(chk.cuts.get(k, ())):
                    zj = chk.z[k, j] + 1
                    left = [v for v, d in zip(w, g.values[:, pos], strict=True)
                            if chk._left(d, t)]
                    clauses += [[-zj, *left], *([-v, zj] for v in left)]
        self.classes: list[set[int]] = []
        for t, (feat, thr, left, right, value, nan_left, *_) in enumerate(trees):
            seen: set[int] = set()
            stack = [(0, [])]
            while stack:
                node, path = stack.pop()
                if left[node] < 0:
                    k = int(np.argmax(value[node]))
                    seen.add(k)
                    clauses.append([*(-lit for lit in path), pool.id(("v", t, k))])
                    continue
                sides = _sides(chk, int(feat[node]), float(thr[node]),
                               nan_left is not None and bool(nan_left[node]))
                for child, ways in zip((left[node], right[node]), sides, strict=True):
                    stack += [(int(child), [*path, *way]) for way in ways]
            for k in seen if not self.binary else ():  # u(t, k): no other class of t
                clauses += [[-pool.id(("u", t, k)), -pool.id(("v", t, o))] for o in seen - {k}]
            self.classes.append(seen)
        self.solver = Solver(name=SOLVER, bootstrap_with=clauses)
        self._beats: dict[tuple[int, int], int | None] = {}

    def beats(self, j: int, c: int) -> int | None:
        """The selector of "j beats c" (constraint added on first use), None if it never
        can."""
        if (j, c) not in self._beats:
            pool, classes = self.pool, self.classes
            lits = [-pool.id(("v", t, c)) for t, ks in enumerate(classes) if c in ks]
            if self.binary:  # votes_j = T - votes_c: at least ceil((T + [j > c]) / 2) not c
                bound = -(-(len(classes) + (j > c)) // 2) - (len(classes) - len(lits))
            else:
                lits += [pool.id(("u", t, j)) for t, ks in enumerate(classes) if j in ks]
                bound = sum(c in ks for ks in classes) + (j > c)
            sel = None
            if bound <= len(lits):
                sel = pool.id(("sel", j, c))
                card = CardEnc.atleast(lits, bound=bound, vpool=pool, encoding=CARD)
                self.solver.append_formula([[-sel, *cl] for cl in card.clauses])
            self._beats[(j, c)] = sel
        return self._beats[(j, c)]


def pure_leaves(model) -> bool:
    """Is every leaf of the forest pure (class fractions 0 or 1)? Then its soft vote (the
    mean of the trees' one-hot fractions: vote counts over the number of trees, exact in
    float64) orders the classes as the hard vote does, ties included."""
    k = len(model.classes_)
    return all(np.isin(e.tree_.value[e.tree_.children_left < 0, 0, :k], (0.0, 1.0)).all()
               for e in model.estimators_)


def _sides(chk: VoteChecker, f: int, t: float, nan_left: bool
           ) -> tuple[list[list[int]], list[list[int]]]:
    """A split's two sides as alternatives of literal conjunctions (SAT variables: binary
    index + 1): left of a finite cut iff z (or NaN, m, where NaN goes left); +inf sends every
    number left and NaN by ``nan_left``."""
    m = chk.m.get(f)
    nan = m + 1 if m is not None else None
    if math.isinf(t):
        if nan is None:
            return [[]], []
        return ([[]], []) if nan_left else ([[-nan]], [[nan]])
    zj = chk.z[f, int(np.searchsorted(chk.cuts[f], chk._cut(t)))] + 1
    if nan is not None and nan_left:
        return [[zj], [nan]], [[-zj, -nan]]
    return [[zj]], [[-zj]]


class VoteChecker(ScoreChecker):
    """SAT checks of a forest's vote at ``x`` (see the module): ``vote="hard"``, or "soft"
    for a forest whose every leaf is pure (:func:`pure_leaves`; points are then confirmed
    by ``model.predict``); ``domains``, ``samples`` and ``groups`` as for
    :class:`ScoreChecker`."""

    def __init__(self, model, x: Sequence, domains: Sequence | None = None,
                 vote: str = "hard", samples: int = 0, groups=None, missing: bool = False):
        if vote == "soft" and not pure_leaves(model):
            raise ValueError("a soft vote is a vote count only when every leaf is pure")
        super().__init__(model, x, domains, vote, samples, groups=groups, missing=missing)

    def _encode(self, trees) -> None:
        self._n_bin = self._features(trees)  # binary index i is SAT variable i + 1
        # the trees themselves (not their ids, which a refit's new trees may reuse)
        fitted = tuple(e.tree_ for e in self.model.estimators_)
        domains = (tuple(None if d is None else tuple(map(float, d)) for d in self.domains),
                   tuple((g.inputs, g.values.tobytes()) for g in self.groups), self.missing)
        kept = _FORMULAS.get(self.model)
        if kept is None or kept[0] != fitted:  # first use, or a refitted model
            kept = _FORMULAS[self.model] = (fitted, {})
        if domains not in kept[1]:
            kept[1][domains] = _Formula(self, trees)
        self._formula = kept[1][domains]
        self._selectors = [self._formula.beats(j, self.c) for j in range(self.k) if j != self.c]

    def counterexample(self, fixed: Iterable[int]) -> np.ndarray | None:
        """A point agreeing with x on ``fixed`` of another class, or None."""
        return self.counterexamples([fixed])[0]

    def weak_axps(self, sets: Sequence[Iterable[int]]) -> list[bool]:
        """Whether fixing each set keeps the prediction."""
        return [p is None for p in self.counterexamples(sets)]

    def counterexamples(self, sets: Sequence[Iterable[int]]) -> list[np.ndarray | None]:
        """Per set a counterexample or None; the points are confirmed by the trees' votes in
        one call."""
        sets = [set(s) for s in sets]
        found = self._sampled(sets)
        for i, fixed in enumerate(sets):
            if found[i] is None:
                found[i] = self._sat(fixed)
        points = [p for p in found if p is not None]
        if points and (self.classes_of(np.stack(points)) == self.c).any():
            raise RuntimeError("a SAT model beats the prediction but the trees' votes keep "
                               "it: the encoding disagrees with the model")
        return found

    def _sat(self, fixed: set[int]) -> np.ndarray | None:
        pinned = [var + 1 if value else -(var + 1) for var, value in self._pinned(fixed).items()]
        solver = self._formula.solver
        for sel in self._selectors:
            if sel is None:
                continue
            with interruptible():
                found = solver.solve(assumptions=[*pinned, sel])
            if not found:
                continue
            sol = np.zeros(self._n_bin)
            for lit in solver.get_model():
                if 0 < lit <= self._n_bin:
                    sol[lit - 1] = 1.0
            return self._rebuild(sol, fixed)
        return None
