"""Checks shared by the tests of models read onto interval codes (HistGradientBoosting,
LightGBM): on a grid of raw values per feature, the oracle predicts as the library does, and
the explanations are exact by brute force with the library's own ``predict``."""

from __future__ import annotations

import itertools

import numpy as np

from fxai import explain, oracles, verify
from fxai.verify import scores
from fxai.verify.grid import GridChecker
from fxai.verify.named import named


def predict(model, pts) -> np.ndarray:
    """``model.predict`` on rows of raw values (a frame with the model's column names)."""
    X = named(model, pts)
    return model.predict(X.infer_objects() if hasattr(X, "infer_objects") else X)


def sufficient(model, grid, x, fixed, c) -> bool:
    """Every grid point agreeing with ``x`` on ``fixed`` is predicted ``c`` by ``model``."""
    pts = np.array(list(itertools.product(*[[x[i]] if i in fixed else g
                                            for i, g in enumerate(grid)])), dtype=x.dtype)
    return bool(np.all(predict(model, pts) == c))


def check_on_grid(model, X, grid, missing: bool, target: str, rows: int = 10) -> None:
    """The oracle's prediction is the library's on (a sample of) the grid; for up to 3 of
    the first ``rows`` rows (with NaN only when ``missing``), one AXp and one CXp are exact
    by brute force, MARCO (``target``) is complete with AXps and CXps hitting each other,
    and the independent checker agrees."""
    pts = np.array(list(itertools.product(*grid)), dtype=X.dtype)
    step = max(1, len(pts) // 200)
    assert [oracles.for_model(model, p, missing=True).prediction
            for p in pts[::step]] == list(predict(model, pts[::step]))
    n = X.shape[1]
    nan = [any(isinstance(v, float) and np.isnan(v) for v in x) for x in X]
    for i in [i for i in range(rows) if missing or not nan[i]][:3]:
        x, c = X[i], predict(model, X[i:i + 1])[0]
        o = oracles.for_model(model, x, missing=missing)
        assert o.prediction == c
        axp, cxp = explain.find_axp(o), explain.find_cxp(o)
        assert sufficient(model, grid, x, set(axp), c)
        assert not any(sufficient(model, grid, x, set(axp) - {f}, c) for f in axp)
        rest = set(range(n)) - set(cxp)
        assert not sufficient(model, grid, x, rest, c)
        assert all(sufficient(model, grid, x, rest | {f}, c) for f in cxp)
        m = explain.Marco(o, target=target)
        list(m)
        assert m.complete and all(set(a) & set(b) for a in m.axps for b in m.cxps)
        assert verify.check_all(model, x, m.axps, m.cxps, missing=missing) == (
            [True] * len(m.axps), [True] * len(m.cxps))
        if scores.reads(model):  # the MILP checker decides as brute force
            sets = [set(s) for r in range(n + 1) for s in itertools.combinations(range(n), r)]
            for samples, leaves in ((0, False), (0, True), (64, True)):
                milp = scores.ScoreChecker(model, x, missing=missing, samples=samples,
                                           leaves=leaves)
                assert [milp.entails(s) for s in sets] == GridChecker(
                    model, x, missing).weak_axps(sets)
