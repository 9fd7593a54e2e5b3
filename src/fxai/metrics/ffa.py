"""Distances between an approximate and the exact formal feature attribution (FFA).

An FFA is a mapping ``feature -> fraction of AXps containing it``; a feature absent from
the mapping has FFA 0. Every metric compares the features of the *union* of both
mappings. Two variants exist where the anytime-FFA paper and its authors' code differ
(shared notes, reference-code-facts §2):

``variant="paper"`` (default; the paper's definitions)
    * Kendall's τ: τ-b of the two FFA vectors (:func:`tau_b`, ``scipy.stats.kendalltau``'s
      statistic without its p-value, bit for bit); when τ-b is
      undefined (a constant vector) it is 1 if both vectors are constant (both rankings
      tie everything) and 0 otherwise.
    * RBO: extrapolated rank-biased overlap exactly as Webber, Moffat & Zobel 2010 ("A
      similarity measure for indefinite rankings", ACM TOIS 28(4), eq. 32, also for lists
      of different lengths; ties as in §4.3), p = 0.9, features ranked most important
      first, only features with non-zero FFA (:func:`rbo_ext`).
    * KL: KL(exact ‖ approx) with infinity shown as 0.5.
``variant="code"``
    * Kendall's τ on dense ranks (0 = most important, a feature missing on one side gets
      that side's largest rank + 1); a pair is concordant when both differences have the
      same sign *or both are ties*; τ = (C − D) / (C + D), and −1 with fewer than 2 features.
    * RBO: the reference code's extrapolated RBO (:func:`rbo_ext_code`: it departs from
      eq. 32 when the lists differ in length) on the dense ranks ordered *least important
      first* (the reference code sorts its rank dictionaries in descending order).
    * KL: infinity replaced by twice the largest finite KL of the instance's three curves
      (done by :mod:`fxai.metrics.curves`).

Manhattan error and KL divergence (natural log, both vectors normalised to sum 1) are the
same in both variants.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.special import rel_entr

VARIANTS = ("paper", "code")
FFA = Mapping[int, float]


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"metric variant must be one of {VARIANTS}, not {variant!r}")


def _vectors(approx: FFA, exact: FFA) -> tuple[np.ndarray, np.ndarray]:
    """Both FFAs as vectors over the sorted union of their features (absent = 0)."""
    feats = sorted(set(approx) | set(exact))
    return (np.array([approx.get(f, 0.0) for f in feats], dtype=float),
            np.array([exact.get(f, 0.0) for f in feats], dtype=float))


def ffa_error(approx: FFA, exact: FFA) -> float:
    """Manhattan distance: the sum over features of |approx − exact|.

    Examples
    --------
    >>> exact = {0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8}  # NBC paper's running example
    >>> approx = {0: 1.0, 2: 1.0, 4: 1.0}  # after its first AXp, {0, 2, 4}
    >>> round(ffa_error(approx, exact), 6)
    1.6
    >>> ffa_error({}, exact)  # the empty FFA: the sum of the exact FFA
    3.0
    """
    a, e = _vectors(approx, exact)
    return float(np.abs(a - e).sum())


def dense_ranks(ffa: FFA) -> dict[int, int]:
    """Dense ranks, 0 = largest FFA; equal values share a rank.

    Examples
    --------
    >>> dense_ranks({0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8})
    {0: 0, 1: 1, 2: 1, 3: 2, 4: 0}
    """
    levels = sorted(set(ffa.values()), reverse=True)
    rank = {v: r for r, v in enumerate(levels)}
    return {f: rank[v] for f, v in ffa.items()}


@functools.cache
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The index pairs i < j of n items."""
    return np.triu_indices(n, k=1)


def _pair_signs(v: np.ndarray) -> np.ndarray:
    """sign(v[i] - v[j]) for every pair i < j (:func:`_pairs` order)."""
    return np.sign(v[:, None] - v[None, :])[_pairs(len(v))]


def tau_b(x, y) -> float:
    """Kendall's τ-b of two vectors of equal length, NaN when either is constant: the
    statistic of ``scipy.stats.kendalltau`` computed as it does, without the p-value (whose
    per-call cost made τ most of the FFA report's time); O(n²) pairs, FFA vectors are short.

    Examples
    --------
    >>> tau_b([1, 2, 3, 4], [1, 3, 2, 4]), tau_b([1, 1, 2], [3, 2, 1]), tau_b([1, 1], [1, 2])
    (0.6666666666666669, -0.816496580927726, nan)
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    dx, dy = _pair_signs(x), _pair_signs(y)
    tot = dx.size
    xtie, ytie = tot - np.count_nonzero(dx), tot - np.count_nonzero(dy)
    if xtie == tot or ytie == tot:
        return math.nan
    con_minus_dis = int(np.sum(dx * dy))  # pairs tied on either side count 0
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(min(1.0, max(-1.0, tau)))


def kendall_tau(approx: FFA, exact: FFA, variant: str = "paper") -> float:
    """Kendall's τ between the rankings the two FFAs induce (see module docstring).

    Examples
    --------
    >>> exact = {0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8}  # NBC paper's running example
    >>> approx = {0: 1.0, 2: 1.0, 4: 1.0}  # after its first AXp, {0, 2, 4}
    >>> round(kendall_tau(approx, exact), 4), kendall_tau(approx, exact, variant="code")
    (0.7217, 0.2)
    >>> round(kendall_tau(exact, exact), 4)
    1.0
    """
    _check_variant(variant)
    if variant == "paper":
        a, e = _vectors(approx, exact)
        if a.size >= 2:
            tau = tau_b(a, e)
            if not math.isnan(tau):
                return float(tau)
        const_a, const_e = np.ptp(a) == 0 if a.size else True, np.ptp(e) == 0 if e.size else True
        return 1.0 if const_a and const_e else 0.0
    feats = sorted(set(approx) | set(exact))
    if len(feats) < 2:
        return -1.0
    ra, re_ = dense_ranks(approx), dense_ranks(exact)
    miss_a, miss_e = max(ra.values(), default=-1) + 1, max(re_.values(), default=-1) + 1
    a = np.array([ra.get(f, miss_a) for f in feats])
    e = np.array([re_.get(f, miss_e) for f in feats])
    da, de = _pair_signs(a), _pair_signs(e)
    concordant = int(np.sum(da == de))  # same strict direction, or tied on both sides
    discordant = da.size - concordant
    return (concordant - discordant) / (concordant + discordant)


def _tie_groups(scores: FFA, descending: bool) -> list[set[int]]:
    """Features grouped by equal score, groups ordered by score."""
    groups: dict[float, set[int]] = {}
    for f, v in scores.items():
        groups.setdefault(v, set()).add(f)
    return [groups[v] for v in sorted(groups, reverse=descending)]


def _entering(groups: Sequence[set], n: int) -> list[set]:
    """Per depth 1..n (items), the items entering the prefix there: a tie group enters whole
    at the depth of its first item (Webber et al. §4.3: tied items share their top rank)."""
    out: list[set] = [set() for _ in range(n)]
    pos = 0
    for g in groups:
        if g:
            out[pos] = set(g)
            pos += len(g)
    return out


def _check_p(p: float) -> None:
    if not 0 < p < 1:
        raise ValueError(f"RBO persistence p must be in (0, 1), not {p}")


def rbo_ext(s: Sequence[set], t: Sequence[set], p: float = 0.9) -> float:
    """Webber, Moffat & Zobel's extrapolated RBO (ACM TOIS 28(4), 2010, eq. 32) of two
    rankings given as lists of tie groups (sets of items); the ``paper`` variant.

    Depth counts items. With S the shorter ranking (s items) and L the longer (l items),
    ``X_d = |S_:d ∩ L_:d|`` and ``RBO_ext = (1-p)/p * (sum_{d<=l} A_d p^d
    + sum_{s<d<=l} X_s (d-s)/(s d) p^d) + ((X_l - X_s)/l + X_s/s) p^l`` with
    ``A_d = X_d/d`` (so beyond depth s, S counts as s items). Ties (§4.3): a tie group
    enters the prefix whole at the depth of its first item, and for d <= s the agreement
    is ``A_d = 2 X_d / (|S_:d| + |L_:d|)`` (``X_d/d`` without ties); ``X_s = s A_s``.
    0 when either ranking is empty.

    Examples
    --------
    >>> rbo_ext([{"a"}], [{"a"}, {"b"}])  # a prefix of the other ranking: 1
    1.0
    >>> round(rbo_ext([{"a"}, {"b"}], [{"b"}, {"a"}, {"c"}]), 6)
    0.9
    """
    _check_p(p)
    short, long_ = sorted((list(s), list(t)), key=lambda g: sum(map(len, g)))
    n_s, n_l = sum(map(len, short)), sum(map(len, long_))
    if n_s == 0:
        return 0.0
    grow_s, grow_l = _entering(short, n_s), _entering(long_, n_l)
    a: set = set()
    b: set = set()
    common = 0  # |a & b| as both prefixes grow
    total = 0.0  # sum of A_d p^d
    x_s = 0.0
    for d in range(1, n_l + 1):
        if d <= n_s:
            new_a = grow_s[d - 1] - a
            common += len(new_a & b)
            a |= new_a
        new_b = grow_l[d - 1] - b
        common += len(new_b & a)
        b |= new_b
        agree = 2 * common / (len(a) + len(b)) if d <= n_s else common / d
        if d == n_s:
            x_s = n_s * agree
        total += agree * p**d
    extra = sum(x_s * (d - n_s) / (n_s * d) * p**d for d in range(n_s + 1, n_l + 1))
    return float((1 - p) / p * (total + extra) + p**n_l * ((common - x_s) / n_l + x_s / n_s))


def rbo_ext_code(s: Sequence[set], t: Sequence[set], p: float = 0.9) -> float:
    """The extrapolated RBO of the authors' code (the ``rbo`` module they ship, after
    dlukes/rbo); the ``code`` variant. Lists of tie groups; depth counts groups; the
    agreement ``A_d = 2|S_:d ∩ L_:d| / (|S_:d| + |L_:d|)`` is used at every depth, also
    beyond the shorter list, and the overlap is ``X_d = A_d min(d, s)``; otherwise eq. 32.
    Unlike :func:`rbo_ext`, a ranking that is a prefix of the other scores below 1.

    Examples
    --------
    >>> round(rbo_ext_code([{"a"}], [{"a"}, {"b"}]), 6)
    0.88
    """
    _check_p(p)
    if not s or not t:
        return 0.0
    short, long_ = sorted((list(s), list(t)), key=len)
    n_s, n_l = len(short), len(long_)
    agree = np.empty(n_l)
    a: set = set()
    b: set = set()
    common = 0  # |a & b|, kept up to date as both prefixes grow by one rank
    for d in range(n_l):
        if d < n_s:
            new_a = short[d] - a
            common += len(new_a & b)
            a |= new_a
        new_b = long_[d] - b
        common += len(new_b & a)
        b |= new_b
        agree[d] = 2 * common / (len(a) + len(b))
    x_s, x_l = agree[n_s - 1] * n_s, agree[n_l - 1] * n_s
    d = np.arange(1, n_l + 1)
    sum1 = np.sum(p ** d * agree)
    d2 = np.arange(n_s + 1, n_l + 1)
    sum2 = np.sum(p ** d2 * x_s * (d2 - n_s) / (n_s * d2))
    return float((1 - p) / p * (sum1 + sum2) + p ** n_l * ((x_l - x_s) / n_l + x_s / n_s))


def rbo(approx: FFA, exact: FFA, p: float = 0.9, variant: str = "paper") -> float:
    """Extrapolated rank-biased overlap of the two FFA rankings (see module docstring):
    ``paper``: :func:`rbo_ext` on the features with non-zero FFA, most important first;
    ``code``: :func:`rbo_ext_code` on the dense ranks, least important first.

    Examples
    --------
    >>> rbo({0: 1.0}, {0: 1.0, 1: 0.5})  # early in a run the approximate list is shorter
    1.0
    >>> round(rbo({0: 1.0}, {0: 1.0, 1: 0.5}, variant="code"), 6)  # tail first: [1, 0] vs [0]
    0.33
    """
    _check_variant(variant)
    if variant == "paper":
        a = _tie_groups({f: v for f, v in approx.items() if v > 0}, descending=True)
        e = _tie_groups({f: v for f, v in exact.items() if v > 0}, descending=True)
        return rbo_ext(a, e, p)
    # dense ranks sorted descending: the least important features come first
    a = _tie_groups(dense_ranks(approx), descending=True)
    e = _tie_groups(dense_ranks(exact), descending=True)
    return rbo_ext_code(a, e, p)


def kl_divergence(approx: FFA, exact: FFA) -> float:
    """KL(exact ‖ approx), natural log, both normalised to sum 1; ``inf`` when approx
    gives 0 to a feature of the exact FFA (or approx is empty).

    Examples
    --------
    >>> exact = {0: 0.8, 1: 0.6, 2: 0.6, 3: 0.2, 4: 0.8}  # NBC paper's running example
    >>> approx = {0: 1.0, 2: 1.0, 4: 1.0}  # after its first AXp, {0, 2, 4}
    >>> kl_divergence(approx, exact)  # approx misses features 1 and 3
    inf
    >>> round(kl_divergence({**approx, 1: 0.5, 3: 0.5}, exact), 4)
    0.0419
    """
    a, e = _vectors(approx, exact)
    if e.sum() <= 0:
        return 0.0 if a.sum() <= 0 else math.inf
    if a.sum() <= 0:
        return math.inf
    return float(np.sum(rel_entr(e / e.sum(), a / a.sum())))
