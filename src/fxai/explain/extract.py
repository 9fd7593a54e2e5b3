"""Deletion-based extraction of one AXp / one CXp from a seed (generic over oracles)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

import numpy as np

from fxai.explain.known import Known, Scans
from fxai.oracles.base import Oracle, TimeLimitExceeded

log = logging.getLogger(__name__)


class _Progress:
    """Progress of one extraction: ``logging`` INFO of ``fxai.explain.extract`` at most
    every 5 CPU s."""

    def __init__(self, what: str, todo: int):
        self.what, self.todo, self.done = what, todo, 0
        self.t0 = self.shown = time.process_time()

    def step(self, now: float) -> None:
        """One feature decided; ``now``: the process CPU time read for this step."""
        self.done += 1
        if now - self.shown >= 5.0:
            self.shown = now
            log.info("%s: %d of %d features decided, %.1f CPU s", self.what, self.done,
                     self.todo, now - self.t0)

    def out_of_time(self, e: TimeLimitExceeded, limit: float, partial) -> TimeLimitExceeded:
        kind = "AXp" if self.what == "find_axp" else "CXp"
        where = "" if partial is None else f"; partial: the weak {kind} {sorted(partial)}"
        limit = e.seconds if limit is None else limit  # an outer block's limit
        return TimeLimitExceeded(f"{self.what}: time limit of {limit} CPU s reached after "
                                 f"{self.done} of {self.todo} features{where}", limit,
                                 None if partial is None else sorted(partial))


def _features(o: Oracle, features: Iterable[int], what: str) -> set[int]:
    """``features`` as a set, ValueError if one is no feature index of the oracle."""
    out = set(features)
    if out and all(type(f) is int for f in out) and min(out) >= 0 and max(out) < o.n_features:
        return out  # (MARCO's seeds: plain ints)
    bad = sorted(f for f in out if not (isinstance(f, int | np.integer)
                                        and 0 <= f < o.n_features))
    if bad:
        raise ValueError(f"{what} holds {bad}: not feature indices 0..{o.n_features - 1}")
    return {int(f) for f in out}


def _order(o: Oracle, order: Iterable[int] | None, todo: set[int], what: str) -> list[int]:
    """The features of ``todo`` in ``order`` (default ascending); ValueError when ``order``
    leaves one of them out (the result would not be minimal) or is no list of indices."""
    if order is None:
        return sorted(todo)
    if isinstance(order, str | bytes) or not isinstance(order, Iterable):
        raise TypeError(f"{what}: order must be a list of feature indices, not "
                        f"{type(order).__name__}")
    order = list(order)
    _features(o, order, f"{what}: order")
    if len(set(order)) != len(order):
        raise ValueError(f"{what}: order {order} repeats a feature")
    left_out = sorted(todo - set(order))
    if left_out:
        raise ValueError(f"{what}: order leaves out features {left_out}; it must list every "
                         "feature it may remove (else the result is not subset-minimal)")
    return [int(j) for j in order if j in todo]


def find_axp(o: Oracle, seed: Iterable[int] | None = None, order: Iterable[int] | None = None,
             time_limit: float | None = None, check_seed: bool = True,
             known: Known | None = None):
    """One AXp (sorted feature list) inside ``seed`` (default: all of ``o.features``).

    ``seed`` must be a weak AXp (checked with one question unless ``check_seed`` is
    false: a ValueError if it is not). Features are tried for removal in ``order``
    (default ascending index); a feature stays only if freeing it breaks entailment. When
    a proof of entailment uses only part of the fixed features (the oracle's
    ``sufficient_part``, e.g. a SAT solver's core), the others are dropped without a
    question when their turn comes; when a counterexample proves later features necessary
    too (the oracle's ``also_necessary``), they stay without one. Every answer is the
    exact one, so the AXp depends on the model, the instance, ``seed`` and ``order`` only,
    never on which proof or point a solver found (its learnt clauses, the rows explained
    before). A feature that a CXp of ``known`` meets the fixed set in alone stays without
    a question (:mod:`fxai.explain.known`).
    ``time_limit``: CPU seconds for the whole extraction; when they run out it raises
    :class:`~fxai.oracles.base.TimeLimitExceeded` whose ``partial`` is the weak AXp
    reached (a superset of an AXp). Progress goes to ``logging`` (INFO, every 5 s).

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    seed : iterable of int or None
        A weak AXp to shrink (default: every candidate feature).
    order : iterable of int or None
        The order in which features are tried for removal; it must list every feature of
        the seed (default: ascending).
    time_limit : float or None
        CPU seconds for the whole extraction.
    check_seed : bool
        Whether to check first that ``seed`` is a weak AXp.
    known : Known or None
        CXps found before (e.g. by MARCO) that answer questions without the oracle.

    Returns
    -------
    list of int
        One AXp, sorted.

    Examples
    --------
    The NBC paper's running example (Figure 1, instance (t, f, f, f, t) predicted ⊕;
    features R1..R5 are 0..4, value f = 0, t = 1). Trying features in increasing δ_i,
    as the paper does, gives its AXp {R1, R2, R5} (Example 3.2):

    >>> import numpy as np
    >>> from fxai.models.nbc import XLC
    >>> from fxai.oracles.nbc import NBCOracle
    >>> tables = [[[0.97, 0.03], [0.05, 0.95]], [[0.05, 0.95], [0.95, 0.05]],
    ...           [[0.66, 0.34], [0.98, 0.02]], [[0.25, 0.75], [0.80, 0.20]],
    ...           [[0.97, 0.03], [0.05, 0.95]]]  # Pr(R_i = f, t | ⊖), (... | ⊕)
    >>> nbc = XLC.from_log_probs(np.log([0.9, 0.1]), [np.log(t) for t in tables])
    >>> o = NBCOracle(nbc, [1, 0, 0, 0, 1])
    >>> find_axp(o, order=[3, 2, 1, 0, 4])
    [0, 1, 4]
    >>> find_axp(o)  # ascending index: another AXp of the same instance
    [1, 2, 4]
    """
    fixed = set(o.features) if seed is None else _features(o, seed, "seed")
    todo = _order(o, order, fixed, "find_axp")
    progress, weak = _Progress("find_axp", len(todo)), set(fixed)
    try:
        with o.time_limit(time_limit):
            if seed is not None and check_seed and not o.entails(fixed):
                raise ValueError(f"seed {sorted(fixed)} is not a weak AXp: fixing it does "
                                 "not entail the prediction")
            freed, start = o.axp_prefix(fixed, todo)  # the oracle's fast first part
            fixed -= freed
            weak = set(fixed)
            progress.done = start
            proof = None  # a part of ``fixed`` known to entail the prediction
            necessary: set[int] = set()  # features a counterexample proved necessary
            scans = Scans(known, "cxp")
            bits = Known.bits(fixed) if scans.on else 0  # fixed, for known
            timed = o.deadline is not None  # else the clock serves the progress only
            for n, i in enumerate(todo[start:], start):
                if timed or (n - start) % 16 == 0:  # the limit each step, the progress 16th
                    now = time.process_time()
                    o.check_time(now)
                if i in necessary:
                    pass
                elif proof is not None and i not in proof:
                    fixed.discard(i)  # fixed still holds the proof
                    bits &= ~(1 << i)
                elif scans.meets_alone(bits, i):
                    pass  # freeing i frees all of a known CXp: no longer entailed
                else:
                    fixed.discard(i)
                    asked = time.perf_counter()
                    part = o.sufficient_part(fixed)
                    if part is None:
                        fixed.add(i)
                        necessary |= o.also_necessary(i, (  # read only if it rotates
                            j for j in todo[n + 1:]
                            if j not in necessary and (proof is None or j in proof)))
                        scans.asked(time.perf_counter() - asked)  # a hit saves this
                    else:
                        proof = part
                        bits &= ~(1 << i)
                weak = set(fixed)
                progress.step(now)
            scans.close()
    except TimeLimitExceeded as e:
        raise progress.out_of_time(e, time_limit, weak) from e
    return sorted(fixed)


def find_cxp(o: Oracle, seed: Iterable[int] | None = None, order: Iterable[int] | None = None,
             time_limit: float | None = None, known: Known | None = None):
    """One CXp (sorted feature list) inside ``seed`` (default: all of ``o.features``).

    ``seed`` must be a weak CXp: freeing it (fixing the rest) changes the prediction.
    Returns None when no CXp exists (the prediction is constant) and no seed was given.
    Features are tried in ``order``; each is re-fixed when a counterexample remains.
    When the oracle returns counterexample points, the freed features on which a point
    agrees with the instance are re-fixed at once (as the reference code does), or, for an
    oracle whose points depend on more than the question (``remembers``: a SAT solver's
    learnt clauses), each without a question when its turn comes. Either way the CXp
    depends on the model, the instance, ``seed`` and ``order`` only. A feature that an AXp
    of ``known`` meets the free set in alone stays without a question.

    A tree predicting ``x0 or (x1 and x2)`` at (1, 1, 1): freeing x0 and x1 can change
    the prediction, and neither alone can.
    ``time_limit``: as for :func:`find_axp` (``partial``: the weak CXp reached, None if the
    first question did not finish).

    Parameters
    ----------
    o : Oracle
        The oracle of the model at the instance.
    seed : iterable of int or None
        A weak CXp to shrink (default: every candidate feature).
    order : iterable of int or None
        The order in which features are tried (default: ascending).
    time_limit : float or None
        CPU seconds for the whole extraction.
    known : Known or None
        AXps found before (e.g. by MARCO) that answer questions without the oracle.

    Returns
    -------
    list of int or None
        One CXp, sorted; None when the prediction cannot change.

    Examples
    --------
    >>> from fxai.models.examples import or_and_tree
    >>> from fxai.oracles.xpg import XpGOracle
    >>> tree = or_and_tree(3)
    >>> o = XpGOracle(tree, [1, 1, 1])
    >>> find_cxp(o)
    [0, 2]
    >>> find_cxp(o, seed=[0, 1])
    [0, 1]
    """
    feats = o.features
    free = set(feats) if seed is None else _features(o, seed, "seed")
    order = _order(o, order, free, "find_cxp")
    progress, weak = _Progress("find_cxp", len(free)), None
    try:
        with o.time_limit(time_limit):
            moved = o.moves(set(feats) - free, free)  # where a counterexample leaves x
            if moved is None:
                if seed is None:
                    return None
                raise ValueError("seed is not a weak CXp: fixing its complement entails the "
                                 "prediction")
            if not o.remembers:  # its points depend on the question alone
                free = moved
            free, start = o.cxp_prefix(free, order)  # the oracle's fast first part
            if start:
                moved = set(free)  # (its last counterexample's moves: free)
            weak = set(free)
            progress.done = start
            scans = Scans(known, "axp")
            bits = None  # free, for known (as of the last change of free)
            for i in order[start:]:
                if i not in free:  # decided without a question (or a clock read)
                    progress.done += 1
                    continue
                now = time.process_time()
                o.check_time(now)
                if i in moved:  # else the point stays a witness with i fixed
                    if scans.on:
                        bits = Known.bits(free) if bits is None else bits
                        if scans.meets_alone(bits, i):
                            progress.step(now)  # fixing i too fixes that AXp: entailed
                            continue
                    asked = time.perf_counter()
                    found = o.moves((set(feats) - free) | {i}, free)
                    if found is None:
                        scans.asked(time.perf_counter() - asked)  # a hit saves this
                        progress.step(now)
                        continue
                    moved = found
                    if not o.remembers:
                        free = moved  # (a new set per answer)
                free.discard(i)
                weak, bits = set(free), None
                progress.step(now)
            scans.close()
    except TimeLimitExceeded as e:
        raise progress.out_of_time(e, time_limit, weak) from e
    return sorted(free)

