"""Exact SAT oracle for soft-vote forests whose leaves are not all pure.

A soft-vote forest (:mod:`fxai.models.forest`, ``vote="soft"``, scikit-learn's
``predict``) scores class k by ``sum_t v_t(x)[k] / T``, added in float64 in tree order, and
predicts the first class of highest score. When every leaf is pure the scores are vote
counts and :class:`~fxai.oracles.votes.VoteOracle` answers; otherwise this oracle does.

Relaxation. For the prediction ``c`` and a rival ``j`` let ``d_t = v_t[c] - v_t[j]`` at the
leaf tree ``t`` gives the point (exact, as fractions of the float64 values) and ``w_t =
floor(S d_t)`` (``S = SCALE``). A point is of another class only if some rival's scores
reach ``c``'s in float64, and then the real sum ``sum_t d_t`` is at most ``G``, a rigorous
bound on the rounding of the two sums and the division (:func:`_gap`); so ``sum_t w_t <=
floor(S G)`` (0 for any forest of practical size). The encoding asks for points of this
relaxation: no point of another class is lost, and every point found is checked in the
library's float64 arithmetic (``ScoreEnsemble.predict_index``, bit for bit scikit-learn's).
A point that keeps ``c`` (rounding by at most ``T / S`` votes let it in) is cut off with all
the points that reach the same leaves (they have the same scores), and the solver asked
again.

Encoding (one CNF and incremental solver per model, kept while the ensemble lives; with
``domains`` one per oracle): the order encoding of the intervals (as the vote oracle's);
per pair ``(c, j)`` and tree, the distinct weights ``w_1 < ... < w_m`` of its reachable
leaves and a literal ``l_k`` ("the tree's weight is at least ``w_k``", k >= 2) implied by
each root-to-leaf path of a leaf of weight at least ``w_k``; then ``sum_t w_1 + sum
(w_k - w_{k-1}) l_k <= floor(S G)`` is one pseudo-Boolean constraint per pair, under a
selector, encoded by pindakaas's binary merge through ``pysat.pb``. The literals are only
implied, so the sum bounds the leaves' weights from above: sound, and a point of the
relaxation sets them exactly. A pair whose constraint would have more than ``MAX_TERMS``
weighted literals is searched by the branch and bound of
:class:`~fxai.oracles.scores.ScoreOracle` instead (same answers).

Choice by measurement, on breast_cancer forests of 100 trees (the first 10 test rows;
``python -m benchmarks.forests --vote soft``): see docs/benchmarks.md, "Random
forests, soft and hard vote".
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
from pysat.pb import EncType, PBEnc
from pysat.solvers import Solver

from fxai.models.scores import ScoreEnsemble
from fxai.oracles.registry import register
from fxai.oracles.scores import ScoreOracle
from fxai.oracles.votes import SOLVER, Intervals, solve

SCALE = 100  # weights floor(SCALE * (v_c - v_j))
WORK, CONFLICTS = 1 << 22, 1000  # first budgets: leaves the branch and bound tests, conflicts
MAX_TERMS = 20_000  # weighted literals per pair above which the branch and bound answers
WINS = (4, 1)  # the shares before any question both engines worked on (the solver pays builds)
BUILD_PRIOR = 1e-4  # CPU s per leaf a pair's constraint is taken to cost before one is built


def _gap(ens: ScoreEnsemble) -> float:
    """An upper bound on ``sum_t (v_t[c] - v_t[j])`` (real) at any point whose float64
    scores rank ``j`` at least as high as ``c``: twice the rounding of a sum of T terms in
    tree order, plus what the division by the divisor can merge (relative 2^-52 each)."""
    mass = sum(float(np.abs(t.value[t.left < 0]).max(initial=0.0)) for t in ens.trees)
    u = 2.0 ** -52
    return (2 * (len(ens.trees) + 1) + 4) * u * mass * 1.01


class _SoftEncoding(Intervals):
    """The CNF of a soft-vote forest over the intervals ``allowed`` (see the module)."""

    def __init__(self, ens: ScoreEnsemble, boxes, allowed):
        super().__init__(allowed)
        self.ens = ens
        self.leaves = [b.dicts(len(allowed)) for b in boxes]  # per tree: leaf -> its box
        self.bound = math.floor(SCALE * _gap(ens))
        self.solver = Solver(name=SOLVER, bootstrap_with=self.order)
        self._pairs: dict[tuple[int, int], int | None | bool] = {}
        self._rivals: dict[tuple, int | None | bool] = {}
        self.wins = list(WINS)  # questions answered by the branch and bound, the solver
        self.cost = {"build": [0.0, 0], "solve": [0.0, 0]}  # CPU s, pairs built / conflicts

    def _weights(self, c: int, j: int) -> list[dict[int, int]]:
        """Per tree, its reachable leaves' weights ``floor(SCALE * (v_c - v_j))``."""
        out = []
        for tree, leaves in zip(self.ens.trees, self.leaves, strict=True):
            out.append({node: math.floor(SCALE * (Fraction(float(tree.value[node, c]))
                                                  - Fraction(float(tree.value[node, j]))))
                        for node in leaves})
        return out

    def _pair(self, c: int, j: int) -> int | None | bool:
        """The selector of "j may reach c" (its constraint added on first use), None if j
        never can, False if the constraint is too large (see the module)."""
        if (c, j) in self._pairs:
            return self._pairs[(c, j)]
        t0 = time.process_time()
        const, terms, clauses = 0, [], []
        for t, weights in enumerate(self._weights(c, j)):
            levels = sorted(set(weights.values()))
            const += levels[0]
            lits = [0] + [self.pool.id(("l", c, j, t, k)) for k in range(1, len(levels))]
            terms += [(lits[k], levels[k] - levels[k - 1]) for k in range(1, len(levels))]
            clauses += [[-lits[k], lits[k - 1]] for k in range(2, len(levels))]
            rank = {w: k for k, w in enumerate(levels)}
            clauses += [[*self.outside(self.leaves[t][node]), lits[rank[w]]]
                        for node, w in weights.items() if rank[w] > 0]
        room = self.bound - const
        if room < 0:
            sel: int | None | bool = None
        elif len(terms) > MAX_TERMS:
            sel = False
        else:
            sel = self.pool.id(("sel", c, j))
            self.solver.append_formula(clauses)
            if sum(w for _, w in terms) > room:
                pb = PBEnc.atmost([lit for lit, _ in terms], [w for _, w in terms], bound=room,
                                  vpool=self.pool, encoding=EncType.binmerge,
                                  conditionals=[sel])
                self.solver.append_formula(pb.clauses)
        self._pairs[(c, j)] = sel
        self.cost["build"][0] += time.process_time() - t0
        self.cost["build"][1] += 1
        return sel

    def turn_cost(self, c: int, rivals, conflicts: int) -> float:
        """The CPU s a solver turn for ``rivals`` is expected to take, by this encoding's
        past builds and solves: the constraints still to build and ``conflicts``."""
        (build, built), (solved, budget) = self.cost["build"], self.cost["solve"]
        todo = sum((c, j) not in self._pairs for j in rivals)
        per_pair = build / built if built else BUILD_PRIOR * sum(map(len, self.leaves))
        return todo * per_pair + conflicts * solved / max(budget, 1)

    def rival(self, c: int, rivals) -> int | None | bool:
        """The selector of "one of ``rivals`` may reach c", None if none can, False if a
        pair is left to the branch and bound."""
        key = (c, frozenset(rivals))
        if key not in self._rivals:
            sels = [self._pair(c, j) for j in rivals]
            if any(s is False for s in sels):
                self._rivals[key] = False
            else:
                sels = [s for s in sels if s is not None]
                if len(sels) <= 1:
                    self._rivals[key] = sels[0] if sels else None
                else:
                    self._rivals[key] = self.pool.id(("any", key))
                    self.solver.add_clause([-self._rivals[key], *sels])
        return self._rivals[key]

    def cuts(self, c: int) -> int:
        """The selector of the cuts made for prediction ``c`` (assumed by its questions)."""
        return self.pool.id(("cuts", c))

    def cut(self, c: int, point32: np.ndarray) -> None:
        """Cut off, for prediction ``c``, every point that reaches the leaves ``point32``
        reaches (they have its scores, of class ``c``)."""
        box: dict[int, tuple[int, int]] = {}
        for tree, leaves in zip(self.ens.trees, self.leaves, strict=True):
            node = int(tree.leaf_of(point32)[0])
            for f, (lo, hi) in leaves[node].items():
                blo, bhi = box.get(f, (0, self.size[f]))
                box[f] = (max(lo, blo), min(hi, bhi))
        self.solver.add_clause([-self.cuts(c), *self.outside(box)])


class SoftVoteOracle(ScoreOracle):
    """Exact SAT oracle for a soft-vote forest (float64 :class:`ScoreEnsemble`, see the
    module); the same interface and ``domains`` as :class:`ScoreOracle`.

    Examples
    --------
    >>> from fxai.models.boosted import Tree
    >>> stump = lambda a, b: Tree(feature=np.array([0, 0, 0]),
    ...     threshold=np.float32([0.5, 0, 0]), left=np.array([1, -1, -1]),
    ...     right=np.array([2, -1, -1]), value=np.float64([[0, 0], a, b]))
    >>> ens = ScoreEnsemble((stump([0.7, 0.3], [0.2, 0.8]), stump([0.4, 0.6], [0.5, 0.5])),
    ...                     np.zeros(2), 2.0, (0, 1), 1, "two trees (soft vote)")
    >>> o = SoftVoteOracle(ens, [0.0])  # 1.1 against 0.9; at x >= 0.5, 0.7 against 1.3
    >>> o.prediction, o.entails([0]), o.counterexample([])
    (0, True, [0.5])
    """

    def __init__(self, model: ScoreEnsemble, x, domains=None):
        super().__init__(model, x, domains)
        enc = self._model.get("soft") if domains is None else None
        if enc is None:
            enc = _SoftEncoding(model, [self._boxes_of(t) for t in range(len(model.trees))],
                                self._allowed)
            if domains is None:
                self._model["soft"] = enc
        self._enc = enc
        self._core: set[int] | None = None  # the last question's solver core (features)

    def sufficient_part(self, fixed) -> set[int] | None:
        """See :meth:`Oracle.sufficient_part`: when the solver alone proved that no rival
        reaches ``c``, the fixed features of its core; else ``fixed``."""
        fixed, self._core = set(fixed), None
        if not self.entails(fixed):
            return None
        return fixed if self._core is None else self._core

    def _search(self, mask: np.ndarray) -> np.ndarray | None:
        """The branch and bound and the SAT solver in turn, each with a budget (leaves tested
        per rival, conflicts) that grows fourfold per round, until one answers (the solver
        keeps what it learnt between rounds). The solver asks only for the rivals the branch
        and bound left undecided, and builds a rival's constraint on the first such question.

        Turns share the CPU time in the ratio of the questions each engine has answered
        for this model when both worked on them, starting from ``WINS`` (4 to 1 for the
        branch and bound, which has nothing to build), and the solver's turn is
        judged by the time it will take: its constraints still to build and its conflicts,
        at this encoding's measured costs (before a first build, ``BUILD_PRIOR`` per leaf).
        So where the solver does not pay (many classes: every constraint costs a second and
        1,000 conflicts another), the branch and bound does nearly all the work."""
        enc, c = self._enc, self.index
        owner = enc.assumptions(mask, self._v)  # literal -> its column
        work, conflicts = WORK, CONFLICTS
        spent = [0.0, 0.0]  # CPU s of the branch and bound and of the solver
        rivals, stacks = list(self._rivals), {}  # the branch and bound resumes per rival
        wins = enc.wins
        while True:
            self.check_time()
            t0 = time.process_time()
            after = spent[1] + enc.turn_cost(c, rivals, conflicts)  # the solver's next turn
            if spent[0] * wins[1] <= after * wins[0]:  # the shares of time: the wins
                point, rivals = self._bnb_pass(mask, work, rivals, stacks)
                took = max(time.process_time() - t0, 1e-6)
                spent[0] += took
                if point is not None or not rivals:
                    wins[0] += spent[1] > 0  # a question both engines worked on
                    return point
                grow = 4.0 if self.deadline is None else (  # a pass resumes: fit the time left
                    min(4.0, 0.9 * (self.deadline - time.process_time()) / took))
                work = int(work * max(1.0, grow))
                continue
            sel = enc.rival(c, rivals)
            if sel is None:
                return None
            if sel is False:
                return super()._search(mask)
            t1 = time.process_time()
            found = solve(enc.solver, [*owner, sel, enc.cuts(c)], self, conflicts)
            enc.cost["solve"][0] += time.process_time() - t1
            enc.cost["solve"][1] += conflicts
            spent[1] += time.process_time() - t0
            if found is None:
                conflicts *= 4
                continue
            if found is False:
                wins[1] += 1
                if len(rivals) == len(self._rivals):  # the solver's proof covers every rival
                    self._core = {self._used[owner[lit]] for lit in enc.solver.get_core() or ()
                                  if lit in owner}
                return None
            model = {v for v in enc.solver.get_model() if v > 0}
            ints = np.array([enc.interval(model, f) for f in range(len(self._used))],
                            dtype=np.int64)
            point = np.asarray([self._point(ints)], dtype=np.float64)
            if self.ensemble.predict_index(point)[0] != c:
                wins[1] += 1
                return ints
            enc.cut(c, point.astype(np.float32))


register(lambda m: isinstance(m, ScoreEnsemble) and m.is_soft_vote, SoftVoteOracle)
