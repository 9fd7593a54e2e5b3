"""The boosted-tree oracle against brute force on small random XGBoost models."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fxai import explain, oracles
from fxai.models import boosted as B
from fxai.oracles.boosted import BoostedOracle
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


def random_model(seed: int, n_max: int = 6, dom_max: int = 4):
    """XGBoost on random integer data (thresholds between integers), an instance, domains."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, n_max + 1))
    domains = [list(range(int(rng.integers(2, dom_max + 1)))) for _ in range(n)]
    X = np.column_stack([rng.choice(d, 160) for d in domains]).astype(float)
    w = rng.normal(size=n)
    s = X @ w + rng.normal(scale=0.7, size=160)
    y = (s > np.median(s)).astype(int)
    model = B.train(X, y, trees=int(rng.integers(1, 9)), depth=int(rng.integers(1, 4)), seed=seed)
    x = [int(rng.choice(d)) for d in domains]
    return model, x, domains


def xgb_predict(model, c: int | None = None, ties: str = "change"):
    """Classes by XGBoost itself: ``XGBClassifier.predict``. Given the instance's class ``c``,
    a tie (probability exactly 0.5, class 0 for predict) is a change of class under
    ``ties="change"``."""

    def predict(points):
        points = np.asarray(points, np.float32)
        cls = model.predict(points).astype(int)
        if c is not None and ties == "change":
            cls[model.predict_proba(points)[:, 1] == 0.5] = 1 - c
        return cls

    return predict


def oracle_pair(model, x, domains, ties="change"):
    """Our oracle and the brute-force one under the same tie rule (a tied instance: keep)."""
    if model.predict_proba(np.asarray([x], np.float32))[0, 1] == 0.5:
        ties = "keep"
    o = oracles.for_model(model, x, domains=domains, ties=ties)
    assert o.prediction == xgb_predict(model)(np.asarray([x]))[0]
    return o, BruteForceOracle(xgb_predict(model, o.prediction, ties), domains, x)


@pytest.mark.heavy
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_entailment_and_counterexamples_match_brute_force(seed):
    model, x, domains = random_model(seed)
    o, bf = oracle_pair(model, x, domains)
    predict = bf.predict
    assert o.prediction == bf.prediction
    n = len(domains)
    for k in range(n + 1):
        for fixed in itertools.combinations(range(n), k):
            expected = bf.entails(fixed)
            cex = o.counterexample(fixed)
            assert (cex is None) == expected, fixed
            assert o.entails(fixed) == expected
            if cex is not None:
                assert all(cex[i] == x[i] for i in fixed)
                assert all(cex[i] in domains[i] for i in range(n))
                assert predict(np.asarray([cex]))[0] != o.prediction


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_a_search_resumed_pass_by_pass_under_a_deadline_gives_the_same_answers(seed):
    """With a deadline the first pass stops after _CHUNK leaves tested and later passes
    resume from the boxes left: with a chunk of one leaf every question takes that route."""
    model, x, domains = random_model(seed)
    o, bf = oracle_pair(model, x, domains)
    n = len(domains)
    with pytest.MonkeyPatch.context() as mp, o.time_limit(600):
        mp.setattr("fxai.oracles.boosted._CHUNK", 1)
        for k in range(n + 1):
            for fixed in itertools.combinations(range(n), k):
                assert (o.counterexample(fixed) is None) == bf.entails(fixed), fixed


def brute_deletion(bf, fixed, todo):
    """Plain deletion on the brute-force oracle: (the features freed, all decided)."""
    fixed = set(fixed)
    for i in todo:
        if bf.entails(fixed - {i}):
            fixed.discard(i)
    return fixed


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), limit=st.sampled_from([1, 2, 8, 1 << 16]))
def test_the_compiled_axp_prefix_is_plain_deletion(seed, limit):
    """``axp_prefix`` frees what plain deletion frees, in any order and from any
    entailing seed; with a small leaf limit it stops at a search that needs more and
    ``find_axp`` asks the rest: the same AXp."""
    model, x, domains = random_model(seed)
    o, bf = oracle_pair(model, x, domains)
    rng = np.random.default_rng(seed)
    n = len(domains)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("fxai.oracles.boosted.PREFIX_LEAVES", limit)
        for _ in range(4):
            seed_set = {i for i in range(n) if rng.random() < 0.8}
            if not bf.entails(seed_set):
                seed_set = set(range(n))
            todo = [int(i) for i in rng.permutation(sorted(seed_set))]
            calls = o.calls
            freed, done = o.axp_prefix(set(seed_set), todo)
            assert o.calls - calls == done + (done < len(todo))  # (the search it stopped in)
            if limit == 1 << 16:
                assert done == len(todo)
            expected = brute_deletion(bf, seed_set, todo[:done])
            assert seed_set - freed == expected
            axp = explain.find_axp(o, seed=seed_set, order=todo)
            assert axp == sorted(brute_deletion(bf, seed_set, todo))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), limit=st.sampled_from([1, 2, 8, 1 << 16]))
def test_the_compiled_cxp_prefix_is_find_cxps_loop(seed, limit):
    """``find_cxp`` with ``cxp_prefix`` gives the CXp of its own loop without it (the same
    counterexamples cut the free set), a CXp by brute force, in any order and from any
    weak CXp; with a small leaf limit the loop asks the rest."""
    model, x, domains = random_model(seed)
    o, bf = oracle_pair(model, x, domains)
    rng = np.random.default_rng(seed)
    n = len(domains)
    if bf.entails([]):
        return  # the prediction cannot change: no CXp
    for _ in range(4):
        free = {i for i in range(n) if rng.random() < 0.8}
        if bf.entails(set(range(n)) - free):
            free = set(range(n))
        order = [int(i) for i in rng.permutation(n)]
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(BoostedOracle, "cxp_prefix", lambda self, free, order: (free, 0))
            plain = explain.find_cxp(o, seed=free, order=order)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("fxai.oracles.boosted.PREFIX_LEAVES", limit)
            calls = o.calls
            got = explain.find_cxp(o, seed=free, order=order)
            assert o.calls > calls
        assert got == plain
        assert not bf.entails(set(range(n)) - set(got))
        assert all(bf.entails(set(range(n)) - set(got) | {i}) for i in got)


@pytest.mark.parametrize("seed, order", [(31, [3, 2, 1, 0, 4]),
                                         (45, [2, 1, 4, 6, 3, 0, 7, 5])])
def test_the_compiled_cxp_prefix_cuts_the_free_set_as_find_cxp_does(seed, order):
    """Two random models (found by search) where fixing at once what a counterexample
    leaves at the instance's value, as ``find_cxp`` does, gives another CXp than asking
    about each such feature in its turn: the prefix must cut the same way."""
    model, x, domains = random_model(seed, n_max=8, dom_max=5)
    o, _ = oracle_pair(model, x, domains)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BoostedOracle, "cxp_prefix", lambda self, free, order: (free, 0))
        plain = explain.find_cxp(o, order=order)
    assert explain.find_cxp(o, order=order) == plain


def test_the_compiled_prefixes_take_seeds_with_features_no_tree_splits_on():
    """Feature 2 of a three-feature model is in no tree: in a seed and in the order it is
    what the loops without the prefixes make of it."""
    ens = B.Ensemble(trees=tie_ensemble().trees, base_margin=0.0, n_features=3)
    o = BoostedOracle(ens, [1, 1, 0], ties="keep")
    assert o.axp_prefix({0, 1, 2}, [2, 0, 1]) == ({2}, 3)  # freeing x0 or x1: a tie, class 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BoostedOracle, "cxp_prefix", lambda self, free, order: (free, 0))
        plain = explain.find_cxp(o, seed=[0, 1, 2], order=[2, 1, 0])
    assert explain.find_cxp(o, seed=[0, 1, 2], order=[2, 1, 0]) == plain == [0]


def test_the_compiled_prefixes_keep_a_tie_as_a_change():
    """Under ``ties="change"`` a tie is a counterexample in the prefixes too."""
    o = BoostedOracle(tie_ensemble(), [1, 1], ties="change")
    assert o.axp_prefix({0, 1}, [0, 1]) == (set(), 2)
    keep = BoostedOracle(tie_ensemble(), [0, 0], ties="keep")
    assert keep.axp_prefix({0, 1}, [0, 1]) == ({0}, 2)
    assert o.cxp_prefix({0, 1}, [0, 1]) == ({1}, 2)  # fixing x0 keeps the tie at x1 = 0
    assert keep.cxp_prefix({0, 1}, [0, 1]) == ({0, 1}, 2)  # a tie alone is no change


def test_a_fixed_feature_out_of_range_is_refused():
    o = BoostedOracle(tie_ensemble(), [0, 1], ties="keep")
    for bad in ([2], [-1]):
        with pytest.raises(IndexError, match="out of range"):
            o.counterexample(bad)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_real_line_counterexamples_are_valid(seed):
    """Without domains the free features range over the reals; points still check out."""
    model, x, domains = random_model(seed)
    o = oracle_pair(model, x, domains)[0]
    o = BoostedOracle(model, x, ties=o.ties)
    predict = xgb_predict(model, o.prediction, o.ties)
    for fixed in itertools.chain.from_iterable(
        itertools.combinations(range(len(x)), k) for k in range(len(x))
    ):
        cex = o.counterexample(fixed)
        if cex is not None:
            assert all(cex[i] == x[i] for i in fixed)
            assert predict(np.asarray([cex]))[0] != o.prediction


@pytest.mark.heavy
@pytest.mark.parametrize("target", ["axp", "cxp", "switch"])
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_marco_finds_exactly_the_brute_force_explanations(target, seed):
    model, x, domains = random_model(seed)
    o, bf = oracle_pair(model, x, domains)
    rule = explain.SwitchRule(w=2, alpha=1.0, eps=0.5)
    m = explain.enumerate(o, target=target, switch=rule)
    list(m)
    assert m.complete
    unused = set(range(len(x))) - set(o.features)
    assert not any(set(a) & unused for a in m.axps)
    assert set(m.axps) == all_axps(bf)
    assert set(m.cxps) == all_cxps(bf)
    assert explain.ffa_from_axps(m.axps) == explain.ffa_from_axps(all_axps(bf))


def tie_ensemble() -> B.Ensemble:
    """margin = [x0 >= 0.5 ? 1 : -1] + [x1 >= 0.5 ? 1 : -1]: (0,1) and (1,0) are ties."""

    def stump(f):
        return B.Tree(
            feature=np.array([f, 0, 0]), threshold=np.array([0.5, 0, 0], np.float32),
            left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
            value=np.array([0, -1, 1], np.float32),
        )

    return B.Ensemble(trees=(stump(0), stump(1)), base_margin=0.0, n_features=2)


def test_ties_change_counts_a_tie_as_a_counterexample():
    o = BoostedOracle(tie_ensemble(), [1, 1], ties="change")
    assert o.prediction == 1
    assert not o.entails([1]) and not o.entails([0])
    assert o.entails([0, 1])
    o0 = BoostedOracle(tie_ensemble(), [0, 0], ties="change")
    assert o0.prediction == 0 and not o0.entails([0])
    with pytest.raises(ValueError, match="probability exactly 0.5"):
        BoostedOracle(tie_ensemble(), [0, 1], ties="change")


def test_ties_keep_counts_a_tie_as_xgboost_predicts_it():
    """XGBClassifier.predict: a tie (probability exactly 0.5) is class 0."""
    o = BoostedOracle(tie_ensemble(), [0, 0], ties="keep")
    assert o.prediction == 0 and o.entails([1]) and o.entails([0]) and not o.entails([])
    o1 = BoostedOracle(tie_ensemble(), [1, 1], ties="keep")  # class 1: a tie is a change
    assert not o1.entails([1]) and not o1.entails([0])
    tied = BoostedOracle(tie_ensemble(), [0, 1], ties="keep")
    assert tied.prediction == 0
    assert tied.entails([0]) and not tied.entails([1])


def test_unused_features_are_not_candidates_and_bad_input_is_rejected():
    ens = B.Ensemble(trees=tie_ensemble().trees, base_margin=0.3, n_features=4)
    o = oracles.for_model(ens, [1, 1, 5, 7])
    assert o.features == [0, 1]
    with pytest.raises(ValueError, match="instance has 3 values"):
        BoostedOracle(ens, [1, 1, 5])
    with pytest.raises(ValueError, match="ties must be"):
        BoostedOracle(ens, [1, 1, 5, 7], ties="maybe")


def stump(feature: int, below: float, above: float) -> B.Tree:
    """A depth-1 tree: ``below`` if x_feature < 0.5, else ``above``."""
    return B.Tree(feature=np.array([feature, 0, 0]), threshold=np.float32([0.5, 0, 0]),
                  left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                  value=np.float32([0, below, above]))


@pytest.mark.parametrize("ties", ["change", "keep"])
def test_float32_near_tie_is_judged_as_xgboost_would(ties):
    """At x0 = 0 the margin is 1 + 2^-25 - 1: positive in float64 but exactly 0 in XGBoost's
    float32 sum (1 + 2^-25 rounds to 1), probability 0.5: class 0, a change from class 1."""
    ens = B.Ensemble(trees=(stump(0, 2.0**-25, 5.0), stump(1, -1.0, -1.0)), base_margin=1.0,
                     n_features=2)
    assert ens.margin([[0.0, 0.0]])[0] == 0.0 and ens.margin([[1.0, 0.0]])[0] == 5.0
    o = BoostedOracle(ens, [1.0, 0.0], ties=ties)
    cex = o.counterexample(set())
    assert cex is not None and cex[0] < 0.5 and ens.margin([cex])[0] == 0.0
    assert ens.predict([cex])[0] == 0 and o.entails({0})


@pytest.mark.heavy
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_model_tables_shared_across_instances(seed):
    """Oracles of many instances of one ensemble share its leaf tables (built once per class);
    each answers every query as an oracle built from scratch does, with and without domains."""
    import fxai.oracles.boosted as OB

    model, _, domains = random_model(seed)
    ens = B.from_booster(model.get_booster())
    rng = np.random.default_rng(seed)
    points = [[int(rng.choice(d)) for d in domains] for _ in range(6)]
    shared = [BoostedOracle(ens, x, ties="keep") for x in points]
    queries = [set(np.flatnonzero(rng.random(len(domains)) < 0.5).tolist()) for _ in range(8)]
    for x, o in zip(points, shared, strict=True):
        for doms in (None, domains):
            OB._MODELS.clear()
            fresh = BoostedOracle(ens, x, ties="keep", domains=doms)
            o2 = o if doms is None else BoostedOracle(ens, x, ties="keep", domains=doms)
            assert [o2.entails(q) for q in queries] == [fresh.entails(q) for q in queries]


def random_trees(seed: int, n_features: int = 3):
    """Random trees whose node ids are shuffled (the root stays 0; children need not follow
    their parent), with features tested more than once on a path and repeated thresholds."""
    rng = np.random.default_rng(seed)
    trees = []
    for _ in range(int(rng.integers(1, 5))):
        kids: dict[int, tuple[int, int]] = {}
        todo, n = [0], 1
        while todo:
            node = todo.pop()
            if n < 15 and rng.random() < 0.7:
                kids[node] = (n, n + 1)
                todo += [n, n + 1]
                n += 2
        perm = np.r_[0, 1 + rng.permutation(n - 1)]  # node i gets id perm[i]
        left, right = np.full(n, -1), np.full(n, -1)
        for node, (a, b) in kids.items():
            left[perm[node]], right[perm[node]] = perm[a], perm[b]
        trees.append(B.Tree(feature=rng.integers(0, n_features, n),
                            threshold=rng.choice([0.5, 1.5, 2.5], n).astype(np.float32),
                            left=left, right=right, value=rng.normal(size=n).astype(np.float32)))
    return B.Ensemble(tuple(trees), 0.0, n_features)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), restrict=st.booleans())
def test_leaf_boxes_are_the_paths_boxes(seed, restrict):
    """Every tree's reachable leaves, in preorder (left first), each with the allowed
    intervals its path leaves per column in the order of their first test, as a walk down
    the tree computes them; and every tree's leaf of a point is Tree.leaf_of's."""
    ens = random_trees(seed)
    domains = [[0.0, 2.0], None, [1.0, 3.0]] if restrict else None
    o = BoostedOracle(ens, [0.0, 0.0, 1.0], ties="keep", domains=domains)
    n = len(o._used)
    for t, tree in enumerate(ens.trees):
        want, stack = [], [(0, {})]
        while stack:
            node, box = stack.pop()
            if tree.left[node] < 0:
                if all(lo < hi for lo, hi in box.values()):
                    want.append((node, box))
                continue
            c = int(o._col[tree.feature[node]])
            j = int(np.searchsorted(o._thr[c], tree.threshold[node]))
            cut = int(np.searchsorted(o._allowed[c], j + 1))
            lo, hi = box.get(c, (0, len(o._allowed[c])))
            stack.append((int(tree.right[node]), {**box, c: (max(lo, cut), hi)}))
            stack.append((int(tree.left[node]), {**box, c: (lo, min(hi, cut))}))
        got = o._boxes_of(t)
        assert list(got.dicts(n).items()) == want
        assert [list(b) for b in got.dicts(n).values()] == [list(b) for _, b in want]
    X = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 1.5, 2.5, 3.0], (20, 3))
    X = X.astype(np.float32)
    assert np.array_equal(B.leaves(ens.flat, X),
                          np.stack([t.leaf_of(X) for t in ens.trees], axis=1))
