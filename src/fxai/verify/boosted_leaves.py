"""Fast independent weak-AXp test for XGBoost models: a tree-by-tree leaf search (numba).

"Does fixing S to x force the class?" is decided for many sets S in one compiled call. A
box gives each used feature a range of threshold intervals (its float32 thresholds
t_1 < ... < t_k cut the line into k+1 intervals; ``x < t_j`` is XGBoost's "yes" branch);
fixing S makes the features of S a single interval. The search picks one leaf per tree,
tree after tree, each compatible with the box left by the leaves picked before (the box
shrinks to their common part), trying a tree's leaves from the lowest objective
``sign * margin`` up (sign +1 for class 1). A partial pick is abandoned when its value plus,
for every tree still to pick, the lowest leaf reachable in the current box, is above a
rigorous bound on float32 rounding (sums are float64). A full pick within that bound of
the class boundary or beyond is judged by XGBoost's own arithmetic (float32, the intercept
first, trees in order) against XGBoost's tie band (:func:`fxai.models.boosted.tie_band`:
the margins XGBoost turns into probability exactly 0.5, class 0 for
``XGBClassifier.predict``; a change of either class with ``ties="change"``); a change is a
candidate counterexample, accepted only when XGBoost's ``inplace_predict`` probability
scores the point as a change. No such pick: the class is forced. The tie band is the one
piece shared with the oracle: it is the definition of the prediction, measured from XGBoost.

This differs on purpose from the oracle (:mod:`fxai.oracles.boosted`, which splits boxes
where the per-tree optima disagree) and shares no code with it: the trees are read from
``Booster.trees_to_dataframe()`` and the intercept is XGBoost's own (through
:class:`fxai.verify.boosted.BoostedChecker`). A query needing more than ``max_nodes`` picks,
or whose candidate XGBoost rejects (a margin within rounding of 0), is decided by the
checker's MILP. Free features range over the reals (no domains).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Iterable, Sequence

import numpy as np
from numba import njit

from fxai.models.boosted import change_rule, tie_band
from fxai.verify.boosted import BoostedChecker
from fxai.verify.settled import removals

LOG = logging.getLogger(__name__)


class LeafProver:
    """Batched weak-AXp tests for one XGBoost binary model (any instance)."""

    def __init__(self, checker: BoostedChecker, max_nodes: int = 200_000):
        self.checker, self.max_nodes = checker, max_nodes
        self.used = np.array(checker.used, dtype=np.int64)
        self.col = np.full(checker.n_features, -1, dtype=np.int64)
        self.col[self.used] = np.arange(len(self.used))
        self.thr = [checker.thresholds[int(f)] for f in self.used]
        m = len(self.used)  # column m: a dummy with one interval, for padding conditions
        self.size = np.array([len(t) + 1 for t in self.thr] + [1], dtype=np.int32)
        # rep[c, k]: a float32 value in interval k of column c (t_k itself; below t_1 for 0)
        self.rep = np.zeros((m, int(self.size.max())), dtype=np.float32)
        for c, t in enumerate(self.thr):
            self.rep[c, : len(t) + 1] = np.r_[np.nextafter(t[0], np.float32(-np.inf)), t]
        names = checker.booster.feature_names or [f"f{i}" for i in range(checker.n_features)]
        index = {n: i for i, n in enumerate(names)}
        df = checker.booster.trees_to_dataframe()
        trees = [self._leaves(t, index) for _, t in df.groupby("Tree")]
        depth = max((len(c) for t in trees for _, c in t), default=0) or 1
        n_leaves = sum(len(t) for t in trees)
        self.tree_end = np.cumsum([len(t) for t in trees]).astype(np.int64)
        self.leaf_f = np.full((n_leaves, depth), m, dtype=np.int64)
        self.leaf_lo = np.zeros((n_leaves, depth), dtype=np.int32)
        self.leaf_hi = np.ones((n_leaves, depth), dtype=np.int32)
        self.value = np.zeros(n_leaves)
        for s, (val, conds) in enumerate(itertools.chain.from_iterable(trees)):
            self.value[s] = val
            for d, (c, (lo, hi)) in enumerate(sorted(conds.items())):
                self.leaf_f[s, d], self.leaf_lo[s, d], self.leaf_hi[s, d] = c, lo, hi
        self.value32 = self.value.astype(np.float32)
        self.base32 = np.float32(checker.intercept)  # XGBoost's own float32 intercept
        # |float32 sum - exact sum| <= n_trees * max|partial sum| * 2^-24; doubled for float64
        peak = abs(float(self.base32)) + sum(
            float(np.abs(self.value[s:e]).max(initial=0.0))
            for s, e in zip(np.r_[0, self.tree_end[:-1]], self.tree_end, strict=True))
        self.tol = 2.0 * (len(trees) + 1) * peak * 2.0**-24
        self.fallbacks = 0  # queries decided by the MILP so far

    def _leaves(self, tree, index) -> list[tuple[float, dict]]:
        """(value, {column: [lo, hi) interval range}) of each reachable leaf."""
        nodes = {r.ID: r for r in tree.itertuples()}
        out, stack = [], [(tree["ID"].iloc[0], {})]
        while stack:
            nid, conds = stack.pop()
            r = nodes[nid]
            if r.Feature == "Leaf":
                out.append((float(np.float32(r.Gain)), conds))
                continue
            c = int(self.col[index[r.Feature]])
            j = int(np.searchsorted(self.thr[c], np.float32(r.Split)))  # x < t_j: k <= j
            lo, hi = conds.get(c, (0, int(self.size[c])))
            stack.append((r.Yes, {**conds, c: (lo, min(hi, j + 1))}))
            stack.append((r.No, {**conds, c: (max(lo, j + 1), hi)}))
        return [o for o in out if all(lo < hi for lo, hi in o[1].values())]

    def weak_axps(self, x: Sequence[float], sets: Sequence[Iterable[int]]) -> list[bool]:
        """For each set S: does fixing S to x force XGBoost's class at x?"""
        sets = [list(s) for s in sets]
        ends = np.cumsum([len(s) for s in sets], dtype=np.int64)
        feats = np.fromiter(itertools.chain.from_iterable(sets), np.int64, int(ends[-1:].sum()))
        n = len(sets)
        return self._forced(x, np.zeros(n, np.int8), ends - [len(s) for s in sets], ends,
                            np.full(n, -1), feats).tolist()

    def check(self, x: Sequence[float], axps: Sequence[Sequence[int]],
              cxps: Sequence[Sequence[int]], batch: int = 50_000,
              deadline: float | None = None) -> tuple[list[bool], list[bool]]:
        """Is each AXp an AXp (sufficient; without any one feature not) and each CXp a CXp
        (freeing it changes the class; freeing it without any one feature does not)?
        The 1 + |E| queries of an explanation E are given as E plus a feature to leave out,
        so no set is built per query; the explanations' own queries are asked first, and
        the removals they settle (:mod:`fxai.verify.settled`) are not asked. ``deadline``
        (``time.process_time``): TimeoutError when it passes between two batches of
        queries."""
        xps = [list(e) for e in axps] + [list(e) for e in cxps]
        lens = np.array([len(e) for e in xps], dtype=np.int64)
        ends = np.cumsum(lens)
        feats = np.fromiter(itertools.chain.from_iterable(xps), np.int64, int(lens.sum()))
        n_q = lens + 1  # per explanation: itself, then each of its features left out
        owner = np.repeat(np.arange(len(xps)), n_q)
        first = np.cumsum(n_q) - n_q
        rank = np.arange(int(n_q.sum())) - np.repeat(first, n_q)  # 0: E itself, r: feature r-1
        skip = np.full(len(owner), -1, dtype=np.int64)
        skip[rank > 0] = feats[(ends[owner] - lens[owner] + rank - 1)[rank > 0]]
        kind = (owner >= len(axps)).astype(np.int8)  # 0: E is fixed (AXp), 1: E is free (CXp)
        forced = np.zeros(len(owner), dtype=bool)

        def ask(queries: np.ndarray) -> None:  # forced[queries], in batches
            for i in range(0, len(queries), batch):
                if deadline is not None and time.process_time() >= deadline:
                    raise TimeoutError(f"checked {i} of {len(queries)} queries by the deadline")
                q = queries[i:i + batch]
                forced[q] = self._forced(x, kind[q], (ends - lens)[owner[q]], ends[owner[q]],
                                         skip[q], feats)

        ask(first)  # each explanation itself first: their answers settle most removals
        heads = forced[first].tolist()
        sure = removals(axps, cxps, heads[:len(axps)], heads[len(axps):], len(self.col))
        removal = np.flatnonzero(rank > 0)
        forced[removal[sure]] = kind[removal[sure]] == 1  # an AXp's: not forced; a CXp's: forced
        ask(removal[~sure])
        # an AXp must be forced and each removal not; a CXp the opposite
        want = np.where(kind == 0, rank == 0, rank > 0)
        ok = np.ones(len(xps), dtype=bool)
        np.logical_and.at(ok, owner, forced == want)
        return ok[: len(axps)].tolist(), ok[len(axps):].tolist()

    def _forced(self, x, kind, starts, ends, skip, feats) -> np.ndarray:
        """Query q: features feats[starts[q]:ends[q]] except skip[q] are fixed (kind 0) or
        are the only free ones (kind 1); is the class forced?"""
        chk = self.checker
        c = chk.prediction(x)
        sign = 1.0 if c == 1 else -1.0
        sval = sign * self.value
        first = np.r_[0, self.tree_end[:-1]]
        order = np.concatenate([s + np.argsort(sval[s:e], kind="stable")
                                for s, e in zip(first, self.tree_end, strict=True)])
        xf = np.asarray(x, dtype=np.float32)
        v = np.array([np.searchsorted(t, xf[f], side="right")
                      for f, t in zip(self.used, self.thr, strict=True)] + [0], dtype=np.int32)
        n = len(kind)
        status = np.empty(n, dtype=np.int8)
        wit = np.empty((n, len(self.size)), dtype=np.int32)
        skip_col = np.where(skip >= 0, self.col[np.maximum(skip, 0)], -1)
        cut, _ = change_rule(c, chk.ties)
        lo, hi = tie_band()
        _decide(kind, starts, ends, skip_col, self.col[feats], v, self.size, self.leaf_f,
                self.leaf_lo, self.leaf_hi, sval, order, self.tree_end,
                sign * float(self.base32) - cut, self.tol, self.value32, self.base32, c,
                np.float32(lo if chk.ties == "change" else np.nextafter(np.float32(hi), 1)),
                np.float32(hi), self.max_nodes, status, wit)
        refuted = np.flatnonzero(status == 0)
        if refuted.size:  # candidates stand only if XGBoost scores them as a change
            w, back = _unique_rows(wit[refuted, :-1])
            pts = np.tile(xf, (len(w), 1))
            m = len(self.used)
            pts[:, self.used] = np.where(w == v[:-1], xf[self.used], self.rep[np.arange(m), w])
            changed = chk.changed(chk.booster.inplace_predict(pts), c)
            status[refuted[~changed[back.ravel()]]] = -1
        out = status == 1
        for q in np.flatnonzero(status == -1):
            listed = set(feats[starts[q]:ends[q]].tolist()) - {int(skip[q])}
            fixed = listed if kind[q] == 0 else set(range(chk.n_features)) - listed
            out[q] = chk.entails(x, fixed)
            self.fallbacks += 1
        if (status == -1).any():
            LOG.info("%d of %d queries decided by the MILP", int((status == -1).sum()), n)
        return out


def _unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows, index of each row's one): rows hashed to 64 bits, then compared."""
    key = a.astype(np.uint64) @ np.random.default_rng(0).integers(
        1, 2**63, a.shape[1], dtype=np.uint64)
    _, first, back = np.unique(key, return_index=True, return_inverse=True)
    if not np.array_equal(a[first][back], a):  # a hash collision: no deduplication
        return a, np.arange(len(a))
    return a[first], back


@njit(cache=True)
def _reachable(leaf, lo, hi, leaf_f, leaf_lo, leaf_hi):  # pragma: no cover - compiled
    for d in range(leaf_f.shape[1]):
        f = leaf_f[leaf, d]
        if lo[f] >= leaf_hi[leaf, d] or hi[f] <= leaf_lo[leaf, d]:
            return False
    return True


@njit(cache=True)
def _narrow(leaf, lo, hi, lo_out, hi_out, leaf_f, leaf_lo, leaf_hi):  # pragma: no cover
    """lo_out, hi_out: the box lo, hi cut down to the leaf's path."""
    lo_out[:] = lo
    hi_out[:] = hi
    for d in range(leaf_f.shape[1]):
        f = leaf_f[leaf, d]
        hi_out[f] = min(hi_out[f], leaf_hi[leaf, d])
        lo_out[f] = max(lo_out[f], leaf_lo[leaf, d])


@njit(cache=True)
def _witness(lo, hi, v, out):  # pragma: no cover - compiled
    """A point of the box (as intervals): the instance's interval where the box has it."""
    for f in range(v.size):
        out[f] = v[f] if lo[f] <= v[f] < hi[f] else lo[f]


@njit(cache=True)
def _changes(pick, value32, base32, c, lo1, hi):  # pragma: no cover - compiled
    """XGBoost's class change for the picked leaves (float32 sum, base first, tree order):
    class 1 keeps above ``hi``; class 0 keeps below ``lo1`` (``hi``'s successor, or the
    tie band's low end when a tie is a change)."""
    acc = base32
    for t in range(pick.size):
        acc = np.float32(acc + value32[pick[t]])
    return acc <= hi if c == 1 else acc >= lo1


@njit(cache=True)
def _decide(kind, starts, ends, skip, cols, v, size, leaf_f, leaf_lo, leaf_hi, sval, order,
            tree_end, offset, tol, value32, base32, c, lo1, hi, max_nodes, status,
            wit):  # pragma: no cover - compiled
    """status[q]: 1 forced, 0 candidate counterexample (its intervals in wit[q]), -1 too many
    picks. Columns < 0 (features no tree uses) are ignored. Depth t of the search is tree t;
    lo_s[t], hi_s[t] is the box before picking in tree t. Bounds are float64 sums relative
    to the class boundary (in ``offset``) with margin ``tol``; a full pick within ``tol`` of
    it is judged by XGBoost's float32 sum."""
    n_t, m = tree_end.size, size.size
    lo_s = np.empty((n_t + 1, m), dtype=np.int32)
    hi_s = np.empty((n_t + 1, m), dtype=np.int32)
    acc = np.empty(n_t + 1)
    pos = np.empty(n_t, dtype=np.int64)
    pick = np.empty(n_t, dtype=np.int64)
    low = np.empty((n_t + 1, n_t), dtype=np.int64)  # per level, each tree's first reachable
    for q in range(kind.size):
        free = kind[q] == 1
        for f in range(m):  # all free (kind 0) or all fixed (kind 1), then the listed ones
            lo_s[0, f] = v[f] if free else 0
            hi_s[0, f] = v[f] + 1 if free else size[f]
        for j in range(starts[q], ends[q]):
            f = cols[j]
            if f >= 0 and f != skip[q]:
                lo_s[0, f] = 0 if free else v[f]
                hi_s[0, f] = size[f] if free else v[f] + 1
        acc[0] = offset
        pos[0] = -1
        for u in range(n_t):
            low[0, u] = 0 if u == 0 else tree_end[u - 1]
        t, nodes, result = 0, 0, 1
        while t >= 0:
            start = 0 if t == 0 else tree_end[t - 1]
            p = max(start + pos[t] + 1, low[t, t])
            leaf = -1
            while p < tree_end[t]:
                if _reachable(order[p], lo_s[t], hi_s[t], leaf_f, leaf_lo, leaf_hi):
                    leaf = order[p]
                    break
                p += 1
            if leaf < 0:
                t -= 1
                continue
            pos[t] = p - start
            pick[t] = leaf
            nodes += 1
            if nodes > max_nodes:
                result = -1
                break
            _narrow(leaf, lo_s[t], hi_s[t], lo_s[t + 1], hi_s[t + 1], leaf_f, leaf_lo, leaf_hi)
            a = acc[t] + sval[leaf]
            if t == n_t - 1:
                if a <= tol and _changes(pick, value32, base32, c, lo1, hi):
                    _witness(lo_s[t + 1], hi_s[t + 1], v, wit[q])
                    result = 0
                    break
                if a > tol:
                    t -= 1  # the last tree's next leaves are higher still: backtrack
                continue
            bound = a
            for u in range(t + 1, n_t):  # the box only shrinks: scan on from level t's first
                r = low[t, u]
                while not _reachable(order[r], lo_s[t + 1], hi_s[t + 1], leaf_f, leaf_lo, leaf_hi):
                    r += 1
                low[t + 1, u] = r
                bound += sval[order[r]]
            if bound > tol:
                continue  # no counterexample below this pick
            acc[t + 1] = a
            t += 1
            pos[t] = -1
        status[q] = result
