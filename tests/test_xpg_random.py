"""Random trees, OMDDs and OBDDs over <= 8 features against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fxai import explain
from fxai.explain.membership import in_some_xp
from fxai.explain.tree_cxps import tree_cxps
from fxai.models.dgraph import DecisionGraph, Node, ValueSet
from fxai.models.dlist import DecisionList, Rule
from fxai.models.dtree import from_sklearn
from fxai.models.obdd import OBDD
from fxai.oracles.xpg import XpGOracle
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps
from fxai.verify.xpg import BDDChecker, TreeChecker, check


def minimal_hitting_sets(sets, feats):
    sets = [set(s) for s in sets]
    hits = [set(c) for k in range(len(feats) + 1) for c in itertools.combinations(feats, k)
            if all(set(c) & s for s in sets)]
    return {tuple(sorted(h)) for h in hits if not any(g < h for g in hits)}


def enumerate_all(o, target):
    m = explain.enumerate(o, target=target)
    events = list(m)
    assert m.complete and len(events) == len(m.axps) + len(m.cxps)
    return set(m.axps), set(m.cxps)


def assert_matches_brute(o: XpGOracle, predict, domains, rng):
    brute = BruteForceOracle(predict, domains, o.instance)
    assert brute.prediction == o.prediction
    axps, cxps = enumerate_all(o, "axp")
    assert (axps, cxps) == enumerate_all(o, "cxp")
    assert axps == all_axps(brute) and cxps == all_cxps(brute)
    feats = o.features
    if axps != {()}:
        assert minimal_hitting_sets(cxps, feats) == axps
        assert minimal_hitting_sets(axps, feats) == cxps
    for f in range(o.n_features):
        assert in_some_xp(o, f) == any(f in a for a in axps)
    for _ in range(4):
        fixed = {f for f in range(o.n_features) if rng.random() < 0.5}
        pt = o.counterexample(fixed)
        assert (pt is None) == brute.entails(fixed)
        if pt is not None:
            assert predict(np.asarray([pt]))[0] != o.prediction
            assert all(pt[f] == o.instance[f] for f in fixed)
        if all(d is not None for d in o.graph.domains):
            assert o.precision(fixed) == pytest.approx(brute.precision(fixed))
    return axps, cxps


def random_sklearn_tree(rng, n_feat):
    dom_sizes = rng.integers(2, 5, n_feat)
    X = np.column_stack([rng.integers(0, k, 80) for k in dom_sizes])
    y = rng.integers(0, rng.integers(2, 4), 80)
    clf = DecisionTreeClassifier(max_depth=int(rng.integers(2, 6)), random_state=0).fit(X, y)
    return clf, [list(range(k)) for k in dom_sizes], X


@pytest.mark.parametrize("seed", range(25))
def test_sklearn_tree_finite_domains(seed):
    rng = np.random.default_rng(seed)
    clf, domains, X = random_sklearn_tree(rng, int(rng.integers(3, 8)))
    g = from_sklearn(clf, domains=domains)
    assert np.array_equal(g.predict(X), clf.predict(X))
    x = [int(v) for v in X[rng.integers(len(X))]]
    o = XpGOracle(g, x)
    axps, cxps = assert_matches_brute(o, clf.predict, domains, rng)
    assert set(tree_cxps(o.xpg)) == cxps
    chk = TreeChecker(clf, x, domains)
    assert chk.all_cxps() == cxps
    assert check(chk.weak_axp, chk.features, axps, cxps, chk.all_cxps(), complete=True)[0]


@pytest.mark.parametrize("seed", range(10))
def test_sklearn_tree_real_features(seed):
    rng = np.random.default_rng(100 + seed)
    n_feat = int(rng.integers(2, 6))
    X = rng.normal(size=(120, n_feat)).round(2)
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) + (X[:, -1] > 1)
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    g = from_sklearn(clf)
    x = [float(np.float32(v)) for v in X[rng.integers(len(X))]]
    o = XpGOracle(g, x)
    # a finite grid that hits every cell of the tree's thresholds, plus v's own values
    domains = []
    for f in range(n_feat):
        thr = sorted({float(t) for t in clf.tree_.threshold[clf.tree_.feature == f]})
        reps = [t - 0.25 for t in thr[:1]] + [(a + b) / 2 for a, b in itertools.pairwise(thr)]
        domains.append(sorted(set(reps + [t + 0.25 for t in thr[-1:]] + [x[f]])))
    axps, cxps = assert_matches_brute(o, clf.predict, domains, rng)
    assert set(tree_cxps(o.xpg)) == cxps
    chk = TreeChecker(clf, x)
    assert check(chk.weak_axp, chk.features, axps, cxps, chk.all_cxps())[0]


def random_omdd(rng, n_feat, n_classes=3):
    """A random ordered multi-valued decision diagram (shared nodes, read-once)."""
    sizes = [int(k) for k in rng.integers(2, 4, n_feat)]
    nodes = [Node(label=c) for c in range(n_classes)]
    pool = list(range(n_classes))
    for f in reversed(range(n_feat)):
        new = []
        for _ in range(int(rng.integers(1, 4))):
            blocks = rng.integers(0, int(rng.integers(1, sizes[f] + 1)), sizes[f])
            edges = []
            for b in sorted(set(blocks.tolist())):
                vals = frozenset(int(v) for v in np.flatnonzero(blocks == b))
                edges.append((ValueSet(vals), int(rng.choice(pool))))
            nodes.append(Node(f, tuple(edges)))
            new.append(len(nodes) - 1)
        pool += new
    root = int(rng.choice(new))
    return DecisionGraph(nodes, n_feat, root=root, domains=[list(range(k)) for k in sizes])


@pytest.mark.parametrize("seed", range(25))
def test_random_omdd(seed):
    rng = np.random.default_rng(200 + seed)
    g = random_omdd(rng, int(rng.integers(2, 7)))
    x = [int(rng.integers(len(d))) for d in g.domains]
    assert_matches_brute(XpGOracle(g, x), g.predict, g.domains, rng)


def random_dlist(rng, n_feat):
    rules = []
    for _ in range(int(rng.integers(1, 7))):
        feats = rng.choice(n_feat, size=int(rng.integers(1, min(4, n_feat) + 1)), replace=False)
        conds = tuple((int(f), str(rng.choice(["==", "!="])), float(rng.integers(2)))
                      for f in feats)
        rules.append(Rule(conds, int(rng.integers(2))))
    rules.append(Rule((), int(rng.integers(2))))
    return DecisionList(rules, n_feat, [0, 1])


@pytest.mark.parametrize("seed", range(25))
def test_random_obdd_from_decision_list(seed):
    rng = np.random.default_rng(300 + seed)
    n_feat = int(rng.integers(2, 9))
    dl = random_dlist(rng, n_feat)
    ob = OBDD.from_decision_list(dl)
    grid = np.array(list(itertools.product([0, 1], repeat=n_feat)))
    assert np.array_equal(ob.predict(grid), dl.predict(grid))
    assert np.array_equal(ob.to_graph().predict(grid), dl.predict(grid))
    x = [int(v) for v in rng.integers(0, 2, n_feat)]
    o = XpGOracle(ob.to_graph(), x)
    axps, cxps = assert_matches_brute(o, dl.predict, [[0, 1]] * n_feat, rng)
    chk = BDDChecker(ob, x)
    assert chk.prediction == o.prediction
    assert check(chk.weak_axp, chk.features, axps, cxps, complete=True) == (True, "ok")
    if len(axps) > 1:  # a missing AXp is caught by duality alone
        assert not check(chk.weak_axp, chk.features, sorted(axps)[1:], cxps, complete=True)[0]


def test_checker_rejects_wrong_explanations():
    rng = np.random.default_rng(7)
    for _ in range(20):
        clf, domains, X = random_sklearn_tree(rng, 5)
        x = [int(v) for v in X[0]]
        o = XpGOracle(from_sklearn(clf, domains=domains), x)
        axps, cxps = enumerate_all(o, "axp")
        if not cxps or axps == {()}:
            continue
        chk = TreeChecker(clf, x, domains)
        a = sorted(axps)[0]
        bigger = set(a) | ({0, 1, 2, 3, 4} - set(a))
        if len(bigger) > len(a):
            assert not check(chk.weak_axp, chk.features, [bigger], [])[0]
        if len(a) > 1:
            assert not check(chk.weak_axp, chk.features, [a[1:]], [])[0]
        assert not check(chk.weak_axp, chk.features, axps, list(cxps)[1:], chk.all_cxps())[0]
        break
    else:
        pytest.fail("no random tree with a non-trivial instance")
