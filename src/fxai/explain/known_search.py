"""The compiled part of :mod:`fxai.explain.known` (numba, loaded on its first question)."""

from numba import njit


@njit(cache=True)
def alone(masks, rows, others):  # pragma: no cover - compiled
    """Whether one of ``masks[rows]`` shares no bit with ``others`` (one row of words)."""
    for r in rows:
        shared = False
        for w in range(others.size):
            if masks[r, w] & others[w]:
                shared = True
                break
        if not shared:
            return True
    return False
