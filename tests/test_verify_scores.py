"""The independent MILP checker of multi-class XGBoost and random forests against brute
force, and checkers found by model type."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.tree import ExtraTreeClassifier
from test_score_oracle import KINDS, random_model

from fxai import explain, oracles, verify
from fxai.verify.brute import BruteForceOracle
from fxai.verify.scores import ScoreChecker


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_checker_entailment_matches_brute_force(kind, seed):
    model, predict, vote, x, domains = random_model(seed, kind, n_max=4)
    chk = ScoreChecker(model, x, domains, vote, samples=seed % 2 * 64)  # MILP alone, or not
    bf = BruteForceOracle(predict, domains, x)
    n = len(domains)
    for k in range(n + 1):
        for fixed in itertools.combinations(range(n), k):
            assert chk.entails(fixed) == bf.entails(fixed), fixed
    free = ScoreChecker(model, x, None, vote)  # real line: as the oracle without domains
    o = oracles.for_model(model, x, **({"vote": vote} if vote else {}))
    for fixed in itertools.combinations(range(n), n // 2):
        assert free.entails(fixed) == o.entails(fixed), fixed


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [3, 4])
def test_check_all_accepts_explanations_and_rejects_wrong_ones(kind, seed):
    model, _, vote, x, domains = random_model(seed, kind)
    o = oracles.for_model(model, x, domains=domains, **({"vote": vote} if vote else {}))
    m = explain.enumerate(o, target="axp")
    list(m)
    axps, cxps = [list(a) for a in m.axps], [list(c) for c in m.cxps]
    ok_a, ok_c = verify.check_all(model, x, axps, cxps, domains, vote=vote)
    assert all(ok_a) and all(ok_c)
    n = len(domains)
    wrong = [sorted(set(a) | {f}) for a in axps for f in range(n) if f not in a]  # not minimal
    wrong += [a[1:] for a in axps if a]  # not sufficient
    if wrong:
        assert not any(verify.check_all(model, x, wrong, [], domains, vote=vote)[0])


def test_checkers_are_found_by_type():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 2)
    y = np.array([0, 1, 1, 0] * 2)
    et = ExtraTreeClassifier(random_state=0).fit(X, y)  # a DecisionTreeClassifier subclass
    o = oracles.for_model(et, X[0], domains=[[0, 1], [0, 1]])
    axp = explain.find_axp(o)
    assert verify.check_all(et, X[0], [axp], [], [[0, 1], [0, 1]]) == ([True], [])
    with pytest.raises(TypeError, match="no checker for a model of type LogisticRegression; "
                                        "supported: .*RandomForestClassifier"):
        verify.check_all(LogisticRegression().fit(X, y), X[0], [[0]], [])
