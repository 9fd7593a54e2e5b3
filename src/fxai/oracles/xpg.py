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
from fxai.models.kinds import is_kind
from fxai.oracles.base import Oracle
from fxai.oracles.registry import register


class ExplanationGraph:
    """The XpG of ``graph`` at instance ``x`` (prediction: the graph's own).

    Nodes keep the graph's numbering: ``var[k]`` is node k's feature (-1 at terminals),
    ``zero[k]`` marks 0-terminals, ``edges[k]`` lists ``(child, label)``. A tree
    predicting ``x0 or (x1 and x2)`` (nodes 0-6) at (1, 1, 1):

    Examples
    --------
    >>> from fxai.models.examples import or_and_tree
    >>> tree = or_and_tree(3)
    >>> xpg = ExplanationGraph(tree, [1, 1, 1])
    >>> xpg.prediction, xpg.edges[0], [k for k, z in enumerate(xpg.zero) if z]
    (1, [(1, 0), (2, 1)], [3, 5])
    """

    def __init__(self, graph: DecisionGraph, x: Sequence):
        self.graph, self.instance = graph, list(x)
        if len(self.instance) != graph.n_features:
            raise ValueError(f"instance has {len(self.instance)} values, the graph "
                             f"{graph.n_features} features")
        nan = [f for f, v in enumerate(self.instance) if isinstance(v, float) and v != v]
        if nan:
            raise ValueError(f"instance has missing values (NaN) at features {nan}: not "
                             "supported (no domain contains 'missing'; see docs/semantics.md)")
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
        """Algorithm 1: is a 0-labelled terminal reachable with ``free`` features free?

        The tree of :class:`ExplanationGraph` at (1, 1, 1):

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> xpg = ExplanationGraph(tree, [1, 1, 1])
        >>> xpg.path_to_zero({0}), xpg.path_to_zero({0, 1})
        (False, True)
        """
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
        """Like :meth:`path_to_zero`, but returns the edges (node, edge index) of one path.

        None when no 0-terminal is reachable. The tree of :class:`ExplanationGraph`:

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> xpg = ExplanationGraph(tree, [1, 1, 1])
        >>> xpg.zero_path({0, 1}), xpg.zero_path({1})
        ([(0, 0), (1, 0)], None)
        """
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
        """sigma_D(s): 1 iff no 0-terminal is activated (s[i] = 1 means feature i fixed).

        The XpG as a Boolean classifier (the XpG paper's Example 5), on the tree of
        :class:`ExplanationGraph` at (1, 1, 1):

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> xpg = ExplanationGraph(tree, [1, 1, 1])
        >>> xpg.evaluate([1, 0, 0]), xpg.evaluate([0, 1, 1]), xpg.evaluate([0, 0, 1])
        (1, 1, 0)
        """
        return int(not self.path_to_zero({i for i, si in enumerate(s) if not si}))

    def witness(self, path: list[tuple[int, int]]) -> list:
        """A point that follows ``path``: ``v`` changed only where a 0-edge forces it.

        The tree of :class:`ExplanationGraph` at (1, 1, 1), with x0 and x1 free:

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> xpg = ExplanationGraph(tree, [1, 1, 1])
        >>> xpg.witness(xpg.zero_path({0, 1}))
        [0, 0, 1]
        """
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
    """Entailment by Algorithm 1 on the XpG; counterexamples from the path found.

    The XpG paper's running example (Figure 1; Age W, T, O / Income L, M, H / Credit P,
    F, E coded 0, 1, 2; Student N, Y coded 0, 1; node k here is node k + 1 there). At
    v = (O, L, Y, P), predicted T, the AXp is {Age, Credit} (Example 7: {1, 4}):

    Examples
    --------
    >>> from fxai.models.dgraph import DecisionGraph, Node, ValueSet
    >>> def vs(*values): return ValueSet(frozenset(values))
    >>> fig1 = DecisionGraph([
    ...     Node(2, ((vs(0), 1), (vs(1), 2))), Node(0, ((vs(2), 3), (vs(0, 1), 4))),
    ...     Node(3, ((vs(2), 5), (vs(0, 1), 6))), Node(label="T"),
    ...     Node(1, ((vs(2), 7), (vs(0, 1), 8))), Node(label="L"),
    ...     Node(0, ((vs(0, 2), 9), (vs(1), 10))), Node(0, ((vs(1), 11), (vs(0), 12))),
    ...     Node(label="N"), Node(label="T"), Node(1, ((vs(2), 13), (vs(0, 1), 14))),
    ...     Node(label="L"), Node(label="N"), Node(label="T"), Node(label="L")],
    ...     4, domains=[[0, 1, 2], [0, 1, 2], [0, 1], [0, 1, 2]])
    >>> o = XpGOracle(fig1, [2, 0, 1, 0])
    >>> o.prediction, o.entails([0, 3]), o.entails([3])
    ('T', True, False)
    >>> from fxai import explain
    >>> explain.find_axp(o), explain.find_cxp(o)
    ([0, 3], [0])
    """

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
        """The features the graph tests (the others are in no explanation).

        A tree over three features that tests only x0 and x2:

        Examples
        --------
        >>> from fxai.models.dgraph import DecisionGraph, Node, ValueSet
        >>> no, yes = ValueSet(frozenset({0})), ValueSet(frozenset({1}))
        >>> tree = DecisionGraph([Node(0, ((no, 1), (yes, 2))), Node(label=0),
        ...                       Node(2, ((no, 3), (yes, 4))), Node(label=0), Node(label=1)],
        ...                      3, domains=[[0, 1]] * 3)
        >>> XpGOracle(tree, [1, 1, 1]).features
        [0, 2]
        """
        return list(self._features)

    def _free(self, fixed: Iterable[int]) -> set[int]:
        return set(self._features).difference(fixed)

    def entails(self, fixed: Iterable[int]) -> bool:
        """No 0-terminal is reachable with the other used features free.

        A tree predicting ``x0 or (x1 and x2)`` at (1, 1, 1):

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> o = XpGOracle(tree, [1, 1, 1])
        >>> o.entails([0]), o.entails([1, 2]), o.entails([1])
        (True, True, False)
        """
        self.calls += 1
        return not self.xpg.path_to_zero(self._free(fixed))

    def counterexample(self, fixed: Iterable[int]):
        """A point along a path to a 0-terminal, or None when ``fixed`` entails.

        The tree of :meth:`entails` at (1, 1, 1):

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> o = XpGOracle(tree, [1, 1, 1])
        >>> o.counterexample([2]), o.counterexample([0])
        ([0, 0, 1], None)
        """
        self.calls += 1
        path = self.xpg.zero_path(self._free(fixed))
        return None if path is None else self.xpg.witness(path)

    def precision(self, fixed: Iterable[int]) -> float:
        """Fraction of points with ``x_S = v_S`` predicted ``c``, uniform over the domains.

        Exact for trees (per-path value counts) and read-once graphs (OBDDs, OMDDs:
        a dynamic programme over the DAG); every tested feature needs a finite domain.
        The tree of :meth:`entails` at (1, 1, 1): 5 of 8 points are predicted 1, 3 of
        the 4 points with x1 = 1:

        Examples
        --------
        >>> from fxai.models.examples import or_and_tree
        >>> tree = or_and_tree(3)
        >>> o = XpGOracle(tree, [1, 1, 1])
        >>> o.precision([]), o.precision([1]), o.precision([0])
        (0.625, 0.75, 1.0)
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
    return is_kind(model, "tree") and hasattr(model, "tree_")


def _build(model: object, x, domains: Sequence | None = None) -> XpGOracle:
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
