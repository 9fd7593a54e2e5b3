"""scikit-learn Pipelines read over the user's original columns.

A fitted ``Pipeline`` (or a ``ColumnTransformer`` and a model, :func:`make`) whose
preprocessing fxai can follow exactly is read into an :class:`Encoded` model: the last
step converted as usual (a decision graph, an :class:`~fxai.models.boosted.Ensemble` or a
:class:`~fxai.models.scores.ScoreEnsemble`) and rewritten so that every split tests one
*original* column. Each column becomes a feature of integer codes:

* a column a ``OneHotEncoder`` or ``OrdinalEncoder`` reads: code i is its i-th category,
  plus one code for "any other value" when the encoder accepts unknown values
  (``handle_unknown`` other than "error"); a one-hot group is one feature;
* a numeric column (passthrough, or a ``StandardScaler``, ``MinMaxScaler``,
  ``RobustScaler`` or ``MaxAbsScaler``, in the ``ColumnTransformer`` or as later steps):
  code i is the i-th interval between the raw values at which some split changes side;
* a column the preprocessing drops: one code (it cannot matter).

Each split's side is computed by the pipeline's own ``transform`` (every category, and for
a numeric column the raw boundary found by bisection over float64 values), with the
model's float32 comparison, so the rewritten model predicts every input as the pipeline
does. A one-hot split "colour is red" becomes tests on the colour code (the subtree of
the other side copied where the codes of that side are not contiguous). Feature selection
(any ``SelectorMixin`` step) is followed; any other step is refused with a ``TypeError``
naming it. A ``CategoricalNB`` at the end is read where the codes fit: every column reaches
it as one input holding one of its categories (its tables are then re-indexed by code, and
summed in the model's order of inputs, :class:`~fxai.models.nbc.NBCTables`).
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np

from fxai.models.boosted import Tree
from fxai.models.coded import Column, Encoded, missing_value, recode
from fxai.models.kinds import is_kind
from fxai.values import plain


def make(transformer, model):
    """The pipeline of a fitted ``ColumnTransformer`` (or encoder) and the model fitted on
    its output."""
    from sklearn.pipeline import Pipeline

    return Pipeline([("pre", transformer), ("model", model)])


# ---- reading the steps ---------------------------------------------------------------

def _scalers() -> tuple:
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, RobustScaler, StandardScaler

    return StandardScaler, MinMaxScaler, RobustScaler, MaxAbsScaler


def _encoders() -> tuple:
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    return OneHotEncoder, OrdinalEncoder


def _is_identity(step) -> bool:
    from sklearn.preprocessing import FunctionTransformer

    if step is None or (isinstance(step, str) and step == "passthrough"):
        return True
    return isinstance(step, FunctionTransformer) and step.func is None  # fitted passthrough


def _is_selector(step) -> bool:
    from sklearn.feature_selection import SelectorMixin

    return isinstance(step, SelectorMixin)


def _refuse(where: str, step, why: str = "") -> TypeError:
    why = why or ("fxai follows OneHotEncoder, OrdinalEncoder, StandardScaler, MinMaxScaler, "
                  "RobustScaler, MaxAbsScaler, passthrough, drop and feature selection "
                  "exactly; this step may change values in ways it cannot follow")
    return TypeError(f"pipeline step {where} ({type(step).__name__}) is not supported: {why}")


def _block_kind(where: str, trans) -> tuple[str, object]:
    """("category", the encoder) | ("number", None) for one ColumnTransformer entry."""
    from sklearn.pipeline import Pipeline

    parts = [(f"{where}/{n}", s) for n, s in trans.steps] if isinstance(trans, Pipeline) \
        else [(where, trans)]
    kind, encoder = "number", None
    for i, (w, s) in enumerate(parts):
        if isinstance(s, _scalers()):
            _check_scaler(w, s)
            continue
        if _is_identity(s):
            continue
        if isinstance(s, _encoders()) and i == 0:
            kind, encoder = "category", s
            continue
        if isinstance(s, _encoders()):
            raise _refuse(w, s, "an encoder must be the first transformer of its columns")
        raise _refuse(w, s)
    return kind, encoder


def _check_scaler(where: str, s) -> None:
    scale = getattr(s, "scale_", None)
    if scale is not None and np.any(np.asarray(scale) <= 0):
        raise _refuse(where, s, "a scale that is not positive does not keep the order")


def _blocks(first_name: str, first, n_in: int) -> list[tuple[str, object, list[int], slice]]:
    """(kind, encoder, input columns, output positions) per block of the first step."""
    from sklearn.compose import ColumnTransformer

    if isinstance(first, ColumnTransformer):
        out = []
        inputs = getattr(first, "_transformer_to_input_indices", None)
        if inputs is None:
            raise _refuse(first_name, first, "this scikit-learn version does not tell which "
                          "columns each transformer reads")
        for name, trans, _ in first.transformers_:
            cols = list(inputs.get(name, []))
            if (isinstance(trans, str) and trans == "drop") or not cols:
                continue
            kind, encoder = _block_kind(f"'{first_name}/{name}'", trans)
            out.append((kind, encoder, cols, first.output_indices_[name]))
        return out
    kind, encoder = _block_kind(f"'{first_name}'", first)
    return [(kind, encoder, list(range(n_in)), slice(None))]


def _final(name: str, model):
    if is_kind(model, "tree", "nbc", "forest") or (
            is_kind(model, "xgboost") and hasattr(model, "get_booster")):
        return model
    raise TypeError(f"pipeline step '{name}' ({type(model).__name__}) is not supported as the "
                    "model: fxai explains pipelines ending in a DecisionTreeClassifier, "
                    "RandomForestClassifier, ExtraTreesClassifier, XGBClassifier or "
                    "CategoricalNB")


def _is_sparse(a) -> bool:
    return hasattr(a, "toarray")


class _Pre:
    """The preprocessing steps, evaluated on rows that vary one column at a time."""

    def __init__(self, pipe):
        self.pre = pipe[:-1]
        names = getattr(pipe, "feature_names_in_", None)
        self.n_in = int(pipe.n_features_in_)
        self.names = [str(n) for n in names] if names is not None else [
            f"x{i}" for i in range(self.n_in)]
        self.by_name = names is not None

    def raw(self, columns: list[list]):
        """The preprocessing's output (dense or sparse) on rows given column by column."""
        if self.by_name:
            import pandas as pd

            X = pd.DataFrame(dict(zip(self.names, columns, strict=True)))
        else:
            X = np.array(columns, dtype=object).T
        with warnings.catch_warnings():  # an unknown value on purpose (what it encodes to)
            warnings.filterwarnings("ignore", "Found unknown categories")
            return self.pre.transform(X)

    def transform(self, columns: list[list]) -> np.ndarray:
        out = self.raw(columns)
        return np.asarray(out.toarray() if _is_sparse(out) else out, dtype=np.float64)


def _model_positions(first_width: int, steps) -> np.ndarray:
    """For each input of the model, the first step's output it is (scalers keep the
    positions, a feature selector keeps some); other later steps are refused."""
    pos = np.arange(first_width)
    for name, s in steps[1:]:
        if isinstance(s, _scalers()):
            _check_scaler(f"'{name}'", s)
        elif _is_selector(s):
            pos = pos[s.get_support(indices=True)]
        elif isinstance(s, _encoders()):
            raise _refuse(f"'{name}'", s, "an encoder must be the pipeline's first step or "
                          "in its ColumnTransformer")
        else:
            raise _refuse(f"'{name}'", s)
    return pos


def _other_value(values: tuple):
    """A value none of ``values`` is (what an unknown input stands for)."""
    if all(isinstance(v, str) for v in values):
        w = "fxai: other"
        while w in values:
            w += "!"
        return w
    return max((float(v) for v in values if not isinstance(v, str)), default=0.0) + 1.0


def read(pipe, vote: str = "soft") -> Encoded:
    """The :class:`Encoded` model of a fitted pipeline (``vote``: a forest's vote rule).

    Raises ``TypeError`` naming the first step fxai cannot follow exactly.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(pipe)
    final = _final(*pipe.steps[-1])
    steps = [(n, s) for n, s in pipe.steps[:-1] if not _is_identity(s)]
    if not steps:
        raise _refuse(f"'{pipe.steps[-1][0]}'", final, "a pipeline without preprocessing: "
                      "pass the model itself")
    pre = _Pre(pipe)
    first_name, first = steps[0]
    blocks = _blocks(first_name, first, pre.n_in)
    if isinstance(first, ColumnTransformer):
        width = max((s.stop for *_, s in blocks), default=0)
    else:
        width = len(first.get_feature_names_out())
        blocks = [(k, e, cols, slice(0, width)) for k, e, cols, _ in blocks]
    position = _model_positions(width, steps)
    columns: list[Column] = [Column(n, "unused") for n in pre.names]
    numeric_owner: dict[int, int] = {}  # first-step output -> numeric input column
    for kind, encoder, cols, where in blocks:
        for j, c in enumerate(cols):
            if columns[c].kind == "category" or (kind == "category"
                                                 and columns[c].kind != "unused"):
                raise TypeError(f"column {pre.names[c]!r} is read by two transformers, one "
                                "of them an encoder: fxai needs one encoding per column")
            if kind == "category":
                cats = tuple(plain(v) for v in encoder.categories_[j] if not missing_value(v))
                columns[c] = Column(pre.names[c], kind, cats,
                                    encoder.handle_unknown != "error")
            else:
                columns[c] = Column(pre.names[c], "number")
                numeric_owner[range(width)[where][j]] = c
    base = [c.values[0] if c.kind == "category" else 0.0 for c in columns]
    if _is_sparse(pre.raw([[b] for b in base])) and not is_kind(final, "tree", "forest"):
        raise TypeError("the preprocessing outputs a sparse matrix, in which XGBoost reads "
                        "the zeros as missing values: set sparse_output=False on the "
                        "OneHotEncoder (or sparse_threshold=0 on the ColumnTransformer)")
    return _Reader(pre, columns, base, position, numeric_owner).encode(final, vote)


def _key(x: np.ndarray) -> np.ndarray:
    """float64 -> int64 in the same order (-0.0 and 0.0 alike)."""
    i = np.asarray(x, dtype=np.float64).view(np.int64)
    return np.where(i >= 0, i, -(i & np.int64(0x7FFFFFFFFFFFFFFF)))


def _unkey(k: np.ndarray) -> np.ndarray:
    k = np.asarray(k, dtype=np.int64)
    return np.where(k >= 0, k, (-k) | np.int64(-0x8000000000000000)).view(np.float64)


class _Reader:
    """Which column each model input reads, and each split's side per code."""

    def __init__(self, pre: _Pre, columns: list[Column], base: list, position, numeric_owner):
        self.pre, self.columns, self.base = pre, columns, base
        self.base_out = pre.transform([[b] for b in base])[0]
        self.n_inputs = len(position)
        self.owner: list[int | None] = [numeric_owner.get(int(p)) for p in position]
        self.table: dict[int, np.ndarray] = {}  # category column -> codes x model inputs
        for c, col in enumerate(columns):
            if col.kind != "category":
                continue
            vals = list(col.values) + [_other_value(col.values)] * col.other
            t = pre.transform([vals if i == c else [b] * len(vals)
                               for i, b in enumerate(base)])
            self.table[c] = t
            for k in np.flatnonzero((t != t[:1]).any(axis=0)):
                self.owner[int(k)] = c

    def _bounds(self, queries: list[tuple[int, float]]) -> list[float]:
        """Per (model input k of a numeric column, float32 t) the least float64 raw x with
        ``float32(input_k(x)) >= t`` (+inf: none, -inf: every x)."""
        n = len(queries)
        ks = np.array([k for k, _ in queries])
        ts = np.array([t for _, t in queries], dtype=np.float32)
        cols = [self.owner[k] for k, _ in queries]

        def right(x: np.ndarray) -> np.ndarray:
            data = [[b] * n for b in self.base]
            for r, c in enumerate(cols):
                data[c][r] = float(x[r])
            with np.errstate(over="ignore", invalid="ignore"):
                z = self.pre.transform(data)[np.arange(n), ks].astype(np.float32)
            return z >= ts

        big = np.finfo(np.float64).max
        lo, hi = _key(np.full(n, -big)), _key(np.full(n, big))
        at_lo, at_hi = right(_unkey(lo)), right(_unkey(hi))
        todo = ~at_lo & at_hi
        while True:
            mid = (lo >> 1) + (hi >> 1) + (lo & hi & 1)  # (no overflow)
            todo &= (mid != lo) & (mid != hi)
            if not todo.any():
                break
            r = right(_unkey(mid))
            hi = np.where(todo & r, mid, hi)
            lo = np.where(todo & ~r, mid, lo)
        b = _unkey(hi)
        return [(-math.inf if at_lo[i] else math.inf if not at_hi[i] else float(b[i]))
                for i in range(n)]

    def encode(self, final, vote: str) -> Encoded:
        from fxai.models import forest, scores

        if is_kind(final, "nbc"):
            return self._naive_bayes(final)
        if is_kind(final, "forest"):
            model = forest.from_sklearn(final, vote=vote)
        elif is_kind(final, "tree"):
            model = None
        else:
            model = scores.convert(final)
        trees = [_dt_tree(final)] if model is None else list(model.trees)
        splits = sorted({(int(t.feature[i]), float(t.threshold[i])) for t in trees
                         for i in np.flatnonzero(t.left >= 0)})
        numeric = [(k, t) for k, t in splits
                   if self.owner[k] is not None and self.columns[self.owner[k]].kind == "number"]
        cut = dict(zip(numeric, self._bounds(numeric), strict=True)) if numeric else {}
        for c, col in enumerate(self.columns):
            if col.kind == "number":
                bs = sorted({b for (k, _), b in cut.items()
                             if self.owner[k] == c and math.isfinite(b)})
                self.columns[c] = dataclasses.replace(col, bounds=tuple(bs))
        self.cut = cut
        columns = tuple(self.columns)
        names = tuple(c.name for c in columns)
        if model is None:
            return Encoded(_graph(trees[0], self, final), columns)
        sizes = [c.size for c in columns]
        recoded = tuple(recode(t, sizes, lambda node, t=t: self.side(int(t.feature[node]),
                                                                     float(t.threshold[node])))
                        for t in trees)
        return Encoded(dataclasses.replace(model, trees=recoded, n_features=len(columns),
                                           feature_names=names), columns)

    def _naive_bayes(self, nb) -> Encoded:
        """A CategoricalNB behind the encoders: each column must reach exactly one input,
        as one of its categories (an OrdinalEncoder's code, or an integer passed through
        unchanged). Its :class:`~fxai.models.nbc.NBCTables` hold the model's tables, their
        columns picked per code, summed in the model's order of inputs (as scikit-learn
        sums them); a column the pipeline drops is a one-value feature of log-probability
        0 (adding an exact 0)."""
        from fxai.models.nbc import NBCTables

        def refuse(why: str) -> TypeError:
            return TypeError(f"a CategoricalNB at the end of a pipeline needs each column to "
                             f"reach it as one input holding a category: {why}")

        reads = {c: [k for k in range(self.n_inputs) if self.owner[k] == c]
                 for c in range(len(self.columns))}
        columns = list(self.columns)
        tables: list = [np.zeros((len(nb.classes_), 1))] * len(columns)
        for k in range(self.n_inputs):
            c = self.owner[k]
            if c is None:
                raise refuse(f"model input {k} reads no column (a constant)")
            col, n_cat = self.columns[c], int(nb.n_categories_[k])
            if len(reads[c]) != 1:
                raise refuse(f"column {col.name!r} reaches {len(reads[c])} inputs (one-hot)")
            if col.kind == "category":
                cats = self.table[c][:, k]
            else:  # an integer column passed through: its categories are 0..n_cat-1
                col = Column(col.name, "category", tuple(range(n_cat)))
                vals = [float(v) for v in col.values]
                cats = self.pre.transform([vals if i == c else [b] * n_cat
                                           for i, b in enumerate(self.base)])[:, k]
                if not np.array_equal(cats, vals):
                    raise refuse(f"column {col.name!r} is changed on the way (scaled?)")
            ok = (cats == np.round(cats)) & (cats >= 0) & (cats < n_cat)
            if not ok[:len(col.values)].all():
                raise refuse(f"column {col.name!r} reaches it as {sorted(set(cats))}, not "
                             f"as categories 0..{n_cat - 1}")
            if col.other and not ok[-1]:  # the pipeline's own predict fails on it
                col = dataclasses.replace(col, other=False)
            columns[c] = col
            tables[c] = np.asarray(nb.feature_log_prob_[k])[:, cats[:col.size].astype(int)]
        order = [self.owner[k] for k in range(self.n_inputs)]
        order += [c for c in range(len(columns)) if not reads[c]]
        model = NBCTables(np.asarray(nb.class_log_prior_, dtype=float), tuple(tables),
                          tuple(order))
        return Encoded(model, tuple(columns))

    def side(self, k: int, t: float) -> tuple[int | None, np.ndarray | bool]:
        """(column, per code whether it goes left: ``float32(input_k) < t``), or (None,
        the constant side) when input k reads no column."""
        c = self.owner[k]
        t32 = np.float32(t)
        if c is None:
            return None, bool(np.float32(self.base_out[k]) < t32)
        col = self.columns[c]
        if col.kind == "category":
            return c, self.table[c][:, k].astype(np.float32) < t32
        b = self.cut[(k, t)]
        codes = np.arange(col.size)
        if b == math.inf:
            return c, np.ones(col.size, dtype=bool)
        if b == -math.inf:
            return c, np.zeros(col.size, dtype=bool)
        return c, codes <= col.bounds.index(b)


def _dt_tree(clf) -> Tree:
    """A fitted tree in the array layout (``x < t'``, as :mod:`fxai.models.forest`); a
    leaf's value: its class index."""
    from fxai.models.forest import strict_threshold

    t = clf.tree_
    left = np.asarray(t.children_left, dtype=np.int64)
    leaf = left < 0
    return Tree(feature=np.where(leaf, 0, t.feature).astype(np.int64),
                threshold=np.where(leaf, 0, strict_threshold(t.threshold)).astype(np.float32),
                left=left, right=np.asarray(t.children_right, dtype=np.int64),
                value=np.argmax(t.value[:, 0, :], axis=1))


def _graph(tree: Tree, reader: _Reader, clf):
    """The decision graph of a recoded scikit-learn tree: one node per split, its edges
    the codes of each side (edges no code on the path can take dropped)."""
    from fxai.models.dgraph import DecisionGraph, Node, ValueSet

    sizes = [c.size for c in reader.columns]
    nodes: list = [None] * len(tree.left)

    def follow(k: int) -> int:  # past splits on inputs that read no column
        while tree.left[k] >= 0:
            c, g = reader.side(int(tree.feature[k]), float(tree.threshold[k]))
            if c is not None:
                return k
            k = int(tree.left[k] if g else tree.right[k])
        return k

    root = follow(0)
    stack: list[tuple[int, dict[int, frozenset]]] = [(root, {})]
    while stack:
        k, cons = stack.pop()
        if tree.left[k] < 0:
            nodes[k] = Node(label=plain(clf.classes_[int(tree.value[k])]))
            continue
        c, g = reader.side(int(tree.feature[k]), float(tree.threshold[k]))
        cur = cons.get(c, frozenset(range(sizes[c])))
        edges = []
        for child, mask in ((tree.left[k], g), (tree.right[k], ~g)):
            lit = frozenset(int(i) for i in np.flatnonzero(mask))
            if not lit & cur:
                continue
            child = follow(int(child))
            edges.append((ValueSet(lit), child))
            stack.append((child, {**cons, c: lit & cur}))
        nodes[k] = Node(feature=c, edges=tuple(edges))
    placeholder = Node(label=plain(clf.classes_[0]))
    return DecisionGraph([n or placeholder for n in nodes], len(sizes), root=root,
                         domains=[list(range(s)) for s in sizes])
