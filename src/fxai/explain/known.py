"""Explanations found so far, to answer an extraction's questions without the oracle.

Entailment is monotone. Shrinking a weak AXp S, the question "does S without i still
entail?" is answered no, and i stays, when a known CXp meets S in i alone (S without i lies
outside that CXp, whose freeing changes the prediction). Shrinking a weak CXp Y, "does
fixing everything but Y, and i, entail?" is answered yes, and i stays, when a known AXp
meets Y in i alone. The answers are the oracle's own, so the extracted sets are the same;
MARCO (:class:`fxai.explain.marco.Marco`) keeps its AXps and CXps here. The scan is
compiled (:mod:`fxai.explain.known_search`, imported on the first question).

A scan grows with the sets known, and a fast oracle answers sooner than a long scan: on a
PneumoniaMNIST instance of the FFA paper, after 100k AXps a scan took 73 µs and answered 43 %
of the questions, where the boosted-tree oracle answers one in about 35 µs. So with
``adaptive=True`` (MARCO's) an extraction scans only while scans pay (:class:`Scans`): their
hits times the oracle's time per question a hit answers above their time, as measured over
the recent extractions (all of the first ``WARMUP`` scans, and a sample of the extractions
whatever the record: the ``SAMPLE``-th, then at gaps that double while the scans do not pay,
up to ``MAX_GAP``; on a Sarcasm instance of 131 words, after 28k AXps a scan took 1.8 ms, so
sampling every 32nd extraction cost 16 % of MARCO-A's time). Not scanning only asks the
oracle, whose answer is the scan's, so the sets found stay the same.
"""

from __future__ import annotations

import functools
import time
from array import array
from collections.abc import Iterable

import numpy as np

WARMUP = 64  # scans of a kind before its record decides
SAMPLE = 32  # the SAMPLE-th extraction scans whatever the record, then at doubling gaps
MAX_GAP = 1024  # ... up to this one, while the scans do not pay
WINDOW = 4096  # scans of a kind in the record; older ones weigh half at each overflow


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

    def __init__(self, n_features: int, adaptive: bool = False):
        self.adaptive = adaptive
        # per kind of set scanned: [scans, hits, their seconds, questions a hit answers,
        # their seconds] over the recent extractions, and the extractions decided
        self._record = {"axp": [0, 0, 0.0, 0, 0.0], "cxp": [0, 0, 0.0, 0, 0.0]}
        self._decided = {"axp": 0, "cxp": 0}  # extractions since the last sample
        self._gap = {"axp": SAMPLE, "cxp": SAMPLE}
        self.n_words = max(1, (n_features + 63) // 64)
        self._masks = {k: np.zeros((16, self.n_words), np.uint64) for k in ("axp", "cxp")}
        self._size = {"axp": 0, "cxp": 0}
        # per kind and feature: the rows of the sets holding it (C arrays: an append is
        # cheap, and a scan reads one without a copy)
        self._rows = {k: [array("q") for _ in range(n_features)] for k in ("axp", "cxp")}
        # the sets added since the last scan of their kind, indexed on that scan (an
        # extraction that asks a compiled oracle may never scan)
        self._pending: dict[str, list[list[int]]] = {"axp": [], "cxp": []}

    @staticmethod
    def bits(features: Iterable[int]) -> int:
        """The set ``features`` as an int: bit f for feature f."""
        return sum(1 << int(f) for f in set(features))

    def add(self, kind: str, xp: Iterable[int]) -> None:
        """Record an AXp (``kind="axp"``) or a CXp (``"cxp"``)."""
        self._pending[kind].append(list(xp))

    def _index(self, kind: str) -> None:
        """Index the sets of ``kind`` added since the last scan."""
        masks, rows = self._masks[kind], self._rows[kind]
        for xp in self._pending[kind]:
            row = self._size[kind]
            if row == len(masks):
                masks = self._masks[kind] = np.concatenate([masks, np.zeros_like(masks)])
            masks[row] = self._words(self.bits(xp))
            self._size[kind] = row + 1
            for f in xp:
                rows[f].append(row)
        self._pending[kind] = []

    def meets_alone(self, kind: str, current: int, i: int) -> bool:
        """Whether a recorded set of ``kind`` holds feature ``i`` and no other feature of
        ``current`` (an int of :meth:`bits`)."""
        if self._pending[kind]:
            self._index(kind)
        rows = self._rows[kind][i]
        if not rows:
            return False
        others = self._words(current & ~(1 << i))
        return _alone()(self._masks[kind], np.frombuffer(rows, dtype=np.int64), others)

    def _words(self, bits: int) -> np.ndarray:
        return np.frombuffer(bits.to_bytes(8 * self.n_words, "little"), dtype=np.uint64)

    def worth_scanning(self, kind: str) -> bool:
        """Whether an extraction should scan the sets of ``kind`` (always unless
        ``adaptive``; see the module docstring)."""
        scans, hits, scan_s, calls, call_s = self._record[kind]
        if not self.adaptive or scans < WARMUP or calls == 0:
            return True
        if hits * call_s / calls > scan_s:
            self._gap[kind] = SAMPLE
            return True
        self._decided[kind] += 1
        if self._decided[kind] < self._gap[kind]:
            return False
        self._decided[kind] = 0
        self._gap[kind] = min(2 * self._gap[kind], MAX_GAP)
        return True

    def record(self, kind: str, counts: list) -> None:
        """Add an extraction's ``[scans, hits, their seconds, questions a hit answers, their
        seconds]`` of ``kind`` to the record."""
        rec = self._record[kind]
        for k, v in enumerate(counts):
            rec[k] += v
        if rec[0] > WINDOW:
            rec[:] = [v / 2 for v in rec]


class Scans:
    """One extraction's scans of the sets of ``kind`` of ``known`` (None: no scans), timed,
    with the oracle questions a hit would have answered; :meth:`close` records them."""

    def __init__(self, known: Known | None, kind: str):
        self.known, self.kind = known, kind
        self.on = known is not None and known.worth_scanning(kind)
        self.counts = [0, 0, 0.0, 0, 0.0]

    def meets_alone(self, current: int, i: int) -> bool:
        """:meth:`Known.meets_alone` if this extraction scans, else False."""
        if not self.on:
            return False
        t = time.perf_counter()
        found = self.known.meets_alone(self.kind, current, i)
        c = self.counts
        c[0], c[1], c[2] = c[0] + 1, c[1] + found, c[2] + time.perf_counter() - t
        return found

    def asked(self, seconds: float) -> None:
        """An oracle question answered as a hit would have, in ``seconds``."""
        self.counts[3] += 1
        self.counts[4] += seconds

    def close(self) -> None:
        """Add the counts to the record of ``known``."""
        if self.known is not None:
            self.known.record(self.kind, self.counts)


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
