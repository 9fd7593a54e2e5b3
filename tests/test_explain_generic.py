"""Generic extraction and MARCO (all targets) against brute force on random models."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fxai import explain
from fxai.explain.ffa import ffa_from_axps
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps, is_axp, is_cxp


def random_table_model(seed: int, n: int, max_dom: int, n_classes: int = 2):
    """A random classifier given by a lookup table over small domains."""
    rng = np.random.default_rng(seed)
    domains = [list(range(int(rng.integers(2, max_dom + 1)))) for _ in range(n)]
    table = rng.integers(0, n_classes, size=[len(d) for d in domains])
    # bias towards one class so that explanations are not all trivial
    table = np.where(rng.random(table.shape) < 0.6, 0, table)

    def predict(points):
        return table[tuple(np.asarray(points).T)]

    x = [int(rng.integers(0, len(d))) for d in domains]
    return predict, domains, x


def minimal_hitting_sets(sets, feats):
    sets = [set(s) for s in sets]
    hs = [set(c) for k in range(len(feats) + 1) for c in itertools.combinations(feats, k)
          if all(set(c) & s for s in sets)]
    return {tuple(sorted(h)) for h in hs if not any(o < h for o in hs)}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6))
def test_extraction_is_minimal_and_sufficient(seed, n):
    o = BruteForceOracle(*random_table_model(seed, n, 3))
    assert is_axp(o, explain.find_axp(o))
    cxp = explain.find_cxp(o)
    assert is_cxp(o, cxp) if cxp is not None else o.entails([])


@pytest.mark.parametrize("target", ["axp", "cxp", "switch"])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6))
def test_marco_finds_exactly_all_explanations(target, seed, n):
    o = BruteForceOracle(*random_table_model(seed, n, 3))
    rule = explain.SwitchRule(w=2, alpha=1.0, eps=0.5)
    m = explain.enumerate(o, target=target, switch=rule)
    events = list(m)
    assert m.complete
    axps, cxps = all_axps(o), all_cxps(o)
    found_a = [e.features for e in events if e.kind == "axp"]
    found_c = [e.features for e in events if e.kind == "cxp"]
    assert len(found_a) == len(set(found_a)) and len(found_c) == len(set(found_c))
    assert set(found_a) == axps
    assert set(found_c) == cxps
    # hitting-set duality
    assert minimal_hitting_sets(cxps, o.features) == axps
    assert minimal_hitting_sets(axps, o.features) == cxps
    times = [e.t for e in events]
    assert times == sorted(times)


def test_switch_happens_and_is_recorded():
    o = BruteForceOracle(*random_table_model(7, 6, 3))
    m = explain.enumerate(o, target="switch", switch=explain.SwitchRule(w=1, alpha=0.0))
    list(m)
    assert m.complete and m.switched_at is not None


def test_time_limit_stops_early():
    o = BruteForceOracle(*random_table_model(3, 6, 3))
    m = explain.enumerate(o, target="axp", time_limit=1e-9)
    assert list(m) == [] and not m.complete


@pytest.mark.parametrize("limit", [0, 0.0, -1, float("nan"), float("inf"), "10", True])
def test_time_limits_must_be_positive_and_finite(limit):
    """Every call with a time limit refuses one that is not a positive finite number (0
    used to yield nothing silently, -1 to run, nan to mean no limit)."""
    o = BruteForceOracle(*random_table_model(3, 4, 3))
    calls = [lambda: explain.enumerate(o, time_limit=limit),
             lambda: explain.all_xps(o, time_limit=limit),
             lambda: explain.ffa(o, time_limit=limit),
             lambda: explain.find_axp(o, time_limit=limit),
             lambda: explain.find_cxp(o, time_limit=limit)]
    for call in calls:
        with pytest.raises(ValueError, match="positive finite number of seconds"):
            call()


def test_constant_model_has_empty_axp():
    o = BruteForceOracle(lambda p: np.zeros(len(p), dtype=int), [[0, 1]] * 3, [1, 0, 1])
    events = list(explain.enumerate(o, target="cxp"))
    assert [(e.kind, e.features) for e in events] == [("axp", ())]


def test_ffa_counts_fraction_of_axps():
    assert ffa_from_axps([(0, 1), (1, 2)]) == {0: 0.5, 1: 1.0, 2: 0.5}


@pytest.mark.parametrize("seed", range(20))
def test_ffa_from_all_cxps_counts_what_listing_the_axps_gives(seed):
    """Counting the minimal hitting sets of every CXp in a BDD: the same FFA, to the bit."""
    rng = np.random.default_rng(seed)
    o = BruteForceOracle(*random_table_model(800 + seed, int(rng.integers(2, 7)), 3))
    assert explain.ffa_from_cxps(all_cxps(o)) == ffa_from_axps(all_axps(o))


def test_ffa_from_cxps_of_a_constant_prediction_and_an_empty_cxp():
    assert explain.ffa_from_cxps([]) == ffa_from_axps([()]) == {}  # one AXp: the empty set
    with pytest.raises(ValueError, match="empty CXp"):
        explain.ffa_from_cxps([(0,), ()])


def test_switch_rule_conditions():
    r = explain.SwitchRule(w=2, alpha=2.0, eps=0.0)
    for k, s in [("axp", 4), ("axp", 4), ("cxp", 2), ("cxp", 3)]:
        r.record(k, s)
    assert r.needed() is False  # 8/5 < 2 and |3 - 2.5| > 0
    r.record("cxp", 2)  # windows: A = 4,4 ; C = 3,2 -> 8/5; stable |2-2.5| > 0
    assert not r.needed()
    r.record("cxp", 2)  # C = 2,2: 8/4 >= 2
    assert r.needed()
    code = explain.SwitchRule(w=3, eps=1.0, variant="code")
    for s in [3, 5, 4]:
        code.record("cxp", s)
    assert code.needed()  # the newest (4) is within 1 of each of 3 and 5
    code.record("cxp", 6)  # 5, 4, 6: |4 - 6| > 1
    assert not code.needed()
    code.record("cxp", 1)  # code variant: unit CXps stay out of the windows
    assert code.cxps == [3, 5, 4, 6] and code.unit_cxps == 1


@pytest.mark.parametrize("solver", ["g3", "m22", "cd15", "lingeling"])
def test_marco_rejects_solvers_without_minimal_models(solver):
    """Only MinisatGH's models are subset-minimal; others would be recorded as explanations."""
    o = BruteForceOracle(*random_table_model(5, 4, 3))
    with pytest.raises(ValueError, match="MARCO needs MinisatGH"):
        explain.enumerate(o, target="axp", solver=solver)


@pytest.mark.parametrize("solver", ["mgh", "minisat-gh"])
def test_marco_accepts_minisatgh_by_any_pysat_name(solver):
    o = BruteForceOracle(*random_table_model(5, 4, 3))
    m = explain.enumerate(o, target="cxp", solver=solver)
    found = list(m)
    assert m.complete and {e.features for e in found if e.kind == "axp"} == all_axps(o)


def test_marco_bounds_each_question_by_the_time_left():
    """An oracle whose questions never end unless stopped: MARCO's time limit reaches
    inside them (through the oracle's deadline), and the enumeration stops incomplete."""
    import time

    from fxai.oracles.base import Oracle

    class Endless(Oracle):
        n_features, instance, prediction = 3, [1, 1, 0], 1

        def entails(self, fixed):
            for _ in range(10**8):  # only the deadline ends this
                self.check_time()
            raise AssertionError("no deadline reached the question")

    for target in ("axp", "cxp"):
        t0 = time.process_time()
        m = explain.enumerate(Endless(), target=target, time_limit=0.2)
        assert list(m) == [] and not m.complete
        assert time.process_time() - t0 < 5
