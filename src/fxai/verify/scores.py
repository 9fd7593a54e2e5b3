"""Independent checker of AXps / CXps of multi-class XGBoost models, random forests,
HistGradientBoosting and LightGBM models (numeric and categorical splits, missing values):
one MILP per rival class, solved by HiGHS, every answer confirmed by the library's own
predict.

Shares no code with the branch-and-bound oracle (:mod:`fxai.oracles.scores`) nor with its
model readers: forests are read from scikit-learn's ``tree_`` arrays (left iff
``float32(x) <= t``), XGBoost from ``Booster.trees_to_dataframe()`` (left iff
``float32(x) < t``; tree ``i`` scores class ``i % n_classes``), HistGradientBoosting from
its ``_predictors`` nodes and LightGBM from ``dump_model`` (left iff ``x <= t`` in float64;
two classes scored ``[0, raw]``, the raw scores by ``decision_function`` /
``predict(raw_score=True)``). A point's class is the
library's: ``predict`` of a soft-vote forest; for a hard vote, the first class of most
votes of the trees' own ``predict``; for XGBoost the first class of highest float32 margin
(``inplace_predict(predict_type="margin")``).

Categories and missing values, as the libraries route them. A HistGradientBoosting
categorical feature takes its encoder's categories and one more value, "any other", which
its predict reads as missing: a node sends category j left iff bit j of its
``raw_left_cat_bitsets`` is set, and a missing value by ``missing_go_to_left``; a numeric
split sends NaN by ``missing_go_to_left`` too (threshold +inf: every number left). A
LightGBM ``==`` split sends x left iff x is a number whose integer part (toward 0) is one
of its categories, i.e. x in (-1, 1) for 0 and [c, c + 1) for c; a ``<=`` split sends NaN by
``default_left`` (missing type "NaN") or as 0 (missing type "None"). With ``missing`` every
feature of those two also takes NaN.

Encoding (Kantchelian et al. 2016, as :mod:`fxai.verify.boosted`): per used numeric feature
its sorted cuts, binaries z_fj = [x_f left of cut j], z_fj <= z_f(j+1); with a finite domain
one binary per value (z_fj = sum of the values left of cut j); with NaN a binary m_f, every
z_fj <= 1 - m_f; per categorical feature one binary per category (summing to 1). A node's
left side is a linear form of them: z_fj (+ m_f when NaN goes left), a sum of differences
z_f(hi) - z_f(lo) for a LightGBM category split, the categories going left for a categorical
one. Per tree leaf variables in [0, 1] summing to 1, the leaves under a split's left child
summing to at most its left form and those under its right child to at most 1 minus it.
Fixed features have their binaries fixed by the instance. The rounding bound of a margin:
a sum of n terms in precision u (float32 for XGBoost, float64 else) is within n u times the
sum of its terms' magnitudes, four times that for the two classes of a margin, at least
1e-12. ``tol`` is that bound, or 1e-6 of the leaves' total if larger (HiGHS's tolerances).
For each rival class j the MILP asks for a point whose margin ``score_c - score_j`` is at
most ``tol`` (a cap, no objective): none, and c is kept against j; one is rebuilt from the
binaries and scored by the library, a counterexample iff its class is not c. A point the
library keeps lies within ``tol`` of a tie (else the encoding disagrees with the model, and
the checker raises rather than guess): it is excluded by a no-good cut on the leaves of the
trees that score c and j differently and the MILP asked again, so every leaf combination
near the tie is scored by the library, whose class is a function of the leaves reached (its
own sums in its own order, then its tie rule). More than ``band_max`` kept: the answer is
:class:`Undecided`, never "keeps the class". Before the MILPs, a few seeded random
completions are scored by the library: a counterexample among them is one (the check stays
exact).
"""

from __future__ import annotations

import logging
import math
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from fxai.models.boosted import booster
from fxai.models.coded import missing_value, same_value
from fxai.models.kinds import is_kind, is_xgboost
from fxai.models.lgbm import booster as lgbm_booster
from fxai.verify.named import as_fitted, named
from fxai.verify.score_leaves import LeafSearch, category_ends

_CUSHION = 1e-6  # the MILP's margin cap: at least this much of the leaves' total (HiGHS's
# feasibility tolerances are 1e-7 to 1e-6)
log = logging.getLogger("fxai.verify")


@dataclass(frozen=True)
class Undecided:
    """The checker's answer to a question it cannot decide exactly (never "keeps the
    class"): ``reason`` says why."""

    reason: str


class Tree(NamedTuple):
    """One tree as the checker reads it: per node its feature (-1 at a leaf), threshold,
    children and per-class leaf score; ``nan_left``: per node, does NaN (for a categorical
    feature: any other value) go left (None: NaN is not a value); ``cats``: per categorical
    node the category codes that go left."""

    feat: np.ndarray
    thr: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    nan_left: np.ndarray | None = None
    cats: dict[int, frozenset[int]] | None = None


class Group(NamedTuple):
    """Features that take their values jointly: one of the rows of ``values`` (a column per
    feature of ``inputs``), each row with its binary ``vars``."""

    inputs: tuple[int, ...]
    values: np.ndarray
    vars: tuple[int, ...]


class ScoreChecker:
    """MILP checks for one multi-class XGBoost model, random forest (``vote``: "soft" or
    "hard"), HistGradientBoosting or LightGBM model at instance ``x`` (raw values: a
    HistGradientBoosting category as its encoder knows it); ``domains[f]``: feature f's
    values, or None; ``missing``: every feature of a HistGradientBoosting or LightGBM model
    also takes NaN; ``groups``: (features, rows of their joint values) for features that
    take one of those rows, x's among them (a pipeline's one-hot columns). ``samples``
    seeded random completions are scored first (0: none), then the leaf search
    (:mod:`fxai.verify.score_leaves`; ``leaves=False``: none) before the MILPs."""

    def __init__(self, model, x: Sequence, domains: Sequence | None = None,
                 vote: str | None = None, samples: int = 64, missing: bool = False,
                 groups: Sequence[tuple[Sequence[int], Sequence]] | None = None,
                 leaves: bool = True, band_max: int = 200):
        self.model, self.vote, self.samples = model, vote or "soft", samples
        self.band_max = band_max
        self._leaves = None if leaves else False  # the leaf search, built on first use
        self._joint = [(tuple(int(k) for k in inputs), np.asarray(rows, dtype=np.float64))
                       for inputs, rows in groups or ()]
        if self.vote not in ("soft", "hard"):
            raise ValueError(f"vote must be 'soft' or 'hard', not {vote!r}")
        if is_kind(model, "lightgbm"):  # its predict: the booster's, by argmax
            model = self.model = lgbm_booster(model)
        trees, self.test, k, self.n_features, self.categories = _reading(model, self.vote)
        if missing and self.test == "lt32":
            raise ValueError("missing=True: only for HistGradientBoosting, LightGBM and "
                             "random-forest models")
        self.missing = missing
        self._trees = trees
        self.raw = np.array([v if f in self.categories else _number(v)
                             for f, v in enumerate(x)], dtype=object)
        self.x = np.array([self._code(f, v) if f in self.categories else v
                           for f, v in enumerate(self.raw)], dtype=np.float64)
        nan = [f for f in range(self.n_features)
               if f not in self.categories and math.isnan(self.x[f])]
        if nan and not missing:
            raise ValueError(f"instance has missing values (NaN) at features {nan}: "
                             + ("pass missing=True" if self.test != "lt32" else "not supported"))
        self.domains = list(domains) if domains is not None else [None] * self.n_features
        self.c = int(self.classes_of(self.raw[None])[0])
        self.k = k
        self._encode(trees)
        self._kept = _Rows(self.n_features)  # sets that keep the class
        self._points: list[np.ndarray] = []  # counterexamples, and where they agree with x
        self._agree = _Rows(self.n_features)

    def _code(self, f: int, v) -> int:
        """The code of raw value ``v`` of categorical feature f: its category's position,
        or the number of categories for any other value (and NaN)."""
        known = self.categories[f]
        return next((j for j, w in enumerate(known) if same_value(v, w)), len(known))

    # ---- the library's class of points ---------------------------------------------
    def classes_of(self, X: np.ndarray) -> np.ndarray:
        """Class index of each row by the library itself (see the module)."""
        if is_kind(self.model, "lightgbm"):
            p = self.model.predict(np.asarray(X, dtype=np.float64))
            return (p > 1 - p).astype(int) if p.ndim == 1 else np.argmax(p, axis=1)
        if is_xgboost(self.model):
            return np.argmax(self._scores(X), axis=1)
        if self.test == "le64":  # HistGradientBoosting
            return np.searchsorted(self.model.classes_, self.model.predict(self._frame(X)))
        X = np.asarray(X, dtype=np.float64)
        if self.vote == "soft":
            return np.searchsorted(self.model.classes_, self.model.predict(named(self.model, X)))
        return np.argmax(self._votes(X), axis=1)

    def _frame(self, X: np.ndarray):
        """Rows of raw values as a HistGradientBoosting model takes them."""
        if not self.categories:
            return named(self.model, np.asarray(X, dtype=np.float64))
        return as_fitted(self.model, X)

    def _scores(self, X: np.ndarray) -> np.ndarray:
        """The library's per-class scores (XGBoost margins, forest probabilities or votes)."""
        if is_xgboost(self.model):
            m = booster(self.model).inplace_predict(np.asarray(X, dtype=np.float32),
                                                     predict_type="margin")
            return np.atleast_2d(m).astype(np.float64)
        if self.test == "le64" or is_kind(self.model, "gradient_boosting"):  # raw scores
            r = (self.model.predict(np.asarray(X, dtype=np.float64), raw_score=True)
                 if is_kind(self.model, "lightgbm") else
                 self.model.decision_function(self._frame(X)))
            r = np.asarray(r, dtype=np.float64)
            return np.column_stack([np.zeros(len(r)), r]) if r.ndim == 1 else r
        X = np.asarray(X, dtype=np.float64)
        if self.vote == "soft":
            return self.model.predict_proba(named(self.model, X)) * len(self.model.estimators_)
        return self._votes(X).astype(np.float64)

    def _votes(self, X: np.ndarray) -> np.ndarray:
        """Per row and class, the number of trees whose own ``predict`` gives the class (in
        float32, as the forest passes it to them: ``check_input=False``)."""
        X32 = np.ascontiguousarray(X, dtype=np.float32)
        votes = np.array([t.predict(X32, check_input=False) for t in self.model.estimators_])
        return np.stack([(votes == j).sum(axis=0) for j in range(len(self.model.classes_))],
                        axis=1)

    def _leaf(self, tree: Tree, x: np.ndarray) -> int:
        """The leaf of one tree that x (codes for categorical features) reaches."""
        node = 0
        while tree.left[node] >= 0:
            node = tree.left[node] if self._goes_left(tree, node, x) else tree.right[node]
        return int(node)

    def _goes_left(self, tree: Tree, node: int, x: np.ndarray) -> bool:
        f = int(tree.feat[node])
        v = float(x[f])
        if f in self.categories:
            if v < len(self.categories[f]):
                return int(v) in tree.cats[node]
            return bool(tree.nan_left[node])
        if tree.cats and node in tree.cats:  # LightGBM: the integer part, toward 0
            return math.isfinite(v) and int(v) >= 0 and int(v) in tree.cats[node]
        if math.isnan(v):
            return bool(tree.nan_left[node])
        return self._left(v, tree.thr[node])

    # ---- encoding ------------------------------------------------------------------
    def _features(self, trees: list[Tree]) -> int:
        """Per used numeric feature its sorted cuts (``cuts``), the indices of its binaries
        ``z[f, j]`` (x_f left of cut j) and with NaN of one for NaN (``m[f]``); per group
        (``groups``, a feature with a domain is one of its own) one binary per row; per
        used categorical feature one binary per code (``codes[f]``: (code, index));
        returns their number."""
        cuts: dict[int, set[float]] = {}
        used: set[int] = set()
        for tree in trees:
            for node in np.flatnonzero(tree.left >= 0):
                f = int(tree.feat[node])
                used.add(f)
                if f in self.categories:
                    continue
                ts = cuts.setdefault(f, set())
                if tree.cats and node in tree.cats:
                    ts.update(e for c in tree.cats[node] if c >= 0 for e in category_ends(c))
                elif math.isfinite(tree.thr[node]):
                    ts.add(self._cut(tree.thr[node]))
        self.cuts = {f: np.array(sorted(ts)) for f, ts in sorted(cuts.items())}
        nv = 0
        self.z: dict[tuple[int, int], int] = {}
        self.m: dict[int, int] = {}
        self.codes: dict[int, list[tuple[int, int]]] = {}
        for f, T in self.cuts.items():
            for j in range(len(T)):
                self.z[f, j] = nv
                nv += 1
            if self.missing:
                self.m[f] = nv
                nv += 1
        joint = list(self._joint)
        grouped = {k for inputs, _ in joint for k in inputs}
        for f in self.cuts:
            if self.domains[f] is not None and f not in grouped:
                values = sorted({float(v) for v in self.domains[f]})
                values = [v for v in values if not math.isnan(v)]
                joint.append(((f,), np.array(values, dtype=np.float64).reshape(-1, 1)))
        self.groups: list[Group] = []
        for inputs, rows in joint:
            if not any(k in self.cuts for k in inputs):
                continue  # the trees do not read them
            self.groups.append(Group(inputs, rows, tuple(range(nv, nv + len(rows)))))
            nv += len(rows)
        self.group_of = {k: g for g in self.groups for k in g.inputs}
        for f in sorted(used & set(self.categories)):
            allowed = range(len(self.categories[f]) + 1)
            if self.domains[f] is not None:
                allowed = sorted({self._code(f, v) for v in self.domains[f]}
                                 | {int(self.x[f])}
                                 | ({len(self.categories[f])} if self.missing else set()))
            self.codes[f] = []
            for code in allowed:
                self.codes[f].append((code, nv))
                nv += 1
        return nv

    def _side(self, tree: Tree, node: int) -> tuple[dict[int, float], float]:
        """The node's left side as a linear form of the binaries: (coefficients, constant)."""
        f = int(tree.feat[node])
        nan_left = tree.nan_left is not None and bool(tree.nan_left[node])
        if f in self.categories:
            known = len(self.categories[f])
            return {v: 1.0 for code, v in self.codes[f]
                    if (code in tree.cats[node] if code < known else nan_left)}, 0.0
        m = self.m.get(f)
        if tree.cats and node in tree.cats:  # x in (lo, hi] for each category
            form: dict[int, float] = {}
            for c in (c for c in tree.cats[node] if c >= 0):
                lo, hi = (self.z[f, int(np.searchsorted(self.cuts[f], e))]
                          for e in category_ends(c))
                form[hi] = form.get(hi, 0.0) + 1.0
                form[lo] = form.get(lo, 0.0) - 1.0
            return {v: a for v, a in form.items() if a}, 0.0
        t = float(tree.thr[node])
        nan = {m: 1.0} if m is not None and nan_left else {}
        if math.isinf(t):  # +inf: every number left; -inf: none
            return ({m: -1.0} if m is not None and not nan_left else {}, 1.0) if t > 0 else (
                nan, 0.0)
        zj = self.z[f, int(np.searchsorted(self.cuts[f], self._cut(t)))]
        return {zj: 1.0, **nan}, 0.0

    def _encode(self, trees: list[Tree]) -> None:
        """The binaries, the leaves' scores (one leaf variable each, tree by tree) and the
        intercepts; the MILP's constraints are built on its first question."""
        self._n_int = self._nv = self._features(trees)
        self._leaf_scores = np.array([tree.value[node] for tree in trees
                                      for node in np.flatnonzero(tree.left < 0)],
                                     dtype=np.float64).reshape(-1, self.k)
        self._nv += len(self._leaf_scores)
        self._integrality = np.r_[np.ones(self._n_int), np.zeros(self._nv - self._n_int)]
        sizes = np.cumsum([0] + [int((tree.left < 0).sum()) for tree in trees])
        self._tree_spans = list(zip(sizes[:-1], sizes[1:], strict=True))  # leaf vars per tree
        self._base = self._scores(self.raw[None])[0] - sum(
            tree.value[self._leaf(tree, self.x)] for tree in trees)
        self._tols = self._rounding(trees)
        total = float(np.abs(self._leaf_scores).sum() + np.abs(self._base).sum())
        self._caps = np.maximum(self._tols, _CUSHION * max(1.0, total))
        self._moves: dict[int, np.ndarray] = {}
        self._cons: LinearConstraint | None = None

    def _rounding(self, trees: list[Tree]) -> np.ndarray:
        """Per rival j, ``tol``: a bound on the library's rounding of the margin
        ``score_c - score_j`` and on the leaf search's own float64 sums. A sum of n terms in
        precision u (float32 for XGBoost, float64 else) is within n u times the sum of its
        terms' magnitudes, bounded per class by each tree's largest leaf and the intercept;
        twice that for the two classes, twice again, and at least 1e-12 (the library's
        probabilities, a sigmoid or softmax of the margins, before its argmax)."""
        peak = np.abs(self._base).copy()  # per class: the largest terms of its sum
        terms = np.ones(self.k)
        for tree in trees:
            top = np.abs(tree.value[tree.left < 0]).max(axis=0)
            peak += top
            terms += top > 0
        own = terms * peak * (2.0**-24 if self.test == "lt32" else 2.0**-53)
        return np.maximum(4.0 * (own[self.c] + own), 1e-12)

    def _constraints(self) -> LinearConstraint:
        """The MILP's constraints (see the module), built once."""
        if self._cons is not None:
            return self._cons
        rows: list[tuple[dict[int, float], float, float]] = []
        for f, T in self.cuts.items():
            rows += [({self.z[f, j]: 1.0, self.z[f, j + 1]: -1.0}, -np.inf, 0.0)
                     for j in range(len(T) - 1)]
            if f in self.m and f not in self.group_of and len(T):  # NaN: right of every cut
                rows.append(({self.z[f, len(T) - 1]: 1.0, self.m[f]: 1.0}, -np.inf, 1.0))
        for g in self.groups:  # one row (or NaN); each cut's side is the row's
            nan = {self.m[k]: 1.0 for k in g.inputs if k in self.m}
            rows.append(({**dict.fromkeys(g.vars, 1.0), **nan}, 1.0, 1.0))
            for pos, k in enumerate(g.inputs):
                for j, t in enumerate(self.cuts.get(k, ())):
                    left = {v: -1.0 for v, d in zip(g.vars, g.values[:, pos], strict=True)
                            if self._left(d, t)}
                    rows.append(({self.z[k, j]: 1.0, **left}, 0.0, 0.0))
        for codes in self.codes.values():
            rows.append(({v: 1.0 for _, v in codes}, 1.0, 1.0))
        nv = self._n_int
        for tree in self._trees:
            leaves = {}
            for node in np.flatnonzero(tree.left < 0):
                leaves[int(node)] = nv
                nv += 1
            rows.append((dict.fromkeys(leaves.values(), 1.0), 1.0, 1.0))
            under = _leaves_under(tree.left, tree.right, leaves)
            for node in np.flatnonzero(tree.left >= 0):
                form, const = self._side(tree, int(node))
                left, right = under[tree.left[node]], under[tree.right[node]]
                rows.append(({**dict.fromkeys(left, 1.0), **{v: -a for v, a in form.items()}},
                             -np.inf, const))
                rows.append(({**dict.fromkeys(right, 1.0), **form}, -np.inf, 1.0 - const))
        r, c, v = [], [], []
        for i, (coefs, _, _) in enumerate(rows):
            r += [i] * len(coefs)
            c += list(coefs)
            v += list(coefs.values())
        A = coo_matrix((v, (r, c)), shape=(len(rows), self._nv)).tocsr()
        self._cons = LinearConstraint(A, np.array([lo for _, lo, _ in rows]),
                                      np.array([hi for _, _, hi in rows]))
        return self._cons

    def _cut(self, t: float) -> float:
        """The value that decides as threshold ``t`` does: XGBoost's split itself (a float32,
        read back from its text: the nearest float32); for a forest's float64 threshold the
        largest float32 <= t (left iff ``float32(x) <= t``), so thresholds with no float32
        between them are one cut and no interval of cuts is empty of float32 points; a
        float64 test (``x <= t``) keeps t."""
        if self.test == "le64":
            return float(t)
        a = np.float32(t)
        if self.test == "lt32":
            return float(a)
        return float(a if float(a) <= t else np.nextafter(a, np.float32(-np.inf)))

    def _left(self, value: float, t: float) -> bool:
        """Does the number ``value`` go to the left of cut ``t`` (the library's test)?"""
        if self.test == "le64":
            return bool(float(value) <= t)
        v = np.float32(value)
        return bool(v < np.float32(t)) if self.test == "lt32" else bool(float(v) <= t)

    def _rebuild(self, sol: np.ndarray, fixed: set[int]) -> np.ndarray:
        """The point of the MILP solution: fixed features keep x, free ones take a value on
        the side of each cut their binaries say (NaN, a domain value, a category)."""
        p = self.raw.copy()
        for f, codes in self.codes.items():
            if f not in fixed:
                p[f] = self._category(f, max(codes, key=lambda cv: sol[cv[1]])[0])
        for g in self.groups:
            if not fixed.isdisjoint(g.inputs):
                continue
            if any(sol[self.m[k]] > 0.5 for k in g.inputs if k in self.m):
                p[list(g.inputs)] = math.nan
            else:
                p[list(g.inputs)] = g.values[int(np.argmax(sol[list(g.vars)]))]
        for f, T in self.cuts.items():
            if f in fixed or f in self.group_of:
                continue
            if f in self.m and sol[self.m[f]] > 0.5:
                p[f] = math.nan
            else:
                z = np.array([sol[self.z[f, j]] > 0.5 for j in range(len(T))])
                p[f] = self._inside(T, int(np.argmax(z)) if z.any() else len(T))
        return p

    def _category(self, f: int, code: int):
        """The raw value of code ``code`` of categorical feature f (any other value: x's
        own when it is one, else NaN, which the library routes the same way)."""
        known = self.categories[f]
        if code < len(known):
            return known[code]
        return self.raw[f] if int(self.x[f]) == len(known) else math.nan

    def _inside(self, T: np.ndarray, j: int) -> float:
        """A value between cut j-1 and cut j (below all for j = 0, above all for len(T))."""
        f32 = np.float32
        if not len(T):
            return 0.0
        if self.test == "le64":  # left of t iff x <= t: (T[j-1], T[j]]
            return float(T[j]) if j < len(T) else float(np.nextafter(T[-1], np.inf))
        if self.test == "lt32":  # left of t iff x < t: [T[j-1], T[j])
            return float(f32(T[j - 1])) if j > 0 else float(np.nextafter(f32(T[0]), f32(-np.inf)))
        # left of t iff float32(x) <= t: (T[j-1], T[j]]
        if j < len(T):
            a = f32(T[j])
            return float(a if float(a) <= T[j] else np.nextafter(a, f32(-np.inf)))
        a = f32(T[-1])
        return float(a if float(a) > T[-1] else np.nextafter(a, f32(np.inf)))

    # ---- queries -------------------------------------------------------------------
    def counterexample(self, fixed: Iterable[int]) -> np.ndarray | None | Undecided:
        """A point (raw values) agreeing with x on ``fixed`` of another class, None, or
        :class:`Undecided`."""
        return self.counterexamples([fixed])[0]

    def entails(self, fixed: Iterable[int]) -> bool | None:
        """Does fixing ``fixed`` keep the class? (None: undecided.)"""
        return self.weak_axps([fixed])[0]

    def weak_axps(self, sets: Sequence[Iterable[int]]) -> list[bool | None]:
        """Whether fixing each set keeps the prediction (None: undecided)."""
        return [None if isinstance(p, Undecided) else p is None
                for p in self.counterexamples(sets)]

    def counterexamples(self, sets: Sequence[Iterable[int]]
                        ) -> list[np.ndarray | None | Undecided]:
        """Per set a counterexample, None or :class:`Undecided`: the leaf search, then for
        the sets it leaves the seeded samples of every set scored in one library call, then
        their MILPs; the points of optima that clearly beat the prediction are confirmed in
        one more call (the checker raises if the library keeps the prediction at one: the
        encoding would disagree with the model).
        Entailment is monotone, so a set is decided without a MILP when it contains a set
        that keeps the class, or when a counterexample found before agrees with x on it."""
        sets = [set(s) for s in sets]
        found: list[np.ndarray | None] = [None] * len(sets)
        todo = []
        for i, fixed in enumerate(sets):
            found[i] = self._pooled(fixed)
            if found[i] is None and not self._known(fixed):
                todo.append(i)
        left = self._searched(sets, todo, found)
        for i, hit in zip(left, self._sampled([sets[i] for i in left]), strict=True):
            if hit is not None:
                found[i] = hit
                self._seen(hit)
        for i in left:
            fixed = sets[i]
            found[i] = found[i] if found[i] is not None else self._pooled(fixed)
            if found[i] is not None or self._known(fixed):
                continue
            found[i] = self._solve(fixed)
            if found[i] is None:
                self._kept.add(fixed)
            elif isinstance(found[i], Undecided):
                log.warning("check: undecided for the features %s fixed: %s", sorted(fixed),
                            found[i].reason)
            else:
                self._seen(found[i])
        return found

    def _searched(self, sets: list[set[int]], todo: list[int], found: list) -> list[int]:
        """The leaf search on the sets ``todo``, rival by rival: a set kept against every
        rival keeps the class, a candidate the library confirms is a counterexample (in
        ``found``); returns the sets left to the MILP."""
        if self._leaves is None:
            try:
                self._leaves = LeafSearch(self)
            except ValueError:  # groups of several features
                self._leaves = False
        if not self._leaves or not todo:
            return todo
        left, milp = list(todo), []
        for j in (j for j in range(self.k) if j != self.c):
            if not left:
                break
            status, points = self._leaves.decide([sets[i] for i in left], j, self._tols[j])
            cand = np.flatnonzero(status == 0)
            if cand.size:
                kept = self.classes_of(np.stack([points[q] for q in cand])) == self.c
                status[cand[kept]] = -1  # not confirmed: the MILP decides
                for q in cand[~kept]:
                    found[left[q]] = points[q]
                    self._seen(points[q])
            milp += [i for i, st in zip(left, status, strict=True) if st == -1]
            left = [i for i, st in zip(left, status, strict=True) if st == 1]
        for i in left:
            self._kept.add(sets[i])
        return milp

    def _known(self, fixed: set[int]) -> bool:
        """Is fixing ``fixed`` known to keep the class (it contains a set that does)?"""
        outside = np.ones(self.n_features, dtype=bool)
        outside[list(fixed)] = False
        return bool((~self._kept.rows[:, outside].any(axis=1)).any())

    def _seen(self, point: np.ndarray) -> None:
        """Keep a counterexample: it is one for every set on which it agrees with x."""
        same = [same_value(p, r) or (missing_value(p) and missing_value(r))
                for p, r in zip(point, self.raw, strict=True)]
        self._points.append(point)
        self._agree.add(np.flatnonzero(same))

    def _pooled(self, fixed: set[int]) -> np.ndarray | None:
        """A counterexample kept so far that agrees with x on ``fixed``, or None."""
        hit = np.flatnonzero(self._agree.rows[:, list(fixed)].all(axis=1))
        return self._points[hit[0]] if hit.size else None

    def _solve(self, fixed: set[int]) -> np.ndarray | None | Undecided:
        """A counterexample, None or :class:`Undecided`, rival by rival: every leaf
        combination whose margin ``score_c - score_j`` is at most ``tol`` (the bound on the
        library's rounding) is a MILP solution (a margin cap, no objective), scored by the
        library, then excluded by a no-good cut on the leaves of the trees that score c or
        j differently (the others leave both scores as they are); a point of another class
        is a counterexample; none left: c is kept against j. A point the library keeps whose
        margin is below ``-tol``: the encoding disagrees with the model (RuntimeError).
        More than ``band_max`` points kept: :class:`Undecided`."""
        lo, hi = np.zeros(self._nv), np.ones(self._nv)
        for var, value in self._pinned(fixed).items():
            lo[var] = hi[var] = float(value)
        first, undecided = self._n_int, None
        for j in range(self.k):
            if j == self.c:
                continue
            cost = np.zeros(self._nv)  # score_c - score_j, less the intercepts'
            cost[first:] = self._leaf_scores[:, self.c] - self._leaf_scores[:, j]
            shift, tol = self._base[self.c] - self._base[j], self._caps[j]
            moves = self._moving(j)
            cuts = [LinearConstraint(cost, -np.inf, tol - shift)]
            for _ in range(self.band_max):
                sol = self._milp(cuts, lo, hi)
                if sol is None:
                    break  # c kept against j
                point = self._rebuild(sol, fixed)
                if self.classes_of(point[None])[0] != self.c:
                    return point
                if float(cost @ sol) + shift < -tol:
                    raise RuntimeError("a point beats the prediction by more than the "
                                       "rounding but the library keeps it: the encoding "
                                       "disagrees with the model")
                picked = first + np.flatnonzero(moves & (sol[first:] > 0.5))
                if not picked.size:
                    break  # no tree scores c or j differently: one margin for all
                row = np.zeros(self._nv)
                row[picked] = 1.0
                cuts.append(LinearConstraint(row, -np.inf, len(picked) - 1))
            else:
                undecided = Undecided(
                    f"more than {self.band_max} leaf combinations within {tol:g} of a "
                    f"tie between classes {self.c} and {j}: the library's rounding was not "
                    "decided for all of them")
        return undecided

    def _moving(self, j: int) -> np.ndarray:
        """The leaf variables of the trees that score c and j differently (kept per j)."""
        if j not in self._moves:
            scores = self._leaf_scores[:, [self.c, j]]
            moves = np.zeros(len(scores), dtype=bool)
            for a, b in self._tree_spans:
                moves[a:b] = bool((scores[a:b] != scores[a]).any())
            self._moves[j] = moves
        return self._moves[j]

    def _milp(self, extra: list, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
        """A solution of the constraints and ``extra`` (HiGHS, no objective), or None when
        there is none."""
        res = milp(np.zeros(self._nv), constraints=[self._constraints(), *extra],
                   integrality=self._integrality, bounds=Bounds(lo, hi))
        if res.status == 2:
            return None
        if res.x is None:
            raise RuntimeError(f"HiGHS found no solution ({res.message})")
        return res.x

    def _pinned(self, fixed: set[int]) -> dict[int, bool]:
        """The binaries that the features in ``fixed`` set: index -> value (x's side of
        each cut; x's own row of a group, category or NaN)."""
        out = {}
        for f in fixed & set(self.codes):
            for code, var in self.codes[f]:
                out[var] = code == int(self.x[f])
        for f in fixed & set(self.cuts):
            nan = math.isnan(self.x[f])
            for j, t in enumerate(self.cuts[f]):
                out[self.z[f, j]] = not nan and self._left(self.x[f], t)
            if f in self.m:
                out[self.m[f]] = nan
        for g in self.groups:
            if fixed.issuperset(g.inputs):
                row = self.x[list(g.inputs)]
                same = (g.values == row if self.test == "le64" else
                        g.values.astype(np.float32) == row.astype(np.float32)).all(axis=1)
                out.update(zip(g.vars, same.tolist(), strict=True))
        return out

    def _sampled(self, sets: list[set[int]]) -> list[np.ndarray | None]:
        """Per set a counterexample among ``samples`` seeded random completions (free
        features on random sides of their cuts, or random rows of their group, categories
        or NaN), or None; all scored in one library call."""
        if self.samples == 0 or not sets:
            return [None] * len(sets)
        rng = np.random.default_rng(0)
        free = np.tile(self.raw.astype(object if self.categories else np.float64),
                       (self.samples, 1))
        for f, T in self.cuts.items():
            if f not in self.group_of:
                values = [self._inside(T, j) for j in range(len(T) + 1)]
                values += [math.nan] * (f in self.m)
                free[:, f] = [values[i] for i in rng.integers(0, len(values), self.samples)]
        for g in self.groups:
            nan = any(k in self.m for k in g.inputs)
            rows = np.vstack([g.values, np.full((int(nan), len(g.inputs)), math.nan)])
            free[:, list(g.inputs)] = rows[rng.integers(0, len(rows), self.samples)]
        for f, codes in self.codes.items():
            values = [self._category(f, code) for code, _ in codes]
            free[:, f] = [values[i] for i in rng.integers(0, len(values), self.samples)]
        pts = np.tile(free, (len(sets), 1))
        for i, fixed in enumerate(sets):
            keep = set(fixed) | {k for g in self.groups if not fixed.isdisjoint(g.inputs)
                                 for k in g.inputs}  # a group moves as a whole
            cols = sorted(keep)
            pts[i * self.samples:(i + 1) * self.samples, cols] = self.raw[cols]
        bad = (self.classes_of(pts) != self.c).reshape(len(sets), self.samples)
        return [pts[i * self.samples + int(np.argmax(b))] if b.any() else None
                for i, b in enumerate(bad)]


class _Rows:
    """A growing boolean matrix, a row per set of features."""

    def __init__(self, n_features: int):
        self._a, self._n = np.zeros((16, n_features), dtype=bool), 0

    def add(self, features: Iterable[int]) -> None:
        if self._n == len(self._a):
            self._a = np.vstack([self._a, np.zeros_like(self._a)])
        self._a[self._n, list(features)] = True
        self._n += 1

    @property
    def rows(self) -> np.ndarray:
        return self._a[:self._n]


def _number(v) -> float:
    return math.nan if v is None else float(v)


def _leaves_under(left, right, leaves: dict[int, int]) -> dict[int, list[int]]:
    """Per node, the leaf variables of its subtree."""
    out: dict[int, list[int]] = {}

    def walk(node: int) -> list[int]:
        if left[node] < 0:
            out[node] = [leaves[node]]
        else:
            out[node] = walk(int(left[node])) + walk(int(right[node]))
        return out[node]

    walk(0)
    return out


def reads(model) -> bool:
    """Does this checker read ``model``? (LightGBM: not with zero-as-missing routing.)"""
    try:
        _reading(lgbm_booster(model) if is_kind(model, "lightgbm") else model, "soft")
    except ValueError:
        return False
    return True


# per model (weakly held; an XGBoost model by its booster): what a refit replaces, and its
# readings by vote
_READINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _reading(model, vote: str):
    """:func:`_read`, kept per model until it is refitted."""
    key = booster(model) if is_xgboost(model) else model
    if is_kind(model, "lightgbm") or is_xgboost(model):
        token = (key.current_iteration() if is_kind(model, "lightgbm")
                 else key.num_boosted_rounds(),)
    elif hasattr(model, "_predictors"):
        token = (model._predictors,)
    elif is_kind(model, "gradient_boosting"):
        token = (model.estimators_, model.init_)
    else:
        token = tuple(e.tree_ for e in getattr(model, "estimators_", ()))
    kept = _READINGS.get(key)
    if kept is None or len(kept[0]) != len(token) or any(
            a is not b and a != b for a, b in zip(kept[0], token, strict=True)):
        kept = _READINGS[key] = (token, {})
    if vote not in kept[1]:
        kept[1][vote] = _read(model, vote)
    return kept[1][vote]


def _read(model, vote: str):
    """(trees, the test: "lt32" (``float32(x) < t``), "le32" (``float32(x) <= t``) or
    "le64" (``x <= t``), classes, features, per categorical feature its categories);
    ``ValueError`` for a model or split it does not read."""
    if is_kind(model, "lightgbm"):
        return _read_lightgbm(model)
    if is_kind(model, "hist_gradient"):
        return _read_hist_gradient(model)
    if is_kind(model, "gradient_boosting"):
        return _read_gradient_boosting(model)
    if is_xgboost(model):
        import json

        b = booster(model)
        cfg = json.loads(b.save_config())["learner"]
        k = int(cfg["learner_model_param"]["num_class"])
        if int(cfg["gradient_booster"]["gbtree_model_param"]["num_parallel_tree"]) != 1:
            raise ValueError("only one tree per class and round (num_parallel_tree 1)")
        n = int(cfg["learner_model_param"]["num_feature"])
        names = b.feature_names or [f"f{i}" for i in range(n)]
        index = {nm: i for i, nm in enumerate(names)}
        df = b.trees_to_dataframe()
        trees = []
        for t, grp in df.groupby("Tree"):
            ids = {nid: i for i, nid in enumerate(grp["ID"])}
            inner = (grp["Feature"] != "Leaf").to_numpy()
            feat = np.array([index[f] if ok else -1 for f, ok in zip(grp["Feature"], inner,
                                                                      strict=True)])
            thr = np.where(inner, grp["Split"].to_numpy(np.float64), 0.0)
            left = np.array([ids[y] if ok else -1 for y, ok in zip(grp["Yes"], inner,
                                                                   strict=True)])
            right = np.array([ids[y] if ok else -1 for y, ok in zip(grp["No"], inner,
                                                                    strict=True)])
            value = np.zeros((len(grp), k))
            value[:, int(t) % k] = np.where(inner, 0.0, grp["Gain"].to_numpy(np.float64))
            trees.append(Tree(feat, thr, left, right, value))
        return trees, "lt32", k, n, {}
    if not hasattr(model, "estimators_"):
        raise ValueError(f"no MILP reading of a {type(model).__name__}")
    k = len(model.classes_)
    trees = []
    for est in model.estimators_:
        t = est.tree_
        frac = t.value[:, 0, :k]
        value = frac if vote == "soft" else np.eye(k)[np.argmax(frac, axis=1)]
        feat = np.where(t.children_left < 0, -1, t.feature)
        trees.append(Tree(feat, t.threshold, t.children_left, t.children_right, value,
                          t.missing_go_to_left.astype(bool)))
    return trees, "le32", k, int(model.n_features_in_), {}


def _read_hist_gradient(model):
    """scikit-learn's ``_predictors`` nodes (left iff ``x <= num_threshold``, NaN by
    ``missing_go_to_left``; categories by bitset); two classes score ``[0, raw]``. With
    categorical features the model's own preprocessor puts their codes first."""
    n = int(model.n_features_in_)
    categorical = getattr(model, "is_categorical_", None)
    pre = getattr(model, "_preprocessor", None)
    order, categories = np.arange(n), {}
    if pre is not None and categorical is not None:
        order = np.concatenate([np.flatnonzero(categorical), np.flatnonzero(~categorical)])
        encoder = pre.named_transformers_["encoder"]
        for f, known in zip(np.flatnonzero(categorical), encoder.categories_, strict=True):
            categories[int(f)] = [v for v in known if not (isinstance(v, float)
                                                           and math.isnan(v))]
    per = int(model.n_trees_per_iteration_)
    k = max(2, per)
    trees = []
    for iteration in model._predictors:
        for cls, predictor in enumerate(iteration):
            nd = predictor.nodes
            leaf = nd["is_leaf"].astype(bool)
            value = np.zeros((len(nd), k))
            value[:, 1 if per == 1 else cls] = np.where(leaf, nd["value"], 0.0)
            feat = np.where(leaf, -1, order[nd["feature_idx"].astype(np.int64)])
            cats = {}
            for node in np.flatnonzero(~leaf & nd["is_categorical"].astype(bool)):
                bits = predictor.raw_left_cat_bitsets[nd["bitset_idx"][node]]
                size = len(categories[int(feat[node])])
                cats[int(node)] = frozenset(j for j in range(size)
                                            if (int(bits[j // 32]) >> (j % 32)) & 1)
            trees.append(Tree(feat, nd["num_threshold"].astype(np.float64),
                              np.where(leaf, -1, nd["left"].astype(np.int64)),
                              np.where(leaf, -1, nd["right"].astype(np.int64)), value,
                              nd["missing_go_to_left"].astype(bool), cats))
    return trees, "le64", k, n, categories


def _read_gradient_boosting(model):
    """scikit-learn's ``estimators_`` (regression trees per stage and class, left iff
    ``float32(x) <= t``), each leaf ``learning_rate * value``; two classes score
    ``[0, raw]``. The intercept is the library's score at the instance less its leaves
    (:meth:`ScoreChecker._encode`), so any constant init is read."""
    per = model.estimators_.shape[1]
    k = max(2, per)
    trees = []
    for stage in model.estimators_:
        for cls, est in enumerate(stage):
            t = est.tree_
            leaf = t.children_left < 0
            value = np.zeros((t.node_count, k))
            value[:, 1 if per == 1 else cls] = np.where(
                leaf, model.learning_rate * t.value[:, 0, 0], 0.0)
            trees.append(Tree(np.where(leaf, -1, t.feature), t.threshold, t.children_left,
                              t.children_right, value))
    return trees, "le32", k, int(model.n_features_in_), {}


_ZERO = float(np.float32(1e-35))  # LightGBM reads |x| <= 1e-35f as 0 before every test


def _read_lightgbm(booster):
    """LightGBM's ``dump_model`` (the iterations ``predict`` uses). A test ``x' <= t`` on the
    value ``x'`` it reads (0 for ``|x| <= 1e-35f``) is the test ``x <= t'`` on x itself, with
    ``t' = max(t, 1e-35f)`` for ``t >= 0`` and ``t' = min(t, below(-1e-35f))`` else."""
    best = booster.best_iteration
    doc = booster.dump_model(num_iteration=best if best > 0 else None)
    multi = doc["objective"].startswith("multiclass")
    per = int(doc["num_class"]) if multi else 1
    k = max(2, per)
    trees = []
    for i, info in enumerate(doc["tree_info"]):
        rows, cats = _lightgbm_rows(info["tree_structure"])
        feat, thr, left, right, leaf, nan_left = (np.array(col)
                                                   for col in zip(*rows, strict=True))
        value = np.zeros((len(rows), k))
        value[:, 1 if per == 1 else i % per] = leaf
        trees.append(Tree(feat, thr, left, right, value, nan_left.astype(bool), cats))
    return trees, "le64", k, int(doc["max_feature_idx"]) + 1, {}


def _lightgbm_rows(root: dict) -> tuple[list[list], dict[int, frozenset[int]]]:
    """(feature, effective threshold, left, right, leaf value, NaN goes left) per node of
    one dumped tree, root first (leaves have feature -1); per ``==`` node its categories."""
    rows: list[list] = []
    cats: dict[int, frozenset[int]] = {}
    stack = [(root, None, 0)]  # (node, parent row, which child: 2 left, 3 right)
    while stack:
        node, parent, side = stack.pop()
        at = len(rows)
        if parent is not None:
            rows[parent][side] = at
        if "leaf_value" in node:
            rows.append([-1, 0.0, -1, -1, float(node["leaf_value"]), False])
            continue
        if node["missing_type"] == "Zero":
            raise ValueError("zero-as-missing splits: not read by the MILP checker")
        t = node["threshold"]
        if node["decision_type"] == "==":  # NaN and negative numbers go right
            cats[at] = frozenset(int(c) for c in str(t).split("||"))
            t, nan_left = 0.0, False
        else:
            t = float(t)
            nan_left = (bool(node["default_left"]) if node["missing_type"] == "NaN"
                        else 0.0 <= t)  # "None": NaN is read as 0
            t = max(t, _ZERO) if t >= 0 else min(t, float(np.nextafter(-_ZERO, -np.inf)))
        rows.append([int(node["split_feature"]), t, -1, -1, 0.0, nan_left])
        stack += [(node["right_child"], at, 3), (node["left_child"], at, 2)]
    return rows, cats
