"""All CXps of a tree XpG in polynomial time (Proposition 6 of the XpG paper).

A prediction change needs one path to a 0-terminal to become consistent, which frees
exactly the features of that path's 0-labelled edges. Each such path gives one
candidate; the CXps are the subset-minimal candidates.
"""

from __future__ import annotations

from fxai.oracles.xpg import ExplanationGraph


def tree_cxps(xpg: ExplanationGraph) -> list[tuple[int, ...]]:
    """Every CXp of a tree XpG, sorted; raises ValueError if the XpG is not a tree."""
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
