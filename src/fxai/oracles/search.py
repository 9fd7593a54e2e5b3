"""The compiled branch and bound of the tree-ensemble oracles (numba; see
:mod:`fxai.oracles.boosted` for the search and the tables it reads). A module of its own so
that numba loads on the first search, not when an oracle that never searches (the SAT
oracles of forest votes) is imported or built."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _best_leaves(cf, clo, chi, val, starts, lo, hi, first):  # pragma: no cover - compiled
    """(sum over trees of the lowest-valued leaf reachable in the box [lo, hi), the number
    of leaves tested); leaves are sorted by value within each tree; ``first[t]`` receives
    tree t's leaf."""
    total = 0.0
    tested = 0
    for t in range(starts.size):
        end = starts[t + 1] if t + 1 < starts.size else cf.shape[0]
        leaf, k = _first_reachable(cf, clo, chi, lo, hi, starts[t], end)
        tested += k
        if leaf >= 0:
            first[t] = leaf
            total += val[leaf]
    return total, tested


@njit(cache=True, inline="always")  # (as a call per leaf scan, the search ran slower)
def _first_reachable(cf, clo, chi, lo, hi, start, end):  # pragma: no cover - compiled
    """(the first of the leaves ``start..end-1`` whose box meets [lo, hi), or -1; the
    leaves tested)."""
    for leaf in range(start, end):
        ok = True
        for d in range(cf.shape[1]):
            f = cf[leaf, d]
            if lo[f] >= chi[leaf, d] or hi[f] <= clo[leaf, d]:
                ok = False
                break
        if ok:
            return leaf, leaf - start + 1
    return -1, end - start


@njit(cache=True)
def _children(cf, clo, chi, val, starts, lo, hi, f, s, first, first_a, first_b, nxt,
              known):  # pragma: no cover - compiled
    """The bounds of the box [lo, hi) split at ``x_f < s`` (below, above) and the leaves
    tested. A child keeps the box's leaf (``first``) of every tree whose leaf it still
    meets (its box differs only in ``f``); in the other trees it takes the next reachable
    leaf: ``nxt[t, d]`` if ``known`` (the split of :func:`_split_feature`), else searched on
    from the box's leaf. The children's leaves go to ``first_a`` and ``first_b``; ``lo`` and
    ``hi`` are left as they were."""
    depth = cf.shape[1]
    below = 0.0
    above = 0.0
    tested = 0
    for t in range(starts.size):
        end = starts[t + 1] if t + 1 < starts.size else cf.shape[0]
        leaf = first[t]
        a = leaf
        b = leaf
        for d in range(depth):
            if cf[leaf, d] != f:
                continue
            if clo[leaf, d] >= s:  # the child x_f < s excludes this leaf
                if known:
                    a = nxt[t, d]
                else:
                    keep = hi[f]
                    hi[f] = s
                    a, k = _first_reachable(cf, clo, chi, lo, hi, leaf + 1, end)
                    hi[f] = keep
                    tested += k
            elif chi[leaf, d] <= s:  # the child x_f >= s excludes it
                if known:
                    b = nxt[t, d]
                else:
                    keep = lo[f]
                    lo[f] = s
                    b, k = _first_reachable(cf, clo, chi, lo, hi, leaf + 1, end)
                    lo[f] = keep
                    tested += k
            break
        first_a[t] = a
        first_b[t] = b
        below += val[a]
        above += val[b]
    return below, above, tested


@njit(cache=True)
def _split_feature(cf, clo, chi, val, starts, lo, hi, L, H, first, room,
                   nxt):  # pragma: no cover - compiled
    """(the separating feature f, one with ``L[f] >= H[f]``, to split at ``H[f]``, or -1 if
    none separates; leaves tested). A child's bound differs from the box's only in the
    trees whose chosen leaf (``first``) it excludes: each such tree is searched on from that
    leaf (the leaf found goes to ``nxt[t, d]``, ``d`` the column of ``f`` in the chosen
    leaf's box). The split takes a feature whose two children both raise the bound above
    ``room`` (the box is then closed), else the one that raises the sum of the two
    children's bounds most."""
    n_leaves, depth = cf.shape
    n = L.size - 1
    gain = np.zeros((n, 2))  # per feature, the rise of the bound below and above the split
    tested = 0
    for t in range(starts.size):
        end = starts[t + 1] if t + 1 < starts.size else n_leaves
        leaf = first[t]
        for d in range(depth):
            f = cf[leaf, d]
            if f == n or L[f] < H[f]:
                continue
            s = H[f]
            if clo[leaf, d] >= s:  # the child x_f < s excludes this leaf
                side = 0
                keep = hi[f]
                hi[f] = s
            elif chi[leaf, d] <= s:  # the child x_f >= s excludes it
                side = 1
                keep = lo[f]
                lo[f] = s
            else:
                continue
            nx, k = _first_reachable(cf, clo, chi, lo, hi, leaf + 1, end)
            tested += k
            nxt[t, d] = nx
            if nx >= 0:
                gain[f, side] += val[nx] - val[leaf]
            if side == 0:
                hi[f] = keep
            else:
                lo[f] = keep
    c = -1
    best = -np.inf
    for f in range(n):
        if L[f] < H[f]:
            continue
        score = gain[f, 0] + gain[f, 1]
        if min(gain[f, 0], gain[f, 1]) > room:  # both children are pruned
            score += np.inf
        if score > best:
            best, c = score, f
    return c, tested


@njit(cache=True)
def _changes(first, jv, base, divisor, cut, inclusive):  # pragma: no cover - compiled
    """Does the pick of leaves ``first`` change the class in the library's arithmetic (in
    ``base``'s dtype: two sums, intercept first then trees in order, each divided by
    ``divisor``, then added; the second sum's addends are negated, which rounds
    symmetrically, so the result's sign is that of the difference of the two scores)?"""
    acc = base.copy()
    for t in range(first.size):
        acc[0] += jv[first[t], 0]
        acc[1] += jv[first[t], 1]
    acc[0] = acc[0] / divisor
    acc[1] = acc[1] / divisor
    acc[0] = acc[0] + acc[1]
    return acc[0] < cut or (acc[0] == cut and inclusive)


@njit(cache=True)
def _box(fixed, col, v, size):  # pragma: no cover - compiled
    """The box (lows, highs: one row) that fixes the features ``fixed`` to their intervals
    ``v`` (``col``: each one's column, -1 for a feature no tree splits on) and leaves every
    other column its ``size`` intervals."""
    lo = np.zeros((1, size.size), dtype=np.int64)
    hi = np.empty((1, size.size), dtype=np.int64)
    hi[0, :] = size
    for f in fixed:
        if f < 0 or f >= col.size:
            raise IndexError("a fixed feature is out of range")
        c = col[f]
        if c >= 0:
            lo[0, c] = v[c]
            hi[0, c] = v[c] + 1
    return lo, hi


@njit(cache=True)
def ask(fixed, col, v, size, cf, clo, chi, val, starts, offset, cut, inclusive, tol, jv, base,
        divisor, limit):  # pragma: no cover - compiled
    """:func:`search` from the box that fixes the features ``fixed`` (original indices;
    ``col`` maps each to its column of ``v``, -1 for a feature no tree splits on) and leaves
    every other feature its ``size`` intervals: one compiled call per question."""
    slo, shi = _box(fixed, col, v, size)
    return search(cf, clo, chi, val, starts, offset, cut, inclusive, slo, shi,
                  np.empty((1, 0), dtype=np.int64), 1, v, tol, jv, base, divisor, limit)


@njit(cache=True)
def search(cf, clo, chi, val, starts, offset, cut, inclusive, slo, shi, sfirst, top, v, tol,
           jv, base, divisor, limit):  # pragma: no cover - compiled
    """Depth-first branch and bound (see the module docstring) over the stack of boxes
    ``slo[:top]``, ``shi[:top]`` (per-feature interval ranges [lo, hi)), each with its
    lowest-valued reachable leaf per tree (``sfirst[:top]``, found when its parent was
    split; -1 in a first box's row, or a stack without columns: to be found); returns (a
    counterexample's intervals or an empty array, the stack: lows, highs, leaves, height).
    Bounds are float64 sums minus the cut (in ``offset``), pruned only above ``tol`` (the
    rounding bound); a pick of compatible leaves is judged in the library's own float
    arithmetic (:func:`_changes`), and if it does not change the class while other picks
    remain in the box, the box is split off around it. With ``limit`` >= 0 the search stops
    once it has tested that many leaves (its work, whatever a box costs), returning ``[-1]``
    and the boxes left, from which a next call resumes."""
    n1 = slo.shape[1]
    n = n1 - 1
    n_trees = starts.size
    if sfirst.shape[1] != n_trees:  # -1: the box's leaves are still to be found
        sfirst = np.full((slo.shape[0], n_trees), -1, dtype=np.int64)
    first = np.empty(n_trees, dtype=np.int64)
    first_a = np.empty(n_trees, dtype=np.int64)
    first_b = np.empty(n_trees, dtype=np.int64)
    nxt = np.empty((n_trees, cf.shape[1]), dtype=np.int64)  # see _split_feature
    none = np.empty(0, dtype=np.int64)
    work = 0
    L = np.empty(n1, dtype=np.int64)
    H = np.empty(n1, dtype=np.int64)
    while top > 0:
        if limit >= 0 and work > limit:
            return np.full(1, -1, dtype=np.int64), slo, shi, sfirst, top
        top -= 1
        lo = slo[top].copy()
        hi = shi[top].copy()
        if n_trees == 0 or sfirst[top, 0] < 0:  # a first box
            b, w = _best_leaves(cf, clo, chi, val, starts, lo, hi, first)
            work += w
            if b + offset > tol:  # (children are pushed within the bound)
                continue
        else:  # its leaves, found when its parent was split
            first[:] = sfirst[top]
            b = 0.0
            for t in range(n_trees):
                b += val[first[t]]
        L[:] = lo
        H[:] = hi
        for t in range(n_trees):
            leaf = first[t]
            for d in range(cf.shape[1]):
                f = cf[leaf, d]
                L[f] = max(L[f], clo[leaf, d])
                H[f] = min(H[f], chi[leaf, d])
        c, w = _split_feature(cf, clo, chi, val, starts, lo, hi, L, H, first,
                              tol - offset - b, nxt)
        work += w
        separates = c >= 0
        if separates:  # one chosen leaf needs x_c below s, another at or above it
            s = H[c]
        elif _changes(first, jv, base, divisor, cut, inclusive):  # compatible: a counterexample
            point = np.empty(n, dtype=np.int64)
            for f in range(n):
                point[f] = v[f] if L[f] <= v[f] < H[f] else L[f]
            return point, slo, shi, sfirst, top
        else:  # a float32 near-tie that keeps the class: cut the box down to the pick
            for f in range(n):
                if L[f] > lo[f] or H[f] < hi[f]:
                    c = f
                    break
            if c < 0:
                continue  # every point of the box takes this pick
            s = L[c] if L[c] > lo[c] else H[c]
        bound_a, bound_b, w = _children(cf, clo, chi, val, starts, lo, hi, c, s, first,
                                        first_a, first_b, nxt, separates)
        work += w
        hi_a = hi.copy()
        hi_a[c] = s
        lo_b = lo.copy()
        lo_b[c] = s
        keep_a = bound_a + offset <= tol
        keep_b = bound_b + offset <= tol
        if top + 2 > slo.shape[0]:
            cap = 2 * slo.shape[0] + 2
            slo2 = np.empty((cap, n1), dtype=np.int64)
            shi2 = np.empty((cap, n1), dtype=np.int64)
            sfirst2 = np.empty((cap, n_trees), dtype=np.int64)
            slo2[:top] = slo[:top]
            shi2[:top] = shi[:top]
            sfirst2[:top] = sfirst[:top]
            slo, shi, sfirst = slo2, shi2, sfirst2
        # push the worse child first so that the better one (lower bound) is explored first
        order = (0, 1) if bound_a >= bound_b else (1, 0)
        for side in order:
            if side == 0 and keep_a:
                slo[top] = lo
                shi[top] = hi_a
                sfirst[top] = first_a
                top += 1
            elif side == 1 and keep_b:
                slo[top] = lo_b
                shi[top] = hi
                sfirst[top] = first_b
                top += 1
    return none, slo, shi, sfirst, 0


@njit(cache=True)
def delete(fixed, todo, col, v, size, cf, clo, chi, val, starts, offset, cut, inclusive, tol,
           jv, base, divisor, limit):  # pragma: no cover - compiled
    """Deletion from the box that fixes ``fixed`` (as :func:`ask`): each feature of ``todo``
    in turn is freed, and fixed again if :func:`search` finds a counterexample. Each search
    stops at ``limit`` leaves tested; deletion stops there, the feature still fixed. Returns
    (per feature of ``todo``: freed or not, the features decided, the searches run)."""
    lo, hi = _box(fixed, col, v, size)
    freed = np.zeros(todo.size, dtype=np.bool_)
    none = np.empty((1, 0), dtype=np.int64)
    for k in range(todo.size):
        c = col[todo[k]]
        if c >= 0:
            lo[0, c] = 0
            hi[0, c] = size[c]
        point = search(cf, clo, chi, val, starts, offset, cut, inclusive, lo.copy(), hi.copy(),
                       none, 1, v, tol, jv, base, divisor, limit)[0]
        if point.size == 0:
            freed[k] = True
            continue
        if c >= 0:  # a counterexample, or undecided within the limit: fixed again
            lo[0, c] = v[c]
            hi[0, c] = v[c] + 1
        if point.size == 1 and point[0] < 0:
            return freed, k, k + 1
    return freed, todo.size, todo.size


@njit(cache=True)
def shrink(free, order, v, size, cf, clo, chi, val, starts, offset, cut, inclusive, tol, jv,
           base, divisor, limit):  # pragma: no cover - compiled
    """CXp extraction from the weak CXp ``free`` (per column: free or fixed to ``v``), as
    ``find_cxp`` does it with an oracle whose points depend on the question alone: each
    column of ``order`` (-1: a feature no tree splits on) still free in turn is fixed; if
    :func:`search` finds a counterexample, the columns it leaves at ``v`` are fixed too,
    else the column is freed again. Each search stops at ``limit`` leaves tested; the
    extraction stops there, the column still free. Returns (``free`` after the decided
    columns, the columns of ``order`` decided, the searches run)."""
    n = v.size
    lo = np.zeros((1, n + 1), dtype=np.int64)
    hi = np.empty((1, n + 1), dtype=np.int64)
    hi[0, :] = size
    for c in range(n):
        if not free[c]:
            lo[0, c] = v[c]
            hi[0, c] = v[c] + 1
    none = np.empty((1, 0), dtype=np.int64)
    asked = 0
    for k in range(order.size):
        c = order[k]
        if c < 0 or not free[c]:  # (a feature no tree splits on is never free here)
            continue
        lo[0, c] = v[c]
        hi[0, c] = v[c] + 1
        point = search(cf, clo, chi, val, starts, offset, cut, inclusive, lo.copy(), hi.copy(),
                       none, 1, v, tol, jv, base, divisor, limit)[0]
        asked += 1
        if point.size == 0 or point.size == 1 and point[0] < 0:
            lo[0, c] = 0  # entailed with c fixed, or undecided: c is free again
            hi[0, c] = size[c]
            if point.size:
                return free, k, asked
            continue
        for d in range(n):  # the counterexample: what it leaves at v is fixed
            if free[d] and point[d] == v[d]:
                free[d] = False
                lo[0, d] = v[d]
                hi[0, d] = v[d] + 1
    return free, order.size, asked
