"""Independent checker of AXps / CXps of multi-class XGBoost models, random forests,
HistGradientBoosting and LightGBM models (numeric splits): one MILP per rival class, solved
by HiGHS, every answer confirmed by the library's own predict.

Shares no code with the branch-and-bound oracle (:mod:`fxai.oracles.scores`) nor with its
model readers: forests are read from scikit-learn's ``tree_`` arrays (left iff
``float32(x) <= t``), XGBoost from ``Booster.trees_to_dataframe()`` (left iff
``float32(x) < t``; tree ``i`` scores class ``i % n_classes``), HistGradientBoosting from
its ``_predictors`` nodes and LightGBM from ``dump_model`` (left iff ``x <= t`` in float64;
two classes scored ``[0, raw]``, the raw scores by ``decision_function`` /
``predict(raw_score=True)``). A point's class is the
library's: ``predict`` of a soft-vote forest; for a hard vote, the first class with most
votes of the trees' own ``predict``; for XGBoost the first class of highest float32 margin
(``inplace_predict(predict_type="margin")``).

Encoding (Kantchelian et al. 2016, as :mod:`fxai.verify.boosted`): per used feature its
sorted cuts, binaries z_fj = [x_f left of cut j], z_fj <= z_f(j+1); with a finite domain one
binary per value (z_fj = sum of the values left of cut j); per tree leaf variables in [0, 1]
summing to 1, the leaves under a split's left child summing to at most z_fj and those under
its right child to at most 1 - z_fj. Fixed features have their z fixed by the instance. For
each rival class j the MILP maximises score_j - score_c over the leaves; the optimal point,
rebuilt from z, is scored by the library: a counterexample iff its class is not c. If the
optimum shows a clearly better rival (by more than 1e-6 of the leaves' total) yet the
library keeps c, the checker raises rather than guess; a near-tie optimum the library keeps
is read as no counterexample (only another point as close to a tie, within HiGHS's
tolerance, could be misjudged). Before the MILPs, a few seeded random completions are
scored by the library: a counterexample among them is one (the check stays exact).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from fxai.models.kinds import is_kind, is_xgboost
from fxai.verify.named import named

_TOL = 1e-6  # relative to the leaves' total: far above float32 rounding of the sums


class ScoreChecker:
    """MILP checks for one multi-class XGBoost model or random forest (``vote``: "soft" or
    "hard" for a forest) at instance ``x``; ``domains[f]``: feature f's values, or None.
    ``samples`` seeded random completions are scored first (0: MILP only)."""

    def __init__(self, model, x: Sequence, domains: Sequence | None = None,
                 vote: str | None = None, samples: int = 64):
        self.model, self.vote, self.samples = model, vote or "soft", samples
        if self.vote not in ("soft", "hard"):
            raise ValueError(f"vote must be 'soft' or 'hard', not {vote!r}")
        if type(model).__name__ == "LGBMClassifier":
            model = self.model = model.booster_  # (its predict: the booster's, by argmax)
        trees, self.test, k, self.n_features = _read(model, self.vote)
        self._trees = trees
        self.x = np.asarray(x, dtype=np.float64)
        if np.isnan(self.x).any():
            raise ValueError("instance has missing values (NaN): not supported")
        self.domains = list(domains) if domains is not None else [None] * self.n_features
        self.c = int(self.classes_of(self.x[None])[0])
        self.k = k
        self._encode(trees)

    # ---- the library's class of points ---------------------------------------------
    def classes_of(self, X: np.ndarray) -> np.ndarray:
        """Class index of each row by the library itself (see the module)."""
        X = np.asarray(X, dtype=np.float64)
        if _is_lightgbm_booster(self.model):
            p = self.model.predict(X)
            return (p > 1 - p).astype(int) if p.ndim == 1 else np.argmax(p, axis=1)
        if is_xgboost(self.model):
            b = _booster(self.model)
            m = b.inplace_predict(X.astype(np.float32), predict_type="margin")
            return np.argmax(np.atleast_2d(m), axis=1)
        if self.vote == "soft":
            return np.searchsorted(self.model.classes_, self.model.predict(named(self.model, X)))
        return np.argmax(self._votes(X), axis=1)

    def _scores(self, X: np.ndarray) -> np.ndarray:
        """The library's per-class scores (XGBoost margins, forest probabilities or votes)."""
        if is_xgboost(self.model):
            m = _booster(self.model).inplace_predict(X.astype(np.float32), predict_type="margin")
            return np.atleast_2d(m).astype(np.float64)
        if self.test == "le64":  # HistGradientBoosting, LightGBM: raw scores
            r = (self.model.predict(X, raw_score=True) if _is_lightgbm_booster(self.model) else
                 self.model.decision_function(named(self.model, X)))
            r = np.asarray(r, dtype=np.float64)
            return np.column_stack([np.zeros(len(r)), r]) if r.ndim == 1 else r
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

    def _leaf(self, feat, thr, left, right, x) -> int:
        """The leaf of one tree that x reaches (the library's float32 test)."""
        node = 0
        while left[node] >= 0:
            node = left[node] if self._left(x[feat[node]], thr[node]) else right[node]
        return int(node)

    # ---- encoding ------------------------------------------------------------------
    def _features(self, trees) -> int:
        """Per used feature its sorted cuts (``cuts``), the indices of its binaries
        ``z[f, j]`` (x_f left of cut j) and, with a domain, of one binary per value
        (``w[f]``: (value, index)); returns their number."""
        cuts: dict[int, set[float]] = {}
        for feat, thr, _, _, _ in trees:
            for f, t in zip(feat, thr, strict=True):
                if f >= 0:
                    cuts.setdefault(int(f), set()).add(self._cut(t))
        self.cuts = {f: np.array(sorted(ts)) for f, ts in cuts.items()}
        nv = 0
        self.z: dict[tuple[int, int], int] = {}
        self.w: dict[int, list[tuple[float, int]]] = {}
        for f, T in self.cuts.items():
            for j in range(len(T)):
                self.z[f, j] = nv
                nv += 1
            if self.domains[f] is not None:
                self.w[f] = []
                for d in sorted(set(float(v) for v in self.domains[f])):
                    self.w[f].append((d, nv))
                    nv += 1
        return nv

    def _encode(self, trees) -> None:
        nv = self._features(trees)
        rows: list[tuple[dict[int, float], float, float]] = []
        for f, T in self.cuts.items():
            rows += [({self.z[f, j]: 1.0, self.z[f, j + 1]: -1.0}, -np.inf, 0.0)
                     for j in range(len(T) - 1)]
            if f in self.w:
                rows.append(({v: 1.0 for _, v in self.w[f]}, 1.0, 1.0))
                for j, t in enumerate(T):
                    left = {v: -1.0 for d, v in self.w[f] if self._left(d, t)}
                    rows.append(({self.z[f, j]: 1.0, **left}, 0.0, 0.0))
        n_int = nv
        leaf_scores = []
        for feat, thr, left, right, value in trees:
            leaves = {}
            for node in range(len(feat)):
                if left[node] < 0:
                    leaves[node] = nv
                    leaf_scores.append(value[node])
                    nv += 1
            rows.append((dict.fromkeys(leaves.values(), 1.0), 1.0, 1.0))
            under = _leaves_under(left, right, leaves)
            for node in range(len(feat)):
                if left[node] < 0:
                    continue
                f = int(feat[node])
                zj = self.z[f, int(np.searchsorted(self.cuts[f], self._cut(thr[node])))]
                rows.append(({**dict.fromkeys(under[left[node]], 1.0), zj: -1.0}, -np.inf, 0.0))
                rows.append(({**dict.fromkeys(under[right[node]], 1.0), zj: 1.0}, -np.inf, 1.0))
        r, c, v = [], [], []
        for i, (coefs, _, _) in enumerate(rows):
            r += [i] * len(coefs)
            c += list(coefs)
            v += list(coefs.values())
        self._A = coo_matrix((v, (r, c)), shape=(len(rows), nv)).tocsr()
        self._lb = np.array([lo for _, lo, _ in rows])
        self._ub = np.array([hi for _, _, hi in rows])
        self._nv, self._n_int = nv, n_int
        self._leaf_scores = np.array(leaf_scores, dtype=np.float64).reshape(-1, self.k)
        self._integrality = np.r_[np.ones(n_int), np.zeros(nv - n_int)]
        self._base = self._scores(self.x[None])[0] - sum(
            value[self._leaf(feat, thr, left, right, self.x)]
            for feat, thr, left, right, value in trees)

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
        """Does ``value`` go to the left of cut ``t`` (the library's test)?"""
        if self.test == "le64":
            return bool(float(value) <= t)
        v = np.float32(value)
        return bool(v < np.float32(t)) if self.test == "lt32" else bool(float(v) <= t)

    def _rebuild(self, sol: np.ndarray, fixed: set[int]) -> np.ndarray:
        """The point of the MILP solution: fixed features keep x, free ones take a value on
        the side of each cut their z says."""
        p = self.x.copy()
        for f, T in self.cuts.items():
            if f in fixed:
                continue
            if f in self.w:
                p[f] = max(self.w[f], key=lambda dv: sol[dv[1]])[0]
                continue
            z = np.array([sol[self.z[f, j]] > 0.5 for j in range(len(T))])
            j = int(np.argmax(z)) if z.any() else len(T)  # first cut x is left of
            p[f] = self._inside(T, j)
        return p

    def _inside(self, T: np.ndarray, j: int) -> float:
        """A value between cut j-1 and cut j (below all for j = 0, above all for len(T))."""
        f32 = np.float32
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
    def counterexample(self, fixed: Iterable[int]) -> np.ndarray | None:
        """A point agreeing with x on ``fixed`` of another class, or None."""
        fixed = set(fixed)
        lo, hi = np.zeros(self._nv), np.ones(self._nv)
        for var, value in self._pinned(fixed).items():
            lo[var] = hi[var] = float(value)
        hit = self._sampled(fixed)
        if hit is not None:
            return hit
        cons = LinearConstraint(self._A, self._lb, self._ub)
        for j in range(self.k):
            if j == self.c:
                continue
            cost = np.zeros(self._nv)  # minimise score_c - score_j
            cost[self._n_int:] = self._leaf_scores[:, self.c] - self._leaf_scores[:, j]
            res = milp(cost, constraints=cons, integrality=self._integrality,
                       bounds=Bounds(lo, hi), options={"mip_rel_gap": 0.0})
            if res.x is None:
                raise RuntimeError(f"HiGHS found no solution ({res.message})")
            p = self._rebuild(res.x, fixed)
            if self.classes_of(p[None])[0] != self.c:
                return p
            margin = res.fun + self._base[self.c] - self._base[j]  # score_c - score_j
            if margin < -_TOL * max(1.0, float(np.abs(self._leaf_scores).sum())):
                raise RuntimeError("the MILP optimum beats the prediction but the library "
                                   "keeps it: the encoding disagrees with the model")
        return None

    def _pinned(self, fixed: set[int]) -> dict[int, bool]:
        """The binaries that the features in ``fixed`` set: index -> value (x's side of
        each cut; x's own domain value)."""
        out = {}
        for f, T in self.cuts.items():
            if f in fixed:
                for j, t in enumerate(T):
                    out[self.z[f, j]] = self._left(self.x[f], t)
                for d, var in self.w.get(f, []):
                    out[var] = bool(np.float32(d) == np.float32(self.x[f]))
        return out

    def _sampled(self, fixed: set[int]) -> np.ndarray | None:
        """A counterexample among ``samples`` seeded random completions (free features on
        random sides of their cuts, or random domain values), scored in one library call."""
        if self.samples == 0:
            return None
        rng = np.random.default_rng(0)
        pts = np.tile(self.x, (self.samples, 1))
        for f, T in self.cuts.items():
            if f in fixed:
                continue
            if f in self.w:
                pts[:, f] = rng.choice([d for d, _ in self.w[f]], self.samples)
            else:
                pts[:, f] = [self._inside(T, j) for j in rng.integers(0, len(T) + 1,
                                                                      self.samples)]
        bad = np.flatnonzero(self.classes_of(pts) != self.c)
        return pts[bad[0]] if bad.size else None

    def entails(self, fixed: Iterable[int]) -> bool:
        return self.counterexample(fixed) is None


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


def _booster(model):
    import xgboost as xgb

    return model if isinstance(model, xgb.Booster) else model.get_booster()


def _is_lightgbm_booster(model) -> bool:
    return type(model).__name__ == "Booster" and type(model).__module__.startswith("lightgbm")


def reads(model) -> bool:
    """Does this checker read ``model``? (HistGradientBoosting and LightGBM: only numeric
    splits that test ``x <= t``, without LightGBM's zero-as-missing routing.)"""
    try:
        _read(model.booster_ if type(model).__name__ == "LGBMClassifier" else model, "soft")
    except ValueError:
        return False
    return True


def _read(model, vote: str):
    """(trees as (feature, threshold, left, right, per-leaf class scores), the test: "lt32"
    (``float32(x) < t``), "le32" (``float32(x) <= t``) or "le64" (``x <= t``), classes,
    features); inner nodes have feature >= 0, leaves -1. ``ValueError`` for a model or
    split it does not read."""
    if _is_lightgbm_booster(model):
        return _read_lightgbm(model)
    if is_kind(model, "hist_gradient"):
        return _read_hist_gradient(model)
    if is_xgboost(model):
        import json

        b = _booster(model)
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
            trees.append((feat, thr, left, right, value))
        return trees, "lt32", k, n
    if not hasattr(model, "estimators_"):
        raise ValueError(f"no MILP reading of a {type(model).__name__}")
    k = len(model.classes_)
    trees = []
    for est in model.estimators_:
        t = est.tree_
        frac = t.value[:, 0, :k]
        value = frac if vote == "soft" else np.eye(k)[np.argmax(frac, axis=1)]
        feat = np.where(t.children_left < 0, -1, t.feature)
        trees.append((feat, t.threshold, t.children_left, t.children_right, value))
    return trees, "le32", k, int(model.n_features_in_)


def _read_hist_gradient(model):
    """scikit-learn's ``_predictors`` nodes (left iff ``x <= num_threshold``); two classes
    score ``[0, raw]``."""
    if getattr(model, "_preprocessor", None) is not None:
        raise ValueError("categorical features: not read by the MILP checker")
    per = int(model.n_trees_per_iteration_)
    k = max(2, per)
    trees = []
    for iteration in model._predictors:
        for cls, predictor in enumerate(iteration):
            nd = predictor.nodes
            leaf = nd["is_leaf"].astype(bool)
            value = np.zeros((len(nd), k))
            value[:, 1 if per == 1 else cls] = np.where(leaf, nd["value"], 0.0)
            trees.append((np.where(leaf, -1, nd["feature_idx"].astype(np.int64)),
                          nd["num_threshold"].astype(np.float64),
                          np.where(leaf, -1, nd["left"].astype(np.int64)),
                          np.where(leaf, -1, nd["right"].astype(np.int64)), value))
    return trees, "le64", k, int(model.n_features_in_)


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
        rows = _lightgbm_rows(info["tree_structure"])
        feat, thr, left, right, leaf = (np.array(col) for col in zip(*rows, strict=True))
        value = np.zeros((len(rows), k))
        value[:, 1 if per == 1 else i % per] = leaf
        trees.append((feat, thr, left, right, value))
    return trees, "le64", k, int(doc["max_feature_idx"]) + 1


def _lightgbm_rows(root: dict) -> list[list]:
    """(feature, effective threshold, left, right, leaf value) per node of one dumped tree,
    root first; leaves have feature -1."""
    rows: list[list] = []
    stack = [(root, None, 0)]  # (node, parent row, which child: 2 left, 3 right)
    while stack:
        node, parent, side = stack.pop()
        at = len(rows)
        if parent is not None:
            rows[parent][side] = at
        if "leaf_value" in node:
            rows.append([-1, 0.0, -1, -1, float(node["leaf_value"])])
            continue
        if node["decision_type"] != "<=" or node["missing_type"] == "Zero":
            raise ValueError("categorical or zero-as-missing splits: not read by the MILP "
                             "checker")
        t = float(node["threshold"])
        t = max(t, _ZERO) if t >= 0 else min(t, float(np.nextafter(-_ZERO, -np.inf)))
        rows.append([int(node["split_feature"]), t, -1, -1, 0.0])
        stack += [(node["right_child"], at, 3), (node["left_child"], at, 2)]
    return rows
