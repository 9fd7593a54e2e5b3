"""Checking a scikit-learn Pipeline's explanations over its original columns with the
checker of its last step.

Its own reading of the pipeline (it shares nothing with :mod:`fxai.models.pipeline`): the
model inputs each column moves are found by the pipeline's ``transform`` (varying one
column of the instance at a time); a column an encoder reads ranges over its categories,
plus a value the encoder has not seen when it accepts one. A set S of columns is a weak
AXp iff fixing the inputs of S at the transformed row forces the class of the last step
while each free encoded column's inputs take the rows its values transform to and a free
numeric column's inputs range over all reals (what a monotone scaler's image of the
float64 values gives the float32 comparisons of the trees). For a random forest or
multi-class XGBoost model the last step's checker takes the encoded columns' rows as
groups of joint values (:func:`fxai.verify.joint_weak_axp_fn`): one question per set.
Otherwise, or when columns share inputs, the combinations of values of the free encoded
columns are enumerated, each asked of the last step's checker
(:func:`fxai.verify.weak_axp_fn`) with those columns fixed.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Mapping

import numpy as np


def _unseen(cats: list):
    """A value none of ``cats`` is, of their kind (text or number)."""
    if all(isinstance(v, str) for v in cats):
        return "fxai-check: unseen value" + "!" * sum(v.startswith("fxai-check") for v in cats)
    return max(float(v) for v in cats) + 1.0


def _encoders(pipe) -> dict[int, object]:
    """Input column -> the encoder that reads it (the first step, or in its
    ColumnTransformer, alone or first in a nested pipeline)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    def encoder(t):
        if isinstance(t, Pipeline):
            t = t.steps[0][1]
        return t if isinstance(t, OneHotEncoder | OrdinalEncoder) else None

    first = pipe.steps[0][1]
    if isinstance(first, ColumnTransformer):
        found = {}
        for name, t, _ in first.transformers_:
            e = encoder(t)
            if e is not None:
                for j, c in enumerate(first._transformer_to_input_indices[name]):
                    found[int(c)] = (e, j)
        return found
    e = encoder(first)
    return {} if e is None else {c: (e, c) for c in range(int(pipe.n_features_in_))}


class PipelineChecker:
    """Weak AXps of ``pipe`` at the raw row ``x`` (a Series, dict or row in column order)."""

    def __init__(self, pipe, x, checker, vote: str | None = None,
                 limit: tuple[float, float] | None = None, joint=None):
        """``checker``: :func:`fxai.verify.weak_axp_fn` (the last step's checker);
        ``joint``: :func:`fxai.verify.joint_weak_axp_fn` (its checker with groups);
        ``limit``: (start, CPU seconds) of the enumeration of combinations."""
        self.pipe, self.checker, self.vote, self.limit = pipe, checker, vote, limit
        self.names = [str(n) for n in getattr(pipe, "feature_names_in_",
                                              range(int(pipe.n_features_in_)))]
        if type(x).__name__ == "DataFrame":
            x = x.iloc[0]
        self.x = [x[n] for n in self.names] if isinstance(x, Mapping) or type(
            x).__name__ == "Series" else list(x)
        self.n = len(self.names)
        z0 = self.transform([self.x])[0]
        self.c = self._predict(z0)
        self.values: dict[int, list] = {}
        for c, (enc, j) in _encoders(pipe).items():
            cats = [v for v in enc.categories_[j] if not (isinstance(v, float) and math.isnan(v))]
            if enc.handle_unknown != "error" and self._predicts(c, _unseen(cats)):
                cats.append(_unseen(cats))
            self.values[c] = cats
        self.inputs: list[list[int]] = []
        rows: dict[int, np.ndarray] = {}  # per encoded column its values' rows of its inputs
        for c in range(self.n):
            tries = self.values.get(c) or [_shift(self.x[c], d) for d in (1.0, -1.0, 1e3)]
            z = self.transform([[*self.x[:c], v, *self.x[c + 1:]] for v in tries])
            self.inputs.append([int(k) for k in np.flatnonzero((z != z0).any(axis=0))])
            if c in self.values:
                rows[c] = np.unique(np.vstack([z0[None], z])[:, self.inputs[-1]], axis=0)
        self.z0, self.unmoved = z0, set(range(len(z0))) - {k for ks in self.inputs for k in ks}
        shared = sum(map(len, self.inputs)) != len({k for ks in self.inputs for k in ks})
        groups = [(self.inputs[c], r) for c, r in rows.items() if self.inputs[c]]
        self._joint = None if joint is None or shared else joint(
            pipe.steps[-1][1], z0, groups, vote)

    def _predicts(self, c: int, v) -> bool:
        """Whether the pipeline predicts the instance with column ``c`` set to ``v`` (naive
        Bayes fails on an ordinal encoder's negative code for an unknown value)."""
        try:
            self._predict(self.transform([[*self.x[:c], v, *self.x[c + 1:]]])[0])
        except (ValueError, IndexError):
            return False
        return True

    def transform(self, rows: list[list]) -> np.ndarray:
        import pandas as pd

        X = pd.DataFrame(rows, columns=self.names) if hasattr(self.pipe, "feature_names_in_") \
            else np.array(rows, dtype=object)
        with warnings.catch_warnings():  # an unknown value on purpose (what it encodes to)
            warnings.filterwarnings("ignore", "Found unknown categories")
            out = self.pipe[:-1].transform(X)
        return np.asarray(out.toarray() if hasattr(out, "toarray") else out, dtype=np.float64)

    def _predict(self, z: np.ndarray):
        """The last step's class at the model inputs ``z`` (its own predict)."""
        from fxai.verify.named import named

        model = self.pipe.steps[-1][1]
        if self.vote == "hard":
            votes = [int(e.predict([z])[0]) for e in model.estimators_]  # class positions
            return model.classes_[int(np.argmax(np.bincount(votes)))]  # first most voted
        return model.predict(named(model, [z]))[0]

    def weak_axps(self, sets: list[set[int]]) -> list[bool]:
        from fxai.oracles.base import TimeLimitExceeded

        if self._joint is not None:
            test, _ = self._joint
            return test([{k for c in s for k in self.inputs[c]} | self.unmoved for s in sets])
        out = [True] * len(sets)
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, s in enumerate(sets):
            groups.setdefault(tuple(c for c in sorted(self.values) if c not in s), []).append(i)
        for free, idx in groups.items():
            for combo in itertools.product(*(self.values[c] for c in free)):
                if self.limit is not None and time.process_time() > sum(self.limit):
                    raise TimeLimitExceeded("check_all: time limit reached while checking a "
                                            "pipeline's combinations of categories",
                                            self.limit[1], None)
                todo = [i for i in idx if out[i]]
                if not todo:
                    break
                row = list(self.x)
                for c, v in zip(free, combo, strict=True):
                    row[c] = v
                z = self.transform([row])[0]
                if self._predict(z) != self.c:  # a completion of each set of another class
                    for i in todo:
                        out[i] = False
                    break
                test, _ = self.checker(self.pipe.steps[-1][1], z, None, self.vote)
                fixed = [{k for c in set(sets[i]) | set(free) for k in self.inputs[c]}
                         | self.unmoved for i in todo]
                for i, ok in zip(todo, test(fixed), strict=True):
                    out[i] = out[i] and ok
        return out


def _shift(v, d: float):
    try:
        return float(v) + d
    except (TypeError, ValueError):
        return v
