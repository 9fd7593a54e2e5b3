"""Exact SAT oracle for majority-vote (hard-vote) forests, after Izza & Marques-Silva, "On
explaining random forests with SAT" (IJCAI 2021).

A hard-vote forest (:mod:`fxai.models.forest`, ``vote="hard"``) is a
:class:`~fxai.models.scores.ScoreEnsemble` whose every leaf scores one class 1 and the others
0, without intercept or divisor: class k's score is its number of votes, an integer, so the
vote counts below are exactly scikit-learn's float64 sums. A point is of another class than
the prediction ``c`` iff some rival ``j`` has ``votes_j > votes_c``, or ``votes_j ==
votes_c`` for ``j`` before ``c`` (first-max tie rule).

Encoding (one CNF per model, kept while the ensemble lives; with ``domains`` one per
oracle): per used feature the order encoding of its intervals (``y[f][k]``: interval index
>= k, ``y[f][k+1] -> y[f][k]``); per tree one variable per reachable leaf, implying its
path's interval bounds, and one clause that some leaf is taken (leaf boxes are disjoint, so
exactly one is); per tree and class a variable ``p`` implied by the tree's leaves of that
class. The rival ``j`` wins iff ``#leaves voting j + #(trees not voting c) >= n_c + [j >
c]`` (``n_c``: trees with a leaf voting c): a cardinality constraint (pysat.card,
k-modulo totalizer), guarded by a selector literal per class pair and built per oracle
for its rivals on first use (about 30,000 clauses a pair for 100 trees of depth 6: kept
for all pairs they would outweigh the model's). ``entails(S)`` assumes
the instance's intervals of the features in S and each rival's selector in turn, closest
rival first; a model is a counterexample point.

Choice by measurement (one-off, digits, 100 trees of depth 6, the first AXp of each of two
instances, process CPU s; ``python -m benchmarks.ensembles`` measures the chosen one):
Glucose 4 with the k-modulo totalizer 1.5-1.6 s; MiniSat 2.2 or CaDiCaL 1.5.3 with it
2.3-2.8 s; CaDiCaL 1.9.5 with a cardinality network 14-17 s; the plain totalizer (5 s to
build), sequential counter and sorting network slower; one solve asking "some rival wins"
(a clause over the selectors) instead of one solve per rival 4-7x slower.
"""

from __future__ import annotations

import numpy as np
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from fxai.models.scores import ScoreEnsemble
from fxai.oracles.boosted import _leaf_tables
from fxai.oracles.registry import register
from fxai.oracles.scores import ScoreOracle

SOLVER = "glucose4"
ENCODING = EncType.kmtotalizer


class _Encoding:
    """The CNF of a vote forest over the intervals ``allowed`` (see the module)."""

    def __init__(self, ens: ScoreEnsemble, paths, thr, allowed, used):
        self.pool = IDPool()
        size = [len(a) for a in allowed]
        self.y = [[0] + [self.pool.id(("y", f, k)) for k in range(1, s)]
                  for f, s in enumerate(size)]
        self.size = size
        clauses = [[-ys[k + 1], ys[k]] for ys in self.y for k in range(1, len(ys) - 1)]
        # leaf boxes in allowed-interval coordinates: _leaf_tables with the leaf's node + 1
        # as its value (never 0, so no tree is left out) yields them tree by tree
        scores = [np.stack([np.arange(1.0, len(t.left) + 1), np.zeros(len(t.left)),
                            np.zeros(len(t.left))], axis=1) for t in ens.trees]
        cf, clo, chi, val, _, starts, _ = _leaf_tables(paths, thr, allowed, used, scores,
                                                       np.float64, 0.0)
        n = len(used)
        self.voting: dict[int, list[tuple[int, int]]] = {}  # class -> [(tree, leaf var)]
        ends = list(starts[1:]) + [len(val)]
        for t, (a, b) in enumerate(zip(starts, ends, strict=True)):
            leaves = []
            for r in range(a, b):
                lit = self.pool.id(("leaf", t, r))
                node = int(val[r]) - 1
                leaves.append(lit)
                for f, lo, hi in zip(cf[r], clo[r], chi[r], strict=True):
                    if f == n:
                        continue
                    if lo > 0:
                        clauses.append([-lit, self.y[f][lo]])
                    if hi < size[f]:
                        clauses.append([-lit, -self.y[f][hi]])
                k = int(np.argmax(ens.trees[t].value[node]))
                clauses.append([-lit, self.pool.id(("p", t, k))])
                self.voting.setdefault(k, []).append((t, lit))
            clauses.append(leaves)
        self.clauses = clauses

    def pair(self, c: int, j: int, pool: IDPool) -> tuple[int, list] | None:
        """(selector, guarded clauses) of "j beats c" with new variables from ``pool``, or
        None if j never can. Not kept: a pair's clauses outweigh the model's."""
        c_trees = sorted({t for t, _ in self.voting.get(c, [])})
        lits = [lit for _, lit in self.voting.get(j, [])]
        lits += [-self.pool.id(("p", t, c)) for t in c_trees]
        bound = len(c_trees) + (j > c)
        if bound > len(lits):
            return None
        sel = pool.id(("sel", c, j))
        cnf = CardEnc.atleast(lits, bound=bound, vpool=pool, encoding=ENCODING)
        return sel, [[-sel, *cl] for cl in cnf.clauses]

    def fixed(self, f: int, k: int) -> list[int]:
        """The literals that put feature column ``f`` in interval ``k``."""
        out = [self.y[f][k]] if k > 0 else []
        return out + ([-self.y[f][k + 1]] if k + 1 < self.size[f] else [])

    def interval(self, model: set[int], f: int) -> int:
        return sum(1 for v in self.y[f][1:] if v in model)


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
        # without domains the CNF is kept with the model's tables, as the leaf tables are
        enc = self._model.get("cnf") if domains is None else None
        if enc is None:
            enc = _Encoding(model, self._model["paths"], self._thr, self._allowed, self._used)
            if domains is None:
                self._model["cnf"] = enc
        self._enc = enc
        self._solver: Solver | None = None
        self._pool = IDPool(start_from=enc.pool.top + 1)  # this oracle's own variables
        self._added: dict[int, int | None] = {}

    def _selector(self, j: int) -> int | None:
        """Rival ``j``'s selector (its clauses added on first use), None if it never wins."""
        if j not in self._added:
            if self._solver is None:
                self._solver = Solver(name=SOLVER, bootstrap_with=self._enc.clauses)
            pair = self._enc.pair(self.index, j, self._pool)
            if pair is not None:
                self._solver.append_formula(pair[1])
            self._added[j] = None if pair is None else pair[0]
        return self._added[j]

    def _search(self, mask: np.ndarray) -> np.ndarray | None:
        enc = self._enc
        fixed = [lit for f in np.flatnonzero(mask) for lit in enc.fixed(f, int(self._v[f]))]
        for j in self._rivals:  # closest rival first
            sel = self._selector(j)
            if sel is None or not self._solver.solve(assumptions=[*fixed, sel]):
                continue
            model = {v for v in self._solver.get_model() if v > 0}
            return np.array([enc.interval(model, f) for f in range(len(self._used))],
                            dtype=np.int64)
        return None


register(lambda m: isinstance(m, ScoreEnsemble) and m.is_vote, VoteOracle)
