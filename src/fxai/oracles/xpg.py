"""Explanation graphs (XpG, Definition 3 of the XpG paper) and their oracle.

Given a decision graph and an instance ``v`` with prediction ``c``, the XpG keeps the
DAG, labels a terminal 1 iff its class is ``c`` and an edge 1 iff its literal holds for
``v``. A feature is *fixed* (s_i = 1) or *free* (s_i = 0). ``path_to_zero`` is
Algorithm 1: a 0-terminal is reachable when free features may take any edge and fixed
ones only their 1-labelled edge. It answers entailment in linear time; the path it finds
gives a counterexample point. AXp/CXp extraction (Algorithms 2-3) and MARCO
(Algorithm 4) are the generic ones of :mod:`fxai.explain` run over :class:`XpGOracle`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from fxai.models.dgraph import DecisionGraph
from fxai.oracles.base import Oracle
from fxai.oracles.registry import register


class ExplanationGraph:
    """The XpG of ``graph`` at instance ``x`` (prediction: the graph's own)."""

    def __init__(self, graph: DecisionGraph, x: Sequence):
        self.graph, self.instance = graph, list(x)
        if len(self.instance) != graph.n_features:
            raise ValueError(f"instance has {len(self.instance)} values, the graph "
                             f"{graph.n_features} features")
        self.prediction = graph.predict_one(self.instance)
        n = len(graph.nodes)
        self.root = graph.root
        self.var = [-1] * n  # feature of each non-terminal node
        self.zero = [False] * n  # terminal labelled 0 (another class)
        self.edges: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (child, label)
        self.one = [-1] * n  # the child reached by the edge labelled 1, if any
        for k in graph.order:
            nd = graph.nodes[k]
            if nd.terminal:
                self.zero[k] = nd.label != self.prediction
                continue
            self.var[k] = nd.feature
            v = self.instance[nd.feature]
            for lit, child in nd.edges:
                label = int(lit.contains(v))
                self.edges[k].append((child, label))
                if label:
                    self.one[k] = child
        self.children = [[c for c, _ in es] for es in self.edges]

    def path_to_zero(self, free: Iterable[int]) -> bool:
        """Algorithm 1: is a 0-labelled terminal reachable with ``free`` features free?"""
        free = free if isinstance(free, set | frozenset) else set(free)
        var, zero, one, children = self.var, self.zero, self.one, self.children
        stack, seen = [self.root], {self.root}
        while stack:
            p = stack.pop()
            f = var[p]
            if f < 0:
                if zero[p]:
                    return True
                continue
            if f in free:
                for q in children[p]:
                    if q not in seen:
                        seen.add(q)
                        stack.append(q)
            else:
                q = one[p]
                if q >= 0 and q not in seen:
                    seen.add(q)
                    stack.append(q)
        return False

    def zero_path(self, free: Iterable[int]) -> list[tuple[int, int]] | None:
        """Like :meth:`path_to_zero`, but returns the edges (node, edge index) of one path."""
        free = set(free)
        parent: dict[int, tuple[int, int] | None] = {self.root: None}
        stack = [self.root]
        while stack:
            p = stack.pop()
            f = self.var[p]
            if f < 0:
                if self.zero[p]:
                    path = []
                    while parent[p] is not None:
                        path.append(parent[p])
                        p = parent[p][0]
                    return path[::-1]
                continue
            for j, (q, label) in enumerate(self.edges[p]):
                if (label or f in free) and q not in parent:
                    parent[q] = (p, j)
                    stack.append(q)
        return None

    def evaluate(self, s: Sequence[int]) -> int:
        """sigma_D(s): 1 iff no 0-terminal is activated (s[i] = 1 means feature i fixed)."""
        return int(not self.path_to_zero({i for i, si in enumerate(s) if not si}))

    def witness(self, path: list[tuple[int, int]]) -> list:
        """A point that follows ``path``: ``v`` changed only where a 0-edge forces it."""
        need: dict[int, object] = {}
        for p, j in path:
            f = self.var[p]
            lit = self.graph.nodes[p].edges[j][0]
            need[f] = lit if f not in need else need[f].intersect(lit)
        point = list(self.instance)
        for f, lit in need.items():
            if lit.empty():
                raise ValueError(f"inconsistent path on feature {f}: the graph breaks "
                                 "assumption 2 of Definition 2")
            point[f] = lit.pick(point[f])
        return point


class XpGOracle(Oracle):
    """Entailment by Algorithm 1 on the XpG; counterexamples from the path found."""

    def __init__(self, graph: DecisionGraph, x: Sequence):
        self.xpg = ExplanationGraph(graph, x)
        self.graph = graph
        self.n_features = graph.n_features
        self.instance = self.xpg.instance
        self.prediction = self.xpg.prediction
        self._features = graph.used_features
        self.calls = 0

    @property
    def features(self) -> list[int]:
        return list(self._features)

    def _free(self, fixed: Iterable[int]) -> set[int]:
        return set(self._features).difference(fixed)

    def entails(self, fixed: Iterable[int]) -> bool:
        self.calls += 1
        return not self.xpg.path_to_zero(self._free(fixed))

    def counterexample(self, fixed: Iterable[int]):
        self.calls += 1
        path = self.xpg.zero_path(self._free(fixed))
        return None if path is None else self.xpg.witness(path)

    def precision(self, fixed: Iterable[int]) -> float:
        """Fraction of points with ``x_S = v_S`` predicted ``c``, uniform over the domains.

        Exact for trees (per-path value counts) and read-once graphs (OBDDs, OMDDs:
        a dynamic programme over the DAG); every tested feature needs a finite domain.
        """
        fixed = set(fixed)
        g = self.graph
        for f in self._features:
            if g.domains[f] is None:
                raise NotImplementedError(f"precision needs finite domains; feature {f} is real")
        allowed = {f: ({self.instance[f]} if f in fixed else set(g.domains[f]))
                   for f in self._features}
        if g.is_tree():
            return float(_tree_mass(g, self.prediction, allowed))
        if g.is_read_once():
            return float(_dag_mass(g, self.prediction, allowed))
        raise NotImplementedError("precision is implemented for trees and read-once graphs")


def _tree_mass(g: DecisionGraph, c, allowed: dict[int, set]) -> Fraction:
    """Sum over paths to class ``c`` of the product of per-feature value fractions."""
    total = Fraction(0)
    stack: list[tuple[int, dict[int, frozenset]]] = [(g.root, {})]
    while stack:
        k, cons = stack.pop()
        nd = g.nodes[k]
        if nd.terminal:
            if nd.label == c:
                mass = Fraction(1)
                for f, vals in cons.items():
                    mass *= Fraction(len(vals), len(allowed[f]))
                total += mass
            continue
        f = nd.feature
        cur = cons.get(f, frozenset(allowed[f]))
        for lit, child in nd.edges:
            vals = frozenset(v for v in cur if lit.contains(v))
            if vals:
                stack.append((child, {**cons, f: vals}))
    return total


def _dag_mass(g: DecisionGraph, c, allowed: dict[int, set]) -> Fraction:
    """Probability of reaching a ``c`` terminal in a read-once graph (paths are disjoint)."""
    reach = {g.root: Fraction(1)}
    total = Fraction(0)
    for k in g.order:
        r = reach.get(k)
        if not r:
            continue
        nd = g.nodes[k]
        if nd.terminal:
            total += r if nd.label == c else 0
            continue
        vals = allowed[nd.feature]
        for lit, child in nd.edges:
            share = Fraction(sum(1 for v in vals if lit.contains(v)), len(vals))
            if share:
                reach[child] = reach.get(child, Fraction(0)) + r * share
    return total


def _accepts(model: object) -> bool:
    if isinstance(model, DecisionGraph) or hasattr(model, "to_graph"):
        return True
    return type(model).__name__ == "DecisionTreeClassifier" and hasattr(model, "tree_")


def _build(model: object, x, domains: Sequence | None = None, **_) -> XpGOracle:
    """Oracle for a DecisionGraph, an fxai OBDD, or a fitted sklearn DecisionTreeClassifier."""
    if isinstance(model, DecisionGraph):
        graph = model
    elif hasattr(model, "to_graph"):
        graph = model.to_graph()
    else:
        from fxai.models.dtree import from_sklearn

        graph = from_sklearn(model, domains=domains)
    return XpGOracle(graph, x)


register(_accepts, _build)
