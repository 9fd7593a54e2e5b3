"""Decision graphs (Definition 2 of the XpG paper): DTs, OBDDs and OMDDs in one form.

A :class:`DecisionGraph` is a DAG with a single root. A non-terminal node tests one
feature; each outgoing edge carries a literal ``x_i in E`` (a finite :class:`ValueSet`
or a real :class:`Interval` ``lo < x <= hi``), and the literals of a node partition the
values that can reach it. A terminal node carries a class. Features are 0-based.

Every path must be consistent (some point follows it: assumption 2 of Definition 2), as
the XpG's path-to-zero relies on it. The constructor checks this: read-once graphs (OBDDs,
OMDDs) need only satisfiable literals; other graphs are checked path by path (one path
per node in a tree) and are rejected when a path is inconsistent or when there are too
many distinct paths to check (``max_paths``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ValueSet:
    """The literal ``x in values`` over a finite domain."""

    values: frozenset

    def contains(self, v) -> bool:
        return v in self.values

    def mask(self, col: np.ndarray) -> np.ndarray:
        return np.isin(col, list(self.values))

    def intersect(self, other: ValueSet) -> ValueSet:
        return ValueSet(self.values & other.values)

    def empty(self) -> bool:
        return not self.values

    def pick(self, prefer):
        """A member of the set: ``prefer`` when it is one, else the smallest."""
        return prefer if prefer in self.values else min(self.values)


@dataclass(frozen=True)
class Interval:
    """The literal ``lo < x <= hi`` over the reals (scikit-learn's ``x <= t`` goes left)."""

    lo: float = -math.inf
    hi: float = math.inf

    def contains(self, v) -> bool:
        return self.lo < v <= self.hi

    def mask(self, col: np.ndarray) -> np.ndarray:
        return (col > self.lo) & (col <= self.hi)

    def intersect(self, other: Interval) -> Interval:
        return Interval(max(self.lo, other.lo), min(self.hi, other.hi))

    def empty(self) -> bool:
        return self.lo >= self.hi

    def pick(self, prefer):
        """``prefer`` when inside, else a point of the interval (away from its ends where
        float64 allows).

        Examples
        --------
        >>> Interval(2.0**60, math.inf).pick(0.0) > 2.0**60  # 2^60 + 1 == 2^60 in float64
        True
        """
        if self.contains(prefer):
            return prefer
        if math.isinf(self.lo) and math.isinf(self.hi):
            return 0.0
        if math.isinf(self.lo):
            return self.hi - 1.0
        if math.isinf(self.hi):
            return max(self.lo + 1.0, math.nextafter(self.lo, math.inf))
        mid = (self.lo + self.hi) / 2
        return mid if self.contains(mid) else self.hi


Literal = ValueSet | Interval


def _meet(a: Literal | None, b: Literal) -> Literal:
    """The conjunction of two literals on one feature (``a`` None: no constraint yet)."""
    if a is None:
        return b
    if isinstance(a, ValueSet) and isinstance(b, Interval):
        return ValueSet(frozenset(v for v in a.values if b.contains(v)))
    if isinstance(a, Interval) and isinstance(b, ValueSet):
        return _meet(b, a)
    return a.intersect(b)


@dataclass(frozen=True)
class Node:
    """A terminal (``label`` set, no edges) or a test of ``feature`` with its edges."""

    feature: int | None = None
    edges: tuple[tuple[Literal, int], ...] = ()
    label: object = None

    @property
    def terminal(self) -> bool:
        return self.feature is None


class DecisionGraph:
    """A decision graph over ``n_features`` features; ``nodes[root]`` is the source.

    ``domains[i]`` lists the values of a finite feature i, or is None for a real one.
    """

    def __init__(
        self,
        nodes: Sequence[Node],
        n_features: int,
        root: int = 0,
        domains: Sequence[Sequence | None] | None = None,
        max_paths: int = 100_000,
    ):
        self.nodes = list(nodes)
        self.n_features = n_features
        self.root = root
        self.domains = list(domains) if domains is not None else [None] * n_features
        if len(self.domains) != n_features:
            raise ValueError(f"{len(self.domains)} domains given for {n_features} features")
        self._check()
        self.order = self._topological_order()
        self._check_paths(max_paths)

    def _check(self) -> None:
        n = len(self.nodes)
        if not 0 <= self.root < n:
            raise ValueError(f"root {self.root} is not a node (graph has {n} nodes)")
        for k, nd in enumerate(self.nodes):
            if nd.terminal:
                if nd.edges or nd.label is None:
                    raise ValueError(f"terminal node {k} needs a class label and no edges")
                continue
            if not 0 <= nd.feature < self.n_features:
                raise ValueError(f"node {k} tests feature {nd.feature}, "
                                 f"not in 0..{self.n_features - 1}")
            if not nd.edges:
                raise ValueError(f"non-terminal node {k} has no outgoing edge")
            for lit, child in nd.edges:
                if not 0 <= child < n:
                    raise ValueError(f"node {k} has an edge to {child}, which is not a node")
                if not isinstance(lit, ValueSet | Interval):
                    raise ValueError(f"node {k} has an edge literal of type {type(lit).__name__}")

    def _topological_order(self) -> list[int]:
        """Nodes reachable from the root, parents before children (raises on a cycle)."""
        state: dict[int, int] = {}
        post: list[int] = []
        stack: list[tuple[int, int]] = [(self.root, 0)]
        state[self.root] = 1
        while stack:
            k, i = stack.pop()
            edges = self.nodes[k].edges
            if i < len(edges):
                stack.append((k, i + 1))
                child = edges[i][1]
                if state.get(child) == 1:
                    raise ValueError(f"the graph has a cycle through node {child}")
                if child not in state:
                    state[child] = 1
                    stack.append((child, 0))
            else:
                state[k] = 2
                post.append(k)
        return post[::-1]

    def _check_paths(self, max_paths: int) -> None:
        """Raise ``ValueError`` unless every root-to-terminal path is consistent."""
        dom = [None if d is None else ValueSet(frozenset(d)) for d in self.domains]
        if self.is_read_once():  # each feature constrained once per path: literals suffice
            for k in self.order:
                nd = self.nodes[k]
                for lit, child in nd.edges:
                    if _meet(dom[nd.feature], lit).empty():
                        raise ValueError(f"node {k}: the edge to {child} needs feature "
                                         f"{nd.feature} in {lit}, which no domain value meets")
            return
        states: dict[int, set[tuple]] = {self.root: {()}}  # per node: constraints of its paths
        total = 1
        for k in self.order:
            nd = self.nodes[k]
            if nd.terminal:
                continue
            f = nd.feature
            for state in states.pop(k, ()):
                cons = dict(state)
                for lit, child in nd.edges:
                    new = _meet(cons.get(f, dom[f]), lit)
                    if new.empty():
                        raise ValueError(
                            f"inconsistent path: node {k}'s edge to {child} needs feature {f} "
                            f"in {lit}, which no point reaching node {k} along some path "
                            "satisfies (XpG assumes every path consistent)")
                    key = tuple(sorted({**cons, f: new}.items(), key=lambda it: it[0]))
                    bucket = states.setdefault(child, set())
                    if key not in bucket:
                        bucket.add(key)
                        total += 1
                        if total > max_paths:
                            raise ValueError(
                                f"cannot check path consistency: more than {max_paths} "
                                "distinct paths (raise max_paths, or use a read-once graph)")

    def is_read_once(self) -> bool:
        """No feature is tested twice on any root-to-terminal path (OBDDs, OMDDs).

        Examples
        --------
        >>> leaf = Node(label=0)
        >>> DecisionGraph([Node(0, ((ValueSet(frozenset({0, 1})), 1),)), leaf], 1).is_read_once()
        True
        """
        seen: dict[int, frozenset] = {self.root: frozenset()}
        for k in self.order:
            nd = self.nodes[k]
            if nd.terminal:
                continue
            above = seen[k]
            if nd.feature in above:
                return False
            below = above | {nd.feature}
            for _, child in nd.edges:
                seen[child] = seen.get(child, frozenset()) | below
        return True

    @property
    def n_nodes(self) -> int:
        """Nodes reachable from the root (terminals included)."""
        return len(self.order)

    @property
    def classes(self) -> list:
        return sorted({self.nodes[k].label for k in self.order if self.nodes[k].terminal})

    @property
    def used_features(self) -> list[int]:
        return sorted({self.nodes[k].feature for k in self.order if not self.nodes[k].terminal})

    def is_tree(self) -> bool:
        indeg = [0] * len(self.nodes)
        for k in self.order:
            for _, child in self.nodes[k].edges:
                indeg[child] += 1
        return all(indeg[k] <= 1 for k in self.order)

    def leaf_of(self, x: Sequence) -> int:
        """The terminal reached by ``x`` (follows the edge whose literal holds)."""
        k = self.root
        while not self.nodes[k].terminal:
            nd = self.nodes[k]
            for lit, child in nd.edges:
                if lit.contains(x[nd.feature]):
                    k = child
                    break
            else:
                raise ValueError(f"value {x[nd.feature]!r} of feature {nd.feature} matches no "
                                 f"edge of node {k}")
        return k

    def predict_one(self, x: Sequence):
        return self.nodes[self.leaf_of(x)].label

    def predict(self, X) -> np.ndarray:
        """Classes of the rows of ``X`` (routes all rows through the DAG at once)."""
        X = np.asarray(X)
        rows: dict[int, np.ndarray] = {self.root: np.arange(len(X))}
        out = np.empty(len(X), dtype=object)
        for k in self.order:
            idx = rows.pop(k, None)
            if idx is None or idx.size == 0:
                continue
            nd = self.nodes[k]
            if nd.terminal:
                out[idx] = nd.label
                continue
            left = np.ones(idx.size, dtype=bool)
            col = X[idx, nd.feature]
            for lit, child in nd.edges:
                m = left & lit.mask(col)
                left &= ~m
                if m.any():
                    rows[child] = np.concatenate([rows.get(child, idx[:0]), idx[m]])
            if left.any():
                bad = idx[left][0]
                raise ValueError(f"row {bad}: value {X[bad, nd.feature]!r} of feature "
                                 f"{nd.feature} matches no edge of node {k}")
        return np.array(out.tolist())
