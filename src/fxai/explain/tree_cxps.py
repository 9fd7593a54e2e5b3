"""All CXps of a tree XpG in polynomial time (Proposition 6 of the XpG paper).

A prediction change needs one path to a 0-terminal to become consistent, which frees
exactly the features of that path's 0-labelled edges. Each such path gives one
candidate; the CXps are the subset-minimal candidates.
"""

from __future__ import annotations

from fxai.oracles.xpg import ExplanationGraph, XpGOracle


def tree_cxps(o: XpGOracle | ExplanationGraph) -> list[tuple[int, ...]]:
    """Every CXp of a tree XpG (or of the XpG of an :class:`XpGOracle`), sorted.

    Raises ValueError if the graph is not a tree (use MARCO for DAGs such as OBDDs).

    Parameters
    ----------
    o : XpGOracle or ExplanationGraph
        The oracle of a decision tree, or its explanation graph.

    Returns
    -------
    list of tuple of int
        Every CXp, sorted.

    Examples
    --------
    >>> from fxai.models.dgraph import DecisionGraph, Node, ValueSet
    >>> is_ = lambda v: ValueSet(frozenset({v}))
    >>> g = DecisionGraph([Node(0, ((is_(0), 1), (is_(1), 2))), Node(label=0),  # x0 and x1
    ...                    Node(1, ((is_(0), 3), (is_(1), 4))), Node(label=0), Node(label=1)],
    ...                   2, domains=[[0, 1], [0, 1]])
    >>> tree_cxps(XpGOracle(g, [1, 1]))  # flipping either feature changes the prediction
    [(0,), (1,)]
    >>> tree_cxps(XpGOracle(g, [0, 1]))  # only x0 matters for v = (0, 1)
    [(0,)]
    """
    xpg = o.xpg if isinstance(o, XpGOracle) else o
    if not xpg.graph.is_tree():
        raise ValueError("Proposition 6 needs a tree XpG; use MARCO enumeration for DAGs")
    candidates: set[frozenset[int]] = set()
    stack: list[tuple[int, frozenset[int]]] = [(xpg.root, frozenset())]
    while stack:
        p, freed = stack.pop()
        if xpg.var[p] < 0:
            if xpg.zero[p]:
                candidates.add(freed)
            continue
        for q, label in xpg.edges[p]:
            stack.append((q, freed if label else freed | {xpg.var[p]}))
    by_size = sorted(candidates, key=len)
    minimal: list[frozenset[int]] = []
    for c in by_size:
        if not any(m <= c for m in minimal):
            minimal.append(c)
    return sorted(tuple(sorted(m)) for m in minimal)
