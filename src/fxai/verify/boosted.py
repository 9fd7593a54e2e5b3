"""Independent checker of AXps / CXps of XGBoost models: a MILP solved by HiGHS.

Shares no code with the branch-and-bound oracle (:mod:`fxai.oracles.boosted`) nor with
its model reader: the trees are read from ``Booster.trees_to_dataframe()``, the intercept is
XGBoost's margin for a copy of the model with every leaf 0, and every point is judged by
XGBoost itself: its class is ``XGBClassifier.predict``'s (``inplace_predict`` probability
> 0.5), and a probability of exactly 0.5 is a tie (class 0; a change of either class with
``ties="change"``). Instances with missing values (NaN) are rejected.

Encoding (Kantchelian et al. 2016): per used feature f with sorted float32 thresholds
t_1 < ... < t_k, binaries z_fj = [x_f < t_j] with z_fj <= z_f(j+1); per tree, leaf
variables in [0, 1] summing to 1, and for every split (f, t_j) the leaves under its "yes"
child sum to at most z_fj and those under its "no" child to at most 1 - z_fj. Fixed
features have their z fixed by the instance. With ``domains`` a free feature takes one of
its domain values (one binary per value, z_fj = sum of the values below t_j). The objective
is the margin (prediction 1) or minus it (prediction 0). The optimal point is rebuilt from
z and scored by XGBoost: a counterexample iff its probability changes the class under the
tie rule above.
HiGHS runs with zero relative and absolute gap. Near the class boundary its float64
objective and tolerances cannot decide, so the decision is exact there: the MILP's optimum
``o`` and dual bound ``b`` (a bound on every point's objective) are compared with the cut
``k`` (the objective at which XGBoost's class changes, from the tie band). A point that
XGBoost scores as a change is a counterexample; ``b > k + band`` proves there is none
(``band`` bounds XGBoost's float32 rounding and HiGHS's feasibility tolerances, both
relative to the summed leaf magnitudes); otherwise every leaf combination whose objective
lies within ``k + band`` is listed by re-solving with an objective cap and a no-good cut per
combination found, and each is scored by XGBoost: one leaf per tree fixes XGBoost's
margin, so this decides exactly (``band_queries`` counts such queries).

Shortcuts, each exact or confirmed by XGBoost: a query with few free value combinations
(<= ``enumerate_max``) is decided by scoring them all; otherwise seeded random points and
a greedy descent on the margin look for a counterexample before the MILP is run.
``python -m benchmarks.boosted`` prints this checker's calls per second beside the oracle's.
"""

from __future__ import annotations

import json
import math
import warnings
import weakref
from collections import namedtuple
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from fxai.models.boosted import booster, change_rule, reject_missing


def _intercept(booster) -> float:
    """XGBoost's own float32 intercept (its float32 logit of ``base_score``, whose last bits
    are its own): the margin XGBoost gives when every leaf of every tree is 0."""
    import xgboost as xgb

    doc = json.loads(booster.save_raw("json"))
    for tree in doc["learner"]["gradient_booster"]["model"]["trees"]:
        leaf = [child < 0 for child in tree["left_children"]]
        tree["split_conditions"] = [0.0 if f else v for f, v in zip(leaf, tree["split_conditions"],
                                                                   strict=True)]
        tree["base_weights"] = [0.0] * len(leaf)
    zeroed = xgb.Booster()
    zeroed.load_model(bytearray(json.dumps(doc).encode()))
    n = int(doc["learner"]["learner_model_param"]["num_feature"])
    return float(zeroed.inplace_predict(np.zeros((1, n), np.float32), predict_type="margin")[0])


_Node = namedtuple("_Node", "ID Feature Split Yes No Gain")  # a row of trees_to_dataframe


def _leaves_under(nodes: dict, leaves: dict[str, int], node_id: str) -> list[int]:
    """Leaf variables of the subtree rooted at ``node_id`` (dataframe node ids)."""
    if nodes[node_id].Feature == "Leaf":
        return [leaves[node_id]]
    r = nodes[node_id]
    return _leaves_under(nodes, leaves, r.Yes) + _leaves_under(nodes, leaves, r.No)


class BoostedChecker:
    """MILP-based exact checks for one XGBoost binary model (reusable across instances).

    A query whose free features have at most ``enumerate_max`` value combinations is
    decided by scoring them all with XGBoost; otherwise ``samples`` seeded random points are
    tried first and the MILP decides when none is a counterexample (0, 0: MILP only)."""

    def __init__(self, model, ties: str = "change", domains: Sequence | None = None,
                 samples: int = 256, sample_seed: int = 0, enumerate_max: int = 4096,
                 band_max: int = 1000):
        self.samples, self.sample_seed = samples, sample_seed
        self.enumerate_max, self.band_max, self.band_queries = enumerate_max, band_max, 0
        self._choice_cache: dict[int, np.ndarray] = {}
        self._last: tuple[tuple[float, ...], int] | None = None  # (instance, its class)
        if ties not in ("change", "keep"):
            raise ValueError(f"ties must be 'change' or 'keep', not {ties!r}")
        self.booster = booster(model).copy()  # scored single-threaded: many small calls
        self.booster.set_param({"nthread": 1})
        self.ties, self.domains = ties, domains
        cfg = json.loads(self.booster.save_config())["learner"]["learner_model_param"]
        self.intercept = _intercept(self.booster)
        self.n_features = int(cfg["num_feature"])
        names = self.booster.feature_names or [f"f{i}" for i in range(self.n_features)]
        index = {n: i for i, n in enumerate(names)}
        df = self.booster.trees_to_dataframe()
        inner = df[df["Feature"] != "Leaf"]
        self.thresholds: dict[int, np.ndarray] = {}
        for name, grp in inner.groupby("Feature"):
            self.thresholds[index[name]] = np.unique(grp["Split"].to_numpy(np.float32))
        self.used = sorted(self.thresholds)
        self._build(df, index)

    def _build(self, df, index) -> None:
        """Variables: z (per feature and threshold), then w (domain values), then leaves."""
        zvar, nv = {}, 0
        for f in self.used:
            for j in range(len(self.thresholds[f])):
                zvar[f, j] = nv
                nv += 1
        wvar = {}
        if self.domains is not None:
            for f in self.used:
                if self.domains[f] is not None:
                    for d in sorted(set(float(v) for v in self.domains[f])):
                        wvar[f, d] = nv
                        nv += 1
        rows, cols, vals, lb, ub = [], [], [], [], []

        def add(coefs: dict[int, float], lo: float, hi: float) -> None:
            r = len(lb)
            for c, a in coefs.items():
                rows.append(r)
                cols.append(c)
                vals.append(a)
            lb.append(lo)
            ub.append(hi)

        for f in self.used:
            for j in range(len(self.thresholds[f]) - 1):
                add({zvar[f, j]: 1.0, zvar[f, j + 1]: -1.0}, -np.inf, 0.0)
            ds = sorted(d for (g, d) in wvar if g == f)
            if ds:
                add({wvar[f, d]: 1.0 for d in ds}, 1.0, 1.0)
                for j, t in enumerate(self.thresholds[f]):
                    below = {wvar[f, d]: -1.0 for d in ds if np.float32(d) < t}
                    add({zvar[f, j]: 1.0, **below}, 0.0, 0.0)
        leaf_value: list[float] = []
        for _, tree in df.groupby("Tree"):
            columns = (tree[c].tolist() for c in _Node._fields)
            tree_rows = [_Node(*r) for r in zip(*columns, strict=True)]
            nodes = {r.ID: r for r in tree_rows}
            leaves: dict[str, int] = {}
            for r in tree_rows:
                if r.Feature == "Leaf":
                    leaves[r.ID] = nv
                    nv += 1
                    leaf_value.append(float(np.float32(r.Gain)))
            add(dict.fromkeys(leaves.values(), 1.0), 1.0, 1.0)
            for r in tree_rows:
                if r.Feature == "Leaf":
                    continue
                f = index[r.Feature]
                j = int(np.searchsorted(self.thresholds[f], np.float32(r.Split)))
                yes = dict.fromkeys(_leaves_under(nodes, leaves, r.Yes), 1.0)
                no = dict.fromkeys(_leaves_under(nodes, leaves, r.No), 1.0)
                add({**yes, zvar[f, j]: -1.0}, -np.inf, 0.0)
                add({**no, zvar[f, j]: 1.0}, -np.inf, 1.0)
        self._zvar, self._wvar, self._nv = zvar, wvar, nv
        self._n_leaf = len(leaf_value)
        self._leaf_value = np.array(leaf_value)
        largest = df[df["Feature"] == "Leaf"]["Gain"].abs().groupby(df["Tree"]).max()
        size = abs(self.intercept) + float(largest.sum())
        self._band = size * (1e-5 + (len(largest) + 2) * 2.0**-23)
        self._A = coo_matrix((vals, (rows, cols)), shape=(len(lb), nv)).tocsr()
        self._lb, self._ub = np.array(lb), np.array(ub)
        self._integrality = np.r_[np.ones(nv - self._n_leaf), np.zeros(self._n_leaf)]

    def _margin(self, x) -> float:
        pt = np.asarray([x], dtype=np.float32)
        return float(self.booster.inplace_predict(pt, predict_type="margin")[0])

    def changed(self, proba: np.ndarray, c: int) -> np.ndarray:
        """Which of XGBoost's probabilities ``proba`` are of another class than ``c``."""
        out = (proba > 0.5) != bool(c)
        return out | (proba == 0.5) if self.ties == "change" else out

    def prediction(self, x) -> int:
        """``XGBClassifier.predict``'s class of ``x`` (a tie is an error under "change")."""
        key = tuple(float(v) for v in x)
        if self._last is None or self._last[0] != key:
            reject_missing(x)
            p = float(self.booster.inplace_predict(np.asarray([x], dtype=np.float32))[0])
            if p == 0.5 and self.ties == "change":
                raise ValueError("the instance has probability exactly 0.5 (tied scores)")
            self._last = (key, int(p > 0.5))
        return self._last[1]

    def _choices(self, f: int) -> np.ndarray:
        """One float32 value per threshold interval of feature f (or its domain values)."""
        if f not in self._choice_cache:
            if self.domains is not None and self.domains[f] is not None:
                vals = np.asarray(self.domains[f], dtype=np.float32)
            else:
                T = self.thresholds[f]  # below T[0] even where float32 T[0] - 1 == T[0]
                vals = np.r_[np.nextafter(T[0], np.float32(-np.inf)), T].astype(np.float32)
            self._choice_cache[f] = vals
        return self._choice_cache[f]

    def _first_changed(self, pts: np.ndarray, c: int) -> list | None:
        bad = np.flatnonzero(self.changed(self.booster.inplace_predict(pts), c))
        return None if bad.size == 0 else [float(v) for v in pts[bad[0]]]

    def _sampled(self, x: list[float], free: list[int], c: int) -> list | None:
        """A counterexample among seeded random points, scored in one XGBoost call."""
        rng = np.random.default_rng(self.sample_seed)
        pts = np.tile(np.asarray(x, dtype=np.float32), (self.samples, 1))
        for f in free:
            pts[:, f] = rng.choice(self._choices(f), self.samples)
        return self._first_changed(pts, c)

    def _descent(self, x: list[float], free: list[int], c: int) -> list | None:
        """Greedy search from x: repeatedly move the one free feature whose change lowers the
        margin towards the other class most (all moves scored in one XGBoost call)."""
        sign = 1.0 if c == 1 else -1.0
        point = np.asarray(x, dtype=np.float32)
        current = sign * float(self.booster.inplace_predict(point[None], predict_type="margin")[0])
        for _ in range(len(free)):
            moves = [(f, v) for f in free for v in self._choices(f) if v != point[f]]
            if not moves:
                return None
            pts = np.tile(point, (len(moves), 1))
            pts[np.arange(len(moves)), [f for f, _ in moves]] = [v for _, v in moves]
            m = sign * self.booster.inplace_predict(pts, predict_type="margin")
            best = int(np.argmin(m))
            hit = self._first_changed(pts[best:best + 1], c)
            if hit is not None:
                return hit
            if m[best] >= current:
                return None
            point, current = pts[best], float(m[best])
        return None

    def _enumerated(self, x: list[float], free: list[int], c: int) -> list | None:
        """Exact by enumeration: every combination of the free features' interval values."""
        grid = np.meshgrid(*[self._choices(f) for f in free], indexing="ij")
        pts = np.tile(np.asarray(x, dtype=np.float32), (grid[0].size, 1))
        for f, g in zip(free, grid, strict=True):
            pts[:, f] = g.ravel()
        return self._first_changed(pts, c)

    def counterexample(self, x: Sequence, fixed: Iterable[int]) -> list | None:
        """A point agreeing with ``x`` on ``fixed`` whose class differs, or None.

        Small free sets are enumerated; otherwise random points are tried first (a hit is
        checked by XGBoost itself) and the MILP decides when they find none."""
        x = [float(v) for v in x]
        if len(x) != self.n_features:
            raise ValueError(f"instance has {len(x)} values, the model {self.n_features}")
        c = self.prediction(x)
        fixed = set(fixed)
        free = [f for f in self.used if f not in fixed]
        if not free:
            return None
        if math.prod(len(self._choices(f)) for f in free) <= self.enumerate_max:
            return self._enumerated(x, free, c)
        if self.samples:
            hit = self._sampled(x, free, c)
            if hit is None:
                hit = self._descent(x, free, c)
            if hit is not None:
                return hit
        lo, hi = np.zeros(self._nv), np.ones(self._nv)
        for (f, j), var in self._zvar.items():
            if f in fixed:
                lo[var] = hi[var] = float(np.float32(x[f]) < self.thresholds[f][j])
        for (f, d), var in self._wvar.items():
            if f in fixed:
                lo[var] = hi[var] = float(d == x[f])
        sign = 1.0 if c == 1 else -1.0
        cost = np.zeros(self._nv)
        cost[self._nv - self._n_leaf:] = self._leaf_value * sign
        cut, _ = change_rule(c, self.ties)
        k = cut - sign * self.intercept  # XGBoost's class may change at objective <= k
        res = self._solve(cost, lo, hi, [])
        hit = self._point_changed(x, res.x, fixed, c)
        if hit is not None or res.mip_dual_bound > k + self._band:
            return hit
        self.band_queries += 1
        cap = LinearConstraint(cost, -np.inf, k + self._band)
        cuts = [cap]
        for _ in range(self.band_max):
            res = self._solve(cost, lo, hi, cuts, feasible_only=True)
            if res is None:
                return None  # no leaf combination within the band: none changes the class
            hit = self._point_changed(x, res.x, fixed, c)
            if hit is not None:
                return hit
            first = self._nv - self._n_leaf
            picked = first + np.flatnonzero(res.x[first:] > 0.5)
            row = np.zeros(self._nv)
            row[picked] = 1.0
            cuts.append(LinearConstraint(row, -np.inf, len(picked) - 1))
        raise RuntimeError(f"more than {self.band_max} leaf combinations within {self._band:g} "
                           "of the class boundary: cannot decide exactly")

    def _solve(self, cost, lo, hi, extra: list, feasible_only: bool = False):
        """HiGHS with zero gaps; with ``feasible_only``, None when infeasible."""
        with warnings.catch_warnings():  # scipy passes mip_abs_gap (a HiGHS option) verbatim
            warnings.filterwarnings("ignore", r"Unrecognized options detected: \{'mip_abs_gap'\}\. "
                                    "These will be passed to HiGHS verbatim", RuntimeWarning)
            res = milp(
                cost, integrality=self._integrality, bounds=Bounds(lo, hi),
                constraints=[LinearConstraint(self._A, self._lb, self._ub), *extra],
                options={"mip_rel_gap": 0.0, "mip_abs_gap": 0.0, "presolve": True},
            )
        if feasible_only and res.status == 2:
            return None
        if res.status != 0:
            raise RuntimeError(f"MILP failed: {res.message}")
        return res

    def _point_changed(self, x: list[float], sol: np.ndarray, fixed: set[int], c: int):
        """The point a MILP solution encodes, if XGBoost scores it as a change."""
        z = np.round(sol).astype(int)
        point = list(x)
        for f in self.used:
            if f in fixed:
                continue
            chosen = [d for (g, d), var in self._wvar.items() if g == f and z[var] == 1]
            if chosen:
                point[f] = chosen[0]
                continue
            T = self.thresholds[f]
            k = sum(1 - z[self._zvar[f, j]] for j in range(len(T)))  # thresholds <= x_f
            if k != int(np.searchsorted(T, np.float32(x[f]), side="right")):
                point[f] = float(self._choices(f)[k])
        return self._first_changed(np.asarray([point], dtype=np.float32), c)

    def entails(self, x: Sequence, fixed: Iterable[int]) -> bool:
        return self.counterexample(x, fixed) is None

    def check_axp(self, x: Sequence, features: Iterable[int]) -> bool:
        """Sufficient, and no single feature can be dropped."""
        s = set(features)
        return self.entails(x, s) and all(not self.entails(x, s - {i}) for i in s)

    def check_cxp(self, x: Sequence, features: Iterable[int]) -> bool:
        """Freeing it changes the class; re-fixing any single feature of it does not."""
        y = set(features)
        rest = set(range(self.n_features)) - y
        return (not self.entails(x, rest)) and all(self.entails(x, rest | {i}) for i in y)


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _checker(model, ties: str, domains) -> BoostedChecker:
    """``model`` itself if a checker; else the checker built once per model object."""
    if isinstance(model, BoostedChecker):
        if (model.ties, model.domains) != (ties, domains):
            raise ValueError("the checker was built with other ties/domains settings")
        return model
    if isinstance(model, str | Path):
        return BoostedChecker(model, ties=ties, domains=domains)
    key = (ties, None if domains is None else tuple(map(tuple, domains)))
    per_model = _CACHE.setdefault(model, {})
    if key not in per_model:
        per_model[key] = BoostedChecker(model, ties=ties, domains=domains)
    return per_model[key]


def check_axp(model, x, features, ties: str = "change", domains=None) -> bool:
    """Is ``features`` an AXp of ``model`` (Booster, XGBClassifier, path or checker) at x?"""
    return _checker(model, ties, domains).check_axp(x, features)


def check_cxp(model, x, features, ties: str = "change", domains=None) -> bool:
    """Is ``features`` a CXp of ``model`` (Booster, XGBClassifier, path or checker) at x?"""
    return _checker(model, ties, domains).check_cxp(x, features)
