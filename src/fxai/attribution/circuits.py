"""Exact Shapley values in polynomial time for trees and read-once decision graphs.

Decision trees and OBDDs are deterministic decomposable circuits, for which the Shapley
values of ``v(S) = E[g(κ(z)) | z_S = x_S]`` under a product distribution take polynomial
time (Van den Broeck, Lykov, Schleich, Suciu, "On the tractability of SHAP explanations",
JAIR 2022; Arenas, Barceló, Bertossi, Monet, "The tractability of SHAP-score-based
explanations over deterministic and decomposable Boolean circuits", AAAI 2021).

The sum over coalitions is grouped by size. Along one root-to-terminal path, a player
``f`` the path tests contributes ``b_f + a_f t`` (free: the fraction ``b_f`` of its domain
the path allows; fixed: ``a_f = 1`` iff ``x_f`` is allowed), and a player it does not test
contributes ``1 + t``; the coefficient of ``t^k`` is the path's share of ``Σ_{|S|=k} v(S)``.
For player ``i`` only paths that test ``i`` matter (on the others ``v(S∪i) = v(S)``), each
with factor ``a_i − b_i``. Paths are grouped by ``(m, j)`` = (other players tested,
of which fixed), and ``G[m, j] = Σ_k w_k C(n−1−m, k−j)`` folds in the untested players
and the Shapley weights ``w_k``.

* read-once graphs (OBDDs, and trees that test a feature once per path): a dynamic
  programme over the DAG in topological order carries, per node, the array over
  ``(tested i yet, m, j)`` — ``O(n³)`` per node and player.
* other trees (a feature tested twice on a path, as scikit-learn's threshold trees do):
  per leaf, the per-feature intersection of its path's literals.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np

from fxai.attribution.weights import shapley_weights
from fxai.models.dgraph import DecisionGraph


def _fold(n: int) -> np.ndarray:
    """``G[m, j] = Σ_k w_k C(n−1−m, k−j)`` for ``m, j < n``."""
    w = shapley_weights(n)
    G = np.zeros((n, n))
    for m in range(n):
        for j in range(m + 1):
            G[m, j] = sum(w[k] * comb(n - 1 - m, k - j) for k in range(j, n))
    return G


def _terminal_weight(label, prediction, value: str) -> float:
    return float(label == prediction) if value == "probability" else float(label)


def _edge(g: DecisionGraph, f: int, lit, xf) -> tuple[float, float]:
    """(a, b): does ``x_f`` satisfy ``lit``, and the fraction of ``f``'s domain that does."""
    dom = g.domains[f]
    return float(lit.contains(xf)), sum(1 for v in dom if lit.contains(v)) / len(dom)


def graph_shapley(g: DecisionGraph, x: Sequence, prediction, value: str = "probability"
                  ) -> list[float]:
    """Shapley values of ``x`` under the uniform distribution over ``g``'s finite domains.

    ``g`` must be read-once or a tree (see the module). The tree of ``x0 or (x1 and x2)``:

    Examples
    --------
    >>> from fxai.models.examples import or_and_tree
    >>> tree = or_and_tree(3)
    >>> [round(p, 4) for p in graph_shapley(tree, [0, 1, 1], 1)]
    [-0.2083, 0.2917, 0.2917]
    """
    players = list(g.used_features)
    out = [0.0] * g.n_features
    if not players:
        return out
    G = _fold(len(players))
    phi = (_read_once if g.is_read_once() else _tree)(g, list(x), prediction, value,
                                                      players, G)
    for f, p in zip(players, phi, strict=True):
        out[f] = float(p)
    return out


def _read_once(g, x, prediction, value, players, G) -> list[float]:
    n = len(players)
    edges = {}  # node -> [(child, a, b)], computed once for all players
    for k in g.order:
        nd = g.nodes[k]
        if not nd.terminal:
            edges[k] = [(c, *_edge(g, nd.feature, lit, x[nd.feature])) for lit, c in nd.edges]
    phi = []
    for i in players:
        state = {g.root: np.zeros((2, n, n))}
        state[g.root][0, 0, 0] = 1.0
        total = 0.0
        for k in g.order:
            s = state.pop(k, None)
            if s is None:
                continue
            nd = g.nodes[k]
            if nd.terminal:
                total += _terminal_weight(nd.label, prediction, value) * float(
                    np.sum(s[1] * G))
                continue
            for c, a, b in edges[k]:
                new = np.zeros_like(s)
                if nd.feature == i:
                    new[1] = (a - b) * s[0]
                else:
                    new[:, 1:, :] += b * s[:, :-1, :]
                    new[:, 1:, 1:] += a * s[:, :-1, :-1]
                state[c] = state[c] + new if c in state else new
        phi.append(total)
    return phi


def _tree(g, x, prediction, value, players, G) -> list[float]:
    phi = dict.fromkeys(players, 0.0)
    stack: list[tuple[int, dict]] = [(g.root, {})]
    while stack:
        k, cons = stack.pop()
        nd = g.nodes[k]
        if not nd.terminal:
            for lit, c in nd.edges:
                f = nd.feature
                allowed = frozenset(v for v in cons.get(f, g.domains[f]) if lit.contains(v))
                if allowed:
                    stack.append((c, {**cons, f: allowed}))
            continue
        w = _terminal_weight(nd.label, prediction, value)
        if not w:
            continue
        ab = {f: (float(x[f] in vals), len(vals) / len(g.domains[f]))
              for f, vals in cons.items()}
        for i, (ai, bi) in ab.items():
            poly = np.ones(1)
            for f, (a, b) in ab.items():
                if f != i:
                    poly = np.convolve(poly, [b, a])
            m = len(ab) - 1
            phi[i] += w * (ai - bi) * float(np.dot(poly, G[m, :m + 1]))
    return [phi[f] for f in players]
