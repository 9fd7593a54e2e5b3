"""All AXps and CXps by the exact routes: duality on trees, MARCO elsewhere.

Checked against brute force on random trees (hypothesis), against MARCO on every instance
of the default profile's trees, and on a DAG (OBDD), where the route must be MARCO.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from fxai import explain, oracles
from fxai.cli import main
from fxai.data.prepared import finite_domains, load
from fxai.experiments.xpg import select_instances
from fxai.models.dlist import DecisionList, Rule
from fxai.models.dtree import from_sklearn
from fxai.models.obdd import OBDD
from fxai.oracles.xpg import XpGOracle
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


@given(st.lists(st.sets(st.integers(0, 6), max_size=4), max_size=6))
def test_minimal_hitting_sets_brute_force(sets):
    feats = range(7)
    hits = [set(c) for k in range(8) for c in itertools.combinations(feats, k)
            if all(set(c) & s for s in sets)]
    want = sorted(tuple(sorted(h)) for h in hits if not any(g < h for g in hits))
    assert explain.minimal_hitting_sets(sets) == want


def marco_sets(o):
    m = explain.Marco(o, target="axp")
    list(m)
    assert m.complete
    return sorted(m.axps), sorted(m.cxps)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 6), st.integers(1, 6))
def test_random_trees_against_brute_force(seed, n_feat, depth):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 5, n_feat)
    X = np.column_stack([rng.integers(0, k, 60) for k in sizes])
    y = rng.integers(0, rng.integers(2, 4), 60)
    clf = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    domains = [list(range(k)) for k in sizes]
    x = [int(v) for v in X[rng.integers(len(X))]]
    o = oracles.for_model(clf, x, domains=domains)
    r = explain.all_xps(o)
    assert r.method == "duality" and r.complete and r.oracle_calls == 0
    brute = BruteForceOracle(clf.predict, domains, x)
    assert set(r.axps) == all_axps(brute) and set(r.cxps) == all_cxps(brute)
    assert (r.axps, r.cxps) == marco_sets(o)
    ffa, complete = explain.ffa(o)
    assert complete and ffa == explain.ffa_from_axps(all_axps(brute))


def test_obdd_takes_the_marco_route():
    # mux6: address bits 0, 1 select one of the data bits 2..5 (a DAG, not a tree)
    X = np.array(list(itertools.product([0, 1], repeat=6)))
    rules = [Rule(((0, "==", a), (1, "==", b), (2 + 2 * a + b, "==", 1)), 1)
             for a in (0, 1) for b in (0, 1)]
    dl = DecisionList([*rules, Rule((), 0)], 6, [0, 1])
    g = OBDD.from_decision_list(dl).to_graph()
    assert not g.is_tree()
    brute = BruteForceOracle(g.predict, [[0, 1]] * 6, list(X[37]))
    o = oracles.for_model(g, list(X[37]))
    assert not explain.has_duality(o)
    r = explain.all_xps(o, time_limit=60, clock="cpu")
    assert r.method == "marco" and r.complete and r.oracle_calls > 0
    assert set(r.axps) == all_axps(brute) and set(r.cxps) == all_cxps(brute)


@pytest.fixture(scope="module")
def default_trees(tmp_path_factory):
    """The default profile's decision trees, trained as the workflow does."""
    cfg = yaml.safe_load(open("config/config.yaml"))
    tmp = tmp_path_factory.mktemp("default_trees")
    prep, models = tmp / "prepared", tmp / "models"
    seed, test_size = str(cfg["seed"]), str(cfg["data"]["test_size"])
    xpg = cfg["xpg"]
    out = []
    for ds in xpg["dt_datasets"]:
        assert main(["prepare", ds, "--out-dir", str(prep), "--raw-root", str(tmp / "raw"),
                     "--registry", cfg["data"]["registry"],
                     "--source-order", ",".join(cfg["data"]["source_order"]),
                     "--seed", seed, "--test-size", test_size]) == 0
        split = tmp / f"{ds}.split.json"
        assert main(["split", ds, "--prepared", str(prep), "--out", str(split),
                     "--seed", seed, "--test-size", test_size]) == 0
        assert main(["xpg-train", "--family", "dt", "--dataset", ds, "--prepared", str(prep),
                     "--split", str(split), "--out-dir", str(models), "--seed", seed,
                     "--learner", "cart", "--depths", *map(str, xpg["dt"]["depths"]),
                     "--val-size", str(xpg["dt"]["val_size"])]) == 0
        out.append((ds, load(ds, prep), models / f"{ds}.joblib"))
    return out, xpg, cfg["seed"]


@pytest.mark.heavy
def test_duality_equals_marco_on_default_profile_trees(default_trees):
    import joblib

    trees, xpg, seed = default_trees
    n = 0
    for ds, data, path in trees:
        g = from_sklearn(joblib.load(path), domains=finite_domains(data.domains))
        assert g.is_tree(), ds
        X = data.X.astype(np.float32).astype(float) if data.X.dtype.kind == "f" else data.X
        for row in select_instances(data.X, xpg["max_rows_all"], xpg["fraction"], seed,
                                    xpg["max_instances"]):
            o = XpGOracle(g, [v.item() for v in X[row]])
            r = explain.all_xps(o)
            assert r.method == "duality", ds
            assert (r.axps, r.cxps) == marco_sets(o), (ds, row)
            n += 1
    assert n > 500  # every instance the XpG runs explain (iris, zoo, wine, breast cancer)
