"""Explanations found so far, to answer an extraction's questions without the oracle.

Entailment is monotone. Shrinking a weak AXp S, the question "does S without i still
entail?" is answered no, and i stays, when a known CXp meets S in i alone (S without i lies
outside that CXp, whose freeing changes the prediction). Shrinking a weak CXp Y, "does
fixing everything but Y, and i, entail?" is answered yes, and i stays, when a known AXp
meets Y in i alone. The answers are the oracle's own, so the extracted sets are the same;
MARCO (:class:`fxai.explain.marco.Marco`) keeps its AXps and CXps here. The scan is
compiled (:mod:`fxai.explain.known_search`, imported on the first question).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import numpy as np


class Known:
    """AXps and CXps of one instance, as bit masks, indexed by the features they hold; a
    set of features is given as a Python int, bit f for feature f (:meth:`bits`).

    Examples
    --------
    >>> k = Known(4)
    >>> k.add("cxp", [0, 3])
    >>> k.meets_alone("cxp", k.bits([0, 1, 2]), 0), k.meets_alone("cxp", k.bits([0, 1, 3]), 0)
    (True, False)
    """

    def __init__(self, n_features: int):
        self.n_words = max(1, (n_features + 63) // 64)
        self._masks = {k: np.zeros((16, self.n_words), np.uint64) for k in ("axp", "cxp")}
        self._size = {"axp": 0, "cxp": 0}
        # per kind and feature: the rows of the sets holding it (first _held[k][f] entries)
        self._rows = {k: [np.zeros(4, np.int64) for _ in range(n_features)]
                      for k in ("axp", "cxp")}
        self._held = {k: [0] * n_features for k in ("axp", "cxp")}

    @staticmethod
    def bits(features: Iterable[int]) -> int:
        """The set ``features`` as an int: bit f for feature f."""
        return sum(1 << int(f) for f in set(features))

    def add(self, kind: str, xp: Iterable[int]) -> None:
        """Record an AXp (``kind="axp"``) or a CXp (``"cxp"``)."""
        xp = list(xp)
        row, masks = self._size[kind], self._masks[kind]
        if row == len(masks):
            masks = self._masks[kind] = np.concatenate([masks, np.zeros_like(masks)])
        masks[row] = self._words(self.bits(xp))
        self._size[kind] = row + 1
        rows, held = self._rows[kind], self._held[kind]
        for f in xp:
            if held[f] == len(rows[f]):
                rows[f] = np.concatenate([rows[f], np.zeros_like(rows[f])])
            rows[f][held[f]] = row
            held[f] += 1

    def meets_alone(self, kind: str, current: int, i: int) -> bool:
        """Whether a recorded set of ``kind`` holds feature ``i`` and no other feature of
        ``current`` (an int of :meth:`bits`)."""
        held = self._held[kind][i]
        if not held:
            return False
        others = self._words(current & ~(1 << i))
        return _alone()(self._masks[kind], self._rows[kind][i][:held], others)

    def _words(self, bits: int) -> np.ndarray:
        return np.frombuffer(bits.to_bytes(8 * self.n_words, "little"), dtype=np.uint64)


@functools.cache
def _alone():
    """The compiled scan (:func:`fxai.explain.known_search.alone`), imported on first use."""
    from fxai.explain.known_search import alone

    return alone


def warm_up() -> None:
    """Load the compiled scan (numba: from its on-disk cache, or compiled on the first use
    after installation) before any clock starts (the fork server's jobs inherit it)."""
    k = Known(1)
    k.add("cxp", [0])
    k.meets_alone("cxp", 1, 0)
