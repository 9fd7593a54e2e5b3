"""Checking explanations of a gradient-boosted model whose splits test ``x <= t`` on float64
values (scikit-learn's ``HistGradientBoostingClassifier``, LightGBM) by brute force with its
own ``predict``.

Its own reading of the model: the distinct split thresholds t of each feature (the nodes
of ``_predictors``; LightGBM's ``dump_model``) give the values that reach every
combination of sides, t and the next float64 above it, and one value below them all
(LightGBM: also the values it reads as 0, ±1e-35f; at a categorical split -1, each of its
categories j and j + 1); a categorical feature of a
HistGradientBoostingClassifier takes each category its encoder knows and one it does not;
with ``missing`` every feature also takes NaN. A set S is a
weak AXp iff the model predicts the instance's class at every completion of the features
outside S over those values (``LIMIT`` points at most per set: beyond,
:class:`~fxai.oracles.TimeLimitExceeded`, the check is left undecided).
"""

from __future__ import annotations

import itertools

import numpy as np

LIMIT = 1 << 18  # completions per set


def _hist_gradient_splits(model) -> tuple[list[set[float]], dict[int, list]]:
    """(per feature its thresholds, per categorical feature its values to try)."""
    n = int(model.n_features_in_)
    pre, categorical = getattr(model, "_preprocessor", None), getattr(model, "is_categorical_",
                                                                      None)
    order = np.arange(n) if pre is None else np.concatenate(  # the encoded ones come first
        [np.flatnonzero(categorical), np.flatnonzero(~categorical)])
    cuts: list[set[float]] = [set() for _ in range(n)]
    for iteration in model._predictors:
        for p in iteration:
            inner = ~p.nodes["is_leaf"].astype(bool) & ~p.nodes["is_categorical"].astype(bool)
            for f, t in zip(p.nodes["feature_idx"][inner], p.nodes["num_threshold"][inner],
                            strict=True):
                cuts[int(order[f])].add(float(t))
    values = {}
    if pre is not None:
        encoder = pre.named_transformers_["encoder"]
        for f, known in zip(np.flatnonzero(categorical), encoder.categories_, strict=True):
            known = [v for v in known if not (isinstance(v, float) and np.isnan(v))]
            unseen = ("(unseen)" if any(isinstance(v, str) for v in known)
                      else max(known, default=0.0) + 1.0)
            values[int(f)] = [*known, unseen]
    return cuts, values


def _lightgbm_splits(model) -> tuple[list[set[float]], dict[int, list]]:
    """(per feature the values its splits test, no categories: LightGBM's are numbers)."""
    booster = model if hasattr(model, "dump_model") else model.booster_
    best = booster.best_iteration
    doc = booster.dump_model(num_iteration=best if best > 0 else None)
    zero = float(np.float32(1e-35))
    cuts: list[set[float]] = [{zero, -zero, 0.0} for _ in range(doc["max_feature_idx"] + 1)]
    stack = [info["tree_structure"] for info in doc["tree_info"]]
    while stack:
        node = stack.pop()
        if "split_feature" in node:
            f, t = int(node["split_feature"]), node["threshold"]
            if node["decision_type"] == "==":  # a negative value, then each category
                cuts[f] |= {-1.0, *(float(int(c) + d) for c in str(t).split("||")
                                    for d in (0, 1))}
            else:
                cuts[f].add(float(t))
            stack += [node["left_child"], node["right_child"]]
    return cuts, {}


class GridChecker:
    def __init__(self, model, x, missing: bool = False, domains=None):
        """``domains``: per feature its finite values (None: the values the splits test)."""
        self.model = model
        splits, categories = (_hist_gradient_splits(model) if hasattr(model, "_predictors")
                              else _lightgbm_splits(model))
        self.x = np.asarray(x, dtype=object if categories else np.float64)
        n = len(splits)
        cuts = [s | {float(np.nextafter(t, np.inf)) for t in s} for s in splits]
        self.values = []
        for f in range(n):
            vals = sorted(v for v in cuts[f] if np.isfinite(v))
            vals = categories.get(f, [vals[0] - 1.0 if vals else 0.0, *vals])
            if domains is not None and domains[f] is not None:
                vals = [v for v in domains[f] if not (isinstance(v, float) and np.isnan(v))]
            self.values.append(vals + [np.nan] * missing)
        self.n = n
        self.c = self._predict(self.x[None, :])[0]

    def _predict(self, X: np.ndarray) -> np.ndarray:
        from fxai.verify.named import as_fitted

        if hasattr(self.model, "dump_model"):  # a LightGBM Booster: probabilities
            p = self.model.predict(X)
            return (p > 1 - p).astype(int) if p.ndim == 1 else np.argmax(p, axis=1)
        return self.model.predict(as_fitted(self.model, X))

    def weak_axps(self, sets: list[set[int]]) -> list[bool]:
        from fxai.oracles.base import TimeLimitExceeded

        out = []
        for s in sets:
            free = [f for f in range(self.n) if f not in s]
            size = int(np.prod([len(self.values[f]) for f in free], dtype=float))
            if size > LIMIT:
                raise TimeLimitExceeded(f"check: {size} completions to enumerate (more than "
                                        f"{LIMIT})", None, None)
            pts = np.tile(self.x, (size, 1))
            if free:
                grid = itertools.product(*(self.values[f] for f in free))
                pts[:, free] = np.array(list(grid), dtype=self.x.dtype)
            out.append(bool(np.all(self._predict(pts) == self.c)))
        return out
