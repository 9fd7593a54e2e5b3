"""OBDDs compiled from decision lists with ``dd`` (pure-Python backend ``dd.autoref``).

Example 9 of the XpG paper: rule k of a list becomes the term
``not A_1 and ... and not A_{k-1} and A_k and (y if class 1 else not y)``; the terms are
disjoined and the class variable is then restricted, ``F|y=1``, leaving an OBDD over the
(binary) features whose 1-terminal means class 1. Variable order: features in column
order (``x0 < x1 < ...``), ``y`` last. ``dd``'s complemented edges are expanded when the
OBDD is turned into a :class:`DecisionGraph`, so node counts are those of a plain OBDD
(terminals included), as BuDDy's would be.

Model files (``.bdd.json``) are fxai's own JSON node table (:data:`FORMAT`, documented in
docs/design.md), written atomically and read without touching anything else on disk, so any
number of processes may read and write them at once in any working directory. (``dd``'s own
JSON dump and load create and remove a fixed ``__shelve__`` folder in the current directory.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from dd.autoref import BDD, Function

from fxai.errors import ModelError
from fxai.files import write_atomic
from fxai.models.dgraph import DecisionGraph, Node, ValueSet
from fxai.models.dlist import DecisionList

ZERO, ONE = ValueSet(frozenset({0})), ValueSet(frozenset({1}))
FORMAT, VERSION = "fxai-obdd", 1


def _cofactors(u: Function) -> tuple[Function, Function]:
    """``(u|var=0, u|var=1)`` for the top variable of ``u``, complement edges resolved."""
    lo, hi = u.low, u.high
    return (~lo, ~hi) if u.negated else (lo, hi)


def node_table(bdd: BDD, roots: dict[str, Function]) -> tuple[list[dict], dict[str, int]]:
    """The plain (complement-free) reduced OBDD of ``roots`` as a node table.

    Ids 0 and 1 are the terminals false and true; internal nodes get ids 2, 3, ... with
    both children before their parent. Returns ``(nodes, root ids)``, each node a dict
    ``{"id", "var", "low", "high"}`` (``low``/``high``: the child when ``var`` is 0/1).
    """
    ids = {int(bdd.false): 0, int(bdd.true): 1}
    nodes: list[dict] = []
    for root in roots.values():
        stack = [root]
        while stack:
            u = stack[-1]
            if int(u) in ids:
                stack.pop()
                continue
            lo, hi = _cofactors(u)
            todo = [w for w in (lo, hi) if int(w) not in ids]
            if todo:
                stack.extend(reversed(todo))  # low first: ids read in order
                continue
            stack.pop()
            ids[int(u)] = len(nodes) + 2
            nodes.append({"id": len(nodes) + 2, "var": u.var,
                          "low": ids[int(lo)], "high": ids[int(hi)]})
    return nodes, {name: ids[int(r)] for name, r in roots.items()}


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
        """Write the model file (:data:`FORMAT`): a temporary file beside ``path``, renamed."""
        nodes, roots = node_table(self.bdd, {"f": self.root})
        order = sorted(self.bdd.vars, key=self.bdd.level_of_var)
        head = json.dumps({"format": FORMAT, "version": VERSION, "variables": order,
                           "roots": roots})
        write_atomic(path, head[:-1] + ',\n "nodes": [\n'
                     + ",\n".join("  " + json.dumps(n) for n in nodes) + "\n ]}\n")

    @classmethod
    def load(cls, path: str | Path, n_features: int) -> OBDD:
        """Read a model file written by :meth:`dump` into a fresh ``dd`` BDD (same order,
        same nodes). Raises ValueError saying what is wrong with a file that is not one."""
        doc = json.loads(Path(path).read_text())
        if isinstance(doc, dict) and "level_of_var" in doc:
            raise ModelError(
                f"model file {path} is a dd JSON dump written by an older fxai, which this "
                f"version no longer reads: if the workflow trained it, delete it and rerun "
                f"snakemake to retrain it (or run fxai xpg-train --family obdd again)")
        if not isinstance(doc, dict) or (doc.get("format"), doc.get("version")) != (
                FORMAT, VERSION):
            raise ValueError(f"not an {FORMAT} file of version {VERSION}")
        variables = doc["variables"]
        allowed = {cls.var(i) for i in range(n_features)} | {"y"}
        if len(set(variables)) != len(variables) or not set(variables) <= allowed:
            raise ValueError(f"variables {variables} are not distinct names among "
                             f"x0..x{n_features - 1}, y")
        bdd = BDD()
        bdd.declare(*variables)
        made = {0: bdd.false, 1: bdd.true}
        seen = {int(bdd.false), int(bdd.true)}  # dd's signed node ids: f and not f differ
        for k, node in enumerate(doc["nodes"]):
            var, lo, hi = node["var"], made.get(node["low"]), made.get(node["high"])
            if node["id"] != k + 2 or var not in bdd.vars or lo is None or hi is None:
                raise ValueError(f"node {node}: ids must run 2, 3, ... with children first")
            level = bdd.level_of_var(var)
            if lo == hi or any(c.level <= level for c in (lo, hi) if c.var is not None):
                raise ValueError(f"node {node}: not reduced or not in the variable order")
            made[k + 2] = u = bdd.find_or_add(var, lo, hi)
            if int(u) in seen:
                raise ValueError(f"node {node} repeats an earlier node")
            seen.add(int(u))
        root = made.get(doc["roots"]["f"])
        if root is None:
            raise ValueError(f"root {doc['roots']['f']} is not a node id")
        return cls(bdd, root, n_features)
