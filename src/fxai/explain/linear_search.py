"""The compiled depth-first search of :mod:`fxai.explain.linear` (numba): a module of its
own so that numba loads on the first enumeration, not when :mod:`fxai.explain` is imported."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def passes(s, theta, inclusive, band):  # pragma: no cover - compiled
    """1 if the sum ``s`` passes ``theta``, 0 if not, -1 within ``band`` of it."""
    if abs(s - theta) <= band:
        return -1
    return 1 if (s >= theta if inclusive else s > theta) else 0


@njit(cache=True)
def search(w, order, suffix, theta, inclusive, band, buf, idx, sums, nxt,
            meta):  # pragma: no cover - compiled
    """Resume the depth-first search until ``buf`` (``BLOCK`` + room for one set) is full
    or the search ends (meta[0] = -1); each set is written as its size, a flag (1: the
    oracle must check it), then its features (sorted). Returns the entries written."""
    n = w.size
    d, taint = meta[0], meta[1]
    used = 0
    limit = buf.size - n - 2
    while d >= 0 and used <= limit:
        j = nxt[d]
        if j >= n:
            if taint >= d:  # the undecided node (if any) is the one left
                taint = n + 5
            d -= 1
            if d >= 0:
                nxt[d] += 1
            continue
        if passes(sums[d] + suffix[j], theta, inclusive, band) == 0:
            nxt[d] = n  # not even with every later feature: nor for any later j
            continue
        s = sums[d] + w[j]
        p = passes(s, theta, inclusive, band)
        if p != 0:  # passes (or may): a set, minimal by the order unless undecided
            flagged = 1 if (p < 0 or taint <= d) else 0
            buf[used] = d + 1
            buf[used + 1] = flagged
            for a in range(d):
                buf[used + 2 + a] = order[idx[a]]
            buf[used + 2 + d] = order[j]
            seg = buf[used + 2:used + 3 + d]
            seg.sort()
            used += 3 + d
        if p == 1:
            nxt[d] = j + 1
            continue
        idx[d] = j  # does not pass (or may not): search on below it
        sums[d + 1] = s
        if p < 0 and taint > d + 1:
            taint = d + 1
        d += 1
        nxt[d] = j + 1
    meta[0] = d
    meta[1] = taint
    return used
