"""Exact entailment oracle for XGBoost boosted trees: branch and bound over threshold intervals.

Question: with the features in S fixed to ``v`` and the others free, can the prediction
change? Each used feature's float32 thresholds t_1 < ... < t_k cut its line into k+1
intervals; a point is, for the ensemble, a choice of one interval per feature. Let
``obj = margin`` if the prediction is 1 and ``-margin`` otherwise: a counterexample is a
point with ``obj <= 0`` (``ties="change"``, the reference code's rule score(c') >= score(c))
or ``obj < 0`` (``ties="keep"``: a tie keeps the prediction).

Search (depth first, best child first). A node is a box: per feature a range of intervals.
Per tree the best (lowest-obj) leaf reachable in the box is found with the leaves pre-sorted
by value (one vectorised pass over all leaves' path conditions); the sum of these per-tree
optima bounds obj from below. The box is pruned when the bound shows no counterexample.
If the chosen leaves' boxes intersect, that intersection holds a point attaining the
bound: a counterexample. Otherwise some feature separates two chosen leaves; the box is
split there, which removes one of them from each child, so the search terminates.

Incremental use across the thousands of calls of one enumeration: the compiled leaf arrays
are built once per oracle, every counterexample found is kept (a new query whose fixed
features agree with a kept point is answered without search) and so is every fixed set
proved to entail (any superset entails too).

Why branch and bound (measured with ``python -m benchmarks.boosted``, see its output): the
MILP of :mod:`fxai.verify.boosted` (HiGHS) pays a model build and solve per call and
answers a few hundred calls per second at best, while this search answers most MARCO calls
from the caches or in a handful of nodes of ~50 microseconds each.

Optional ``domains`` (per feature a list of values, or None for the real line) restrict free
features to the intervals that contain a domain value, and counterexample points then take
domain values. Without domains, a free feature ranges over the reals, as in the authors'
encoding. Only features used in some split are candidate features (``features``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from fxai.models.boosted import TIES, Ensemble, from_booster
from fxai.oracles.base import Oracle
from fxai.oracles.registry import register

_POOL = 512  # counterexample points and entailing sets remembered per oracle


def _paths(tree) -> list[tuple[float, list[tuple[int, float, bool]]]]:
    """(leaf value, [(feature, threshold, goes_left)]) for each root-to-leaf path."""
    out, stack = [], [(0, [])]
    while stack:
        node, conds = stack.pop()
        if tree.is_leaf(node):
            out.append((float(tree.value[node]), conds))
            continue
        f, t = int(tree.feature[node]), float(tree.threshold[node])
        stack.append((int(tree.right[node]), conds + [(f, t, False)]))
        stack.append((int(tree.left[node]), conds + [(f, t, True)]))
    return out


class BoostedOracle(Oracle):
    """Exact oracle for a binary XGBoost model at instance ``x``."""

    def __init__(self, model, x, ties: str = "change", domains: Sequence | None = None):
        ens = model if isinstance(model, Ensemble) else from_booster(model)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
        x = list(x)
        if len(x) != ens.n_features:
            raise ValueError(f"instance has {len(x)} values, the model {ens.n_features} features")
        if domains is not None and len(domains) != ens.n_features:
            raise ValueError(f"domains has {len(domains)} entries, expected {ens.n_features}")
        self.ensemble, self.ties, self.instance = ens, ties, x
        self.n_features = ens.n_features
        m = float(ens.margin([x])[0])
        if m == 0 and ties == "change":
            raise ValueError("the instance has margin exactly 0 (tied scores); use ties='keep'")
        self.prediction = int(m > 0)
        self.margin = m
        self._sign = 1.0 if self.prediction == 1 else -1.0
        self._used = ens.used_features
        self._compile(domains)

    @property
    def features(self) -> list[int]:
        return list(self._used)

    # ---- compilation -------------------------------------------------------------------
    def _compile(self, domains) -> None:
        ens, x = self.ensemble, np.asarray(self.instance, dtype=np.float32)
        col = {f: k for k, f in enumerate(self._used)}
        thr: dict[int, set[float]] = {f: set() for f in self._used}
        paths = [_paths(t) for t in ens.trees]
        for tp in paths:
            for _, conds in tp:
                for f, t, _ in conds:
                    thr[f].add(t)
        self._thr = [np.array(sorted(thr[f]), dtype=np.float32) for f in self._used]
        # allowed original intervals per feature (index k = number of thresholds <= value)
        self._vint = np.array(
            [int(np.searchsorted(self._thr[c], x[f], side="right")) for f, c in col.items()],
            dtype=np.int64,
        )
        allowed, reps = [], []
        for f, c in col.items():
            T = self._thr[c]
            if domains is None or domains[f] is None:
                ks = np.arange(len(T) + 1)
                rep = [float(T[0]) - 1.0] + [float(t) for t in T]
            else:
                vals = sorted(set(float(v) for v in domains[f]))
                kv = np.searchsorted(T, np.asarray(vals, dtype=np.float32), side="right")
                ks_set: dict[int, float] = {}
                for k, val in zip(kv.tolist(), vals, strict=True):
                    ks_set.setdefault(k, val)
                ks = np.array(sorted(set(ks_set) | {int(self._vint[c])}))
                rep_map = {**ks_set}
                rep = [rep_map.get(k, float(x[f])) for k in range(len(T) + 1)]
            allowed.append(ks)
            reps.append(rep)
        self._allowed = allowed
        self._reps = reps
        # instance interval in compressed coordinates
        self._v = np.array(
            [int(np.searchsorted(a, k)) for a, k in zip(allowed, self._vint, strict=True)],
            dtype=np.int64,
        )
        self._size = np.array([len(a) for a in allowed] + [1], dtype=np.int64)
        n = len(self._used)  # index n is a dummy feature with a single interval
        depth = max((len(c) for tp in paths for _, c in tp), default=0) or 1
        rows_f, rows_lo, rows_hi, vals, starts = [], [], [], [], []
        for tp in paths:
            leaves = []
            for value, conds in tp:
                box: dict[int, list[int]] = {}
                for f, t, goes_left in conds:
                    c = col[f]
                    j = int(np.searchsorted(self._thr[c], np.float32(t)))  # index of t
                    lo, hi = box.get(c, [0, len(self._thr[c]) + 1])
                    # x < t  <=>  original interval k <= j
                    box[c] = [lo, min(hi, j + 1)] if goes_left else [max(lo, j + 1), hi]
                cbox = {}
                for c, (lo, hi) in box.items():
                    a = self._allowed[c]
                    cbox[c] = (int(np.searchsorted(a, lo)), int(np.searchsorted(a, hi)))
                if any(lo >= hi for lo, hi in cbox.values()):
                    continue  # no allowed point reaches this leaf
                leaves.append((self._sign * value, cbox))
            leaves.sort(key=lambda lv: lv[0])
            starts.append(len(vals))
            for value, cbox in leaves:
                items = list(cbox.items()) + [(n, (0, 1))] * (depth - len(cbox))
                rows_f.append([c for c, _ in items])
                rows_lo.append([lo for _, (lo, _) in items])
                rows_hi.append([hi for _, (_, hi) in items])
                vals.append(value)
        self._cf = np.array(rows_f, dtype=np.int64).reshape(-1, depth)
        self._clo = np.array(rows_lo, dtype=np.int64).reshape(-1, depth)
        self._chi = np.array(rows_hi, dtype=np.int64).reshape(-1, depth)
        self._val = np.array(vals, dtype=np.float64)
        self._starts = np.array(starts, dtype=np.int64)
        self._offset = self._sign * ens.base_margin
        self._pos = np.arange(len(vals))
        self._col = np.full(self.n_features, -1, dtype=np.int64)
        self._col[self._used] = np.arange(n)
        vext = np.r_[self._v, 0]
        self._cons = (self._clo <= vext[self._cf]) & (vext[self._cf] < self._chi)
        self._by_feature = []  # per feature: leaves conditioned on it and their range on it
        for c in range(n):
            rows, d = np.nonzero(self._cf == c)
            self._by_feature.append((rows, self._clo[rows, d], self._chi[rows, d]))
        self._cex = np.empty((0, n), dtype=np.int64)
        self._cex_diff = np.empty((0, n), dtype=np.float32)  # 1 where a point differs from v
        self._proved = np.empty((0, n), dtype=np.float32)  # 1 on the fixed features

    # ---- queries -----------------------------------------------------------------------
    def entails(self, fixed: Iterable[int]) -> bool:
        return self.counterexample(fixed) is None

    def counterexample(self, fixed: Iterable[int]) -> list | None:
        self.calls += 1
        mask = self._fixed_mask(fixed)
        m32 = mask.astype(np.float32)
        if len(self._cex):  # a kept counterexample agreeing with v on the fixed features
            hit = np.flatnonzero(self._cex_diff @ m32 == 0)
            if hit.size:
                return self._point(self._cex[hit[-1]])
        if len(self._proved) and np.any(self._proved @ (1 - m32) == 0):
            return None  # a proved entailing set is inside the fixed set
        point = self._search(mask)
        if point is None:
            self._proved = np.vstack([self._proved, m32])[-_POOL:]
            return None
        self._cex = np.vstack([self._cex, point])[-_POOL:]
        diff = (point != self._v).astype(np.float32)
        self._cex_diff = np.vstack([self._cex_diff, diff])[-_POOL:]
        return self._point(point)

    def _fixed_mask(self, fixed: Iterable[int]) -> np.ndarray:
        mask = np.zeros(len(self._used), dtype=bool)
        idx = self._col[np.fromiter(fixed, dtype=np.int64)]
        mask[idx[idx >= 0]] = True
        return mask

    def _point(self, ints: np.ndarray) -> list:
        """A full point (original feature space) from compressed intervals of used features."""
        p = list(self.instance)
        for k in np.flatnonzero(ints != self._v):
            p[self._used[k]] = self._reps[k][int(self._allowed[k][ints[k]])]
        return p

    def _bound(self, reach: np.ndarray) -> tuple[float, np.ndarray]:
        """Lower bound of obj over the reachable leaves, and each tree's best such leaf."""
        first = np.minimum.reduceat(np.where(reach, self._pos, len(self._pos)), self._starts)
        return float(self._val[first].sum()) + self._offset, first

    def _pruned(self, bound: float) -> bool:
        return bound > 0 if self.ties == "change" else bound >= 0

    def _split(self, reach: np.ndarray, c: int, s: int, side: int) -> np.ndarray:
        """Reachable leaves once feature c is restricted below (side 0) or from (1) s."""
        rows, flo, fhi = self._by_feature[c]
        out = reach.copy()
        out[rows] &= (flo < s) if side == 0 else (fhi > s)
        return out

    def _search(self, mask: np.ndarray) -> np.ndarray | None:
        """Depth-first branch and bound; a counterexample (compressed intervals) or None."""
        n = len(self._used)
        lo = np.zeros(n + 1, dtype=np.int64)
        hi = self._size.copy()
        lo[:n][mask] = self._v[mask]
        hi[:n][mask] = self._v[mask] + 1
        reach = (self._cons | ~np.r_[mask, True][self._cf]).all(axis=1)
        bound, first = self._bound(reach)
        stack = [] if self._pruned(bound) else [(lo, hi, reach, first)]
        while stack:
            lo, hi, reach, first = stack.pop()
            L, H = lo.copy(), hi.copy()
            cf = self._cf[first].ravel()
            np.maximum.at(L, cf, self._clo[first].ravel())
            np.minimum.at(H, cf, self._chi[first].ravel())
            conflict = np.flatnonzero(L[:n] >= H[:n])
            if conflict.size == 0:  # the best leaves are compatible: a counterexample
                v = self._v
                inside = (L[:n] <= v) & (v < H[:n])
                return np.where(inside, v, L[:n])
            c = int(conflict[0])
            s = int(H[c])
            children = []
            for side in (0, 1):
                r = self._split(reach, c, s, side)
                b, f = self._bound(r)
                if not self._pruned(b):
                    clo, chi = lo.copy(), hi.copy()
                    if side == 0:
                        chi[c] = s
                    else:
                        clo[c] = s
                    children.append((b, clo, chi, r, f))
            children.sort(key=lambda ch: -ch[0])  # best (lowest bound) popped first
            stack.extend(ch[1:] for ch in children)
        return None


def _is_xgboost(model) -> bool:
    try:
        import xgboost as xgb
    except ModuleNotFoundError:
        return False
    return isinstance(model, xgb.Booster | xgb.XGBClassifier)


register(lambda m: isinstance(m, Ensemble) or _is_xgboost(m), BoostedOracle)
