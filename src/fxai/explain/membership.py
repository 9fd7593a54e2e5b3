"""Explanation membership (Definition 1, Propositions 1, 8 and 9 of the XpG paper).

Is feature i in some AXp? By Proposition 1 the answer is the same for CXps. For tree
XpGs it is decided in polynomial time from the listing of all CXps (Proposition 9);
for other oracles by MARCO enumeration, stopping at the first XP containing i.
"""

from __future__ import annotations

from fxai.explain.marco import Marco
from fxai.explain.tree_cxps import tree_cxps
from fxai.oracles.base import Oracle
from fxai.oracles.xpg import XpGOracle


def relevant_features(o: Oracle) -> set[int]:
    """Features that occur in some AXp (equivalently, in some CXp).

    A tree predicting ``x0 or (x1 and x2)`` over four features (x3 is never tested):

    Examples
    --------
    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(4)
    >>> sorted(relevant_features(XpGOracle(tree, [1, 1, 1, 1])))
    [0, 1, 2]
    >>> sorted(relevant_features(XpGOracle(tree, [1, 0, 1, 1])))  # x0 alone decides
    [0]
    """
    if isinstance(o, XpGOracle) and o.graph.is_tree():
        return {f for c in tree_cxps(o.xpg) for f in c}
    m = Marco(o, target="cxp")
    for _ in m:
        pass
    return {f for c in m.cxps for f in c}


def in_some_xp(o: Oracle, feature: int) -> bool:
    """Membership query: does ``feature`` occur in some AXp (and so in some CXp)?

    The tree of :func:`relevant_features` at (1, 0, 1, 1): its only AXp is {x0}.

    Examples
    --------
    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(4)
    >>> o = XpGOracle(tree, [1, 0, 1, 1])
    >>> in_some_xp(o, 0), in_some_xp(o, 2), in_some_xp(o, 3)
    (True, False, False)
    """
    if not 0 <= feature < o.n_features:
        raise ValueError(f"feature {feature} is not in 0..{o.n_features - 1}")
    if feature not in o.features:
        return False
    if isinstance(o, XpGOracle) and o.graph.is_tree():
        return any(feature in c for c in tree_cxps(o.xpg))
    for ev in Marco(o, target="cxp"):
        if feature in ev.features:  # an AXp or a CXp: the same by Proposition 1
            return True
    return False
