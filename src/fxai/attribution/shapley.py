"""Exact Shapley values of one prediction, from the oracle's own counting.

The game: players are the features the oracle may use (``o.features``; every other feature
gets 0, it changes no prediction), and the value of a coalition ``S`` is

    v(S) = E[ g(κ(z)) | z_S = x_S ]

with ``g(k) = 1[k = κ(x)]`` (``value="probability"``, the default: the probability of the
predicted class) or ``g(k) = k`` (``value="class"``: the numeric class value, as part of the
literature uses it). The expectation is over ``z`` uniform on the feature domains
(``distribution="uniform"``) or, interventionally, over the rows of a background sample
whose free features replace ``x``'s (``distribution=<2-D array>``). The Shapley value of
player ``i`` is ``Σ_{S ⊆ N∖i} |S|!(n−|S|−1)!/n! · (v(S∪i) − v(S))``; the values add up to
``v(N) − v(∅)`` (efficiency).

Routes (``route="auto"`` picks the first that applies):

* ``"graph"`` — trees and read-once decision graphs (OBDDs) under the uniform distribution:
  polynomial time (:mod:`fxai.attribution.circuits`).
* ``"grid"`` — any model with a ``predict`` and finite domains: the whole feature space is
  classified once (``Π |D_i| ≤ MAX_POINTS`` points), then ``v`` is an average over its
  slices; exact for the model itself.
* ``"subsets"`` — any oracle that counts (``o.precision``): one precision question per
  coalition, ``2^n`` of them (``n ≤ max_features``); as exact as the oracle's counting
  (an NBC oracle counts with its weights rounded to ``decimals`` places).
* a background sample is always the ``"background"`` route: ``2^n × rows`` predictions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from fxai.attribution.weights import shapley_weights
from fxai.oracles.base import Oracle

MAX_FEATURES = 16  # 2^16 coalitions: the size limit of the exponential routes
MAX_POINTS = 2 ** 22  # largest feature space the grid route classifies
ROUTES = ("auto", "graph", "subsets", "grid")
VALUES = ("probability", "class")


def from_game(v: np.ndarray) -> np.ndarray:
    """Shapley values of the game ``v`` given on all ``2^n`` coalitions (bit ``i`` of the
    index: player ``i`` in the coalition).

    Parameters
    ----------
    v : numpy.ndarray
        The game's value on each of the ``2^n`` coalitions.

    Returns
    -------
    numpy.ndarray
        The ``n`` Shapley values.

    Examples
    --------
    >>> from_game(np.array([0., 0., 0., 1.])).tolist()  # "both players": half each
    [0.5, 0.5]
    >>> from_game(np.array([0., 1., 0., 1.])).tolist()  # player 1 is a dummy
    [1.0, 0.0]
    """
    v = np.asarray(v, dtype=float)
    n = int(v.size).bit_length() - 1
    if v.size != 1 << n:
        raise ValueError(f"a game on n players has 2^n values, not {v.size}")
    if n == 0:
        return np.zeros(0)
    masks = np.arange(v.size)
    size = np.zeros(v.size, dtype=int)
    for i in range(n):
        size += (masks >> i) & 1
    w = shapley_weights(n)
    out = np.empty(n)
    for i in range(n):
        without = masks[((masks >> i) & 1) == 0]
        out[i] = np.dot(w[size[without]], v[without | (1 << i)] - v[without])
    return out


def _check_players(n: int, max_features: int) -> None:
    if n > max_features:
        raise ValueError(f"exact Shapley values over {n} features need 2^{n} coalitions; the "
                         f"limit is max_features={max_features} (raise it, or use a tree or "
                         "read-once graph, whose route is polynomial)")


def _coalitions(players: Sequence[int]) -> list[list[int]]:
    """The features of coalition ``m`` for every mask ``m`` of ``players``."""
    return [[f for b, f in enumerate(players) if m >> b & 1] for m in range(1 << len(players))]


def _target(o: Oracle, value: str) -> Callable[[np.ndarray], np.ndarray]:
    """``g`` applied to an array of predicted classes."""
    if value == "probability":
        return lambda y: (np.asarray(y) == o.prediction).astype(float)
    return lambda y: np.asarray(y, dtype=float)


def game_subsets(o: Oracle, max_features: int = MAX_FEATURES) -> np.ndarray:
    """``v`` (probability of the predicted class) on every coalition of ``o.features`` by
    ``o.precision``, one question per coalition."""
    players = list(o.features)
    _check_players(len(players), max_features)
    return np.array([o.precision(s) for s in _coalitions(players)])


def game_grid(o: Oracle, predict: Callable, domains: Sequence[Sequence], value: str,
              max_features: int = MAX_FEATURES) -> np.ndarray:
    """``v`` on every coalition of ``o.features``, uniform over ``domains``, by classifying
    the whole (sub)space of the players' values once (other features stay at ``x``)."""
    players = list(o.features)
    _check_players(len(players), max_features)
    x = list(o.instance)
    axes = []
    for f in players:
        dom = domains[f]
        if dom is None:
            raise ValueError(f"feature {f} is real-valued: the uniform distribution needs a "
                             "finite domain (pass a background sample instead)")
        dom = list(dom)
        if x[f] not in dom:
            raise ValueError(f"feature {f}: the instance's value {x[f]!r} is not in its domain")
        axes.append(dom)
    size = math.prod(len(a) for a in axes)
    if size > MAX_POINTS:
        raise ValueError(f"the feature space has {size} points, more than MAX_POINTS="
                         f"{MAX_POINTS} (use the background route or a counting oracle)")
    grid = np.meshgrid(*[np.asarray(a) for a in axes], indexing="ij")
    points = np.tile(np.asarray(x, dtype=float), (size, 1))
    for j, f in enumerate(players):
        points[:, f] = grid[j].ravel()
    table = _target(o, value)(predict(points)).reshape([len(a) for a in axes])
    return _slice_means(table, [a.index(x[f]) for a, f in zip(axes, players, strict=True)])


def _slice_means(table: np.ndarray, at: Sequence[int]) -> np.ndarray:
    """For every mask ``m`` of the axes, the mean of ``table`` with axis ``j`` at ``at[j]``
    where bit ``j`` of ``m`` is set and free elsewhere, one axis at a time.

    The sums are exact when ``table`` holds integers (``g`` is 0/1 or a class number), so
    the means equal ``np.mean`` of each slice to the last bit, whatever the summation order.
    """
    sums, counts = table[None], np.ones(1)
    for j, size in enumerate(table.shape):
        # bit j clear (free: summed over the axis) then set (fixed at x's value)
        sums = np.concatenate([sums.sum(axis=1), sums[:, at[j]]])
        counts = np.concatenate([counts * size, counts])
    return sums / counts


def game_background(o: Oracle, predict: Callable, background, value: str,
                    max_features: int = MAX_FEATURES) -> np.ndarray:
    """``v`` on every coalition of ``o.features``: the mean of ``g`` over the background
    rows with the coalition's features set to ``x`` (interventional)."""
    players = list(o.features)
    _check_players(len(players), max_features)
    bg = np.atleast_2d(np.asarray(background, dtype=float))
    if bg.ndim != 2 or bg.shape[1] != o.n_features or len(bg) == 0:
        raise ValueError(f"background must be a non-empty 2-D array with {o.n_features} "
                         f"columns, not shape {bg.shape}")
    x = np.asarray(o.instance, dtype=float)
    g = _target(o, value)
    fixed = np.arange(1 << len(players))[:, None] >> np.arange(len(players)) & 1
    mask = np.zeros((len(fixed), o.n_features), dtype=bool)
    mask[:, players] = fixed.astype(bool)
    out = np.empty(len(mask))
    chunk = max(1, 2 ** 16 // len(bg))  # coalitions per predict call
    for start in range(0, out.size, chunk):
        m = mask[start:start + chunk, None, :]
        rows = np.where(m, x, bg[None])
        y = g(predict(rows.reshape(-1, bg.shape[1]))).reshape(len(m), len(bg))
        out[start:start + len(m)] = y.mean(axis=1)
    return out


def _graph_of(o: Oracle):
    """The decision graph behind an XpG oracle if the polynomial route applies, else None."""
    g = getattr(o, "graph", None)
    from fxai.models.dgraph import DecisionGraph

    if not isinstance(g, DecisionGraph) or any(g.domains[f] is None for f in g.used_features):
        return None
    return g if g.is_read_once() or g.is_tree() else None


def _predict_of(o: Oracle) -> Callable | None:
    """A vectorised class predictor for the oracle's model, where the oracle holds one."""
    for attr in ("graph", "ensemble", "xlc"):
        m = getattr(o, attr, None)
        if m is not None and hasattr(m, "predict"):
            return m.predict
    return None


def shapley(o: Oracle, distribution="uniform", *, value: str = "probability",
            route: str = "auto", predict: Callable | None = None,
            domains: Sequence[Sequence] | None = None,
            max_features: int = MAX_FEATURES) -> list[float]:
    """Exact Shapley values of ``o``'s instance, one per feature (0 for unused features).

    ``distribution``: ``"uniform"`` (over the feature domains) or a 2-D background sample
    (interventional). ``value``: ``"probability"`` of the predicted class or the numeric
    ``"class"`` value. ``predict`` (a class per row of a 2-D array) and ``domains`` (per
    feature its values) serve the grid and background routes; by default they come from the
    oracle's model (decision graphs, NBCs, boosted trees). See the module for the routes.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    distribution : "uniform" or 2-D array
        The uniform distribution over the domains, or a background sample.
    value : {"probability", "class"}
        The game's value.
    route : str
        The computation route (``"auto"``: the fastest that applies; see the module).
    predict : callable or None
        A class per row of a 2-D array (grid and background routes).
    domains : sequence of sequence or None
        Per feature its values (grid route).
    max_features : int
        The most features the grid route enumerates.

    Returns
    -------
    list of float
        One Shapley value per feature.

    Examples
    --------
    The tree of ``x0 or (x1 and x2)`` at (1, 1, 1): v(∅) = 5/8, v(N) = 1, and x0 matters most
    (φ0 = 1/3·3/8 + 2·1/6·1/4 = 5/24); every route gives the same values:

    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(3)
    >>> o = XpGOracle(tree, [1, 1, 1])
    >>> phi = shapley(o)
    >>> [round(p, 4) for p in phi], round(sum(phi), 4)  # efficiency: 1 - 5/8
    ([0.2083, 0.0833, 0.0833], 0.375)
    >>> [bool(np.allclose(shapley(o, route=r), phi)) for r in ("subsets", "grid")]
    [True, True]
    >>> [round(p, 4) for p in shapley(o, [[0, 0, 0], [0, 1, 0]])]  # two background rows
    [0.5833, 0.0833, 0.3333]
    """
    if value not in VALUES:
        raise ValueError(f"value must be one of {VALUES}, not {value!r}")
    if route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES}, not {route!r}")
    players = list(o.features)
    predict = predict or _predict_of(o)
    if not (isinstance(distribution, str) and distribution == "uniform"):
        if predict is None:
            raise ValueError(f"{type(o).__name__}: the background route needs predict=")
        game = game_background(o, predict, distribution, value, max_features)
        return _spread(o, players, from_game(game))
    graph = _graph_of(o)
    if route == "graph" or (route == "auto" and graph is not None):
        if graph is None:
            raise ValueError(f"{type(o).__name__}: the graph route needs a tree or a "
                             "read-once decision graph over finite domains")
        from fxai.attribution.circuits import graph_shapley

        return graph_shapley(graph, o.instance, o.prediction, value)
    domains = domains if domains is not None else _domains_of(o)
    grid = predict is not None and domains is not None and _space(o, domains) <= MAX_POINTS
    counts = type(o).precision is not Oracle.precision
    if route == "grid" or (route == "auto" and (grid or not counts or value == "class")):
        if predict is None or domains is None:
            raise ValueError(f"{type(o).__name__}: the grid route needs predict= and domains=")
        return _spread(o, players, from_game(game_grid(o, predict, domains, value,
                                                       max_features)))
    if value != "probability":
        raise ValueError("the subsets route counts the predicted class only; value='class' "
                         "needs the graph or grid route")
    return _spread(o, players, from_game(game_subsets(o, max_features)))


def _domains_of(o: Oracle) -> list | None:
    """Feature domains the oracle's model carries (decision graphs, NBCs), else None."""
    g = getattr(o, "graph", None)
    if g is not None:
        return g.domains
    xlc = getattr(o, "xlc", None)
    return None if xlc is None else [list(range(d)) for d in xlc.domain_sizes]


def _space(o: Oracle, domains: Sequence) -> int:
    """Points of the players' feature space (infinite for a real-valued player)."""
    sizes = [len(domains[f]) if domains[f] is not None else math.inf for f in o.features]
    return math.prod(sizes)


def _spread(o: Oracle, players: list[int], phi: np.ndarray) -> list[float]:
    out = [0.0] * o.n_features
    for f, p in zip(players, phi, strict=True):
        out[f] = float(p)
    return out
