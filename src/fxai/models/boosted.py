"""XGBoost boosted trees: training, saving, and the ensemble read back with XGBoost's semantics.

The paper runs (anytime FFA) use binary ``binary:logistic`` models: MNIST 1vs3 / 1vs7 and
PneumoniaMNIST with 25 trees of depth 3, Sarcasm 25 / depth 5, Disaster 40 / depth 4.
As in the authors' code, XGBoost is trained on the de-duplicated training rows.

:class:`Ensemble` is the model as the oracle sees it, read from the booster's full JSON
model (``save_raw("json")``, which stores float32 values exactly): every node's split
feature, float32 threshold and children, every leaf's value, and the intercept. XGBoost
compares float32 inputs, ``x < t`` going to the left ("yes") child. Missing values (NaN)
are rejected: XGBoost routes them by each node's ``default_left``, which is not read. The
margin is, as XGBoost computes it in float32, the intercept ``-log(1/base_score - 1)``
(XGBoost >= 2 fits a non-zero one) plus one leaf per tree, added in tree order. (A float64
sum differs from it by up to ~1e-6: enough to flip the class of points near a tie.)

The prediction is ``XGBClassifier.predict``'s: class 1 iff XGBoost's float32 probability
``sigmoid(margin)`` is above 0.5. That probability is exactly 0.5 (a *tie*, class 0) on a
small band of margins around 0, ``tie_band()`` (measured from the installed XGBoost;
[-1.788139e-07, 8.940697e-08] with XGBoost 3.2), so "margin > 0" is not the prediction.
``ties="keep"`` is that prediction; ``ties="change"`` (the reference code's rule
score(c') >= score(c)) also counts a tie as a change of class, for both classes.
"""

from __future__ import annotations

import functools
import json
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fxai.version import code_version

TIES = ("change", "keep")
_ONE_BITS = 0x3F800000  # float32 1.0 as an integer


@functools.cache
def tie_band() -> tuple[float, float]:
    """``(lo, hi)``: the float32 margins m with ``lo <= m <= hi`` are exactly those to which
    XGBoost's own float32 sigmoid gives probability 0.5; ``XGBClassifier.predict`` says
    class 1 iff margin > hi. Measured once per process from the installed XGBoost (a
    booster without trees scoring chosen base margins), by bisection on float32 bit
    patterns (the sigmoid is monotone), on one thread: an OpenMP thread pool left in the
    process would not survive a fork (a forked child that then ran XGBoost waited for ever).

    Examples
    --------
    >>> lo, hi = tie_band()
    >>> -1e-6 < lo < 0 < hi < 1e-6
    True
    """
    import xgboost as xgb

    d = xgb.DMatrix(np.zeros((2, 1), np.float32), label=[0.0, 1.0], nthread=1)
    b = xgb.train({"objective": "binary:logistic", "nthread": 1}, d, num_boost_round=0)

    def last_true(sign: float, test) -> float:
        """The largest float32 m in sign*[0, 1) with test(probability(m)); test(p(0)) holds."""
        lo, hi = 0, _ONE_BITS
        while hi - lo > 1:
            ks = np.unique(np.linspace(lo, hi, 1025).astype(np.int64))
            m = sign * ks.astype(np.int32).view(np.float32)
            ok = test(b.predict(xgb.DMatrix(np.zeros((len(m), 1), np.float32), base_margin=m,
                                            nthread=1)))
            if not ok[0] or ok[-1] or np.any(np.diff(ok.astype(int)) > 0):
                raise RuntimeError("XGBoost's sigmoid is not monotone around 0")
            last = int(ks[ok].max())
            lo, hi = last, int(ks[ks > last].min())
        return float(sign * np.array([lo], np.int32).view(np.float32)[0])

    hi = last_true(1.0, lambda p: p <= 0.5)
    lo = last_true(-1.0, lambda p: p == 0.5)
    return lo, hi


def change_rule(c: int, ties: str) -> tuple[float, bool]:
    """``(cut, inclusive)``: with sign +1 for class ``c`` = 1 and -1 for 0, a point of float32
    margin m is of another class than ``c`` (under ``ties``) iff ``sign*m < cut``, or
    ``sign*m == cut`` when ``inclusive``.

    Examples
    --------
    >>> lo, hi = tie_band()
    >>> change_rule(1, "keep") == (hi, True), change_rule(0, "change") == (-lo, True)
    (True, True)
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
    lo, hi = tie_band()
    if c == 1:
        return hi, True
    return (-lo, True) if ties == "change" else (-hi, False)


def reject_missing(x, what: str = "instance") -> None:
    """Raise ``ValueError`` naming the features of ``x`` that are missing (NaN).

    Examples
    --------
    >>> reject_missing([1.0, float("nan")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: instance has missing values (NaN) at features [1]: not supported ...
    """
    bad = np.flatnonzero(np.isnan(np.atleast_2d(np.asarray(x, dtype=np.float64))).any(axis=0))
    if bad.size:
        raise ValueError(f"{what} has missing values (NaN) at features {bad.tolist()[:10]}: "
                         "not supported (XGBoost routes them by default_left, which fxai "
                         "does not model)")


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


def flatten(trees) -> tuple:
    """The arrays of ``trees`` end to end, for :func:`leaves`: features, thresholds,
    children (positions in the whole; -1 at leaves) and each tree's root position."""
    roots = np.cumsum([0] + [len(t.left) for t in trees])[:-1].astype(np.int64)

    def cat(arrays, dtype) -> np.ndarray:
        return np.concatenate([np.zeros(0, dtype), *arrays]).astype(dtype)

    shifted = [(np.where(t.left >= 0, t.left + r, -1), np.where(t.left >= 0, t.right + r, -1))
               for t, r in zip(trees, roots.tolist(), strict=True)]
    return (cat([t.feature for t in trees], np.int64),
            np.concatenate([np.zeros(0, np.float32)] + [t.threshold for t in trees]),
            cat([lr[0] for lr in shifted], np.int64), cat([lr[1] for lr in shifted], np.int64),
            roots)


def leaves(flat: tuple, X: np.ndarray) -> np.ndarray:
    """The leaf each row of the float32 matrix ``X`` reaches in each tree of ``flat``
    (:func:`flatten`), rows x trees: all trees and rows walk down one level per step (the
    test of :meth:`Tree.leaf_of`)."""
    feature, threshold, left, right, roots = flat
    node = np.tile(roots, len(X))  # row r, tree t at r * len(roots) + t
    row = np.repeat(np.arange(len(X)), len(roots))
    walking = np.flatnonzero(left[node] >= 0)
    while walking.size:
        at = node[walking]
        below = X[row[walking], feature[at]] < threshold[at]
        node[walking] = np.where(below, left[at], right[at])
        walking = walking[left[node[walking]] >= 0]
    return node.reshape(len(X), len(roots)) - roots


def used_features(trees) -> list[int]:
    """Features tested in some split of ``trees`` (the only ones an explanation can hold)."""
    return sorted({int(f) for t in trees for f in t.feature[t.left >= 0]})


@dataclass(frozen=True)
class Ensemble:
    """A binary boosted-tree classifier: ``margin(x) = base_margin + sum_t leaf_t(x)`` in
    float32, base first, trees in order (``base_margin`` is a float32 value)."""

    trees: tuple[Tree, ...]
    base_margin: float
    n_features: int
    feature_names: tuple[str, ...] | None = None

    def margin(self, X) -> np.ndarray:
        """Margins of the rows of ``X``, bit for bit XGBoost's (float32 sums, as float64);
        missing values (NaN) are a ``ValueError``."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float32))
        if X.shape[1] != self.n_features:
            raise ValueError(f"expected {self.n_features} features, got {X.shape[1]}")
        reject_missing(X, "input")
        leaf = leaves(self.flat, X)
        if len(X) == 1:  # one instance: float32 scalars beat numpy's per-call overhead
            total1 = np.float32(self.base_margin)
            for t, k in zip(self.trees, leaf[0].tolist(), strict=True):
                total1 = np.float32(total1 + t.value[k])
            return np.array([total1], dtype=np.float64)
        total = np.full(len(X), self.base_margin, dtype=np.float32)
        for k, t in enumerate(self.trees):
            total += t.value[leaf[:, k]]
        return total.astype(np.float64)

    @functools.cached_property
    def flat(self) -> tuple:
        """The trees end to end (:func:`flatten`)."""
        return flatten(self.trees)

    def predict(self, X, ties: str = "keep") -> np.ndarray:
        """``XGBClassifier.predict``'s classes: 1 iff the float32 probability is above 0.5,
        i.e. margin > ``tie_band()[1]``. With ``ties="change"`` a tie (probability exactly
        0.5) belongs to neither class, which is reported as an error.

        Examples
        --------
        >>> stump = Tree(feature=np.array([0, 0, 0]), threshold=np.float32([0.5, 0, 0]),
        ...              left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
        ...              value=np.float32([0, 5e-8, 1.0]))
        >>> ens = Ensemble(trees=(stump,), base_margin=0.0, n_features=1)
        >>> ens.margin([[0.0], [1.0]]) > 0, ens.predict([[0.0], [1.0]])
        (array([ True,  True]), array([0, 1]))
        """
        m = self.margin(X)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
        lo, hi = tie_band()
        if ties == "change" and np.any((m >= lo) & (m <= hi)):
            raise ValueError("a point has probability exactly 0.5 (tied scores) under "
                             "ties='change'")
        return (m > hi).astype(np.int64)

    @functools.cached_property
    def used_features(self) -> list[int]:
        """Features tested in some split (the only ones that can be in an explanation)."""
        return used_features(self.trees)


def booster(model):
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


def _base_margin32(doc: dict) -> np.ndarray:
    """XGBoost's own float32 intercepts, one per output (binary: its float32
    ``-log(1/p - 1)``, whose last bits are its log's): the margins of the model read from
    ``doc`` with every leaf set to 0. They depend on the objective and the model parameters
    (``base_score``, classes) only: measured once per distinct pair."""
    learner = doc["learner"]
    key = json.dumps([learner["objective"], learner["learner_model_param"]], sort_keys=True)
    if key not in _MARGINS:
        _MARGINS[key] = _measured_margin(doc)
    return _MARGINS[key].copy()


_MARGINS: dict[str, np.ndarray] = {}  # _base_margin32's, by objective and parameters


def _measured_margin(doc: dict) -> np.ndarray:
    """The margins of ``doc``'s model with every leaf set to 0, by XGBoost."""
    import xgboost as xgb

    doc = json.loads(json.dumps(doc))
    for t in doc["learner"]["gradient_booster"]["model"]["trees"]:
        leaf = np.asarray(t["left_children"]) < 0
        t["split_conditions"] = np.where(leaf, 0.0, t["split_conditions"]).tolist()
        t["base_weights"] = np.where(leaf, 0.0, t["base_weights"]).tolist()
    b = xgb.Booster()
    b.load_model(bytearray(json.dumps(doc).encode()))
    n = int(doc["learner"]["learner_model_param"]["num_feature"])
    return np.ravel(b.inplace_predict(np.zeros((1, n), np.float32), predict_type="margin"))


def _read_trees(gb: dict) -> list[Tree]:
    """The trees of a ``gbtree`` booster's JSON model (leaf values as float32 scalars)."""
    if gb["name"] != "gbtree":
        raise ValueError(f"only gbtree boosters are supported, not {gb['name']!r}")
    trees = []
    for t in gb["model"]["trees"]:
        if any(t.get("split_type", [])):
            raise ValueError("XGBoost categorical splits (enable_categorical=True) are not "
                             "supported: train on the categories' codes "
                             "(fxai.oracles.instance.encode) instead")
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
    return trees


MULTI = ("multi:softmax", "multi:softprob")


def from_booster(model, doc: dict | None = None) -> Ensemble:
    """Read a binary ``binary:logistic`` XGBoost model into an :class:`Ensemble` (``doc``:
    its JSON model, when read already)."""
    b = booster(model)
    doc = json.loads(b.save_raw("json")) if doc is None else doc
    learner = doc["learner"]
    objective = learner["objective"]["name"]
    if objective != "binary:logistic":
        raise ValueError(f"XGBoost objective {objective!r} is not supported: fxai explains "
                         "classifiers trained with binary:logistic, multi:softmax or "
                         "multi:softprob")
    gb = learner["gradient_booster"]
    param = learner["learner_model_param"]
    if int(param.get("num_class", "0")) > 1 or int(param.get("num_target", "1")) != 1:
        raise ValueError("only single-output binary models are supported")
    (p,) = _parse_float_list(param["base_score"])
    p = float(np.float32(p))
    if not 0.0 < p < 1.0:
        raise ValueError(f"base_score {p} is not a probability")
    names = b.feature_names
    return Ensemble(
        trees=tuple(_read_trees(gb)),
        base_margin=float(_base_margin32(doc)[0]),
        n_features=int(param["num_feature"]),
        feature_names=tuple(names) if names else None,
    )


def dedup_rows(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unique (row, label) pairs in order of first occurrence (as the reference trains).
    Integer rows are compared per label as bytes, without a float64 copy of the table
    (Sarcasm's whole vocabulary: 4 GB)."""
    X, y = np.asarray(X), np.asarray(y)
    if X.dtype.kind in "biu" and X.ndim == 2 and X.shape[1] > 0:
        row = np.dtype((np.void, X.dtype.itemsize * X.shape[1]))
        keep = []
        for c in np.unique(y):
            ids = np.flatnonzero(y == c)
            _, first = np.unique(np.ascontiguousarray(X[ids]).view(row).ravel(),
                                 return_index=True)
            keep.append(ids[first])
        keep = np.sort(np.concatenate(keep))
    else:
        Xy = np.column_stack([np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)])
        _, first = np.unique(Xy, axis=0, return_index=True)
        keep = np.sort(first)
    return X[keep], y[keep]


def train(
    X,
    y,
    trees: int,
    depth: int,
    seed: int = 0,
    n_jobs: int = 1,
    tree_method: str = "exact",
    learning_rate: float = 0.3,
    objective: str = "binary:logistic",
):
    """An ``XGBClassifier`` fitted on the de-duplicated rows of (X, y): ``binary:logistic``
    (classes 0/1) or ``multi:softprob`` / ``multi:softmax`` (classes 0..k-1).

    ``tree_method="exact"`` matches xgboost 1.7's single-machine default used by the
    authors (thresholds between observed values); the learning rate 0.3 is its default.
    """
    import xgboost as xgb

    y = np.asarray(y)
    classes = np.unique(y)
    if objective not in ("binary:logistic", *MULTI):
        raise ValueError(f"objective must be binary:logistic or one of {MULTI}, not {objective!r}")
    if objective in MULTI and not np.array_equal(classes, np.arange(len(classes))):
        raise ValueError(f"targets coded 0..k-1 are required, got classes {classes.tolist()}")
    if objective not in MULTI and not np.array_equal(classes, [0, 1]):
        raise ValueError(f"binary targets coded 0/1 are required, got classes {classes.tolist()}")
    Xd, yd = dedup_rows(X, y)
    model = xgb.XGBClassifier(
        n_estimators=trees,
        max_depth=depth,
        learning_rate=learning_rate,
        objective=objective,
        eval_metric="error" if objective not in MULTI else "merror",
        tree_method=tree_method,
        random_state=seed,
        n_jobs=n_jobs,
    )
    # XGBoost reads integer codes as float32 itself: no float32 copy of a wide table
    model.fit(Xd if Xd.dtype.kind in "biu" else Xd.astype(np.float32), yd)
    return model


def accuracy(model, X, y) -> float:
    """Accuracy of XGBoost's own prediction (``XGBClassifier.predict``: float32 probability
    > 0.5, the rule of :meth:`Ensemble.predict`) on (X, y); NaN in X is routed by XGBoost."""
    if len(y) == 0:
        return float("nan")
    proba = booster(model).inplace_predict(np.asarray(X, dtype=np.float32))
    return float(np.mean((proba > 0.5).astype(np.int64) == np.asarray(y)))


def save(model, path: str | Path, meta: dict) -> Path:
    """Save as XGBoost JSON (``save_model``) with ``<stem>.meta.json`` beside it."""
    import sklearn
    import xgboost as xgb

    path = Path(path)
    if path.suffix != ".json":
        raise ValueError(f"model path must end in .json, got {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    booster(model).save_model(str(path))
    meta = dict(meta)
    meta["code_version"] = code_version()
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
    return booster(Path(path))
