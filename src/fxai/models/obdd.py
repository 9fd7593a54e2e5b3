"""OBDDs compiled from decision lists with ``dd`` (pure-Python backend ``dd.autoref``).

Example 9 of the XpG paper: rule k of a list becomes the term
``not A_1 and ... and not A_{k-1} and A_k and (y if class 1 else not y)``; the terms are
disjoined and the class variable is then restricted, ``F|y=1``, leaving an OBDD over the
(binary) features whose 1-terminal means class 1. Variable order: features in column
order (``x0 < x1 < ...``), ``y`` last. ``dd``'s complemented edges are expanded when the
OBDD is turned into a :class:`DecisionGraph`, so node counts are those of a plain OBDD
(terminals included), as BuDDy's would be.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from dd.autoref import BDD, Function

from fxai.models.dgraph import DecisionGraph, Node, ValueSet
from fxai.models.dlist import DecisionList

ZERO, ONE = ValueSet(frozenset({0})), ValueSet(frozenset({1}))


class OBDD:
    """A Boolean function ``f`` over ``n_features`` binary features (class 1 iff true)."""

    def __init__(self, bdd: BDD, root: Function, n_features: int):
        self.bdd, self.root, self.n_features = bdd, root, n_features
        self._graph: DecisionGraph | None = None

    @staticmethod
    def var(i: int) -> str:
        return f"x{i}"

    @classmethod
    def from_decision_list(cls, dl: DecisionList) -> OBDD:
        if not set(dl.classes) <= {0, 1}:
            raise ValueError(f"OBDDs need a binary target with classes 0/1, not {dl.classes}")
        bdd = BDD()
        bdd.declare(*[cls.var(i) for i in range(dl.n_features)], "y")
        y = bdd.var("y")
        prefix, F = bdd.true, bdd.false
        for rule in dl.rules:
            ante = bdd.true
            for f, op, val in rule.conditions:
                if val not in (0, 1) or op not in ("==", "!="):
                    raise ValueError(f"condition x{f} {op} {val} is not over a binary feature")
                lit = bdd.var(cls.var(f))
                ante &= lit if (op == "==") == (val == 1) else ~lit
            F |= prefix & ante & (y if rule.prediction == 1 else ~y)
            prefix &= ~ante
        return cls(bdd, bdd.let({"y": True}, F), dl.n_features)

    def predict(self, X) -> np.ndarray:
        """Class of each row by walking the BDD's own cofactors (no XpG involved)."""
        out = []
        for row in np.asarray(X).astype(int):
            u = self.root
            while u != self.bdd.true and u != self.bdd.false:
                u = self.bdd.let({u.var: bool(row[int(u.var[1:])])}, u)
            out.append(int(u == self.bdd.true))
        return np.array(out, dtype=int)

    def to_graph(self) -> DecisionGraph:
        """The decision graph: one node per distinct cofactor, terminals 0 and 1."""
        if self._graph is not None:
            return self._graph
        bdd = self.bdd
        ids: dict[int, int] = {}
        nodes: list[Node | None] = []
        order: list[Function] = []

        def node_id(u: Function) -> int:
            key = int(u)
            if key not in ids:
                ids[key] = len(nodes)
                nodes.append(None)
                order.append(u)
            return ids[key]

        node_id(self.root)
        k = 0
        while k < len(order):
            u = order[k]
            if u == bdd.true or u == bdd.false:
                nodes[k] = Node(label=int(u == bdd.true))
            else:
                f = int(u.var[1:])
                lo, hi = bdd.let({u.var: False}, u), bdd.let({u.var: True}, u)
                nodes[k] = Node(feature=f, edges=((ZERO, node_id(lo)), (ONE, node_id(hi))))
            k += 1
        self._graph = DecisionGraph(nodes, self.n_features, root=0,
                                    domains=[[0, 1]] * self.n_features)
        return self._graph

    @property
    def n_nodes(self) -> int:
        return self.to_graph().n_nodes

    def dump(self, path: str | Path) -> None:
        """``dd``'s JSON dump (one root named ``f``; variables ``x0..``, ``y``)."""
        self.bdd.dump(str(path), roots={"f": self.root})

    @classmethod
    def load(cls, path: str | Path, n_features: int) -> OBDD:
        bdd = BDD()
        roots = bdd.load(str(path))
        root = roots["f"] if isinstance(roots, dict) else roots[0]
        return cls(bdd, root, n_features)
