"""All AXps and all CXps of one instance, by the fastest exact route for the model family.

* **duality** (decision trees, i.e. tree XpGs): the CXps in polynomial time (Proposition 6
  of the XpG paper, :func:`fxai.explain.tree_cxps.tree_cxps`), then the AXps as their
  minimal hitting sets (hitting-set duality of AXps and CXps). No oracle call at all.
* **linear** (binary NBCs and XLCs): the AXps, then the CXps, each with polynomial delay
  (:mod:`fxai.explain.linear`), complete unless the time limit stops it.
* **marco** (every other oracle: OBDDs and other DAG XpGs, multi-class NBCs, boosted
  trees): MARCO enumeration (:class:`fxai.explain.marco.Marco`), complete unless the time
  limit stops it.

Why only trees: the path argument of Proposition 6 holds for any XpG whose paths are
consistent (an OBDD's are), but a DAG can have exponentially many root-to-terminal paths
(the OBDD of parity over n variables has 2n+1 nodes and 2^(n-1) paths to each class),
so listing the candidates is no longer polynomial; MARCO's cost follows the number of
explanations instead.

The minimal hitting sets are computed by Berge's incremental algorithm on bit masks:
measured faster than an incremental SAT enumeration on the default profile's trees
(``python -m benchmarks.duality``), because a tree has few CXps over few features.
Its worst case is exponential in the input, like the number of AXps itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fxai import clocks
from fxai.explain import linear
from fxai.explain.marco import Marco
from fxai.explain.tree_cxps import tree_cxps
from fxai.oracles.base import Oracle, TimeLimitExceeded, valid_time_limit
from fxai.oracles.xpg import XpGOracle


@dataclass(frozen=True)
class AllXps:
    """Every AXp and CXp of one instance (sorted tuples, sorted lists) when ``complete``.

    ``method`` names the route (``"duality"``, ``"linear"`` or ``"marco"``), ``time_s`` its
    time on the chosen clock and ``oracle_calls`` the entailment questions it asked.

    Attributes
    ----------
    axps, cxps : list of tuple of int
        The AXps and CXps found (all of them when ``complete``).
    complete : bool
        Whether the enumeration finished.
    method : {"duality", "linear", "marco"}
        The route taken.
    time_s : float
        Its time, in seconds of the chosen clock.
    oracle_calls : int
        The entailment questions it asked.
    """

    axps: list[tuple[int, ...]]
    cxps: list[tuple[int, ...]]
    complete: bool
    method: str
    time_s: float
    oracle_calls: int


def minimal_hitting_sets(sets: Iterable[Iterable[int]]) -> list[tuple[int, ...]]:
    """The subset-minimal sets that meet every set in ``sets`` (sorted tuples, sorted).

    The hitting sets of no set is just the empty set; an empty set cannot be hit.

    Parameters
    ----------
    sets : iterable of iterable of int
        The sets to hit.

    Returns
    -------
    list of tuple of int
        The subset-minimal hitting sets.

    Examples
    --------
    >>> minimal_hitting_sets([[0, 1], [1, 2]])
    [(0, 2), (1,)]
    >>> minimal_hitting_sets([])
    [()]
    >>> minimal_hitting_sets([[0], []])
    []
    """
    masks = sorted({_mask(s) for s in sets}, key=int.bit_count)
    if masks and masks[0] == 0:
        return []
    hitting = [0]
    for e in masks:
        kept = [h for h in hitting if h & e]
        grown = {h | (1 << b) for h in hitting if not h & e for b in _bits(e)}
        # a grown set is minimal unless it contains a kept one: two grown sets h1+b1 and
        # h2+b2 are never nested (h1 within h2+b2 would put b2, a member of e, in h1)
        hitting = kept + [g for g in grown if not any(k & g == k for k in kept)]
    return sorted(tuple(_bits(h)) for h in hitting)


def _mask(s: Iterable[int]) -> int:
    m = 0
    for f in s:
        m |= 1 << f
    return m


def _bits(m: int) -> list[int]:
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


def has_duality(o: Oracle) -> bool:
    """True when :func:`all_xps` takes the duality route (the oracle is a tree XpG).

    Parameters
    ----------
    o : Oracle
        Any oracle.

    Returns
    -------
    bool
    """
    return isinstance(o, XpGOracle) and o.graph.is_tree()


def all_xps(o: Oracle, time_limit: float | None = None, clock: str = "cpu",
            target: str = "axp") -> AllXps:
    """Every AXp and CXp of the oracle's instance by the fastest exact route.

    Trees (see :func:`has_duality`) use duality: exact and complete whatever the time
    limit. Binary NBCs and XLCs use the linear enumeration, other oracles MARCO with
    ``target``, under ``time_limit`` seconds of ``clock`` (``"cpu"``, the default: process
    CPU time, or ``"wall"``); ``complete`` says whether it finished.

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    time_limit : float or None
        Seconds of ``clock`` (MARCO and the linear enumeration only).
    clock : {"cpu", "wall"}
        The clock of the time limit and of ``time_s``.
    target : {"axp", "cxp", "switch"}
        MARCO's target, when MARCO is the route; the linear route enumerates the CXps
        first for ``"cxp"``, else the AXps.

    Returns
    -------
    AllXps
        The AXps and CXps, whether they are all, the route and its time.

    Examples
    --------
    >>> from fxai import oracles
    >>> from fxai.models.dgraph import DecisionGraph, Node, ValueSet
    >>> is_ = lambda v: ValueSet(frozenset({v}))
    >>> g = DecisionGraph([Node(0, ((is_(0), 1), (is_(1), 2))), Node(label=0),  # x0 and x1
    ...                    Node(1, ((is_(0), 3), (is_(1), 4))), Node(label=0), Node(label=1)],
    ...                   2, domains=[[0, 1], [0, 1]])
    >>> r = all_xps(oracles.for_model(g, [0, 0]))
    >>> r.axps, r.cxps, r.complete, r.method
    ([(0,), (1,)], [(0, 1)], True, 'duality')
    """
    now = clocks.clock(clock)
    valid_time_limit(time_limit)
    if has_duality(o):
        t0 = now()
        cxps = tree_cxps(o)
        axps = minimal_hitting_sets(cxps)
        return AllXps(axps, cxps, True, "duality", now() - t0, 0)
    if linear.applies(o):
        if target not in ("axp", "cxp", "switch"):
            raise ValueError(f"target must be 'axp', 'cxp' or 'switch', not {target!r}")
        return _linear(o, time_limit, now, ("cxp", "axp") if target == "cxp" else ("axp", "cxp"))
    m = Marco(o, target=target, time_limit=time_limit, clock=clock)
    t0 = now()
    for _ in m:
        pass
    return AllXps(sorted(m.axps), sorted(m.cxps), m.complete, "marco", now() - t0,
                  m.oracle_calls)


#: CPU s per explanation that all_xps keeps in hand for its final sort (Python sorts 2
#: million shuffled tuples of 5-15 features in 5.0-5.6 s on this machine, the enumeration's
#: partly ordered output faster): a time limit stops the enumeration early enough for the
#: sort to end within it (limits of 2, 5 and 10 s on 40 near-equal weights: 1.9, 4.5 and
#: 8.7 CPU s, where it took 3.0, 10.7 and about 20 s)
SORT_S = 2.5e-6


def _linear(o: Oracle, time_limit: float | None, now, kinds: tuple[str, str]) -> AllXps:
    """:func:`all_xps` by the linear enumeration: the AXps and the CXps, ``kinds`` first
    first, the second in the time left; under a time limit the enumeration stops when what
    is left would not cover sorting what it found (``SORT_S`` each)."""
    linear.prime()
    t0, calls = now(), o.calls
    found: dict[str, list[tuple[int, ...]]] = {"axp": [], "cxp": []}

    def left() -> float | None:
        n = len(found["axp"]) + len(found["cxp"])
        return None if time_limit is None else time_limit - (now() - t0) - SORT_S * n

    complete = True
    try:
        for kind in kinds:
            if time_limit is not None and left() <= 0:
                raise TimeLimitExceeded("linear enumeration: time limit", time_limit)
            for xp in linear.stream(o, kind, time_limit=left(), clock=now):
                found[kind].append(xp)
                if time_limit is not None and len(found[kind]) % 4096 == 0 and left() <= 0:
                    raise TimeLimitExceeded("linear enumeration: time limit", time_limit)
    except TimeLimitExceeded:
        complete = False
    return AllXps(sorted(found["axp"]), sorted(found["cxp"]), complete, "linear",
                  now() - t0, o.calls - calls)


def enumerate_xps(o: Oracle, target: str = "axp", time_limit: float | None = None,
                  clock: str = "cpu", **kw):
    """MARCO over ``o``: iterate the result for :class:`Event` objects as they are found.

    ``target``: ``"axp"`` (MARCO-A), ``"cxp"`` (MARCO-C) or ``"switch"`` (MARCO-S);
    ``time_limit`` and the event times are seconds of ``clock``: ``"cpu"`` (the default,
    ``time.process_time``: the process's CPU time, as the workflow uses, so a busy machine
    does not eat the limit) or ``"wall"`` (``time.perf_counter``).
    Also exported as ``fxai.explain.enumerate`` (which shadows Python's ``enumerate`` if
    imported bare: import this name then).

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    target : {"axp", "cxp", "switch"}
        MARCO-A, MARCO-C or MARCO-S.
    time_limit : float or None
        Seconds of ``clock``.
    clock : {"cpu", "wall"}
        The clock of the time limit and of the events' times.
    **kw
        Keywords of :class:`Marco`.

    Returns
    -------
    Marco or fxai.explain.linear.Enumeration
        An iterable of :class:`Event`; after iteration ``complete``, ``axps``, ``cxps``.

    Examples
    --------
    Keywords go to :class:`Marco`. A binary NBC or XLC without keywords takes the linear
    enumeration instead (:class:`fxai.explain.linear.Enumeration`, the same interface; its
    AXps and CXps are not interleaved). A tree predicting ``x0 or (x1 and x2)`` at (1, 1, 1):

    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(3)
    >>> for ev in enumerate_xps(XpGOracle(tree, [1, 1, 1]), target="cxp"):
    ...     print(ev.kind, ev.features)
    axp (1, 2)
    axp (0,)
    cxp (0, 1)
    cxp (0, 2)
    """
    if linear.applies(o) and not kw:
        return linear.Enumeration(o, target=target, time_limit=time_limit, clock=clock)
    return Marco(o, target=target, time_limit=time_limit, clock=clock, **kw)
