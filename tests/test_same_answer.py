"""One AXp and one CXp per (model, row, order), whatever was explained before: the tree
ensembles' SAT oracles share one solver per model, whose learnt clauses (and so its cores and
counterexample points) depend on the questions asked before. On rows explained in any order
in one process, ``find_axp`` must give what plain deletion gives (one exact question per
feature), and so must ``find_cxp`` for such an oracle (``remembers``)."""

import numpy as np
import pytest
import xgboost as xgb
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.ensemble import RandomForestClassifier

from fxai import explain, oracles
from fxai.oracles.boosted import ROTATIONS, BoostedOracle


def plain_axp(o, order):
    fixed = set(o.features)
    for i in order:
        if o.entails(fixed - {i}):
            fixed.discard(i)
    return sorted(fixed)


def plain_cxp(o, order):
    free = set(o.features)
    for i in order:
        if o.counterexample(set(o.features) - free | {i}) is not None:
            free.discard(i)
    return sorted(free)


def case(kind: str):
    """(model, rows, oracle keywords) on breast_cancer (30 features) or iris (3 classes)."""
    data = load_iris() if kind.endswith("3 classes") else load_breast_cancer()
    X, y = data.data, data.target
    if kind.startswith("xgboost"):
        model = xgb.XGBClassifier(n_estimators=20, max_depth=3, n_jobs=1, random_state=0)
        kw = {}
    else:
        model = RandomForestClassifier(n_estimators=25, max_depth=4, random_state=0)
        kw = {"vote": kind.split()[0]}
    return model.fit(X, y), X[::len(X) // 6][:6], kw


@pytest.mark.parametrize("kind", ["hard vote", "soft vote", "hard vote 3 classes",
                                  "soft vote 3 classes", "xgboost", "xgboost 3 classes"])
def test_the_answer_does_not_depend_on_the_rows_explained_before(kind):
    model, rows, kw = case(kind)
    order = list(range(rows.shape[1]))[::-1]
    runs = []
    for sequence in (range(len(rows)), reversed(range(len(rows)))):
        got = {}
        for r in sequence:
            o = oracles.for_model(model, rows[r], **kw)
            got[r] = (explain.find_axp(o), explain.find_axp(o, order=order),
                      explain.find_cxp(o), explain.find_cxp(o, order=order))
        runs.append(got)
    assert runs[0] == runs[1]
    for r, (axp, axp_rev, cxp, cxp_rev) in runs[0].items():
        o = oracles.for_model(model, rows[r], **kw)
        ascending = sorted(o.features)
        assert axp == plain_axp(o, ascending) and axp_rev == plain_axp(o, order), r
        if o.remembers:  # (else its points depend on the question alone: used at once)
            assert cxp == plain_cxp(o, ascending) and cxp_rev == plain_cxp(o, order), r



@pytest.mark.parametrize("kind", ["hard vote", "soft vote 3 classes", "xgboost",
                                  "xgboost 3 classes"])
def test_what_a_counterexample_proves_necessary_is(kind, monkeypatch):
    """``also_necessary`` (model rotation): after freeing i from a set F breaks entailment,
    every feature j it names must break it too when freed from F (every rotation in full,
    whatever the question cost)."""
    monkeypatch.setattr(BoostedOracle, "_rotation_budget", lambda self: ROTATIONS)
    model, rows, kw = case(kind)
    rng = np.random.default_rng(0)
    named = 0
    for x in rows:
        o = oracles.for_model(model, x, **kw)
        feats = list(o.features)
        for _ in range(4):
            F = set(explain.find_axp(o, order=rng.permutation(feats).tolist()))
            F |= set(rng.choice(feats, size=len(feats) // 3, replace=False).tolist())
            for i in sorted(F):
                if o.sufficient_part(F - {i}) is None:
                    got = o.also_necessary(i, sorted(F - {i}))
                    named += len(got)
                    assert all(not o.entails(F - {j}) for j in got), (i, got)
    assert named > 0


@pytest.mark.parametrize("ties", ["change", "keep"])
def test_a_rotated_point_on_the_tie_follows_the_tie_rule(ties, monkeypatch):
    """Binary XGBoost, margin = a(x0) + b(x1) + d(x2) in float32 with base 0, at (0, 0, 0):
    -3. Freeing x2 gives (0, 0, 1), margin 1 (class 1); the rotation that puts x2 back and
    moves x0 gives (1, 0, 0), margin exactly 0 (probability 0.5): another class under
    ``ties="change"``, class 0 under ``"keep"``. x1 moved gives -1: never."""
    from fxai.models.boosted import Ensemble, Tree

    monkeypatch.setattr(BoostedOracle, "_rotation_budget", lambda self: ROTATIONS)

    def stump(f, lo, hi):
        return Tree(feature=np.array([f, 0, 0]), threshold=np.float32([0.5, 0, 0]),
                    left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                    value=np.float32([0, lo, hi]))

    ens = Ensemble(trees=(stump(0, -1, 2), stump(1, -1, 1), stump(2, -1, 3)), base_margin=0.0,
                   n_features=3)
    o = BoostedOracle(ens, [0.0, 0.0, 0.0], ties=ties)
    assert o.prediction == 0 and o.sufficient_part([0, 1]) is None
    named = o.also_necessary(2, [0, 1])
    assert named == ({0} if ties == "change" else set())
    assert o.entails([1, 2]) == (ties == "keep") and o.entails([0, 2])
