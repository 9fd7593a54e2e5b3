"""Exact SAT oracle for majority-vote (hard-vote) forests, after Izza & Marques-Silva, "On
explaining random forests with SAT" (IJCAI 2021).

A hard-vote forest (:mod:`fxai.models.forest`, ``vote="hard"``) is a
:class:`~fxai.models.scores.ScoreEnsemble` whose every leaf scores one class 1 and the others
0, without intercept or divisor: class k's score is its number of votes, an integer, so the
vote counts below are exactly scikit-learn's float64 sums. A point is of another class than
the prediction ``c`` iff some rival ``j`` has ``votes_j > votes_c``, or ``votes_j ==
votes_c`` for ``j`` before ``c`` (first-max tie rule).

Encoding (one CNF and one incremental solver per model, kept with the model's tables while
the ensemble lives and shared by all its oracles; with ``domains`` one per oracle): per used
feature the order encoding of its intervals (``y[f][k]``: interval index >= k, ``y[f][k+1]
-> y[f][k]``); per tree and class a variable ``p``, implied by each root-to-leaf path of a
reachable leaf voting that class (one clause from the path's interval literals; no leaf
variables); with more than two classes, per tree and class a variable ``q`` ("the tree
votes it") that excludes the tree's other classes. Rival ``j`` beats ``c`` iff ``votes_j -
votes_c >= [j > c]``: with two classes ``#(trees not voting c) >= ceil((T + [j > c]) / 2)``
(one literal per tree; one cardinality constraint, pysat.card's k-modulo totalizer, per
class pair), else ``#q(., j) >= #p(., c) + d`` over the trees whose vote is not constant
(``d``: ``[j > c]`` and the constant votes; ``#p`` bounds c's votes from above, ``#q`` j's
from below, and a point sets both exactly): one unary counter (pysat.card's totalizer) of
``p(., c)`` per class c and one of ``q(., j)`` per class j, shared by every pair that
needs them, and per pair the comparison "at least k of c's implies at least k + d of j's",
one clause per k. Each pair's clauses are under a selector, built on first use and kept.
``entails(S)`` assumes the instance's intervals of
the features in S and the selector of "some rival beats c" (a clause over the pairs'
selectors): one solve per query; a model is a counterexample point. When no rival can
win, the solver's core names the fixed features its proof used
(:meth:`VoteOracle.sufficient_part`), and deletion asks nothing of the others.

With more than two classes a bound comes first (:meth:`_Encoding.possible`): per tree the
leaves the fixed features still reach bound each rival's ``votes_j - votes_c``, and the
solver is asked only about the rivals that may win (not at all when none may). Its core
then proves only those: it is returned only if the bound drops the others with the core's
features alone, else the fixed set is. Digits, 100 full-depth trees, the first 5 test rows:
48.3 -> 30.3 CPU s for the 5 AXps; pendigits, 100 trees of depth 6: 6.7 -> 3.9 s (the same
AXps). With two classes it cost more than it saved (breast_cancer defaults
0.67 -> 0.83 s) and is not used.

Choice by measurement (one-off, process CPU s; ``python -m benchmarks.forests`` measures the
chosen one against PyXAI): the previous encoding (a variable per leaf, per-instance pair
constraints over the leaves, one solve per rival) took 2.0 s per AXp on the default
breast_cancer forest (100 full-depth trees; the first 10 test rows), this one 0.09 s with
the same AXps. Encoding and solver on that forest (total of the 10 AXps) and on digits (100
trees of depth 6, 3 rows): k-modulo totalizer with Glucose 4 0.86 / 9.1 s, with MiniSat
2.2 0.82 / 8.5 s, with CaDiCaL 1.5.3 1.1 / 13.7 s; totalizer with Glucose 4 0.87 / 13.5 s;
sequential counter and cardinality network 1.3-2.5 s on breast_cancer. With more than two
classes the shared counters replaced one k-modulo totalizer per pair over both classes'
literals (``#q(., j) + #(not p(., c)) >= n_c + [j > c]``): digits defaults, the first 10
test rows, 93.3 and 94.3 s against 103.5-120.0 s in three runs, the same AXps; pendigits
depth 6, 5 rows, 2.28 against 2.66 s (docs/benchmarks.md, "Shared vote counters").
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
from pysat.card import CardEnc, EncType, ITotalizer
from pysat.formula import IDPool
from pysat.solvers import Solver

from fxai.errors import interruptible
from fxai.models.scores import ScoreEnsemble
from fxai.oracles.registry import register
from fxai.oracles.scores import ScoreOracle

SOLVER = "glucose4"
ENCODING = EncType.kmtotalizer


def solve(solver: Solver, assumptions: list[int], oracle, conflicts: int = 0) -> bool | None:
    """``solver.solve(assumptions)``; under the oracle's deadline the solver is interrupted
    when the time left has passed on the wall clock (no sooner than the process CPU time
    it bounds) and the deadline checked then. With ``conflicts`` > 0, at most that many
    conflicts (None if they do not decide). Ctrl-C inside the solver is a
    ``KeyboardInterrupt`` (:func:`fxai.errors.interruptible`)."""
    with interruptible():
        return _solve(solver, assumptions, oracle, conflicts)


def _solve(solver: Solver, assumptions: list[int], oracle, conflicts: int) -> bool | None:
    if oracle.deadline is None:
        if conflicts > 0:
            solver.conf_budget(conflicts)
            return solver.solve_limited(assumptions=assumptions)
        return solver.solve(assumptions=assumptions)
    while True:
        oracle.check_time()
        if conflicts > 0:
            solver.conf_budget(conflicts)
        timer = threading.Timer(max(oracle.deadline - time.process_time(), 0.01),
                                solver.interrupt)
        timer.start()
        try:
            found = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            timer.cancel()
            solver.clear_interrupt()
        if found is not None or conflicts > 0:  # (None: the budget, or the time: checked
            return found  # by the caller's next round)




class Intervals:
    """The order encoding of the intervals ``allowed`` of each used feature (``y[f][k]``:
    interval index >= k), shared by the forest SAT oracles."""

    def __init__(self, allowed):
        self.pool = IDPool()
        self.size = [len(a) for a in allowed]
        self.y = [[0] + [self.pool.id(("y", f, k)) for k in range(1, s)]
                  for f, s in enumerate(self.size)]
        self.order = [[-ys[k + 1], ys[k]] for ys in self.y for k in range(1, len(ys) - 1)]

    def outside(self, box: dict) -> list[int]:
        """The literals of "the point is outside ``box``" (column -> ``[lo, hi)``): the body
        of a path clause, or the clause that cuts the box off."""
        return [*(-self.y[f][lo] for f, (lo, _) in box.items() if lo > 0),
                *(self.y[f][hi] for f, (_, hi) in box.items() if hi < self.size[f])]

    def fixed(self, f: int, k: int) -> list[int]:
        """The literals that put feature column ``f`` in interval ``k``."""
        out = [self.y[f][k]] if k > 0 else []
        return out + ([-self.y[f][k + 1]] if k + 1 < self.size[f] else [])

    def assumptions(self, mask: np.ndarray, v: np.ndarray) -> dict[int, int]:
        """The literals that put every column of ``mask`` in its interval ``v[f]``, each
        mapped to its column (a solver's core names the columns it used)."""
        return {lit: int(f) for f in np.flatnonzero(mask) for lit in self.fixed(int(f), int(v[f]))}

    def interval(self, model: set[int], f: int) -> int:
        return sum(1 for v in self.y[f][1:] if v in model)


class _Encoding(Intervals):
    """The CNF of a vote forest over the intervals ``allowed`` and its incremental solver,
    shared by the oracles that use it (see the module)."""

    def __init__(self, ens: ScoreEnsemble, boxes, allowed):
        super().__init__(allowed)
        clauses = list(self.order)
        self.n_trees, self.n_classes = len(ens.trees), ens.n_classes
        self.binary = ens.n_classes == 2
        self.classes: list[set[int]] = []  # per tree, the classes its reachable leaves vote
        # for the bound (more than two classes): per leaf its tree * n_classes + class, per
        # path condition (leaf, column, lo, hi)
        leaf_vote: list[np.ndarray] = []
        cond: list[np.ndarray] = []
        n = len(allowed)  # the boxes' dummy column
        y = np.zeros((n + 1, max(self.size, default=1) + 1), dtype=np.int64)
        for c, ys in enumerate(self.y):  # y[c, k]: the literal "interval >= k", 0 if none
            y[c, 1:len(ys)] = ys[1:]
        leaves = 0
        for t, (tree, b) in enumerate(zip(ens.trees, boxes, strict=True)):
            k = np.argmax(tree.value[b.nodes], axis=1)  # each leaf's vote
            ks = k.tolist()
            votes = set(ks)
            p = {j: self.pool.id(("p", t, j)) for j in dict.fromkeys(ks)}  # (first come)
            # per leaf: its path clause, "outside its box" (Intervals.outside) or p(t, vote)
            outside = np.concatenate([-y[b.cols, b.lo], y[b.cols, b.hi]], axis=1)
            clauses += [[lit for lit in row if lit] + [p[j]]
                        for row, j in zip(outside.tolist(), ks, strict=True)]
            if not self.binary:
                inside = b.cols != n
                at = np.broadcast_to(np.arange(leaves, leaves + len(k))[:, None], b.cols.shape)
                cond.append(np.stack([at[inside], b.cols[inside], b.lo[inside], b.hi[inside]]))
                leaf_vote.append(t * ens.n_classes + k)
                leaves += len(k)
            self.classes.append(votes)
        self.leaf_vote = np.concatenate([np.zeros(0, np.int64), *leaf_vote])
        self.cond = np.concatenate([np.zeros((4, 0), np.int64), *cond], axis=1).astype(np.int32)
        if ens.n_classes > 2:  # q(t, j) -> tree t votes j: no other class of it is taken
            for t, votes in enumerate(self.classes):
                for j in votes if len(votes) > 1 else ():
                    clauses += [[-self.pool.id(("q", t, j)), -self.pool.id(("p", t, k))]
                                for k in votes - {j}]
        self.solver = Solver(name=SOLVER, bootstrap_with=clauses)
        self._pairs: dict[tuple[int, int], int | None] = {}
        self._rivals: dict[tuple, int | None] = {}  # (c, rivals) -> its selector
        self._counters: dict[tuple, list[int]] = {}

    def _counter(self, key, lits: list[int]) -> list[int]:
        """The outputs of a unary counter (totalizer) of ``lits``, built once per ``key``:
        output k is implied when at least k + 1 of them hold."""
        if key not in self._counters:
            out: list[int] = []
            if lits:
                tot = ITotalizer(lits=lits, ubound=len(lits), top_id=self.pool.top)
                self.pool.top = tot.top_id
                self.solver.append_formula(tot.cnf.clauses)
                out = list(tot.rhs)
            self._counters[key] = out
        return self._counters[key]

    def _pair(self, c: int, j: int) -> int | None:
        """The selector of "j beats c", ``votes_j - votes_c >= [j > c]`` (its guarded
        clauses added on first use), None if j never can."""
        if (c, j) not in self._pairs:
            self._pairs[(c, j)] = (self._binary_pair if self.binary else self._shared_pair)(c, j)
        return self._pairs[(c, j)]

    def _shared_pair(self, c: int, j: int) -> int | None:
        """More than two classes: "at least k of the trees ``p(., c)`` implies at least
        k + d of the trees ``q(., j)``" for every k (see the module), over the two classes'
        shared counters."""
        d, ps, not_qs = int(j > c), [], []
        for t, votes in enumerate(self.classes):
            if len(votes) == 1:  # a constant vote
                d += (c in votes) - (j in votes)
                continue
            if c in votes:
                ps.append(self.pool.id(("p", t, c)))
            if j in votes:
                not_qs.append(-self.pool.id(("q", t, j)))
        n = len(not_qs)
        if d > n:
            return None
        sel = self.pool.id(("sel", c, j))
        at_least_p = self._counter(("p", c), ps)  # [k - 1]: at least k trees p(., c)
        not_q = self._counter(("not q", j), not_qs)  # [i]: at least i + 1 trees not q(., j)
        clauses = []
        for k in range(len(ps) + 1):
            m = k + d  # at least k trees p(., c): at least m trees q(., j)
            if m > 0:
                body = [-sel] + ([-at_least_p[k - 1]] if k else [])
                clauses.append(body + ([-not_q[n - m]] if m <= n else []))
        self.solver.append_formula(clauses)
        return sel

    def _binary_pair(self, c: int, j: int) -> int | None:
        """Two classes: at least ``ceil((T + [j > c]) / 2)`` trees do not vote c, one
        literal per tree whose vote is not constant."""
        lits = [-self.pool.id(("p", t, c)) for t, votes in enumerate(self.classes)
                if len(votes) > 1]  # not c: j
        bound = math.ceil((self.n_trees + (j > c)) / 2) - sum(1 for v in self.classes
                                                              if v == {j})
        if bound > len(lits):
            return None
        sel = self.pool.id(("sel", c, j))
        if bound > 0:
            cnf = CardEnc.atleast(lits, bound=bound, vpool=self.pool, encoding=ENCODING)
            self.solver.append_formula([[-sel, *cl] for cl in cnf.clauses])
        return sel

    def rival(self, c: int, rivals) -> int | None:
        """The selector of "one of ``rivals`` beats c" (one solve asks for any), None if none
        can."""
        key = (c, frozenset(rivals))
        if key not in self._rivals:
            sels = [s for s in (self._pair(c, j) for j in rivals) if s is not None]
            if len(sels) <= 1:
                self._rivals[key] = sels[0] if sels else None
            else:
                self._rivals[key] = self.pool.id(("any", key))
                self.solver.add_clause([-self._rivals[key], *sels])
        return self._rivals[key]

    def possible(self, c: int, rivals, mask: np.ndarray, v: np.ndarray) -> list[int]:
        """The ``rivals`` that a bound lets beat ``c`` with the columns of ``mask`` in their
        intervals ``v``: per tree, +1 if a leaf it still reaches votes the rival, else 0 if
        one votes another class than c, else -1 (every leaf it reaches votes c); the sum
        bounds ``votes_j - votes_c`` from above."""
        leaf, col, lo, hi = self.cond
        at = v[col]
        out = mask[col] & ((at < lo) | (at >= hi))  # a fixed column outside a path's interval
        reach = np.bincount(leaf[out], minlength=len(self.leaf_vote)) == 0
        can = np.zeros(self.n_trees * self.n_classes, dtype=bool)
        can[self.leaf_vote[reach]] = True
        can = can.reshape(self.n_trees, self.n_classes)
        other = can.sum(axis=1) > can[:, c]  # a class other than c is still reachable
        floor = other.astype(np.int64) - 1  # 0, or -1 if the tree votes c
        bound = floor.sum() + ((1 - floor)[:, None] * can).sum(axis=0)
        return [j for j in rivals if bound[j] >= (j > c)]


class VoteOracle(ScoreOracle):
    """Exact SAT oracle for a hard-vote :class:`ScoreEnsemble` (see the module); the same
    interface and ``domains`` as :class:`ScoreOracle`.

    Examples
    --------
    >>> from fxai.models.boosted import Tree
    >>> stump = lambda f, a, b: Tree(feature=np.array([f, 0, 0]),
    ...     threshold=np.float32([0.5, 0, 0]), left=np.array([1, -1, -1]),
    ...     right=np.array([2, -1, -1]), value=np.float64([[0, 0], np.eye(2)[a], np.eye(2)[b]]))
    >>> ens = ScoreEnsemble((stump(0, 0, 1), stump(1, 0, 1)), np.zeros(2), 1.0, (0, 1), 2,
    ...                     "two votes")
    >>> o = VoteOracle(ens, [0.0, 0.0])  # 1 vote each at x1 >= 0.5: class 0 (first) keeps
    >>> o.prediction, o.entails([0]), o.counterexample([])
    (0, True, [0.5, 0.5])
    """

    def __init__(self, model: ScoreEnsemble, x, domains=None):
        super().__init__(model, x, domains)
        # without domains the CNF and its solver are kept with the model's tables, as the
        # leaf tables are, and shared by every oracle of the model
        enc = self._model.get("cnf") if domains is None else None
        if enc is None:
            enc = _Encoding(model, [self._boxes_of(t) for t in range(len(model.trees))],
                            self._allowed)
            if domains is None:
                self._model["cnf"] = enc
        self._enc = enc

    def sufficient_part(self, fixed) -> set[int] | None:
        """See :meth:`Oracle.sufficient_part`: the fixed features of the solver's core
        (the assumptions its proof of "no rival beats c" used). Where the bound dropped
        rivals before the solve, the core only if the bound drops them with its features
        alone, else ``fixed`` (also when the bound alone proved it)."""
        self.calls += 1
        enc, fixed = self._enc, set(fixed)
        if enc.rival(self.index, self._rivals) is None:
            return set()
        mask = self._fixed_mask(fixed)
        rivals = self._possible(mask)
        sel = enc.rival(self.index, rivals)
        if sel is None:  # the bound proved it
            return fixed
        owner = enc.assumptions(mask, self._v)
        t0 = time.perf_counter()
        if solve(enc.solver, [*owner, sel], self):
            self._cex, self._asked_s = self._model_point(), time.perf_counter() - t0
            return None
        core = {self._used[owner[lit]] for lit in enc.solver.get_core() or () if lit in owner}
        if len(rivals) < len(self._rivals) and not set(
                self._possible(self._fixed_mask(core))) <= set(rivals):
            return fixed  # the bound needs more than the core to drop the other rivals
        return core

    def _search(self, mask: np.ndarray) -> np.ndarray | None:
        enc = self._enc
        sel = enc.rival(self.index, self._possible(mask))
        if sel is None:
            return None
        if not solve(enc.solver, [*enc.assumptions(mask, self._v), sel], self):
            return None
        return self._model_point()

    def _possible(self, mask: np.ndarray) -> list[int]:
        """The rivals the solver is asked about: with more than two classes those that
        :meth:`_Encoding.possible`'s bound lets win (with two, the bound cost more than the
        calls it saved)."""
        if len(self._rivals) == 1:
            return self._rivals
        return self._enc.possible(self.index, self._rivals, mask, self._v)

    def _model_point(self) -> np.ndarray:
        """The intervals of the solver's last model."""
        model = {v for v in self._enc.solver.get_model() if v > 0}
        return np.array([self._enc.interval(model, f) for f in range(len(self._used))],
                        dtype=np.int64)


register(lambda m: isinstance(m, ScoreEnsemble) and m.is_vote, VoteOracle)
