"""Formal scores: feature relevancy and the power indices that aggregate an AXp set.

A feature is *relevant* when it occurs in some AXp (equivalently, by hitting-set duality,
in some CXp). The indices below are computed from the AXps (and CXps) one enumeration
found, never by a second one. With ``M`` the set of AXps and ``C`` the set of CXps
(Biradar, Izza, Lobo, Viswanathan, Zick, "Axiomatic aggregations of abductive
explanations", AAAI 2024; FFA: Yu, Ignatiev, Stuckey, "On formal feature attribution and
its approximation", 2023):

* FFA ``ffa_i = |{A ∈ M : i ∈ A}| / |M|`` (:func:`fxai.explain.ffa_from_axps`);
* Holler-Packel ``hp_i = |{A ∈ M : i ∈ A}| / Σ_{A ∈ M} |A|`` (normalised to sum 1);
* Deegan-Packel ``dp_i = (1/|M|) Σ_{A ∈ M, i ∈ A} 1/|A|`` (sums to 1);
* responsibility ``r_i = 1 / min{|C| : C ∈ C, i ∈ C}`` (0 when no CXp contains ``i``): the
  degree of responsibility of Chockler and Halpern, ``1/(k+1)`` with ``k`` the fewest other
  features whose change makes ``i`` decisive.

Each is 0 exactly on the irrelevant features.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fxai.explain.exact import all_xps
from fxai.explain.ffa import ffa_from_axps
from fxai.oracles.base import Oracle


@dataclass(frozen=True)
class Relevancy:
    """Which features are relevant (sorted), and whether that is proven.

    ``complete``: every AXp and CXp was enumerated, so ``features`` is exactly the set of
    relevant features. When not complete, each listed feature is still proven relevant (it
    lies in an AXp found), but an unlisted one may be relevant too. ``axps``/``cxps`` are
    what the enumeration found; ``method`` names its route.

    Attributes
    ----------
    features : list of int
        The relevant features found, sorted.
    complete : bool
        Whether ``features`` is proven to be all of them.
    axps, cxps : list of tuple of int
        What the enumeration found.
    method : str
        Its route.
    """

    features: list[int]
    complete: bool
    axps: list[tuple[int, ...]]
    cxps: list[tuple[int, ...]]
    method: str


def relevant(o: Oracle, time_limit: float | None = None, clock: str = "wall") -> Relevancy:
    """The relevant features of ``o``'s instance, by :func:`fxai.explain.all_xps`.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    time_limit : float or None
        Seconds of ``clock``.
    clock : {"cpu", "wall"}

    Returns
    -------
    Relevancy

    Examples
    --------
    The tree of ``x0 or (x1 and x2)`` at (0, 1, 1): x1 = x2 = 1 alone force the prediction,
    so the only AXp is {x1, x2} and x0 is irrelevant:

    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(3)
    >>> r = relevant(XpGOracle(tree, [0, 1, 1]))
    >>> r.features, r.complete, r.axps
    ([1, 2], True, [(1, 2)])
    """
    xps = all_xps(o, time_limit=time_limit, clock=clock)
    feats = sorted({f for a in xps.axps for f in a})
    return Relevancy(feats, xps.complete, list(xps.axps), list(xps.cxps), xps.method)


def _tuples(sets: Iterable[Iterable[int]]) -> list[tuple[int, ...]]:
    return [tuple(s) for s in sets]


def holler_packel(axps: Iterable[Iterable[int]]) -> dict[int, float]:
    """Holler-Packel index of each feature in some AXp (see the module).

    Parameters
    ----------
    axps : iterable of iterable of int
        Every AXp of the instance.

    Returns
    -------
    dict of int to float

    Examples
    --------
    >>> holler_packel([(0, 1), (1, 2, 3)])  # 5 memberships in all; x1 holds two
    {0: 0.2, 1: 0.4, 2: 0.2, 3: 0.2}
    """
    axps = _tuples(axps)
    total = sum(len(a) for a in axps)
    counts: dict[int, int] = {}
    for a in axps:
        for f in a:
            counts[f] = counts.get(f, 0) + 1
    return {f: n / total for f, n in sorted(counts.items())}


def deegan_packel(axps: Iterable[Iterable[int]]) -> dict[int, float]:
    """Deegan-Packel index of each feature in some AXp (see the module).

    Parameters
    ----------
    axps : iterable of iterable of int
        Every AXp of the instance.

    Returns
    -------
    dict of int to float

    Examples
    --------
    >>> {f: round(v, 4) for f, v in deegan_packel([(0, 1), (1, 2, 3)]).items()}
    {0: 0.25, 1: 0.4167, 2: 0.1667, 3: 0.1667}
    """
    axps = _tuples(axps)
    out: dict[int, float] = {}
    for a in axps:
        for f in a:
            out[f] = out.get(f, 0.0) + 1 / (len(a) * len(axps))
    return dict(sorted(out.items()))


def responsibility(cxps: Iterable[Iterable[int]]) -> dict[int, float]:
    """Responsibility index of each feature in some CXp (see the module).

    Parameters
    ----------
    cxps : iterable of iterable of int
        Every CXp of the instance.

    Returns
    -------
    dict of int to float

    Examples
    --------
    >>> responsibility([(0,), (1, 2), (0, 2, 3)])
    {0: 1.0, 1: 0.5, 2: 0.5, 3: 0.3333333333333333}
    """
    best: dict[int, int] = {}
    for c in _tuples(cxps):
        for f in c:
            best[f] = min(best.get(f, len(c)), len(c))
    return {f: 1 / k for f, k in sorted(best.items())}


def indices(axps: Iterable[Iterable[int]], cxps: Iterable[Iterable[int]]
            ) -> dict[str, dict[int, float]]:
    """Every formal score of one instance from its AXps and CXps, by name.

    Parameters
    ----------
    axps : iterable of iterable of int
        Every AXp of the instance.
    cxps : iterable of iterable of int
        Every CXp of the instance.

    Returns
    -------
    dict of str to dict of int to float
        ``"ffa"``, ``"holler_packel"``, ``"deegan_packel"``, ``"responsibility"``: per feature
        its score (features of no explanation left out).

    Examples
    --------
    >>> sorted(indices([(0,)], [(0,)]))
    ['deegan_packel', 'ffa', 'holler_packel', 'responsibility']
    """
    axps, cxps = _tuples(axps), _tuples(cxps)
    return {"ffa": ffa_from_axps(axps), "holler_packel": holler_packel(axps),
            "deegan_packel": deegan_packel(axps), "responsibility": responsibility(cxps)}
