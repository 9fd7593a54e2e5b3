"""Independent checks of NBC explanations (no code shared with the explainers).

Works on the fitted scikit-learn ``CategoricalNB`` itself:

* AXps: an NBC is additive, so the worst completion of a fixed set takes, per free
  feature, the value that most favours the other class; scikit-learn's own ``predict``
  is asked about that point (and about the point with each explanation feature also
  freed, for subset-minimality).
* Precision: exact count of the completions that keep the prediction, by meet-in-the-
  middle over the real-valued (float64) class-score differences: the free features are
  split into two halves of similar size, every half-assignment's score is enumerated,
  and pairs are counted with a sorted search. No rounding, no DP.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from sklearn.naive_bayes import CategoricalNB

MAX_HALF = 2**22  # largest number of assignments enumerated per half


def _score_diffs(model: CategoricalNB) -> tuple[float, list[np.ndarray]]:
    """Class-1 minus class-0 log scores: prior part and one array per feature."""
    prior = float(model.class_log_prior_[1] - model.class_log_prior_[0])
    return prior, [np.asarray(t[1] - t[0], dtype=float) for t in model.feature_log_prob_]


def _predict_one(model: CategoricalNB, x) -> int:
    return int(np.flatnonzero(model.classes_ == model.predict([x])[0])[0])


def check_axp(model: CategoricalNB, x, xp: Iterable[int]) -> bool:
    """True iff ``xp`` is an AXp of ``model`` at ``x``: fixing it forces the prediction,
    and freeing any one more feature lets scikit-learn predict the other class."""
    x = [int(v) for v in x]
    xp = sorted(set(xp))
    c = _predict_one(model, x)
    _, diffs = _score_diffs(model)
    worst = [int(np.argmin(d)) if c == 1 else int(np.argmax(d)) for d in diffs]

    def adversary(fixed: set[int]) -> list[int]:
        return [v if i in fixed else worst[i] for i, v in enumerate(x)]

    rows = [adversary(set(xp))] + [adversary(set(xp) - {i}) for i in xp]
    pred = np.searchsorted(model.classes_, model.predict(np.asarray(rows)))
    return bool(pred[0] == c and np.all(pred[1:] != c))


def _half_sums(diffs: list[np.ndarray]) -> np.ndarray:
    sums = np.zeros(1)
    for d in diffs:
        sums = np.add.outer(sums, d).ravel()
    return sums


def true_precision(model: CategoricalNB, x, fixed: Iterable[int]) -> float | None:
    """Exact fraction of completions of ``x_fixed`` that keep the prediction of ``x``, or
    None when the free space is too large to enumerate (more than ``MAX_HALF``² points)."""
    x = [int(v) for v in x]
    fixed = set(fixed)
    c = _predict_one(model, x)
    prior, diffs = _score_diffs(model)
    base = prior + sum(float(diffs[i][x[i]]) for i in fixed)
    free = sorted((i for i in range(len(x)) if i not in fixed), key=lambda i: -diffs[i].size)
    # greedy balance of the two halves by log-size
    halves: tuple[list[int], list[int]] = ([], [])
    logs = [0.0, 0.0]
    for i in free:
        k = int(logs[1] < logs[0])
        halves[k].append(i)
        logs[k] += np.log2(diffs[i].size)
    if max(logs) > np.log2(MAX_HALF):
        return None
    a = _half_sums([diffs[i] for i in halves[0]])
    b = np.sort(_half_sums([diffs[i] for i in halves[1]]))
    # class 1 iff base + a + b > 0 (ties go to class 0, as argmax does)
    below = np.searchsorted(b, -base - a, side="right")  # pairs with a + b <= -base
    n_zero = int(below.sum())
    total = a.size * b.size
    return (total - n_zero) / total if c == 1 else n_zero / total


def check_approx_paxp(model: CategoricalNB, x, axp: Iterable[int], xp: Iterable[int],
                      delta: float) -> tuple[bool | None, float | None]:
    """``(verified, precision)`` of an ApproxPAXp ``xp`` grown from AXp ``axp``: it must be
    a subset of the AXp, have precision ≥ δ, and every single removal must fall below δ.
    ``verified`` is None when some precision cannot be enumerated."""
    xp = set(xp)
    if not xp <= set(axp):
        return False, None
    p = true_precision(model, x, xp)
    if p is None:
        return None, None
    if p < delta:
        return False, p
    drops = [true_precision(model, x, xp - {i}) for i in sorted(xp)]
    if any(q is not None and q >= delta for q in drops):
        return False, p
    return (None if any(q is None for q in drops) else True), p
