"""The soft-vote SAT oracle (impure leaves) against brute force over the model's own float64
predictions: random forests of scikit-learn, and constructed forests whose class sums tie
or nearly tie in float64; its SAT route alone, with a coarse scale (many rounded-in points
to cut off), and past its size guard."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from fxai import explain, oracles
from fxai.models.boosted import Tree
from fxai.models.scores import ScoreEnsemble
from fxai.oracles import soft_votes
from fxai.oracles.soft_votes import SoftVoteOracle
from fxai.verify.brute import BruteForceOracle, is_axp

# class fractions whose float64 sums tie or nearly tie (0.1 + 0.2 != 0.3, thirds, ...)
TRICKY = {2: [(0.1, 0.9), (0.2, 0.8), (0.3, 0.7), (0.7, 0.3), (1 / 3, 2 / 3), (2 / 3, 1 / 3),
              (0.5, 0.5), (0.6, 0.4), (0.9, 0.1), (1.0, 0.0), (0.0, 1.0)],
          3: [(0.1, 0.2, 0.7), (0.3, 0.3, 0.4), (1 / 3, 1 / 3, 1 / 3), (0.2, 0.1, 0.7),
              (0.4, 0.3, 0.3), (0.7, 0.2, 0.1), (0.0, 0.5, 0.5), (0.6, 0.0, 0.4)]}

ROUTES = {"default": {}, "sat": {"WORK": 0, "WINS": (0, 1)},
          "coarse sat": {"WORK": 0, "SCALE": 1, "WINS": (0, 1)}, "guarded": {"MAX_TERMS": 0}}
SAME_ROUTE = HealthCheck.function_scoped_fixture  # the route holds for all examples


@pytest.fixture(params=list(ROUTES))
def route(request, monkeypatch):
    for name, value in ROUTES[request.param].items():
        monkeypatch.setattr(soft_votes, name, value)
    return request.param


def constructed(seed: int, k: int):
    """(ensemble, domains): 1-6 random trees of depth <= 2 over 2-3 features of domain
    {0, 1, 2}, leaves drawn from ``TRICKY[k]``, scikit-learn's soft-vote form."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 4))
    trees = []
    for _ in range(int(rng.integers(1, 7))):
        f = rng.integers(0, n, size=3)
        t = np.float32(rng.choice([0.5, 1.5], size=3))
        leaf = [TRICKY[k][i] for i in rng.integers(0, len(TRICKY[k]), size=4)]
        value = np.zeros((7, k))
        value[3:] = leaf
        trees.append(Tree(feature=np.array([f[0], f[1], f[2], 0, 0, 0, 0]),
                          threshold=np.float32([t[0], t[1], t[2], 0, 0, 0, 0]),
                          left=np.array([1, 3, 5, -1, -1, -1, -1]),
                          right=np.array([2, 4, 6, -1, -1, -1, -1]), value=value))
    ens = ScoreEnsemble(tuple(trees), np.zeros(k), float(len(trees)), tuple(range(k)), n,
                        "constructed soft vote")
    return ens, [[0, 1, 2]] * n


def agree_on_every_query(o, predict, domains, x):
    """Every question as brute force; a sufficient part (the solver's core) entails too."""
    bf = BruteForceOracle(predict, domains, x)
    assert o.prediction == bf.prediction
    n = len(domains)
    for fixed in (c for r in range(n + 1) for c in itertools.combinations(range(n), r)):
        cex = o.counterexample(fixed)
        assert (cex is None) == bf.entails(fixed), (x, fixed)
        if cex is not None:
            assert all(cex[f] == x[f] for f in fixed)
            assert predict(np.asarray([cex]))[0] != o.prediction
        part = o.sufficient_part(fixed)
        assert (part is None) == (cex is not None), (x, fixed)
        if part is not None:
            assert part <= set(fixed) and bf.entails(part), (x, fixed, part)


@pytest.mark.heavy
@settings(max_examples=25, deadline=None, suppress_health_check=[SAME_ROUTE])
@given(seed=st.integers(0, 10**6), k=st.sampled_from([2, 3]))
@example(seed=0, k=2)
def test_constructed_near_ties_match_brute_force(route, seed, k):
    ens, domains = constructed(seed, k)
    if ens.is_vote:
        return  # only pure leaves drawn: a vote count, the vote oracle's
    grid = list(itertools.product(*domains))
    for x in (list(grid[i]) for i in np.random.default_rng(seed).choice(len(grid), 3)):
        agree_on_every_query(SoftVoteOracle(ens, x), ens.predict, domains, x)
        agree_on_every_query(SoftVoteOracle(ens, x, domains=domains), ens.predict, domains, x)


def test_a_float64_tie_that_is_no_real_tie_goes_by_float64():
    """Three trees: at x = 1 class 1 has 0.1 + 0.2 (0.30000000000000004 in float64) and
    class 0 has 0.3 + 0 + 0.0...: the float64 sums decide, exactly as scikit-learn's."""
    def stump(low, high):
        return Tree(feature=np.array([0, 0, 0]), threshold=np.float32([0.5, 0, 0]),
                    left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                    value=np.float64([[0, 0], low, high]))
    ens = ScoreEnsemble((stump([1.0, 0.0], [0.9, 0.1]), stump([1.0, 0.0], [0.8, 0.2]),
                         stump([1.0, 0.0], [0.0, 1.0])), np.zeros(2), 3.0, (0, 1), 1, "soft vote")
    s = ens.scores([[1.0]])[0]
    assert s[0] * 3 == 0.9 + 0.8 + 0.0 and s[1] * 3 == 0.1 + 0.2 + 1.0
    o = SoftVoteOracle(ens, [0.0])
    assert o.prediction == 0
    assert (o.counterexample([]) is None) == (ens.predict([[1.0]])[0] == 0)


@pytest.mark.heavy
@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
@settings(max_examples=8, deadline=None, suppress_health_check=[SAME_ROUTE])
@given(seed=st.integers(0, 10**6), k=st.sampled_from([2, 3, 4]))
def test_scikit_learn_forests_match_brute_force(route, cls, seed, k):
    """Shallow forests on noisy labels (impure leaves), 2-4 classes: every query as brute
    force over ``predict``, and the AXp found is one."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    domains = [list(range(int(rng.integers(2, 5)))) for _ in range(n)]
    X = np.column_stack([rng.choice(d, 80) for d in domains]).astype(float)
    y = rng.integers(0, k, size=80)
    y[:k] = np.arange(k)
    model = cls(n_estimators=int(rng.integers(2, 9)), max_depth=3, random_state=seed).fit(X, y)
    x = [int(rng.choice(d)) for d in domains]
    o = oracles.for_model(model, x, domains=domains)
    if not isinstance(o, SoftVoteOracle):
        return  # every leaf pure: the vote oracle's
    agree_on_every_query(o, model.predict, domains, x)
    axp = explain.find_axp(o)
    assert is_axp(BruteForceOracle(model.predict, domains, x), axp)


@pytest.fixture(scope="module")
def entropy_forest():
    """breast_cancer, 100 trees of depth 6 (entropy; impure leaves), soft vote, and a test
    row."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0)
    clf = RandomForestClassifier(max_depth=6, criterion="entropy", random_state=0,
                                 n_jobs=1).fit(Xtr, ytr)
    return clf, list(Xte[0])


@pytest.mark.heavy
def test_time_limits_raise_with_a_weak_explanation(entropy_forest):
    """A limit far too short: each call raises TimeLimitExceeded, naming its limit; the
    partial AXp / CXp is a weak one (checked by the oracle without limit); a limit long
    enough gives the same AXp as no limit."""
    clf, x = entropy_forest
    o = oracles.for_model(clf, x)
    assert isinstance(o, SoftVoteOracle)
    # (1 ms: about one question of this forest; at 50 ms a fast machine had finished the
    # deletion, leaving a partial AXp that was already minimal)
    with pytest.raises(oracles.TimeLimitExceeded, match="time limit of 0.001 CPU s") as e:
        explain.find_axp(o, time_limit=0.001)
    assert e.value.seconds == 0.001 and o.entails(e.value.partial)
    assert len(e.value.partial) > len(explain.find_axp(o, seed=e.value.partial))
    with pytest.raises(oracles.TimeLimitExceeded) as e:
        explain.find_cxp(o, time_limit=0.001)
    assert e.value.partial is None or o.counterexample(
        set(o.features) - set(e.value.partial)) is not None
    assert o.deadline is None  # restored after the call
    assert explain.find_axp(o, time_limit=600) == explain.find_axp(o)
    with pytest.raises(ValueError, match="positive finite"):
        explain.find_axp(o, time_limit=0)


@pytest.mark.heavy
def test_a_single_question_stops_at_its_limit(entropy_forest, monkeypatch):
    """The oracle's own limit interrupts the SAT route and the branch and bound inside one
    question (an AXp: entailed, so the search must prove it)."""
    clf, x = entropy_forest
    axp = explain.find_axp(oracles.for_model(clf, x))
    monkeypatch.setattr(soft_votes, "WORK", 0)  # the SAT route at once
    o = oracles.for_model(clf, x, domains=[None] * len(x))
    with pytest.raises(oracles.TimeLimitExceeded):
        o.entails(axp, time_limit=1e-4)
    monkeypatch.setattr(soft_votes, "MAX_TERMS", 0)  # a new oracle, the branch and bound
    o = oracles.for_model(clf, x, domains=[None] * len(x))
    with pytest.raises(oracles.TimeLimitExceeded):
        o.entails(axp, time_limit=1e-4)
    assert o.entails(axp, time_limit=600)
