"""Exact entailment oracle for score ensembles (:mod:`fxai.models.scores`): multi-class
XGBoost, by the boosted trees' branch and bound (a forest gets a SAT oracle: a vote count,
``ScoreEnsemble.is_vote``, the one of :mod:`fxai.oracles.votes`, another soft vote the one of
:mod:`fxai.oracles.soft_votes`, which falls back on this search for a very large pair).

The prediction ``c`` is the first class of highest score. A point is of another class iff
some class ``j`` reaches ``c``'s score: ``score_j > score_c``, or ``score_j == score_c`` for
``j`` before ``c`` (first-max tie rule). So ``entails(S)`` asks, for each ``j != c`` in
turn, the branch and bound of :mod:`fxai.oracles.boosted` whether ``score_c - score_j``
can fall below 0 (to 0 for ``j < c``): per tree the leaf value is ``w_c - w_j`` (an XGBoost
tree scores one class, so the query keeps only the trees of ``c`` and ``j``; a forest tree
scores all), and a compatible pick of leaves is judged in the library's own arithmetic
(float32 sums in tree order for XGBoost; for a soft-vote forest scikit-learn's float64 sums
in tree order divided by the number of trees). The rivals are asked in order of their
score at the instance, closest first, in two passes: each rival's search is first cut off
after about a million leaf tests (a rival that can win is usually found fast, while proving that
one cannot may take long), then the undecided rivals' searches are resumed to the end. A
counterexample point is of another class than ``c`` under the model's own ``predict``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from fxai.models.boosted import reject_missing
from fxai.models.scores import ScoreEnsemble
from fxai.oracles.boosted import (
    BoostedOracle,
    _leaf_tables,
    _model_tables,
    _undecided,
    compiled_search,
)
from fxai.oracles.registry import register

_FIRST_PASS = 1 << 20  # leaves tested per rival in the quick first pass


class ScoreOracle(BoostedOracle):
    """Exact oracle for a :class:`ScoreEnsemble` at instance ``x``; ``prediction`` is the
    class label, ``index`` its position in ``classes``. Optional ``domains`` as for
    :class:`~fxai.oracles.boosted.BoostedOracle`.

    Examples
    --------
    >>> from fxai.models.boosted import Tree
    >>> stump = Tree(feature=np.array([0, 0, 0]), threshold=np.float32([0.5, 0, 0]),
    ...              left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
    ...              value=np.float32([[0, 0, 0], [1, 0, 1], [0, 2, 0]]))
    >>> ens = ScoreEnsemble((stump,), np.float32([0, 0, 0]), 1.0, (0, 1, 2), 1, "example")
    >>> o = ScoreOracle(ens, [0.0])  # classes 0 and 2 tie at x < 0.5: 0 is first
    >>> o.prediction, o.entails([0]), o.counterexample([])
    (0, True, [0.5])
    """

    remembers = True  # its rivals' passes are sized by the time left

    def __init__(self, model: ScoreEnsemble, x, domains: Sequence | None = None):
        x = list(x)
        if len(x) != model.n_features:
            raise ValueError(f"instance has {len(x)} values, the model {model.n_features} "
                             "features")
        reject_missing(x)
        if domains is not None:
            if len(domains) != model.n_features:
                raise ValueError(f"domains has {len(domains)} entries, expected "
                                 f"{model.n_features}")
            for f, d in enumerate(domains):
                if d is not None:
                    reject_missing(list(d), f"domain of feature {f}")
        self.ensemble, self.instance, self.n_features = model, x, model.n_features
        self.scores = model.scores([x])[0]
        self.index = int(np.argmax(self.scores))
        self.prediction = model.classes[self.index]
        self._used = model.used_features
        self._domains = domains
        self._model = _model_tables(model)
        self._intervals(self._model, domains)
        c = self.index
        self._rivals = sorted((j for j in range(model.n_classes) if j != c),
                              key=lambda j: (self.scores[c] - self.scores[j], j))
        self._pairs: dict[int, tuple] = {}

    def _changes(self, points: np.ndarray) -> np.ndarray:
        """Whether each point is of another class than the prediction (``predict_index``)."""
        return self.ensemble.predict_index(points) != self.index

    def _pair(self, j: int) -> tuple:
        """The leaf tables of ``score_c - score_j`` (kept per model without domains)."""
        if j not in self._pairs:
            ens, c = self.ensemble, self.index
            key = (c, j)
            tables = self._model["leaves"].get(key) if self._domains is None else None
            if tables is None:
                scores = [np.stack([t.value[:, c].astype(np.float64) - t.value[:, j],
                                    t.value[:, c], -t.value[:, j]], axis=1) for t in ens.trees]
                base = float(abs(ens.base[c]) + abs(ens.base[j]))
                tables = _leaf_tables(ens.trees, self._boxes_of, len(self._used), scores,
                                      ens.dtype, base, self.check_time)
                if self._domains is None:
                    self._model["leaves"][key] = tables
            self._pairs[j] = tables
        return self._pairs[j]

    def _ask(self, fixed) -> np.ndarray | None:
        return self._search(self._fixed_mask(fixed))

    def _search(self, mask: np.ndarray) -> np.ndarray | None:
        """Branch and bound per rival class from the box of ``mask``; a counterexample or
        None."""
        return self._branch_and_bound(mask, itertools.chain((_FIRST_PASS,), self._limits()))

    def _branch_and_bound(self, mask: np.ndarray, limits) -> np.ndarray | None:
        """Passes of the branch and bound over the rivals still open, each search resumed
        for its pass's number of leaves tested (-1: to the end); a counterexample or None."""
        rivals, stacks = list(self._rivals), {}
        for limit in limits:
            point, rivals = self._bnb_pass(mask, limit, rivals, stacks)
            if point is not None or not rivals:
                return point
        raise AssertionError("the last pass has no limit")  # pragma: no cover

    def _bnb_pass(self, mask: np.ndarray, limit: int, rivals: list[int], stacks: dict):
        """One pass over ``rivals`` in order, each search resumed from its stack of boxes in
        ``stacks`` (the box of ``mask`` at first): (a counterexample or None, the rivals
        left undecided within ``limit`` more leaves tested each)."""
        _, search = compiled_search()
        ens, c = self.ensemble, self.index
        divisor = ens.dtype(ens.divisor)
        undecided = []
        for j in rivals:
            cf, clo, chi, val, jv, starts, tol = self._pair(j)
            base = np.array([ens.base[c], -ens.base[j]], dtype=ens.dtype)
            point, *stacks[j] = search(cf, clo, chi, val, starts,
                                       float(ens.base[c]) - float(ens.base[j]), ens.dtype(0),
                                       j < c, *(stacks.get(j) or self._root(mask)), self._v,
                                       tol, jv, base, divisor, limit)
            if _undecided(point):
                undecided.append(j)
            elif point.size:
                return point, []
        return None, undecided


register(lambda m: isinstance(m, ScoreEnsemble) and not (m.is_vote or m.is_soft_vote),
         ScoreOracle)
