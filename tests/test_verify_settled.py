"""Removals settled by the other explanations' checked answers (fxai.verify.settled): the
same verdicts as asking every removal, on complete and on corrupted lists of explanations,
for the generic checker (a decision tree) and the binary XGBoost leaf search."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import fxai.verify.check as check
from fxai import verify
from fxai.models import boosted as B
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps, is_axp, is_cxp
from fxai.verify.settled import removals, settled


def test_settled_is_the_set_logic_on_random_sets():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.choice([3, 8, 70, 130]))  # one 64-bit word and several
        sets = [[sorted(rng.choice(n, size=int(rng.integers(1, min(n, 6) + 1)), replace=False)
                        .tolist()) for _ in range(int(rng.integers(0, 8)))] for _ in range(2)]
        mine, others = sets
        want = [any(set(o) & set(e) == {i} for o in others) for e in mine for i in e]
        assert settled(mine, others, n).tolist() == want
        # the same sets among many features (a whole vocabulary): the features that occur
        # are renumbered, and the answer is the same
        spread = rng.choice(30_000, size=n, replace=False)
        wide = [[[int(spread[f]) for f in e] for e in side] for side in sets]
        assert settled(*wide, 30_000).tolist() == want


def test_only_checked_answers_settle_removals():
    """AXp [0, 1], CXp [0] of two features: the AXp without 0 is {1}, the features outside
    the CXp: settled when freeing [0] was seen to change the class; the CXp with 0 fixed
    again is {0, 1}: settled when fixing [0, 1] was seen to force it."""
    assert removals([[0, 1]], [[0]], [True], [False], 2).tolist() == [True, False, True]
    assert removals([[0, 1]], [[0]], [None], [False], 2).tolist() == [True, False, False]
    assert removals([[0, 1]], [[0]], [False], [False], 2).tolist() == [True, False, False]
    assert removals([[0, 1]], [[0]], [True], [None], 2).tolist() == [False, False, True]
    assert removals([[0, 1]], [[0]], [True], [True], 2).tolist() == [False, False, True]
    assert removals([[0, 1]], [[0]], [None], [None], 2).tolist() == [False, False, False]


def candidates(rng, true: set, n: int) -> list[list[int]]:
    """The true explanations, each with a feature more and a feature less, random sets."""
    out = [list(s) for s in true]
    for s in true:
        more = sorted(set(range(n)) - set(s))
        out += [list(s) + [int(rng.choice(more))]] if more else []
        out += [list(s[1:])] if len(s) > 1 else []
    out += [sorted(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).tolist())
            for _ in range(4)]
    return out


def asked(monkeypatch) -> list:
    """The sets the generic checker asks, recorded."""
    sets: list = []
    within = check._within

    def record(weak_axps, batch, *rest):
        sets.extend(batch)
        return within(weak_axps, batch, *rest)

    monkeypatch.setattr(check, "_within", record)
    return sets


@pytest.mark.parametrize("seed", range(12))
def test_generic_checker_verdicts_are_brute_forces(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    X = rng.integers(0, 2, size=(64, n))
    y = (X @ rng.normal(size=n) + rng.normal(scale=0.5, size=64) > 0).astype(int)
    clf = DecisionTreeClassifier(max_depth=4, random_state=seed).fit(X, y)
    doms = [[0, 1]] * n
    for x in X[:4].tolist():
        o = BruteForceOracle(clf.predict, doms, x)
        true_a, true_c = all_axps(o), all_cxps(o)
        sets = asked(monkeypatch)
        ok = verify.check_all(clf, x, [list(a) for a in true_a], [list(c) for c in true_c],
                              domains=doms)
        assert ok == ([True] * len(true_a), [True] * len(true_c))
        assert len(sets) == len(true_a) + len(true_c)  # complete: one question each
        monkeypatch.undo()
        axps, cxps = candidates(rng, true_a, n), candidates(rng, true_c, n)
        got = verify.check_all(clf, x, axps, cxps, domains=doms, batch=3)
        assert got == ([is_axp(o, a) for a in axps], [is_cxp(o, c) for c in cxps])


@pytest.mark.parametrize("seed", range(6))
def test_xgboost_leaf_search_verdicts_are_brute_forces(seed):
    """Boolean data: every threshold of the booster lies between 0 and 1, so the points of
    {0, 1}^n are every case of the reals the leaf search ranges over."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    X = rng.integers(0, 2, size=(200, n)).astype(float)
    y = (X @ rng.normal(size=n) + rng.normal(scale=0.7, size=200) > 0).astype(int)
    model = B.train(X, y, trees=int(rng.integers(2, 8)), depth=3, seed=seed)
    doms = [[0.0, 1.0]] * n
    for x in X[:4].tolist():
        o = BruteForceOracle(lambda pts: model.predict(np.asarray(pts, float)), doms, x)
        true_a, true_c = all_axps(o), all_cxps(o)
        axps = [list(a) for a in true_a] + candidates(rng, true_a, n)
        cxps = [list(c) for c in true_c] + candidates(rng, true_c, n)
        got = verify.check_all(model, x, axps, cxps)
        assert got == ([is_axp(o, a) for a in axps], [is_cxp(o, c) for c in cxps])
