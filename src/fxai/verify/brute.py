"""Brute force over finite feature domains: ground truth for small models.

``predict`` takes a 2-D integer array (one row per point) and returns the predicted
classes; ``domains[i]`` is the sequence of values of feature i.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from fxai.oracles.base import Oracle


def completions(domains: Sequence[Sequence], x: Sequence, fixed: Iterable[int]) -> np.ndarray:
    """Every point that agrees with ``x`` on ``fixed`` (rows of a 2-D array)."""
    fixed = set(fixed)
    axes = [[x[i]] if i in fixed else list(d) for i, d in enumerate(domains)]
    grid = np.meshgrid(*[np.asarray(a) for a in axes], indexing="ij")
    return np.stack([g.ravel() for g in grid], axis=1)


class BruteForceOracle(Oracle):
    """Answers by evaluating ``predict`` on every completion (exponential; small models)."""

    def __init__(self, predict: Callable[[np.ndarray], np.ndarray], domains, x):
        self.predict, self.domains = predict, [list(d) for d in domains]
        self.instance = list(x)
        self.n_features = len(self.domains)
        self.prediction = predict(np.asarray([x]))[0]

    def _preds(self, fixed):
        pts = completions(self.domains, self.instance, fixed)
        return pts, self.predict(pts)

    def entails(self, fixed) -> bool:
        self.calls += 1
        return bool(np.all(self._preds(fixed)[1] == self.prediction))

    def counterexample(self, fixed):
        self.calls += 1
        pts, p = self._preds(fixed)
        bad = np.flatnonzero(p != self.prediction)
        return None if bad.size == 0 else [v.item() for v in pts[bad[0]]]

    def precision(self, fixed) -> float:
        return float(np.mean(self._preds(fixed)[1] == self.prediction))


def _subsets(feats):
    for k in range(len(feats) + 1):
        yield from itertools.combinations(feats, k)


def all_axps(o: Oracle) -> set[tuple[int, ...]]:
    """Every AXp: subset-minimal sets S with entails(S) (by monotonicity, minimal
    means no single feature can be dropped)."""
    feats = list(o.features)
    weak = {s for s in _subsets(feats) if o.entails(s)}
    return {s for s in weak if all(tuple(f for f in s if f != g) not in weak for g in s)}


def all_cxps(o: Oracle) -> set[tuple[int, ...]]:
    """Every CXp: subset-minimal sets Y whose freeing changes the prediction."""
    feats = list(o.features)
    weak = {s for s in _subsets(feats) if not o.entails(set(feats) - set(s))}
    return {s for s in weak if all(tuple(f for f in s if f != g) not in weak for g in s)}


def is_axp(o: Oracle, xp: Iterable[int]) -> bool:
    """Sufficient and subset-minimal (each single removal breaks entailment)."""
    xp = set(xp)
    return o.entails(xp) and all(not o.entails(xp - {f}) for f in xp)


def is_cxp(o: Oracle, xp: Iterable[int]) -> bool:
    """Freeing it changes the prediction; re-fixing any one feature does not."""
    xp, feats = set(xp), set(o.features)
    return (not o.entails(feats - xp)) and all(o.entails(feats - xp | {f}) for f in xp)
