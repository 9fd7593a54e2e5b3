"""A compiled leaf search deciding most of :class:`~fxai.verify.scores.ScoreChecker`'s
questions before its MILPs: "does fixing S to x keep class c against rival j?" for many sets
S in one call per rival.

It searches the checker's own reading of the model (no code of the oracle): each used
feature is cut into pieces, a numeric feature's intervals between its cuts (and NaN when it
is a value), a categorical feature's codes, and a set of pieces is a bitmask. Every leaf's
path is a mask per feature; a box is a mask per feature (a fixed feature: x's piece; a free
one: every piece its domain reaches). The search picks one leaf per tree whose objective
``score_c - score_j`` is not 0, tree after tree, each leaf compatible with the box left by
those picked before (the box shrinks to their common part), trying a tree's leaves from the
lowest objective up, and abandons a partial pick when its value plus, for every tree still
to pick, the lowest leaf reachable in the current box, is above ``tol``. A full pick whose
objective (with the intercepts) is below ``-tol`` is a candidate counterexample, a point of
its box that the checker confirms with the library's own predict; none: c is kept against
j. No candidate but a pick within ``tol`` of a tie (the checker's bound on the rounding of
the library and of this search's own sums), a candidate the library does not confirm, or
more than ``max_nodes`` picks leave the question to the MILP.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


class LeafSearch:
    """The leaf search over one :class:`~fxai.verify.scores.ScoreChecker`'s reading (not
    for groups of several features)."""

    def __init__(self, chk, max_nodes: int = 200_000):
        if any(len(g.inputs) > 1 for g in chk.groups):
            raise ValueError("groups of several features: left to the MILP")
        self.chk, self.max_nodes = chk, max_nodes
        self.cols = sorted(set(chk.cuts) | set(chk.codes))
        self.col = {f: i for i, f in enumerate(self.cols)}
        sizes = [len(chk.codes[f]) if f in chk.codes else
                 len(chk.cuts[f]) + 1 + (f in chk.m) for f in self.cols]
        self.words = max(1, -(-max(sizes, default=1) // 64))
        m = len(self.cols)
        self.free = np.zeros((m + 1, self.words), dtype=np.uint64)  # column m: padding
        self.free[m] = ~np.uint64(0)
        self.at_x = np.array([self._piece(f, chk.x[f]) for f in self.cols], dtype=np.int64)
        self.x_box = self.free.copy()  # every feature fixed to x's piece
        for i, f in enumerate(self.cols):
            self.free[i] = self._pack(self._reach(f, sizes[i]))
            self.x_box[i] = self._pack(np.arange(sizes[i]) == self.at_x[i])
        self._rivals: dict[int, tuple] = {}
        self._tables(sizes)

    # ---- pieces ------------------------------------------------------------------
    def _piece(self, f: int, v: float) -> int:
        """The piece of feature f that the value v (a code for a categorical one) is in."""
        chk = self.chk
        if f in chk.codes:
            return next(p for p, (code, _) in enumerate(chk.codes[f]) if code == int(v))
        T = chk.cuts[f]
        if math.isnan(v):
            return len(T) + 1
        return sum(not chk._left(v, t) for t in T)  # the cuts it is right of

    def _reach(self, f: int, size: int) -> np.ndarray:
        """The pieces a free feature f takes: all, or those of its domain's values."""
        chk = self.chk
        g = chk.group_of.get(f)
        if g is None:
            return np.ones(size, dtype=bool)
        out = np.zeros(size, dtype=bool)
        out[[self._piece(f, float(v)) for v in g.values[:, 0]]] = True
        out[len(chk.cuts[f]) + 1:] = f in chk.m  # NaN
        return out

    def _pack(self, bits: np.ndarray) -> np.ndarray:
        """Bits as words: bit i of the mask is bit i % 64 of word i // 64."""
        out = np.zeros(self.words * 64, dtype=bool)
        out[:len(bits)] = bits
        return np.packbits(out, bitorder="little").view("<u8").astype(np.uint64)

    def _left(self, tree, node: int, size: int) -> np.ndarray:
        """Per piece of the node's feature, does it go left?"""
        chk = self.chk
        f = int(tree.feat[node])
        nan_left = tree.nan_left is not None and bool(tree.nan_left[node])
        if f in chk.codes:
            known = len(chk.categories[f])
            return np.array([code in tree.cats[node] if code < known else nan_left
                             for code, _ in chk.codes[f]])
        T = chk.cuts[f]
        out = np.zeros(size, dtype=bool)
        if tree.cats and node in tree.cats:  # pieces inside (lo, hi] of a category
            for c in (c for c in tree.cats[node] if c >= 0):
                lo, hi = (int(np.searchsorted(T, e)) for e in category_ends(c))
                out[lo + 1:hi + 1] = True
            return out
        t = float(tree.thr[node])
        if math.isinf(t):
            out[:len(T) + 1] = t > 0
        else:
            out[:int(np.searchsorted(T, chk._cut(t))) + 1] = True
        out[len(T) + 1:] = nan_left
        return out

    def _tables(self, sizes: list[int]) -> None:
        """Per reachable leaf its tree, value row and per-feature masks (padded)."""
        chk, m = self.chk, len(self.cols)
        leaves: list[tuple[int, np.ndarray, dict[int, np.ndarray]]] = []
        for ti, tree in enumerate(chk._trees):
            stack = [(0, {})]
            while stack:
                node, conds = stack.pop()
                if tree.left[node] < 0:
                    leaves.append((ti, tree.value[node], conds))
                    continue
                i = self.col[int(tree.feat[node])]
                go = self._left(tree, node, sizes[i])
                have = conds.get(i, np.ones(sizes[i], dtype=bool))
                for child, side in ((tree.left[node], go), (tree.right[node], ~go)):
                    if (have & side).any():
                        stack.append((int(child), {**conds, i: have & side}))
        depth = max((len(c) for _, _, c in leaves), default=0) or 1
        self.tree_of = np.array([t for t, _, _ in leaves], dtype=np.int64)
        self.value = np.array([v for _, v, _ in leaves], dtype=np.float64).reshape(-1, chk.k)
        self.leaf_f = np.full((len(leaves), depth), m, dtype=np.int64)
        self.leaf_mask = np.zeros((len(leaves), depth, self.words), dtype=np.uint64)
        self.leaf_mask[:] = ~np.uint64(0)
        for s, (_, _, conds) in enumerate(leaves):
            if not conds:
                continue
            block = np.zeros((len(conds), self.words * 64), dtype=bool)
            for d, (i, bits) in enumerate(sorted(conds.items())):
                self.leaf_f[s, d] = i
                block[d, :len(bits)] = bits
            self.leaf_mask[s, :len(conds)] = np.packbits(
                block, axis=1, bitorder="little").view("<u8")

    # ---- questions ---------------------------------------------------------------
    def decide(self, sets: list[set[int]], j: int, tol: float):
        """For rival j, per set: 1 kept, 0 a candidate (its box's point in ``points``), -1
        left to the MILP; returns (status, points)."""
        chk = self.chk
        sval, order, tree_end = self._rival(j)
        fixed = np.zeros((len(sets), len(self.cols) + 1), dtype=bool)
        for q, s in enumerate(sets):
            fixed[q, [self.col[f] for f in s if f in self.col]] = True
        boxes = np.where(fixed[:, :, None], self.x_box[None], self.free[None])
        status = np.empty(len(sets), dtype=np.int8)
        wit = np.zeros_like(boxes)
        offset = float(chk._base[chk.c] - chk._base[j])
        if not tree_end.size:  # no tree tells c from j: the intercepts do
            status[:] = 1 if offset > tol else -1
            return status, [None] * len(sets)
        _search(boxes, self.leaf_f, self.leaf_mask, sval, order, tree_end, offset, tol,
                self.max_nodes, status, wit)
        return status, [self._point(wit[q], sets[q]) if status[q] == 0 else None
                        for q in range(len(sets))]

    def _rival(self, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(per leaf ``score_c - score_j``, the leaves of the trees where it is not 0,
        tree by tree (the widest range of it first) from the lowest, where each tree's
        leaves end in that order); kept."""
        if j not in self._rivals:
            c = self.chk.c
            sval = self.value[:, c] - self.value[:, j]
            trees = np.unique(self.tree_of[np.abs(sval) > 0])
            parts = [np.flatnonzero(self.tree_of == t) for t in trees]
            parts.sort(key=lambda p: -np.ptp(sval[p]))  # the widest trees first
            order = np.concatenate([p[np.argsort(sval[p], kind="stable")] for p in parts]
                                   or [np.zeros(0, dtype=np.int64)])
            tree_end = np.cumsum([len(p) for p in parts], dtype=np.int64)
            self._rivals[j] = (sval, order.astype(np.int64), tree_end)
        return self._rivals[j]

    def _point(self, box: np.ndarray, fixed: set[int]) -> np.ndarray:
        """A point of the box: x's piece where the box has it, else its first piece."""
        chk = self.chk
        p = chk.raw.copy()
        for i, f in enumerate(self.cols):
            if f in fixed:
                continue
            bits = np.unpackbits(box[i].view(np.uint8), bitorder="little")
            if bits[self.at_x[i]]:
                continue
            k = int(np.argmax(bits))
            if f in chk.codes:
                p[f] = chk._category(f, chk.codes[f][k][0])
            elif k == len(chk.cuts[f]) + 1:
                p[f] = math.nan
            elif f in chk.group_of:
                p[f] = next(float(v) for v in chk.group_of[f].values[:, 0]
                            if self._piece(f, float(v)) == k)
            else:
                p[f] = chk._inside(chk.cuts[f], k)
        return p


def category_ends(c: int) -> tuple[float, float]:
    """(lo, hi): x in (lo, hi] iff x's integer part (toward 0) is category c >= 0."""
    below = float(np.nextafter(float(c + 1), -np.inf))
    return (-1.0, below) if c == 0 else (float(np.nextafter(float(c), -np.inf)), below)


@njit(cache=True)
def _fits(leaf, box, leaf_f, leaf_mask):  # pragma: no cover - compiled
    for d in range(leaf_f.shape[1]):
        f = leaf_f[leaf, d]
        hit = False
        for w in range(box.shape[1]):
            if box[f, w] & leaf_mask[leaf, d, w]:
                hit = True
                break
        if not hit:
            return False
    return True


@njit(cache=True)
def _narrow(leaf, box, out, leaf_f, leaf_mask):  # pragma: no cover - compiled
    out[:] = box
    for d in range(leaf_f.shape[1]):
        f = leaf_f[leaf, d]
        for w in range(box.shape[1]):
            out[f, w] &= leaf_mask[leaf, d, w]


@njit(cache=True)
def _reduce(box, leaf_f, leaf_mask, sval, order, tree_end, offset, out_order,
            out_end):  # pragma: no cover - compiled
    """The question's own trees, in ``order``'s: the leaves that fit ``box``, a tree with
    one such leaf folded into the offset, into ``out_order`` and ``out_end``; returns
    (their number, the offset)."""
    n_t, m = 0, 0
    for u in range(tree_end.size):
        a = m
        for p in range(0 if u == 0 else tree_end[u - 1], tree_end[u]):
            if _fits(order[p], box, leaf_f, leaf_mask):
                out_order[m] = order[p]
                m += 1
        if m - a == 1:
            offset += sval[out_order[a]]
            m = a
        elif m > a:
            out_end[n_t] = m
            n_t += 1
    return n_t, offset


@njit(cache=True)
def _search(boxes, leaf_f, leaf_mask, sval, order, tree_end, offset, tol, max_nodes, status,
            wit):  # pragma: no cover - compiled
    """status[q]: 1 kept, 0 a candidate (its box in wit[q]), -1 a near tie or too many
    picks, each over the question's own trees (:func:`_reduce`)."""
    n_all = tree_end.size
    box_s = np.empty((n_all + 1, boxes.shape[1], boxes.shape[2]), dtype=np.uint64)
    acc = np.empty(n_all + 1)
    pos = np.empty(n_all, dtype=np.int64)
    low = np.empty((n_all + 1, n_all), dtype=np.int64)
    q_order = np.empty(order.size, dtype=np.int64)
    q_end = np.empty(n_all, dtype=np.int64)
    for q in range(boxes.shape[0]):
        n_t, off = _reduce(boxes[q], leaf_f, leaf_mask, sval, order, tree_end, offset,
                           q_order, q_end)
        if n_t == 0:  # every tree constant in the box
            status[q] = 0 if off < -tol else (-1 if off <= tol else 1)
            wit[q] = boxes[q]
            continue
        status[q] = _dfs(boxes[q], leaf_f, leaf_mask, sval, q_order, q_end[:n_t], off, tol,
                         max_nodes, box_s, acc, pos, low, wit[q])


@njit(cache=True)
def _dfs(box, leaf_f, leaf_mask, sval, order, tree_end, offset, tol, max_nodes, box_s, acc,
         pos, low, wit):  # pragma: no cover - compiled
    """1 kept, 0 a candidate (its box in wit), -1 a near tie or too many picks. Depth t of
    the search is tree t; box_s[t] is the box before picking in tree t; low[t, u] a leaf of
    tree u (in ``order``) before which none is reachable at depth t."""
    n_t = tree_end.size
    box_s[0] = box
    acc[0] = offset
    pos[0] = -1
    for u in range(n_t):
        low[0, u] = 0 if u == 0 else tree_end[u - 1]
    t, nodes, near = 0, 0, False
    while t >= 0:
        start = 0 if t == 0 else tree_end[t - 1]
        p = max(start + pos[t] + 1, low[t, t])
        leaf = -1
        while p < tree_end[t]:
            if _fits(order[p], box_s[t], leaf_f, leaf_mask):
                leaf = order[p]
                break
            p += 1
        if leaf < 0:
            t -= 1
            continue
        pos[t] = p - start
        nodes += 1
        if nodes > max_nodes:
            return -1
        _narrow(leaf, box_s[t], box_s[t + 1], leaf_f, leaf_mask)
        a = acc[t] + sval[leaf]
        if t == n_t - 1:
            if a < -tol:
                wit[:] = box_s[t + 1]
                return 0
            near = near or a <= tol  # a near tie: the MILP decides, unless a candidate
            t -= 1  # is found; the last tree's next leaves are higher still
            continue
        bound = a
        for u in range(t + 1, n_t):  # the box only shrinks: scan on from level t's first
            r = low[t, u]
            while not _fits(order[r], box_s[t + 1], leaf_f, leaf_mask):
                r += 1
            low[t + 1, u] = r
            bound += sval[order[r]]
        if bound > tol:
            continue  # no counterexample below this pick
        acc[t + 1] = a
        t += 1
        pos[t] = -1
    return -1 if near else 1
