"""LightGBM (``LGBMClassifier``, ``lightgbm.Booster``) read exactly, onto column codes.

LightGBM's trees (its ``dump_model``, whose thresholds are printed with 17 digits: the
float64 values) test ``x <= threshold`` on float64 inputs, every ``|x| <= 1e-35f`` read as 0
by its predictor; a node's ``missing_type`` routes
a missing value: "NaN" sends NaN by ``default_left``, "Zero" sends NaN and every
``|x| <= 1e-35f`` by it, "None" reads NaN as 0. The raw score of a class is the sum of its
trees' leaves in float64, in tree order (the first tree holds the average it boosts from).
``LGBMClassifier.predict`` takes the first maximum of ``predict_proba``: for two classes
``[1 - p, p]`` with LightGBM's sigmoid ``p`` of the raw score, so class 1 iff the raw score
is above a cut ``h`` next to 0 (:func:`tie_cut`, measured from LightGBM itself); for more
classes the softmax of the raw scores, whose first maximum fxai takes as the first maximum
of the raw scores (they differ only where two scores are within a few ulps, as for
XGBoost's ``multi:softprob``; docs/semantics.md). The model is read into a
:class:`~fxai.models.scores.ScoreEnsemble` over :mod:`fxai.models.coded` columns: a
feature's codes are the intervals between the values where some node changes side (its
thresholds, and the band read as 0), then one code for a missing value. A categorical
split (``categorical_feature``, integer codes) sends ``x`` left iff ``int(x)`` (toward 0) is
one of its categories, NaN and negative values right: the codes of such a feature are
``(-inf, -1]``, ``(-1, 1)`` (category 0), ``[j, j + 1)`` (category j), then the rest.
Categories from pandas ``category`` columns, linear trees, random-forest mode and
one-vs-rest objectives are refused.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from fxai.models.coded import Column, Encoded, recode
from fxai.models.schema import MISSING_HINT
from fxai.models.scores import ScoreEnsemble
from fxai.values import plain

ZERO = float(np.float32(1e-35))  # LightGBM's kZeroThreshold (a float literal)
SUPPORTED = ("fxai reads LightGBM binary and multiclass (softmax) classifiers of "
             "constant-leaf trees on numeric features and integer-coded categorical features")


def goes_left(x: float, threshold: float, default_left: bool, missing_type: str) -> bool:
    """LightGBM's numerical decision (``Tree::NumericalDecision``) at one node, on the
    value its predictor passes (every ``|x| <= 1e-35f`` read as 0)."""
    if abs(x) <= ZERO:
        x = 0.0
    if math.isnan(x) and missing_type != "NaN":
        x = 0.0
    if (missing_type == "Zero" and -ZERO <= x <= ZERO) or (
            missing_type == "NaN" and math.isnan(x)):
        return default_left
    return x <= threshold


def category_goes_left(x: float, left: frozenset[int]) -> bool:
    """LightGBM's categorical decision (``Tree::CategoricalDecision``): NaN and a value whose
    integer part (toward 0) is negative go right, category ``int(x)`` left iff in ``left``."""
    return math.isfinite(x) and int(x) >= 0 and int(x) in left


def _categories(threshold: str) -> frozenset[int]:
    """The categories a categorical node sends left (its dumped threshold "1||4")."""
    return frozenset(int(v) for v in str(threshold).split("||"))


@functools.cache
def tie_cut(objective: str) -> float:
    """The largest raw score that LightGBM's binary ``predict`` calls class 0 (its
    probability ``p`` of class 1 is not above ``1 - p``), by bisection over float64 values
    near 0 with one-leaf models of ``objective`` (e.g. "binary sigmoid:1")."""
    import lightgbm as lgb

    template = ("tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"
                f"max_feature_idx=0\nobjective={objective}\nfeature_names=x\n"
                "feature_infos=none\ntree_sizes=0\n\nTree=0\nnum_leaves=1\nnum_cat=0\n"
                "split_feature=\nsplit_gain=\nthreshold=\ndecision_type=\nleft_child=\n"
                "right_child=\nleaf_value={}\nleaf_weight=\nleaf_count=1\ninternal_value=\n"
                "internal_weight=\ninternal_count=\nis_linear=0\nshrinkage=1\n\n\n"
                "end of trees\n")

    def one(raw: float) -> bool:
        p = lgb.Booster(model_str=template.format(repr(raw))).predict(np.zeros((1, 1)))[0]
        return bool(p > 1.0 - p)

    lo, hi = -1e-6, 1e-6
    if one(lo) or not one(hi):
        raise RuntimeError("LightGBM's binary prediction is not the sign of the raw score "
                           "near 0")
    while np.nextafter(lo, hi) != hi:  # class 0 at lo, class 1 at hi
        mid = lo / 2 + hi / 2
        if mid in (lo, hi):
            mid = float(np.nextafter(lo, hi))
        lo, hi = (lo, mid) if one(mid) else (mid, hi)
    return lo


def booster(model):
    """The ``Booster`` of a LightGBM model."""
    import lightgbm as lgb

    return model if isinstance(model, lgb.Booster) else model.booster_


def _nodes(tree: dict) -> list[dict]:
    """The nodes of one dumped tree, root first (children as indices)."""
    out: list[dict] = []

    def visit(node: dict) -> int:
        i = len(out)
        out.append(node)
        if "leaf_value" not in node:
            node["_left"] = visit(node["left_child"])
            node["_right"] = visit(node["right_child"])
        return i

    visit(tree)
    return out


def from_lightgbm(model, missing: bool = False) -> Encoded:
    """The :class:`Encoded` model of a fitted ``LGBMClassifier`` or classification
    ``Booster`` (the iterations ``predict`` uses: the best one after early stopping); with
    ``missing`` every feature has a code for a missing value (the last)."""
    from fxai.models.boosted import Tree

    b = booster(model)
    best = b.best_iteration
    doc = b.dump_model(num_iteration=best if best > 0 else None)
    objective = str(doc["objective"])
    name = objective.split()[0]
    if name not in ("binary", "multiclass"):
        raise TypeError(f"LightGBM objective {name!r} is not supported: {SUPPORTED}")
    if doc.get("average_output"):
        raise TypeError(f"LightGBM random-forest mode (average_output) is not supported: "
                        f"{SUPPORTED}")
    n = int(doc["max_feature_idx"]) + 1
    names = [str(v) for v in doc.get("feature_names") or [f"x{i}" for i in range(n)]]
    k = int(doc["num_class"]) if name == "multiclass" else 1
    width = 2 if k == 1 else k
    if b.pandas_categorical:
        raise TypeError("LightGBM fitted on pandas 'category' columns is not supported yet: "
                        "fit on their integer codes (categorical_feature=[...]); "
                        f"{SUPPORTED}")
    raw = []
    zero_band = {-ZERO, float(np.nextafter(ZERO, math.inf))}  # values read as 0
    cuts: list[set[float]] = [set(zero_band) for _ in range(n)]
    for t, info in enumerate(doc["tree_info"]):
        nodes = _nodes(info["tree_structure"])
        for nd in nodes:
            if "leaf_value" in nd:
                continue
            f = int(nd["split_feature"])
            if nd["decision_type"] == "==":  # categories: (-1, 1) is 0, [j, j + 1) is j
                top = max(_categories(nd["threshold"]))
                cuts[f] |= {float(np.nextafter(-1.0, math.inf)), *map(float, range(1, top + 2))}
                continue
            thr = float(nd["threshold"])
            if math.isfinite(float(np.nextafter(thr, math.inf))):
                cuts[f].add(float(np.nextafter(thr, math.inf)))
        if any("leaf_coeff" in nd for nd in nodes):
            raise TypeError(f"LightGBM linear trees (linear_tree=True) are not supported: "
                            f"{SUPPORTED}")
        raw.append((t % k, nodes))
    columns = tuple(Column(names[f], "number", bounds=tuple(sorted(cuts[f])), missing=missing)
                    for f in range(n))
    sizes = [c.size for c in columns]
    reps = []  # a value of each code: an interval's least value (the first: below all), NaN
    for c in columns:
        first = float(np.nextafter(c.bounds[0], -math.inf)) if c.bounds else 0.0
        reps.append([first, *c.bounds] + [math.nan] * missing)
    trees = []
    for cls, nodes in raw:
        leaf = np.array(["leaf_value" in nd for nd in nodes])
        value = np.zeros((len(nodes), width))
        value[leaf, 1 if k == 1 else cls] = [nd["leaf_value"] for nd in nodes if
                                             "leaf_value" in nd]
        tree = Tree(feature=np.array([nd.get("split_feature", 0) for nd in nodes]),
                    threshold=np.zeros(len(nodes)),
                    left=np.array([nd.get("_left", -1) for nd in nodes]),
                    right=np.array([nd.get("_right", -1) for nd in nodes]), value=value)

        def side(i: int, nodes=nodes):
            nd = nodes[i]
            f = int(nd["split_feature"])
            if nd["decision_type"] == "==":
                left = _categories(nd["threshold"])
                return f, np.array([category_goes_left(v, left) for v in reps[f]])
            return f, np.array([goes_left(v, float(nd["threshold"]), bool(nd["default_left"]),
                                          nd["missing_type"]) for v in reps[f]])

        trees.append(recode(tree, sizes, side))
    base = np.array([tie_cut(objective), 0.0]) if k == 1 else np.zeros(k)
    classes = getattr(model, "classes_", None)
    classes = tuple(plain(c) for c in classes) if classes is not None else tuple(range(width))
    return Encoded(ScoreEnsemble(
        trees=tuple(trees), base=base, divisor=1.0, classes=classes, n_features=n,
        kind=f"LightGBM {objective}", feature_names=tuple(names)), columns, MISSING_HINT,
        alias=stored_name)


def stored_name(name: str) -> str:
    """The name LightGBM stores for a column ``name`` (it writes spaces as underscores)."""
    return name.replace(" ", "_")

