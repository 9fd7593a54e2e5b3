"""Exact entailment oracle for XGBoost boosted trees: branch and bound over threshold intervals.

Question: with the features in S fixed to ``v`` and the others free, can the prediction
change? The prediction is ``XGBClassifier.predict``'s (float32 probability > 0.5; see
:mod:`fxai.models.boosted`). Each used feature's float32 thresholds t_1 < ... < t_k cut its
line into k+1 intervals; a point is, for the ensemble, a choice of one interval per feature.
Let ``obj = margin`` if the prediction is 1 and ``-margin`` otherwise: a counterexample is a
point with ``obj`` below the cut of :func:`fxai.models.boosted.change_rule` (a margin in the
tie band, probability exactly 0.5, is class 0; with ``ties="change"``, the reference code's
rule score(c') >= score(c), it changes either class). Instances with missing values (NaN)
are rejected.

Search (depth first, better child first; compiled with numba). A node is a box: per
feature a range of intervals. Per tree the best (lowest-obj) leaf reachable in the box is the
first reachable one in the tree's leaves pre-sorted by value; the sum of these per-tree optima
bounds obj from below, and the box is pruned when the bound shows no counterexample. If the
chosen leaves' boxes intersect, their common point attains the bound: a counterexample.
Otherwise some feature separates two chosen leaves; the box is split there, which removes
one of them from each child, so the search terminates. Of the separating features the split
takes the one whose two children raise the sum of their bounds most; a child's bound moves
only in the trees whose chosen leaf it excludes, so each candidate costs a search on from
those leaves alone. It closes proofs in far fewer boxes than splitting on the first
separating feature (LightGBM's default breast_cancer model, first 20 test rows: the slowest
AXp from 16.9 s to 0.2 s; ``python -m benchmarks.gradient_boosting``). A box keeps its
chosen leaves on the stack, found when its parent was split (the two differ in one
feature: a child keeps the parent's leaf in every tree whose leaf it still meets, and
searches on from it in the others), so a box costs leaf scans only in the trees its split
moves, not a scan of every tree (docs/benchmarks.md, "The branch and bound keeps each
box's leaves").

Float32: XGBoost adds the intercept and the leaves in float32, in tree order, and a float64
sum can differ from its margin by ~1e-6, enough to flip the class of a point within that
distance of a tie (seen: an "AXp" of a PneumoniaMNIST instance admitted a point of XGBoost
margin -1.5e-8 whose float64 sum was +7.2e-8). So boxes are pruned only when their float64
bound exceeds a rigorous bound on that rounding, compatible leaves are judged by the float32
sum, and a near-tie pick that keeps the class is cut off from the rest of its box, which is
searched on: the answers are XGBoost's own.

Incremental use: the leaves' path boxes are built once per model (per class, kept while the
ensemble lives; with ``domains`` once per oracle), the instance's intervals once per oracle,
the machine code once per installation (numba's on-disk cache); a call only builds the root
box from the fixed features and searches.

Choice by measurement: ``python -m benchmarks.boosted`` replays the queries MARCO-A/-C
really ask and prints calls per second (process CPU time) for this search and for the MILP
of :mod:`fxai.verify.boosted` (HiGHS through scipy); rerun it for the numbers on your
machine (``--quick`` for a short run). A numpy version of this search, with caches of past
counterexamples and proved sets, was several times slower than the compiled one; in the
compiled search the caches cost more than they saved and were dropped. Tried and rejected as
well: branching on the first separating feature (it was the rule before the sum of bounds;
the hard proofs took 50-300x more boxes), and on the one whose worse child has the highest
bound (fewer boxes than the first did not repay the extra bound evaluations).

Optional ``domains`` (per feature a list of values, or None for the real line) restrict free
features to the intervals that contain a domain value, and counterexample points then take
domain values. Without domains, a free feature ranges over the reals, as in the authors'
encoding. Only features used in some split are candidate features (``features``).
"""

from __future__ import annotations

import functools
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from fxai.models.boosted import TIES, Ensemble, change_rule, from_booster, reject_missing, tie_band
from fxai.models.kinds import is_xgboost
from fxai.oracles.base import Oracle, TimeLimitExceeded
from fxai.oracles.registry import register


class BoostedOracle(Oracle):
    """Exact oracle for a binary XGBoost model at instance ``x``; its prediction is
    ``XGBClassifier.predict``'s.

    Examples
    --------
    >>> from fxai.models.boosted import Tree
    >>> stump = Tree(feature=np.array([0, 0, 0]), threshold=np.float32([0.5, 0, 0]),
    ...              left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
    ...              value=np.float32([0, 5e-8, 1.0]))
    >>> ens = Ensemble(trees=(stump,), base_margin=0.0, n_features=1)
    >>> o = BoostedOracle(ens, [0.0], ties="keep")
    >>> o.margin > 0, o.prediction, o.counterexample(set())  # probability 0.5: class 0
    (True, 0, [0.5])
    """

    # what the model rotation of also_necessary uses (shared by the subclasses, whose own
    # __init__ does not call this one): the last counterexample's intervals, and seconds of
    # its question, of the last rotation and of one rotated point
    _cex: np.ndarray | None = None
    _asked_s, _rotation_s, _point_s = 0.0, 0.0, 2e-5

    def __init__(self, model, x, ties: str = "change", domains: Sequence | None = None):
        ens = model if isinstance(model, Ensemble) else from_booster(model)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
        x = list(x)
        if len(x) != ens.n_features:
            raise ValueError(f"instance has {len(x)} values, the model {ens.n_features} features")
        reject_missing(x)
        if domains is not None:
            if len(domains) != ens.n_features:
                raise ValueError(f"domains has {len(domains)} entries, expected {ens.n_features}")
            for f, d in enumerate(domains):
                if d is not None:
                    reject_missing(list(d), f"domain of feature {f}")
        self.ensemble, self.ties, self.instance = ens, ties, x
        self.n_features = ens.n_features
        m = float(ens.margin([x])[0])
        lo, hi = tie_band()
        if lo <= m <= hi and ties == "change":
            raise ValueError("the instance has probability exactly 0.5 (tied scores); "
                             "use ties='keep'")
        self.prediction = int(m > hi)
        self.margin = m
        self._sign = 1.0 if self.prediction == 1 else -1.0
        self._cut, self._inclusive = change_rule(self.prediction, ties)
        self._used = ens.used_features
        self._compile(domains)

    @property
    def features(self) -> list[int]:
        return list(self._used)

    # ---- compilation -------------------------------------------------------------------
    def _compile(self, domains) -> None:
        ens = self.ensemble
        model = _model_tables(ens)
        self._intervals(model, domains)
        key = (self._sign, domains is None)
        tables = model["leaves"].get(key) if domains is None else None
        if tables is None:
            sign = self._sign
            scores = [np.stack([sign * t.value.astype(np.float64), sign * t.value,
                                np.zeros_like(t.value)], axis=1) for t in ens.trees]
            base = abs(ens.base_margin)
            tables = _leaf_tables(ens.trees, self._boxes_of, len(self._used), scores,
                                  np.float32, base)
            if domains is None:
                model["leaves"][key] = tables
        self._cf, self._clo, self._chi, self._val, self._jv, self._starts, self._tol = tables
        self._offset = self._sign * ens.base_margin - self._cut  # bounds are relative to the cut
        self._base = np.float32([self._sign * ens.base_margin, 0.0])
        self._divisor = np.float32(1.0)
        self._cut32 = np.float32(self._cut)
        self._tables = (self._cf, self._clo, self._chi, self._val, self._starts, self._offset,
                        self._cut32, self._inclusive)

    def _intervals(self, model: dict, domains) -> None:
        """The instance's threshold interval per used feature and, with ``domains``, the
        intervals a free feature may take (compressed coordinates) with a value for each."""
        x = np.asarray(self.instance, dtype=np.float32)
        used = self._used
        self._thr = model["thr"]
        # allowed original intervals per feature (index k = number of thresholds <= value)
        self._vint = np.array([int(np.searchsorted(T, x[f], side="right"))
                               for f, T in zip(used, self._thr, strict=True)], dtype=np.int64)
        if domains is None:  # every interval is allowed: the leaf tables are the model's own
            self._allowed, self._reps = model["allowed"], model["reps"]
            self._v = self._vint
        else:
            allowed, reps = [], []
            for c, f in enumerate(used):
                T = self._thr[c]
                if domains[f] is None:
                    allowed.append(model["allowed"][c])
                    reps.append(model["reps"][c])
                    continue
                vals = sorted(set(float(v) for v in domains[f]))
                kv = np.searchsorted(T, np.asarray(vals, dtype=np.float32), side="right")
                ks_set: dict[int, float] = {}
                for k, val in zip(kv.tolist(), vals, strict=True):
                    ks_set.setdefault(k, val)
                allowed.append(np.array(sorted(set(ks_set) | {int(self._vint[c])})))
                reps.append([ks_set.get(k, float(x[f])) for k in range(len(T) + 1)])
            self._allowed, self._reps = allowed, reps
            # instance interval in compressed coordinates
            self._v = np.array([int(np.searchsorted(a, k))
                                for a, k in zip(allowed, self._vint, strict=True)], dtype=np.int64)
        self._nodes = model["nodes"]
        self._boxes = model["boxes"] if domains is None else {}  # tree -> its leaf boxes
        self._size = np.array([len(a) for a in self._allowed] + [1], dtype=np.int64)
        self._col = np.full(self.n_features, -1, dtype=np.int64)
        self._col[used] = np.arange(len(used))

    def _boxes_of(self, t: int) -> Boxes:
        """Tree t's :func:`leaf_boxes` over the allowed intervals (kept per model without
        domains: every class pair of a multi-class model and the SAT encodings read them)."""
        if not self._boxes:  # all trees at once
            below = [np.searchsorted(a, np.arange(1, len(T) + 1))  # per column and threshold
                     for a, T in zip(self._allowed, self._thr, strict=True)]
            start = np.cumsum([0] + [len(b) for b in below])
            self._boxes.update(enumerate(leaf_boxes(
                self._nodes, np.concatenate([*below, np.zeros(0, np.int64)]), start,
                self._size)))
        return self._boxes[t]

    # ---- queries -----------------------------------------------------------------------
    def entails(self, fixed: Iterable[int], time_limit: float | None = None) -> bool:
        """See :meth:`Oracle.entails`; ``time_limit``: CPU seconds for this question
        (:class:`~fxai.oracles.base.TimeLimitExceeded` when they run out)."""
        return self._question(fixed, time_limit) is None

    def counterexample(self, fixed: Iterable[int], time_limit: float | None = None) -> list | None:
        """See :meth:`Oracle.counterexample`; ``time_limit`` as for :meth:`entails`."""
        point = self._question(fixed, time_limit)
        return None if point is None else self._point(point)

    def moves(self, fixed: Iterable[int], among: Iterable[int]) -> set[int] | None:
        """See :meth:`Oracle.moves`: the used features whose interval in the counterexample
        is not the instance's (a point's other features keep the instance's values)."""
        point = self._question(fixed, None)
        if point is None:
            return None
        return {self._used[k] for k in np.flatnonzero(point != self._v)}.intersection(among)

    def _question(self, fixed: Iterable[int], time_limit: float | None) -> np.ndarray | None:
        """A counterexample's intervals (kept for :meth:`also_necessary`), or None; the
        full point is built only for :meth:`counterexample` (a copy of the instance: 30 µs
        with Sarcasm's 22,600 words, more than a question; :meth:`moves` needs none)."""
        self.calls += 1
        t0 = time.perf_counter()
        if time_limit is None:
            point = self._ask(fixed)
        else:
            with self.time_limit(time_limit):
                point = self._ask(fixed)
        self._cex, self._asked_s = point, time.perf_counter() - t0
        return point

    def also_necessary(self, freed: int, candidates) -> set[int]:
        """See :meth:`Oracle.also_necessary`: the last counterexample's intervals with
        ``freed`` put back, each candidate moved to each of its other intervals, predicted
        by the model's own arithmetic and tie rule (``_changes``). The points tested cost
        at most what the question did (at the measured cost per point; at most
        ``ROTATIONS``), spread over the candidates in order, and none when the last
        rotation cost more than the question: a branch and bound that answered in
        microseconds tests none."""
        budget = self._rotation_budget()
        if self._cex is None or budget < 1:
            return set()
        cols = [(j, int(self._col[j])) for j in candidates if self._col[j] >= 0]
        if not cols:
            return set()
        t0 = time.perf_counter()
        cols = cols[:budget]
        base = self._cex.copy()
        if self._col[freed] >= 0:
            base[self._col[freed]] = self._v[self._col[freed]]
        per = max(1, budget // len(cols))
        owners, values = [], []  # per point: the candidate moved and its value
        for j, c in cols:
            others = [k for k in range(int(self._size[c])) if k != self._v[c]]
            for k in others[::max(1, -(-len(others) // per))]:
                owners.append(j)
                values.append(self._reps[c][int(self._allowed[c][k])])
        if not owners:
            return set()
        points = np.repeat(np.asarray([self._point(base)], dtype=np.float64), len(owners), 0)
        points[np.arange(len(owners)), owners] = values
        changes = self._changes(points)
        self._rotation_s = time.perf_counter() - t0
        self._point_s = (self._point_s + self._rotation_s / len(owners)) / 2
        return {j for j, yes in zip(owners, changes, strict=True) if yes}

    def axp_prefix(self, fixed: set[int], todo: list[int]) -> tuple[set[int], int]:
        """See :meth:`Oracle.axp_prefix`: deletion in one compiled call
        (:func:`fxai.oracles.search.delete`), each search up to ``PREFIX_LEAVES`` leaves
        tested; it stops at the first search that needs more, which the caller asks as
        usual. Through :meth:`entails` a question of the FFA paper's `sarcasm-full` model
        costs about 24 µs, half of it in the search. The subclasses, which search per
        rival class, decide none here."""
        if type(self)._ask is not BoostedOracle._ask or not todo:
            return set(), 0
        self.check_time()
        freed, done, asked = compiled_prefixes()[0](
            np.fromiter(fixed, dtype=np.int64), np.asarray(todo, dtype=np.int64), self._col,
            self._v, self._size, *self._tables, self._tol, self._jv, self._base,
            self._divisor, PREFIX_LEAVES)
        self.calls += asked
        self._cex = None  # (no point of the prefix is kept)
        return {todo[k] for k in np.flatnonzero(freed)}, int(done)

    def cxp_prefix(self, free: set[int], order: list[int]) -> tuple[set[int], int]:
        """See :meth:`Oracle.cxp_prefix`: ``find_cxp``'s loop in one compiled call
        (:func:`fxai.oracles.search.shrink`), as :meth:`axp_prefix`."""
        if type(self)._ask is not BoostedOracle._ask or self.remembers or not order:
            return free, 0
        self.check_time()
        mask = np.zeros(len(self._used), dtype=np.bool_)
        mask[self._col[list(free)]] = True
        mask, done, asked = compiled_prefixes()[1](
            mask, self._col[np.asarray(order, dtype=np.int64)], self._v, self._size,
            *self._tables, self._tol, self._jv, self._base, self._divisor, PREFIX_LEAVES)
        self.calls += asked
        self._cex = None
        return {self._used[c] for c in np.flatnonzero(mask)}, int(done)

    def _rotation_budget(self) -> int:
        """Points also_necessary may test: as many as the last question's CPU time pays
        (none if the last rotation cost more than the question)."""
        if self._asked_s < self._rotation_s:
            return 0
        return min(ROTATIONS, int(self._asked_s / self._point_s))

    def _changes(self, points: np.ndarray) -> np.ndarray:
        """Whether each point is of another class than the prediction: its float32 margin
        beyond the cut of the tie rule (:func:`~fxai.models.boosted.change_rule`)."""
        m = self._sign * self.ensemble.margin(points)
        return (m < self._cut) | (self._inclusive & (m == self._cut))

    def _limits(self):
        """Box limits of the branch and bound's passes to the end: none without a deadline,
        else growing ones with a check of the deadline before each. A pass resumes where the
        last one stopped and is sized to the time left by the last one's pace (when less
        time is left than the last one took, the search stops now), so a question ends
        within a fraction of a pass of its deadline."""
        if self.deadline is None:
            yield -1
            return
        limit = _CHUNK
        while True:
            started = time.process_time()
            self.check_time(started)
            yield limit
            spent = max(time.process_time() - started, 1e-6)
            left = self.deadline - time.process_time()
            if left <= spent:  # no deeper pass fits: the limit is reached in effect
                raise TimeLimitExceeded(f"{type(self).__name__}: time limit reached",
                                        self.deadline - self._started)
            limit = int(limit * min(2.0, 0.9 * left / spent))

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

    def _root(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The search's stack of boxes (lows, highs, chosen leaves, height) holding the box
        of ``mask`` (leaves without columns: the search finds the first box's)."""
        n = len(self._used)
        lo = np.zeros((1, n + 1), dtype=np.int64)
        hi = self._size.copy()[None]
        lo[0, :n][mask] = self._v[mask]
        hi[0, :n][mask] = self._v[mask] + 1
        return lo, hi, np.empty((1, 0), dtype=np.int64), 1

    def _ask(self, fixed: Iterable[int]) -> np.ndarray | None:
        """A counterexample's intervals for the features ``fixed``, or None: the branch and
        bound from their box, built and searched in one compiled call (its first pass
        under a deadline); the subclasses search from :meth:`_fixed_mask`'s box."""
        ask, search = compiled_search()
        tables = self._tables
        # without a deadline one unlimited pass decides: no generator of passes to build
        limits = None if self.deadline is None else self._limits()
        point, *stack = ask(np.fromiter(fixed, dtype=np.int64), self._col, self._v,
                            self._size, *tables, self._tol, self._jv, self._base,
                            self._divisor, -1 if limits is None else next(limits))
        while _undecided(point):
            point, *stack = search(*tables, *stack, self._v, self._tol, self._jv, self._base,
                                   self._divisor, next(limits))
        return point if point.size else None


@functools.cache
def compiled_search():
    """The compiled branch and bound (:func:`fxai.oracles.search.ask` and ``search``),
    imported on the first search (numba loads then), looked up once."""
    from fxai.oracles.search import ask, search

    return ask, search


@functools.cache
def compiled_prefixes():
    """The compiled extractions (:func:`fxai.oracles.search.delete` and ``shrink``), looked
    up once."""
    from fxai.oracles.search import delete, shrink

    return delete, shrink


def _undecided(point: np.ndarray) -> bool:
    """Did the search stop at its limit (``[-1]``: a point has no negative interval)?"""
    return point.size == 1 and point[0] < 0


_MODELS: dict[int, dict] = {}
ROTATIONS = 4096  # points an also_necessary tests at most
PREFIX_LEAVES = 1 << 16  # leaves tested per search of axp_prefix
_CHUNK = 1 << 24  # leaves tested in the first pass under a deadline (then doubled per pass)


def _model_tables(ens) -> dict:
    """What the oracle needs of the model alone, built once per ensemble (kept while it
    lives): its trees end to end (:func:`~fxai.models.boosted.flatten`) with, per inner
    node, the column of its feature and the index of its threshold among the float32
    thresholds of that feature; those thresholds; all intervals with a representative value
    each; and (filled per query kind on first use: the class sign of a binary model, the
    class pair of a multi-class one) the leaf tables without domains. So a new instance of
    the same model costs only its own intervals."""
    key = id(ens)
    model = _MODELS.get(key)
    if model is None:
        feature, threshold, left, right, roots = ens.flat
        used = ens.used_features
        column = np.zeros(ens.n_features, dtype=np.int64)
        column[used] = np.arange(len(used))
        inner = np.flatnonzero(left >= 0)
        col, index = np.zeros(len(left), np.int64), np.zeros(len(left), np.int64)
        col[inner] = column[feature[inner]]
        thrs = threshold[inner].astype(np.float32)
        by_col = np.argsort(col[inner], kind="stable")
        ends = np.searchsorted(col[inner][by_col], np.arange(len(used) + 1))
        T = []
        for c in range(len(used)):
            at = inner[by_col[ends[c]:ends[c + 1]]]
            T.append(np.unique(thrs[by_col[ends[c]:ends[c + 1]]]))
            index[at] = np.searchsorted(T[c], threshold[at].astype(np.float32))
        # a float32 value below T[0] stands for interval 0
        reps = [[float(np.nextafter(t[0], np.float32(-np.inf)))] + [float(v) for v in t]
                for t in T]
        model = {"nodes": (left, right, col, index, roots), "thr": T, "reps": reps,
                 "allowed": [np.arange(len(t) + 1) for t in T], "leaves": {}, "boxes": {}}
        _MODELS[key] = model
        weakref.finalize(ens, _MODELS.pop, key, None)
    return model


class Boxes(NamedTuple):
    """The leaves of one tree that an allowed point reaches, in the tree's preorder (left
    child first), and their boxes: per leaf the feature columns its path tests (in the order
    of their first test, then the dummy column ``len(used)`` as padding) with the range
    ``[lo, hi)`` of allowed intervals the path leaves each (the dummy: ``[0, 1)``)."""

    nodes: np.ndarray
    cols: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    def dicts(self, dummy: int) -> dict[int, dict[int, tuple[int, int]]]:
        """Leaf node -> its box as a dict, column -> ``(lo, hi)`` (the padding, column
        ``dummy``, left out)."""
        return {node: {c: (lo, hi) for c, lo, hi in zip(cs, los, his, strict=True)
                       if c != dummy}
                for node, cs, los, his in zip(self.nodes.tolist(), self.cols.tolist(),
                                              self.lo.tolist(), self.hi.tolist(), strict=True)}


def leaf_boxes(nodes, below, start, size) -> list[Boxes]:
    """The :class:`Boxes` of every tree of :func:`_model_tables` (``nodes``: the trees end
    to end, ``(left, right, column, threshold index, roots)``) over allowed intervals:
    ``below[start[c] + j]`` is the number of allowed intervals of column c below its
    threshold j (``x < T[c][j]`` iff the allowed index is below it), ``size`` the number of
    allowed intervals per column, then 1 (the dummy column). All trees at once, level by
    level: the numpy calls do not grow with the number of trees."""
    left, right, col, thr, roots = nodes
    n, dummy = len(left), len(size) - 1
    inner = np.flatnonzero(left >= 0)
    cut = np.zeros(n, dtype=np.int64)
    cut[inner] = below[start[col[inner]] + thr[inner]]
    parent = np.full(n, -1, dtype=np.int64)
    parent[left[inner]], parent[right[inner]] = inner, inner
    levels, depth = [roots], np.zeros(n, dtype=np.int64)  # each level's inner nodes
    while True:
        level = levels[-1][left[levels[-1]] >= 0]
        levels[-1] = level
        if not level.size:
            break
        kids = np.concatenate([left[level], right[level]])
        depth[kids] = depth[np.concatenate([level, level])] + 1
        levels.append(kids)
    weight = np.ones(n, dtype=np.int64)  # subtree sizes, then preorder positions
    for level in reversed(levels):
        weight[level] += weight[left[level]] + weight[right[level]]
    pos = np.zeros(n, dtype=np.int64)
    for level in levels:
        pos[left[level]] = pos[level] + 1
        pos[right[level]] = pos[level] + 1 + weight[left[level]]
    tree = np.searchsorted(roots, np.arange(n), side="right") - 1
    leaf = np.flatnonzero(left < 0)
    leaf = leaf[np.lexsort((pos[leaf], tree[leaf]))]  # per tree, in preorder
    # the path conditions: (leaf row, inner node, its depth, whether the path goes left)
    rows, at, child = [np.arange(len(leaf))], [parent[leaf]], [leaf]
    while True:
        up = at[-1] >= 0
        if not up.any():
            break
        rows[-1], at[-1], child[-1] = rows[-1][up], at[-1][up], child[-1][up]
        rows.append(rows[-1])
        at.append(parent[at[-1]])
        child.append(at[-2])
    row, node, via = (np.concatenate(a[:-1] + [np.zeros(0, np.int64)]) for a in (rows, at, child))
    c, d = col[node], depth[node]
    order = np.lexsort((d, c, row))  # by leaf, column, then depth
    row, c, d, a, goes_left = row[order], c[order], d[order], cut[node][order], \
        (left[node] == via)[order]
    first = np.flatnonzero(np.r_[row.size > 0, (row[1:] != row[:-1]) | (c[1:] != c[:-1])])
    lo = np.maximum.reduceat(np.where(goes_left, 0, a), first) if first.size else first
    hi = np.minimum.reduceat(np.where(goes_left, a, size[c]), first) if first.size else first
    row, c, d = row[first], c[first], d[first]
    order = np.lexsort((d, row))  # a leaf's columns in the order of their first test
    row, c, lo, hi = row[order], c[order], lo[order], hi[order]
    rank = np.arange(len(row)) - np.searchsorted(row, row)
    width = int(rank.max(initial=0)) + 1
    cols = np.full((len(leaf), width), dummy, dtype=np.int64)
    los = np.zeros((len(leaf), width), dtype=np.int64)
    his = np.ones((len(leaf), width), dtype=np.int64)
    cols[row, rank], los[row, rank], his[row, rank] = c, lo, hi
    ok = np.ones(len(leaf), dtype=bool)
    ok[row[lo >= hi]] = False
    bounds = np.searchsorted(tree[leaf], np.arange(len(roots) + 1))
    local = leaf - roots[tree[leaf]]  # node ids within each tree
    return [Boxes(local[s:e][ok[s:e]], cols[s:e][ok[s:e]], los[s:e][ok[s:e]],
                  his[s:e][ok[s:e]])
            for s, e in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)]


def _leaf_tables(trees, boxes_of, n: int, scores, dtype, base: float,
                 check_time=lambda: None):
    """Per tree its leaves that an allowed point reaches, sorted by value: the boxes (feature
    column, lo, hi in allowed-interval coordinates; padded with the dummy feature
    ``len(used)``), the values (float64), the two values the float arithmetic of the library
    adds per leaf (in ``dtype``), each tree's first row, and the rounding bound ``tol``.

    ``boxes_of(t)`` is tree t's :class:`Boxes` over ``n`` feature columns.
    ``scores[t][node]`` is (value to minimise, addend of sum 0, addend of sum 1) of leaf
    ``node`` of tree t; a tree whose leaves all score (0, 0, 0) is left out, and ``base``
    bounds the absolute sum of the intercepts; ``check_time()`` is called per tree (an
    oracle's deadline holds while the tables are built)."""
    boxes, vals, starts = [], [], []
    peak, rows = base, 0
    for t, (tree, sc) in enumerate(zip(trees, scores, strict=True)):
        if not np.any(sc[tree.left < 0]):
            continue
        check_time()
        b = boxes_of(t)
        order = np.argsort(sc[b.nodes, 0], kind="stable")
        v = sc[b.nodes[order]]
        if len(v):
            peak += float((np.abs(v[:, 0]) + np.abs(v[:, 1:]).sum(axis=1)).max())
        starts.append(rows)
        rows += len(v)
        boxes.append((b.cols[order], b.lo[order], b.hi[order]))
        vals.append(v)
    depth = max((c.shape[1] for c, _, _ in boxes), default=1)

    def column(k: int, fill: int) -> np.ndarray:  # every tree's rows, padded to ``depth``
        out = np.full((rows, depth), fill, dtype=np.int64)
        for at, b in zip(starts, boxes, strict=True):
            out[at:at + len(b[k]), :b[k].shape[1]] = b[k]
        return out

    v = np.concatenate([np.zeros((0, 3))] + vals)
    eps = float(np.finfo(dtype).eps)  # sums in dtype vs float64: 4x a rigorous bound
    tol = 4.0 * (len(starts) + 2) * peak * eps
    return (column(0, n), column(1, 0), column(2, 1), v[:, 0].astype(np.float64),
            v[:, 1:].astype(dtype), np.array(starts, dtype=np.int64), tol)


register(lambda m: isinstance(m, Ensemble) or is_xgboost(m), BoostedOracle)
