"""Multi-class XGBoost and random forests (soft and hard vote): the score ensemble against
the libraries' own predictions, the oracle against brute force over the feature domains."""

import itertools
import json

import numpy as np
import pytest
import xgboost as xgb
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from fxai import explain, oracles
from fxai.models import boosted, forest
from fxai.oracles.scores import ScoreOracle
from fxai.oracles.votes import VoteOracle
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps, is_axp, is_cxp

KINDS = ("multi:softmax", "multi:softprob", "rf-soft", "rf-hard", "et-soft", "et-hard")


def hard_votes(clf):
    """The majority vote of a forest's trees by scikit-learn's own tree ``predict`` (first
    class with most votes): the hard-vote semantics, written independently of fxai."""
    def predict(points):
        votes = np.array([t.predict(np.asarray(points, np.float64)) for t in clf.estimators_])
        counts = np.stack([(votes == k).sum(axis=0) for k in range(len(clf.classes_))], axis=1)
        return clf.classes_[np.argmax(counts, axis=1)]
    return predict


def pure(forest) -> bool:
    """Every leaf of the forest pure (class fractions 0 or 1), read from scikit-learn."""
    return all(np.isin(e.tree_.value[e.tree_.children_left < 0], (0.0, 1.0)).all()
               for e in forest.estimators_)


def random_model(seed: int, kind: str, n_max: int = 5, dom_max: int = 4, size: int = 1):
    """(model, library predict, vote, an instance, domains) on random integer data with 3-4
    classes; ``size`` times as many trees, one level deeper for ``size`` > 1."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, n_max + 1))
    domains = [list(range(int(rng.integers(2, dom_max + 1)))) for _ in range(n)]
    X = np.column_stack([rng.choice(d, 120) for d in domains]).astype(float)
    k = int(rng.integers(3, 5))
    s = X @ rng.normal(size=(n, k)) + rng.normal(scale=0.7, size=(120, k))
    y = np.argmax(s, axis=1)
    y[:k] = np.arange(k)  # every class occurs
    trees, depth = size * int(rng.integers(1, 8)), int(rng.integers(1, 4)) + (size > 1)
    x = [int(rng.choice(d)) for d in domains]
    if kind.startswith("multi"):
        model = xgb.XGBClassifier(n_estimators=trees, max_depth=depth, objective=kind,
                                  n_jobs=1, random_state=seed).fit(X, y)
        return model, model.predict, None, x, domains
    cls = RandomForestClassifier if kind.startswith("rf") else ExtraTreesClassifier
    model = cls(n_estimators=trees, max_depth=depth, random_state=seed).fit(X, y)
    vote = kind.split("-")[1]
    return model, model.predict if vote == "soft" else hard_votes(model), vote, x, domains


def oracle_pair(model, predict, vote, x, domains):
    kw = {"vote": vote} if vote else {}
    o = oracles.for_model(model, x, domains=domains, **kw)
    assert isinstance(o, ScoreOracle)
    # the SAT oracle: a hard vote, or a soft one whose every leaf is pure (a vote count)
    assert isinstance(o, VoteOracle) == (vote == "hard" or (vote == "soft" and pure(model)))
    bf = BruteForceOracle(predict, domains, x)
    assert o.prediction == bf.prediction
    return o, bf


@pytest.mark.heavy
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_entailment_and_counterexamples_match_brute_force(kind, seed):
    model, predict, vote, x, domains = random_model(seed, kind)
    o, bf = oracle_pair(model, predict, vote, x, domains)
    n = len(domains)
    for k in range(n + 1):
        for fixed in itertools.combinations(range(n), k):
            expected = bf.entails(fixed)
            cex = o.counterexample(fixed)
            assert (cex is None) == expected, fixed
            if cex is not None:
                assert all(cex[i] == x[i] for i in fixed)
                assert all(cex[i] in domains[i] for i in range(n))
                assert predict(np.asarray([cex]))[0] != o.prediction
    # without domains the free features range over the reals; points still check out
    free = oracles.for_model(model, x, **({"vote": vote} if vote else {}))
    cex = free.counterexample([])
    assert (cex is None) == free.entails([])
    if cex is not None:
        assert predict(np.asarray([cex]))[0] != free.prediction


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_explanations_minimal_enumeration_complete_and_dual(kind, seed):
    model, predict, vote, x, domains = random_model(seed, kind)
    o, bf = oracle_pair(model, predict, vote, x, domains)
    assert is_axp(bf, explain.find_axp(o))
    cxp = explain.find_cxp(o)
    assert is_cxp(bf, cxp) if cxp is not None else bf.entails([])
    m = explain.enumerate(o, target="switch")
    events = list(m)
    assert m.complete
    found_a = {e.features for e in events if e.kind == "axp"}
    found_c = {e.features for e in events if e.kind == "cxp"}
    assert found_a == all_axps(bf)
    assert found_c == all_cxps(bf)
    feats = o.features
    for a in found_a:  # duality: every AXp hits every CXp, minimally
        assert all(set(a) & set(c) for c in found_c)
    assert all(set(a) <= set(feats) for a in found_a)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_and_predictions_are_the_libraries(kind, seed):
    """Bit for bit: XGBoost's float32 margins, scikit-learn's predict_proba; predict equal."""
    model, predict, vote, _, domains = random_model(seed, kind)
    ens = oracles.prepare(model, vote=vote)
    X = np.column_stack([np.random.default_rng(seed).choice(d, 300) for d in domains]) + 0.5
    if kind.startswith("multi"):
        margin = model.get_booster().inplace_predict(X.astype(np.float32), predict_type="margin")
        assert np.array_equal(ens.scores(X), margin)
    elif vote == "soft":
        assert np.array_equal(ens.scores(X), model.predict_proba(X))
    assert np.array_equal(ens.predict(X), predict(X))
    for row in X[:20]:
        assert oracles.for_model(model, row, vote=vote).prediction == predict([row])[0]


def _xgb_with_leaves(model, per_class):
    """A copy of a multi-class XGBoost model whose every leaf of class k's trees is
    ``per_class[k]`` (margins are then exactly base_k + rounds * per_class[k])."""
    doc = json.loads(model.get_booster().save_raw("json"))
    gb = doc["learner"]["gradient_booster"]["model"]
    for t, k in zip(gb["trees"], gb["tree_info"], strict=True):
        leaf = np.asarray(t["left_children"]) < 0
        t["split_conditions"] = np.where(leaf, per_class[k], t["split_conditions"]).tolist()
        t["base_weights"] = np.where(leaf, per_class[k], t["base_weights"]).tolist()
    out = xgb.XGBClassifier(objective=model.objective)
    out.load_model(bytearray(json.dumps(doc).encode()))
    return out


@pytest.mark.parametrize("objective", ["multi:softmax", "multi:softprob"])
@pytest.mark.parametrize("leaves,expected", [([0, 0, 0], 0), ([0, 1, 1], 1), ([1, 0, 1], 0),
                                             ([0, 0, 1], 2)])
def test_xgboost_exact_ties_go_to_the_first_class(objective, leaves, expected):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0]] * 3)
    y = np.array([0, 1, 2, 0] * 3)
    model = xgb.XGBClassifier(n_estimators=2, max_depth=1, objective=objective,
                              base_score=0.5).fit(X, y)
    tied = _xgb_with_leaves(model, leaves)
    x = [0.0, 0.0]
    assert int(tied.predict(np.asarray([x]))[0]) == expected
    o = oracles.for_model(tied, x, domains=[[0, 1, 2], [0, 1, 2]])
    assert o.prediction == expected and o.entails([])


def test_softprob_predict_can_differ_from_the_margin_argmax():
    """Measured limitation (docs/semantics.md): with margins 1 float32 ulp apart near 0,
    softprob's float32 probabilities tie and ``XGBClassifier.predict`` takes the first
    class, while the margin argmax (the oracle's and multi:softmax's rule) takes the other."""
    X = np.array([[0.0], [1.0], [2.0]] * 4)
    y = np.array([0, 1, 2] * 4)
    a = np.float32(0.0025)
    per_class = [-5.0, float(a), float(np.nextafter(a, np.float32(1)))]
    for objective, expected in (("multi:softmax", 2), ("multi:softprob", 1)):
        model = xgb.XGBClassifier(n_estimators=1, max_depth=1, objective=objective,
                                  base_score=0.0).fit(X, y)
        tied = _xgb_with_leaves(model, per_class)
        assert int(tied.predict(np.zeros((1, 1)))[0]) == expected
        assert oracles.for_model(tied, [0.0]).prediction == 2


@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
@pytest.mark.parametrize("vote", ["soft", "hard"])
def test_forest_ties_go_to_the_first_class(cls, vote):
    """Two pure stumps voting for different classes: every point is a tie of two classes
    (one vote, probability 1/2 each); scikit-learn and the oracle take the first."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    clf = cls(n_estimators=2, max_depth=1, random_state=0).fit(X, [2, 0, 1, 1])
    for est, (f, labels) in zip(clf.estimators_, [(0, (2, 1)), (1, (0, 1))], strict=True):
        t = est.tree_  # force stump t to split on feature f with pure leaves of `labels`
        t.feature[0], t.threshold[0] = f, 0.5
        for node, lab in zip((1, 2), labels, strict=True):
            t.value[node, 0, :] = np.eye(3)[lab]
    predict = clf.predict if vote == "soft" else hard_votes(clf)
    domains = [[0, 1], [0, 1]]
    for x in X:
        o, bf = oracle_pair(clf, predict, vote, list(x), domains)
        assert o.prediction == predict([x])[0]
        assert all(o.entails(s) == bf.entails(s) for s in ([], [0], [1], [0, 1]))
    assert clf.predict([[0.0, 0.0]])[0] == 0  # classes 2 and 0 tie at 1/2: 0 is first


def test_for_model_accepts_subclasses_and_names_what_is_supported():
    class MyForest(RandomForestClassifier):
        pass

    X, y = [[0], [1], [2], [3]], [0, 1, 2, 1]
    o = oracles.for_model(MyForest(n_estimators=3, random_state=0).fit(X, y), [1])
    assert isinstance(o, ScoreOracle)
    with pytest.raises(TypeError, match="RandomForestClassifier.*multi:softprob"):
        oracles.for_model(object(), [1])
    with pytest.raises(TypeError, match="takes no keyword 'vote': vote .* applies to random"):
        oracles.for_model(xgb.XGBClassifier(n_estimators=1).fit(X, y), [1], vote="hard")
    with pytest.raises(ValueError, match="vote must be one of"):
        forest.from_sklearn(RandomForestClassifier(n_estimators=2).fit(X, y), vote="mean")
    assert boosted.MULTI == ("multi:softmax", "multi:softprob")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("first_pass", [0, 1])
def test_first_pass_cut_off_leaves_the_answers_exact(kind, first_pass, monkeypatch):
    """Rivals left undecided by the quick first pass are searched to the end."""
    import fxai.oracles.scores as S

    monkeypatch.setattr(S, "_FIRST_PASS", first_pass)
    for seed in (5, 6):
        model, predict, vote, x, domains = random_model(seed, kind)
        o, bf = oracle_pair(model, predict, vote, x, domains)
        for k in range(len(domains) + 1):
            for fixed in itertools.combinations(range(len(domains)), k):
                cex = o.counterexample(fixed)
                assert (cex is None) == bf.entails(fixed), fixed
                if cex is not None:
                    assert predict(np.asarray([cex]))[0] != o.prediction


@pytest.mark.heavy
@pytest.mark.parametrize("kind", ["rf-hard", "et-hard"])
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_vote_oracle_cores_are_sufficient_parts(kind, seed):
    """The hard-vote oracle's ``sufficient_part`` (the solver's core) entails the prediction
    by brute force, is None exactly when brute force finds a counterexample, and deletion
    with it still ends in an AXp."""
    model, predict, vote, x, domains = random_model(seed, kind, 6, 5, size=4)
    o, bf = oracle_pair(model, predict, vote, x, domains)
    n = len(domains)
    rng = np.random.default_rng(seed)
    for fixed in [set(range(n)), *({int(f) for f in rng.choice(n, k, replace=False)}
                                   for k in rng.integers(0, n + 1, size=6))]:
        part = o.sufficient_part(fixed)
        assert (part is None) == (not bf.entails(fixed)), fixed
        if part is not None:
            assert part <= fixed and bf.entails(part), (fixed, part)
    assert is_axp(bf, explain.find_axp(o))


def test_vote_cores_are_sufficient_where_the_bound_dropped_rivals():
    """With 3-4 classes the bound drops rivals before the solve, and the solver's core then
    proves only the others: a core is returned only where the bound still drops them with the
    core's features alone (seed 7, fixed {0, 3, 4}: the core {0, 3} lets a dropped rival win).
    Every fixed set of a few models, each a fresh oracle: every part entails by brute force."""
    for seed in (5, 6, 7):
        model, predict, vote, x, domains = random_model(seed, "rf-hard", 6, 5, size=4)
        o, bf = oracle_pair(model, predict, vote, x, domains)
        for k in range(len(domains) + 1):
            for fixed in itertools.combinations(range(len(domains)), k):
                part = o.sufficient_part(set(fixed))
                assert (part is None) == (not bf.entails(fixed)), (seed, fixed)
                assert part is None or (part <= set(fixed) and bf.entails(part)), (seed, fixed)


@pytest.mark.parametrize("kind", ["multi:softprob", "rf-soft", "et-soft"])
def test_searches_resumed_pass_after_pass_stay_exact(kind, monkeypatch):
    """Under a deadline the branch and bound runs in passes of a few leaves tested each,
    every pass resuming the boxes the last one left: the answers are brute force's."""
    import fxai.oracles.boosted as B
    import fxai.oracles.scores as S
    import fxai.oracles.soft_votes as SV

    monkeypatch.setattr(S, "_FIRST_PASS", 0)
    monkeypatch.setattr(B, "_CHUNK", 1)
    monkeypatch.setattr(SV, "WORK", 1)
    for seed in (7, 8, 10):  # each with questions that take several passes
        model, predict, vote, x, domains = random_model(seed, kind, 6, 5, size=4)
        o, bf = oracle_pair(model, predict, vote, x, domains)
        for k in range(len(domains) + 1):
            for fixed in itertools.combinations(range(len(domains)), k):
                cex = o.counterexample(fixed, time_limit=60)
                assert (cex is None) == bf.entails(fixed), fixed
                if cex is not None:
                    assert predict(np.asarray([cex]))[0] != o.prediction


@pytest.mark.parametrize("kind", ["rf-hard", "et-hard"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_sat_vote_oracle_agrees_with_branch_and_bound_over_the_reals(kind, seed):
    """Two independent exact engines on a hard-vote forest, free features over the reals:
    the same answer to every query, and each SAT counterexample changes the prediction."""
    model, predict, vote, x, domains = random_model(seed, kind, n_max=6)
    ens = oracles.prepare(model, vote=vote)
    assert ens.is_vote and oracles.prepare(model, vote="soft").is_vote == pure(model)
    sat, bnb = VoteOracle(ens, x), ScoreOracle(ens, x)
    assert sat.prediction == bnb.prediction == predict([x])[0]
    for k in range(len(x) + 1):
        for fixed in itertools.combinations(range(len(x)), k):
            cex = sat.counterexample(fixed)
            assert (cex is None) == bnb.entails(fixed), fixed
            if cex is not None:
                assert all(cex[i] == x[i] for i in fixed)
                assert predict(np.asarray([cex]))[0] != sat.prediction


def test_sat_vote_oracle_on_a_larger_forest_matches_its_counterexamples():
    """30 trees of depth 5 on 8 features, 5 classes: every counterexample of every query
    along a deletion is of another class under the trees' own votes, and the AXp found is
    one (each feature left out admits a counterexample)."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(400, 8)).astype(float)
    y = np.argmax(X[:, :5] + rng.normal(scale=1.5, size=(400, 5)), axis=1)
    clf = RandomForestClassifier(n_estimators=30, max_depth=5, random_state=0).fit(X, y)
    predict = hard_votes(clf)
    for x in X[:5]:
        o = oracles.for_model(clf, list(x), vote="hard")
        assert isinstance(o, VoteOracle) and o.prediction == predict([x])[0]
        axp = explain.find_axp(o)
        assert o.entails(axp)
        for f in axp:
            cex = o.counterexample([g for g in axp if g != f])
            assert cex is not None and predict(np.asarray([cex]))[0] != o.prediction


def full_depth_forest(cls, seed: int, k: int, trees: int):
    """(forest of ``trees`` full-depth trees on noisy labels of ``k`` classes, integer
    domains, up to 4 instances of the grid)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    domains = [list(range(int(rng.integers(2, 5)))) for _ in range(n)]
    X = np.column_stack([rng.choice(d, 60) for d in domains]).astype(float)
    y = rng.integers(0, k, size=60)
    y[:k] = np.arange(k)
    model = cls(n_estimators=trees, random_state=seed).fit(X, y)
    grid = list(itertools.product(*domains))
    picks = rng.choice(len(grid), size=min(4, len(grid)), replace=False)
    return model, domains, [list(grid[i]) for i in picks]


@pytest.mark.heavy
@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(2, 4), trees=st.sampled_from([1, 2, 4, 5]))
def test_sat_vote_oracle_full_depth_binary_and_multiclass_with_ties(cls, seed, k, trees):
    """Full-depth forests on noisy labels, 2-4 classes, an even number of trees (vote ties:
    the first class wins): the SAT oracle without domains (one encoding and solver shared by
    all the model's oracles, here of instances of different classes) and with domains
    answer every query as brute force over the domains, with counterexamples of another
    class. Over the reals a random forest adds no point (its thresholds are midpoints of
    domain values, so each interval holds one); an extra-trees threshold may cut between
    two of them, so there entailment over the reals only implies it over the domains."""
    model, domains, instances = full_depth_forest(cls, seed, k, trees)
    predict = hard_votes(model)
    n = len(domains)
    sets = [c for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    for x in instances:
        bf = BruteForceOracle(predict, domains, x)
        for o, exact in ((oracles.for_model(model, x, vote="hard"),
                          cls is RandomForestClassifier),
                         (oracles.for_model(model, x, vote="hard", domains=domains), True)):
            assert isinstance(o, VoteOracle) and o.prediction == bf.prediction
            for fixed in sets:
                cex = o.counterexample(fixed)
                assert (cex is None) == bf.entails(fixed) if exact else (
                    cex is not None or bf.entails(fixed)), (x, fixed)
                if cex is not None:
                    assert all(cex[f] == x[f] for f in fixed)
                    assert predict(np.asarray([cex]))[0] != o.prediction


@pytest.mark.heavy
@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(2, 4), trees=st.sampled_from([2, 4, 5]))
def test_soft_vote_of_pure_leaves_is_the_vote_oracle(cls, seed, k, trees):
    """Labels a function of the point: full-depth trees have pure leaves only, so the soft
    vote (scikit-learn's predict) is a vote count: the SAT oracle answers it, as brute
    force over ``predict`` does, ties included; one impure leaf keeps the branch and
    bound, and the SAT checker refuses it."""
    from fxai.verify.votes import VoteChecker

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    domains = [list(range(int(rng.integers(2, 4)))) for _ in range(n)]
    grid = np.array(list(itertools.product(*domains)), dtype=float)
    label = rng.integers(0, k, size=len(grid))
    label[:k] = np.arange(k) if len(grid) >= k else label[:k]
    model = cls(n_estimators=trees, random_state=seed).fit(grid, label)
    sets = [c for r in range(n + 1) for c in itertools.combinations(range(n), r)]
    for x in grid[rng.choice(len(grid), size=min(3, len(grid)), replace=False)].tolist():
        o = oracles.for_model(model, x)  # the default: scikit-learn's soft vote
        bf = BruteForceOracle(model.predict, domains, x)
        chk = VoteChecker(model, x, domains, vote="soft")
        assert isinstance(o, VoteOracle) and o.prediction == bf.prediction
        assert chk.weak_axps([set(s) for s in sets]) == [bf.entails(s) for s in sets]
        for fixed in sets:
            cex = o.counterexample(fixed)
            assert (cex is None) == bf.entails(fixed), (x, fixed)
            if cex is not None:
                assert model.predict(np.asarray([cex]))[0] != o.prediction
    model.set_params(bootstrap=False)  # every tree sees both points of the clash:
    model.fit(np.vstack([grid, grid[:1]]), np.append(label, (label[0] + 1) % k))  # impure
    assert not isinstance(oracles.for_model(model, grid[0].tolist()), VoteOracle)
    with pytest.raises(ValueError, match="only when every leaf is pure"):
        VoteChecker(model, grid[0].tolist(), vote="soft")


def test_the_vote_bound_keeps_a_rival_that_only_ties_and_drops_one_that_cannot_win():
    """Three stumps voting 1 at x = 0 (A: x0 >= 0.5 votes 0, B: x1 >= 0.5 votes 0, C: x2 >=
    0.5 votes 2). With x0 fixed, rival 0 can at best tie class 1 (B and C move: one vote
    each for 0, 1, 2), which the first-max rule gives to 0: the bound (0 >= 0) must keep it;
    rival 2 can at best tie too, which keeps class 1: the bound (0 < 1) drops it. Built by
    hand: the tie at the bound's edge."""
    from fxai.models.boosted import Tree
    from fxai.models.scores import ScoreEnsemble

    def stump(f, hi):
        return Tree(feature=np.array([f, 0, 0]), threshold=np.float32([0.5, 0, 0]),
                    left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                    value=np.float64([[0, 0, 0], np.eye(3)[1], np.eye(3)[hi]]))

    ens = ScoreEnsemble((stump(0, 0), stump(1, 0), stump(2, 2)), np.zeros(3), 1.0, (0, 1, 2),
                        3, "three votes")
    o = VoteOracle(ens, [0.0, 0.0, 0.0])
    assert o.prediction == 1
    mask = o._fixed_mask([0])
    assert o._enc.possible(o.index, o._rivals, mask, o._v) == [0]
    assert not o.entails([0]) and o.counterexample([0]) == [0.0, 0.5, 0.5]
    assert ens.predict_index(np.array([[0.0, 0.5, 0.5]]))[0] == 0  # the tie, to class 0
    assert o.entails([0, 1]) and o._enc.possible(o.index, o._rivals, o._fixed_mask([0, 1]),
                                                  o._v) == []


@pytest.mark.parametrize("constant", [(), (1,), (0, 2), (2, 2), (1, 1, 0)])
def test_shared_vote_counters_with_constant_trees_match_brute_force(constant):
    """The hard vote's shared counters (``#q(., j) >= #p(., c) + d``, ``d`` counting the
    trees of constant vote): three classes, stumps on three features voting every pair of
    classes, and single-leaf trees of constant vote that shift each margin by one, so that
    rivals tie or miss by one at the edge. Every fixed set, at every corner, against the
    votes counted by brute force (first-max ties)."""
    from fxai.models.boosted import Tree
    from fxai.models.scores import ScoreEnsemble

    def stump(f, lo, hi):
        return Tree(feature=np.array([f, 0, 0]), threshold=np.float32([0.5, 0, 0]),
                    left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                    value=np.float64([[0, 0, 0], np.eye(3)[lo], np.eye(3)[hi]]))

    def leaf(k):
        return Tree(feature=np.array([0]), threshold=np.float32([0]), left=np.array([-1]),
                    right=np.array([-1]), value=np.float64([np.eye(3)[k]]))

    trees = (stump(0, 1, 0), stump(1, 1, 2), stump(2, 0, 2), stump(0, 2, 1), stump(1, 0, 1),
             *map(leaf, constant))
    ens = ScoreEnsemble(trees, np.zeros(3), 1.0, (0, 1, 2), 3, "votes with constant trees")
    corners = list(itertools.product([0.0, 1.0], repeat=3))
    label = ens.predict_index(np.array(corners))
    for x in corners:
        o = VoteOracle(ens, list(x))
        for r in range(4):
            for fixed in itertools.combinations(range(3), r):
                same = [z for z, y in zip(corners, label, strict=True)
                        if all(z[f] == x[f] for f in fixed)]
                want = all(ens.predict_index(np.array([z]))[0] == o.index for z in same)
                assert o.entails(fixed) == want, (x, fixed)
