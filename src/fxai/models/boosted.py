"""XGBoost boosted trees: training, saving, and the ensemble read back with XGBoost's semantics.

The paper runs (anytime FFA) use binary ``binary:logistic`` models: MNIST 1vs3 / 1vs7 and
PneumoniaMNIST with 25 trees of depth 3, Sarcasm 25 / depth 5, Disaster 40 / depth 4.
As in the authors' code, XGBoost is trained on the de-duplicated training rows.

:class:`Ensemble` is the model as the oracle sees it, read from the booster's full JSON
model (``save_raw("json")``, which stores float32 values exactly): every node's split
feature, float32 threshold and children, every leaf's value, and the intercept. XGBoost
compares float32 inputs, ``x < t`` going to the left ("yes") child; missing values never
occur here, so default directions are ignored. The margin is, as XGBoost computes it in
float32, the intercept ``-log(1/base_score - 1)`` (XGBoost >= 2 fits a non-zero one) plus
one leaf per tree, added in tree order; class 1 iff margin > 0. (A float64 sum differs from
it by up to ~1e-6: enough to flip the class of points within that distance of a tie.)
"""

from __future__ import annotations

import json
import math
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TIES = ("change", "keep")


@dataclass(frozen=True)
class Tree:
    """One regression tree in XGBoost's array layout; ``left[i] == -1`` marks a leaf."""

    feature: np.ndarray  # int, split feature of each node
    threshold: np.ndarray  # float32, split threshold of each node
    left: np.ndarray  # int, "yes" child (x < threshold)
    right: np.ndarray  # int, "no" child
    value: np.ndarray  # float32, leaf value (meaningful at leaves only)

    def is_leaf(self, node: int) -> bool:
        return bool(self.left[node] < 0)

    def leaf_of(self, X: np.ndarray) -> np.ndarray:
        """The leaf reached by each row of the float32 matrix ``X`` (vectorised over rows)."""
        node = np.zeros(len(X), dtype=np.int64)
        rows = np.arange(len(X))
        while True:
            inner = self.left[node] >= 0
            if not inner.any():
                return node
            f = self.feature[node]
            go_left = X[rows, f] < self.threshold[node]
            nxt = np.where(go_left, self.left[node], self.right[node])
            node = np.where(inner, nxt, node)


@dataclass(frozen=True)
class Ensemble:
    """A binary boosted-tree classifier: ``margin(x) = base_margin + sum_t leaf_t(x)`` in
    float32, base first, trees in order (``base_margin`` is a float32 value)."""

    trees: tuple[Tree, ...]
    base_margin: float
    n_features: int
    feature_names: tuple[str, ...] | None = None

    def margin(self, X) -> np.ndarray:
        """Margins of the rows of ``X``, bit for bit XGBoost's (float32 sums, as float64)."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float32))
        if X.shape[1] != self.n_features:
            raise ValueError(f"expected {self.n_features} features, got {X.shape[1]}")
        total = np.full(len(X), self.base_margin, dtype=np.float32)
        for t in self.trees:
            total += t.value[t.leaf_of(X)]
        return total.astype(np.float64)

    def predict(self, X, ties: str = "keep") -> np.ndarray:
        """Classes: 1 iff margin > 0 (XGBoost's rule). With ``ties="change"`` a margin of
        exactly 0 is a tie that belongs to neither class, which is reported as an error."""
        m = self.margin(X)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
        if ties == "change" and np.any(m == 0):
            raise ValueError("a point has margin exactly 0: tied scores under ties='change'")
        return (m > 0).astype(np.int64)

    @property
    def used_features(self) -> list[int]:
        """Features tested in some split (the only ones that can be in an explanation)."""
        used = set()
        for t in self.trees:
            used.update(int(f) for f in t.feature[t.left >= 0])
        return sorted(used)


def _booster(model):
    """The ``xgboost.Booster`` of a Booster, an XGBClassifier, or a saved model path."""
    import xgboost as xgb

    if isinstance(model, xgb.Booster):
        return model
    if isinstance(model, xgb.XGBModel):
        return model.get_booster()
    if isinstance(model, str | Path):
        b = xgb.Booster()
        b.load_model(str(model))
        return b
    raise TypeError(f"not an XGBoost model: {type(model).__name__}")


def _parse_float_list(s: str) -> list[float]:
    """XGBoost >= 2 writes ``base_score`` as ``"[4.8E-1]"`` (a vector); older as ``"5E-1"``."""
    return [float(v) for v in s.strip("[]").split(",") if v.strip()]


def _base_margin32(booster, trees: list[Tree], p: float, n_features: int) -> float:
    """XGBoost's float32 intercept: its float32 ``-log(1/p - 1)``, whose last bit depends on
    its log, so the float32 value within 8 ulps of ours with which "intercept, then each
    tree's leaf in order" reproduces XGBoost's margins bit for bit on 64 seeded points."""
    import xgboost as xgb

    odds_inv = float(np.float32(np.float32(1.0) / np.float32(p) - np.float32(1.0)))
    guess = np.float32(-math.log(odds_inv))
    X = np.random.default_rng(0).normal(size=(64, n_features)).astype(np.float32)
    leaves = np.asarray(booster.predict(xgb.DMatrix(X), pred_leaf=True), dtype=np.int64)
    vals = [t.value[leaves.reshape(len(X), -1)[:, i]] for i, t in enumerate(trees)]
    theirs = booster.inplace_predict(X, predict_type="margin")
    for k in sorted(range(-8, 9), key=abs):
        cand = np.float32(guess + np.float32(k) * np.spacing(guess))
        acc = np.full(len(X), cand, dtype=np.float32)
        for v in vals:
            acc += v
        if np.array_equal(acc, theirs):
            return float(cand)
    raise ValueError("cannot reproduce XGBoost's float32 margins for this model")


def from_booster(model) -> Ensemble:
    """Read a binary ``binary:logistic`` XGBoost model into an :class:`Ensemble`."""
    b = _booster(model)
    doc = json.loads(b.save_raw("json"))
    learner = doc["learner"]
    objective = learner["objective"]["name"]
    if objective != "binary:logistic":
        raise ValueError(f"only binary:logistic models are supported, not {objective!r}")
    gb = learner["gradient_booster"]
    if gb["name"] != "gbtree":
        raise ValueError(f"only gbtree boosters are supported, not {gb['name']!r}")
    param = learner["learner_model_param"]
    if int(param.get("num_class", "0")) > 1 or int(param.get("num_target", "1")) != 1:
        raise ValueError("only single-output binary models are supported")
    (p,) = _parse_float_list(param["base_score"])
    p = float(np.float32(p))
    if not 0.0 < p < 1.0:
        raise ValueError(f"base_score {p} is not a probability")
    trees = []
    for t in gb["model"]["trees"]:
        if any(t.get("split_type", [])):
            raise ValueError("categorical splits are not supported")
        left = np.asarray(t["left_children"], dtype=np.int64)
        cond = np.asarray(t["split_conditions"], dtype=np.float32)
        trees.append(
            Tree(
                feature=np.asarray(t["split_indices"], dtype=np.int64),
                threshold=cond,
                left=left,
                right=np.asarray(t["right_children"], dtype=np.int64),
                value=np.where(left < 0, cond, np.float32(0)).astype(np.float32),
            )
        )
    names = b.feature_names
    return Ensemble(
        trees=tuple(trees),
        base_margin=_base_margin32(b, trees, p, int(param["num_feature"])),
        n_features=int(param["num_feature"]),
        feature_names=tuple(names) if names else None,
    )


def dedup_rows(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique (row, label) pairs in order of first occurrence (as the reference trains)."""
    Xy = np.column_stack([np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)])
    _, first = np.unique(Xy, axis=0, return_index=True)
    keep = np.sort(first)
    return np.asarray(X)[keep], np.asarray(y)[keep]


def train(
    X,
    y,
    trees: int,
    depth: int,
    seed: int = 0,
    n_jobs: int = 1,
    tree_method: str = "exact",
    learning_rate: float = 0.3,
):
    """An ``XGBClassifier`` (binary:logistic) fitted on the de-duplicated rows of (X, y).

    ``tree_method="exact"`` matches xgboost 1.7's single-machine default used by the
    authors (thresholds between observed values); the learning rate 0.3 is its default.
    """
    import xgboost as xgb

    y = np.asarray(y)
    classes = np.unique(y)
    if not np.array_equal(classes, [0, 1]):
        raise ValueError(f"binary targets coded 0/1 are required, got classes {classes.tolist()}")
    Xd, yd = dedup_rows(X, y)
    model = xgb.XGBClassifier(
        n_estimators=trees,
        max_depth=depth,
        learning_rate=learning_rate,
        objective="binary:logistic",
        eval_metric="error",
        tree_method=tree_method,
        random_state=seed,
        n_jobs=n_jobs,
    )
    model.fit(Xd.astype(np.float32), yd)
    return model


def accuracy(model, X, y) -> float:
    """Accuracy of XGBoost's own prediction (probability > 0.5) on (X, y)."""
    if len(y) == 0:
        return float("nan")
    proba = _booster(model).inplace_predict(np.asarray(X, dtype=np.float32))
    return float(np.mean((proba > 0.5).astype(np.int64) == np.asarray(y)))


def save(model, path: str | Path, meta: dict) -> Path:
    """Save as XGBoost JSON (``save_model``) with ``<stem>.meta.json`` beside it."""
    import sklearn
    import xgboost as xgb

    path = Path(path)
    if path.suffix != ".json":
        raise ValueError(f"model path must end in .json, got {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    _booster(model).save_model(str(path))
    meta = dict(meta)
    meta["versions"] = {
        "xgboost": xgb.__version__,
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "python": platform.python_version(),
    }
    meta_path = path.with_name(path.stem + ".meta.json")
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return path


def load(path: str | Path):
    """The ``xgboost.Booster`` saved at ``path``."""
    return _booster(Path(path))
