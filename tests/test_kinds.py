"""Conformance of every kind of library model (``fxai.models.kinds.CLASSES``), in the spirit
of scikit-learn's estimator checks: on small random models of each kind, (1) a converter,
an oracle and a checker exist; (2) ``all_xps`` equals brute force with the library's own
predict; (3) the checker's verdict on every set, as an AXp and as a CXp (the explanations,
each with one feature dropped or added, and every other set), equals brute force; (4) the
score kinds have a hand-built tie model (``tests/test_ties.py``). A kind without a model
here fails.

The features take the values 0..3 and every split lies between two of them, so brute force
over {0, 1, 2, 3}^n decides the real line."""

from __future__ import annotations

import itertools

import lightgbm as lgb
import numpy as np
import pytest
import xgboost as xgb
from sklearn.ensemble import (
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.naive_bayes import CategoricalNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
from test_ties import MODELS as TIE_MODELS

from fxai import explain, oracles, verify
from fxai.models import convert, kinds
from fxai.verify.check import CHECKERS

N = 3
GRID = np.array(list(itertools.product(range(4), repeat=N)), dtype=float)


def data(seed: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (120, N)).astype(float)
    score = X @ rng.normal(size=N) + rng.normal(0, 1, 120)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, k + 1)[1:-1]))
    return X, y


def lightgbm_model(X, y):
    return lgb.LGBMClassifier(n_estimators=6, num_leaves=4, min_child_samples=5,
                              verbose=-1).fit(X, y)


#: kind -> seed -> a fitted model (two or three classes by the seed's parity)
MAKERS = {
    "tree": lambda s: DecisionTreeClassifier(max_depth=4, random_state=s).fit(*data(s, 2)),
    "forest": lambda s: RandomForestClassifier(5, max_depth=3, min_samples_leaf=4,
                                               random_state=s).fit(*data(s, 3)),
    "nbc": lambda s: CategoricalNB().fit(*data(s, 2)),
    "hist_gradient": lambda s: HistGradientBoostingClassifier(
        max_iter=5, max_depth=3, random_state=s).fit(*data(s, 2 + s % 2)),
    "gradient_boosting": lambda s: GradientBoostingClassifier(
        n_estimators=5, max_depth=2, random_state=s).fit(*data(s, 2 + s % 2)),
    "lightgbm": lambda s: lightgbm_model(*data(s, 3 - s % 2)),
    "xgboost": lambda s: xgb.XGBClassifier(n_estimators=5, max_depth=3, random_state=s).fit(
        *data(s, 3 if s % 2 else 2)),
    "pipeline": lambda s: Pipeline([("scale", StandardScaler()), (
        "forest", RandomForestClassifier(4, max_depth=3, random_state=s))]).fit(*data(s, 2)),
}
#: the kinds whose class is a sum of leaves, with a tie model of test_ties.py each
SCORES = {"forest": "forest_soft", "hist_gradient": "hist_gradient",
          "gradient_boosting": "gradient_boosting", "lightgbm": "lightgbm",
          "xgboost": "xgboost_softprob", "pipeline": "pipeline_xgboost"}


def brute_force(model, x) -> dict[frozenset, bool]:
    """Per set of features: does fixing it to x keep the library's class on the grid?"""
    cls = model.predict(GRID)
    c = model.predict(np.asarray([x]))[0]
    return {frozenset(s): bool(np.all(cls[np.all(GRID[:, list(s)] == x[list(s)], axis=1)]
                                      == c))
            for r in range(N + 1) for s in itertools.combinations(range(N), r)}


def explanations(weak: dict[frozenset, bool]) -> tuple[list, list]:
    every = frozenset(range(N))
    axps = sorted(sorted(s) for s, w in weak.items() if w and not any(weak[s - {i}] for i in s))
    cxps = sorted(sorted(every - s) for s, w in weak.items()
                  if not w and all(weak[s | {i}] for i in every - s))
    return axps, cxps


def test_every_kind_has_a_conformance_model_and_the_score_kinds_a_tie_model():
    assert sorted(MAKERS) == sorted(kinds.CLASSES)
    assert set(SCORES.values()) <= set(TIE_MODELS)


@pytest.mark.parametrize("kind", sorted(kinds.CLASSES))
@pytest.mark.parametrize("seed", [0, 1])
def test_a_kind_is_explained_and_checked_as_brute_force_says(kind, seed):
    model = MAKERS[kind](seed)
    assert kinds.kind(model) == kind
    assert kind in convert.CONVERTERS and kind in CHECKERS  # (1); the oracle: below
    for x in GRID[[seed, 21 + seed, 42 + seed]]:
        weak = brute_force(model, x)
        axps, cxps = explanations(weak)
        o = oracles.for_model(model, x)
        assert o.prediction == model.predict([x])[0]
        r = explain.all_xps(o)  # (2)
        assert (sorted(map(sorted, r.axps)), sorted(map(sorted, r.cxps))) == (axps, cxps)
        sets = [sorted(s) for s in weak]  # (3): every set, as an AXp and as a CXp
        assert verify.check_all(model, x, sets, sets) == (
            [s in axps for s in sets], [s in cxps for s in sets])


@pytest.mark.parametrize("kind", sorted(SCORES))
def test_a_score_kind_s_tie_model_is_checked_exactly(kind):
    model = TIE_MODELS[SCORES[kind]]()  # (4): as test_ties.py, here by kind
    assert kinds.kind(model) == kind
    x, low = np.full(4, 11.0), np.zeros(4)
    assert model.predict([x])[0] != model.predict([low])[0]
    assert verify.check_all(model, x, [[], [0], [1, 2, 3]], [[0, 1, 2, 3]]) == (
        [False, True, False], [True])
