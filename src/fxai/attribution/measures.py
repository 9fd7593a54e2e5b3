"""Where a score disagrees with formal relevancy, for one instance.

A score ranks features by absolute value. With ``R`` the relevant features (in some AXp)
and ``I`` the irrelevant ones (all others, including those the model never tests):

* ``irrelevant_ge``: some irrelevant feature scores at least as high as some relevant one
  (``max_I |s| ≥ min_R |s|``);
* ``irrelevant_gt``: strictly higher (``max_I |s| > min_R |s|``);
* ``top_irrelevant``: an irrelevant feature is ranked first (``max_I |s| ≥ max_R |s|``);
* ``relevant_zero``: a relevant feature scores zero (``|s| ≤ ZERO``);
* ``irrelevant_nonzero``: an irrelevant feature scores non-zero (``|s| > ZERO``);
* ``gap``: ``(min_R |s| − max_I |s|) / max |s|``, in [−1, 1]; negative exactly when
  ``irrelevant_gt`` holds (0 for an all-zero score);
* ``kendall_tau`` and ``rbo``: rank agreement of ``|s|`` with the exact FFA
  (:func:`fxai.metrics.ffa.kendall_tau`, :func:`fxai.metrics.ffa.rbo`, paper variant).

The comparisons between ``R`` and ``I`` are None when either is empty. ``ZERO`` absorbs
float rounding only (exact Shapley values of an irrelevant feature can come out as
``1e-17`` instead of 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from fxai.metrics.ffa import kendall_tau, rbo

ZERO = 1e-12
FLAGS = ("irrelevant_ge", "irrelevant_gt", "top_irrelevant", "relevant_zero",
         "irrelevant_nonzero")


def disagreement(scores: Sequence[float], relevant: Iterable[int],
                 ffa: Mapping[int, float] | None = None) -> dict:
    """The measures of the module for one instance's ``scores`` (one per feature).

    Three features, x0 and x1 relevant, a score that ranks the irrelevant x2 between them:

    Examples
    --------
    >>> m = disagreement([0.5, -0.1, 0.2], [0, 1], ffa={0: 1.0, 1: 0.5})
    >>> [m[k] for k in ("irrelevant_ge", "irrelevant_gt", "top_irrelevant", "gap")]
    [True, True, False, -0.2]
    >>> m["relevant_zero"], m["irrelevant_nonzero"], round(m["kendall_tau"], 4)  # 2 of 3 pairs
    (False, True, 0.3333)
    """
    a = np.abs(np.asarray(scores, dtype=float))
    a[a <= ZERO] = 0.0  # float rounding of a zero score, for the comparisons and the ranks
    rel = sorted(set(relevant))
    irr = [f for f in range(a.size) if f not in set(rel)]
    out: dict = dict.fromkeys(FLAGS)
    out["gap"] = None
    if rel:
        out["relevant_zero"] = bool(np.any(a[rel] <= ZERO))
    if irr:
        out["irrelevant_nonzero"] = bool(np.any(a[irr] > ZERO))
    if rel and irr:
        hi_irr, lo_rel, hi_rel = a[irr].max(), a[rel].min(), a[rel].max()
        out["irrelevant_ge"] = bool(hi_irr >= lo_rel)
        out["irrelevant_gt"] = bool(hi_irr > lo_rel)
        out["top_irrelevant"] = bool(hi_irr >= hi_rel)
        top = a.max()
        out["gap"] = float((lo_rel - hi_irr) / top) if top > ZERO else 0.0
    if ffa is not None:
        approx = {f: float(v) for f, v in enumerate(a)}
        out["kendall_tau"] = float(kendall_tau(approx, dict(ffa)))
        out["rbo"] = float(rbo(approx, dict(ffa))) if ffa and a.max() > 0 else None
    return out
