"""Single-removal questions that other explanations' checked answers already settle.

Entailment is monotone: if fixing S to x forces the class, so does fixing any superset of
S; if fixing U does not, neither does fixing any subset of U. So an AXp S without its
feature i is not sufficient when a CXp C whose freeing was checked to change the class
(fixing the other features does not force it) meets S in i alone (S - {i} lies in the
features outside C); and a CXp C without i is not a weak CXp (fixing the features outside
C, and i, forces the class) when an AXp S checked to be sufficient meets C in i alone.
In a complete enumeration each feature i of a minimal set E has such a set of the other
kind (hitting-set duality), so the checker asks one question per explanation instead of
1 + |E|. Only the checker's own answers are used, never the producer's claims.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numba import njit


def removals(axps: Sequence[Sequence[int]], cxps: Sequence[Sequence[int]],
             axp_forced: Sequence[bool | None], cxp_forced: Sequence[bool | None],
             n_features: int) -> np.ndarray:
    """Which single removals are settled, flat over each AXp's features in order, then each
    CXp's, from the checked answers to the explanations' own questions: ``axp_forced``
    (does fixing the AXp force the class?) and ``cxp_forced`` (does fixing every feature
    but the CXp?); True, False or None (undecided: settles nothing). A settled removal of
    an AXp is not forced, of a CXp forced.

    Examples
    --------
    >>> removals([[0, 1]], [[0], [1]], [True], [False, None], 2).tolist()
    [True, False, True, True]
    """
    sure_c = [c for c, f in zip(cxps, cxp_forced, strict=True) if f is False]
    sure_a = [a for a, f in zip(axps, axp_forced, strict=True) if f is True]
    return np.r_[settled(axps, sure_c, n_features), settled(cxps, sure_a, n_features)]


def settled(mine: Sequence[Sequence[int]], others: Sequence[Sequence[int]],
            n_features: int) -> np.ndarray:
    """For each explanation E of ``mine`` and each feature i of E, in that order (flat):
    whether a set of ``others`` meets E in i alone.

    Examples
    --------
    >>> settled([[0, 1], [2]], [[0, 1], [1, 2]], 3).tolist()
    [False, True, True]
    """
    ptr, feat = _flat(mine)
    out = np.zeros(len(feat), dtype=np.bool_)
    if not len(feat) or not others:
        return out
    o_ptr, o_feat = _flat(others)
    # the features that occur, numbered 0..n-1: masks of their width (Sarcasm's whole
    # vocabulary has 22,600 features, 354 words a mask; its explanations use 131)
    occur = np.unique(np.r_[feat, o_feat])
    feat, o_feat, n_features = np.searchsorted(occur, feat), np.searchsorted(occur, o_feat), \
        len(occur)
    # others by feature: by_feat[by_ptr[f]:by_ptr[f + 1]] are the others holding f
    owner = np.repeat(np.arange(len(others)), np.diff(o_ptr))
    order = np.argsort(o_feat, kind="stable")
    by_ptr = np.searchsorted(o_feat[order], np.arange(n_features + 1)).astype(np.int64)
    _meets_alone(ptr, feat, _masks(ptr, feat, n_features), _masks(o_ptr, o_feat, n_features),
                 by_ptr, owner[order].astype(np.int64), out)
    return out


def _flat(sets: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(start of each set and the end, every set's features one after another)."""
    ptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=ptr[1:])
    feat = np.fromiter(itertools.chain.from_iterable(sets), np.int64, int(ptr[-1]))
    return ptr, feat


def _masks(ptr: np.ndarray, feat: np.ndarray, n_features: int) -> np.ndarray:
    """One row of 64-bit words per set, bit f of the row set for each feature f."""
    masks = np.zeros((len(ptr) - 1, (n_features + 63) // 64), dtype=np.uint64)
    rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    np.bitwise_or.at(masks, (rows, feat >> 6),
                     np.left_shift(np.uint64(1), (feat & 63).astype(np.uint64)))
    return masks


@njit(cache=True)
def _meets_alone(ptr, feat, mask, o_mask, by_ptr, by_feat, out):  # pragma: no cover - compiled
    """out[j] for feature feat[j] of set e: some other set holding it shares no other
    feature with e (the first one found ends the scan)."""
    for e in range(ptr.size - 1):
        for j in range(ptr[e], ptr[e + 1]):
            i = feat[j]
            word, bit = i >> 6, np.uint64(1) << np.uint64(i & 63)
            for k in range(by_ptr[i], by_ptr[i + 1]):
                o = by_feat[k]
                alone = True
                for w in range(mask.shape[1]):
                    common = mask[e, w] & o_mask[o, w]
                    if w == word:
                        common &= ~bit
                    if common != 0:
                        alone = False
                        break
                if alone:
                    out[j] = True
                    break
