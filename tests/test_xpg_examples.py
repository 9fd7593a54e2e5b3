"""The XpG paper's running examples as exact tests (paper features 1-based, ours 0-based)."""

from __future__ import annotations

import itertools

import pytest

from fxai import explain
from fxai.explain.membership import in_some_xp, relevant_features
from fxai.explain.tree_cxps import tree_cxps
from fxai.models.dgraph import DecisionGraph, Interval, Node, ValueSet
from fxai.oracles import for_model
from fxai.oracles.xpg import ExplanationGraph, XpGOracle
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


def vs(*vals):
    return ValueSet(frozenset(vals))


# Figure 1. Age W,T,O = 0,1,2; Income L,M,H = 0,1,2; Student N,Y = 0,1; Credit P,F,E = 0,1,2.
# Classes N,T,L (no hardware, tablet, laptop). Node k here is node k+1 of the figure.
W, T, O = 0, 1, 2  # noqa: E741
L, M, H = 0, 1, 2
P, F, E = 0, 1, 2
FIG1 = [
    Node(2, ((vs(0), 1), (vs(1), 2))),
    Node(0, ((vs(O), 3), (vs(W, T), 4))),
    Node(3, ((vs(E), 5), (vs(P, F), 6))),
    Node(label="T"),
    Node(1, ((vs(H), 7), (vs(L, M), 8))),
    Node(label="L"),
    Node(0, ((vs(W, O), 9), (vs(T), 10))),
    Node(0, ((vs(T), 11), (vs(W), 12))),
    Node(label="N"),
    Node(label="T"),
    Node(1, ((vs(H), 13), (vs(L, M), 14))),
    Node(label="L"),
    Node(label="N"),
    Node(label="T"),
    Node(label="L"),
]
FIG1_DOMAINS = [[0, 1, 2], [0, 1, 2], [0, 1], [0, 1, 2]]
V1 = (O, L, 1, P)


@pytest.fixture
def fig1():
    return DecisionGraph(FIG1, 4, domains=FIG1_DOMAINS)


def test_figure1_prediction_and_xpg_labels(fig1):
    xpg = ExplanationGraph(fig1, V1)
    assert xpg.prediction == "T"
    labels = {(p + 1, q + 1): lab for p in range(15) for q, lab in xpg.edges[p]}
    assert labels == {  # Figure 3
        (1, 2): 0, (1, 3): 1, (2, 4): 1, (2, 5): 0, (3, 6): 0, (3, 7): 1, (5, 8): 0,
        (5, 9): 1, (7, 10): 1, (7, 11): 0, (8, 12): 0, (8, 13): 0, (11, 14): 0, (11, 15): 1,
    }
    assert {k + 1 for k in range(15) if xpg.zero[k]} == {6, 9, 12, 13, 15}


def example5_sigma(s):
    s1, s2, s3, s4 = s
    e1 = True
    e2, e3 = e1 and not s3, e1
    e5, e6, e7 = e2 and not s1, e3 and not s4, e3
    e8, e9, e11 = e5 and not s2, e5, e7 and not s1
    e12 = e13 = e8 and not s1
    e15 = e11
    return int(not (e6 or e9 or e12 or e13 or e15))


def test_example5_evaluation_function(fig1):
    xpg = ExplanationGraph(fig1, V1)
    for s in itertools.product([0, 1], repeat=4):
        assert xpg.evaluate(s) == example5_sigma(s), s
    assert xpg.evaluate((1, 1, 1, 1)) == 1 and xpg.evaluate((0, 0, 0, 0)) == 0


def test_example7_axp(fig1):
    o = XpGOracle(fig1, V1)
    assert o.entails({0, 3}) and not o.entails({3}) and not o.entails({0})
    assert explain.find_axp(o) == [0, 3]  # deletion in ascending order drops s2, s3
    brute = BruteForceOracle(fig1.predict, FIG1_DOMAINS, V1)
    assert (0, 3) in all_axps(brute)


def test_figure1_enumeration_and_cxps(fig1):
    o = XpGOracle(fig1, V1)
    m = explain.enumerate(o, target="axp")
    list(m)
    brute = BruteForceOracle(fig1.predict, FIG1_DOMAINS, V1)
    assert m.complete
    assert set(m.axps) == all_axps(brute)
    assert set(m.cxps) == all_cxps(brute) == set(tree_cxps(o.xpg))
    assert relevant_features(o) == {f for a in m.axps for f in a}
    assert all(in_some_xp(o, f) == any(f in a for a in m.axps) for f in range(4))


# Figure 2 (reconstructed: the text gives only Example 6's XpG). Order x3, x2, x1;
# D1 = D2 = {0, 1}, D3 = {0, 1, 2}; v = (0, 1, 2) predicted R. Nodes 1..8 of Figure 4.
FIG2 = [
    Node(2, ((vs(0, 1), 1), (vs(2), 2))),
    Node(1, ((vs(0), 5), (vs(1), 3))),
    Node(1, ((vs(0), 5), (vs(1), 4))),
    Node(0, ((vs(0), 5), (vs(1), 6))),
    Node(0, ((vs(0), 5), (vs(1), 7))),
    Node(label="R"),
    Node(label="G"),
    Node(label="B"),
]
FIG2_DOMAINS = [[0, 1], [0, 1], [0, 1, 2]]


def test_example6_and_8_omdd():
    g = DecisionGraph(FIG2, 3, domains=FIG2_DOMAINS)
    assert not g.is_tree() and g.classes == ["B", "G", "R"]
    xpg = ExplanationGraph(g, (0, 1, 2))
    assert xpg.prediction == "R"
    for s1, s2, s3 in itertools.product([0, 1], repeat=3):
        e2, e3 = not s3, True
        e4, e5 = e2, e3
        sigma = int(not ((e4 and not s1) or (e5 and not s1)))
        assert xpg.evaluate((s1, s2, s3)) == sigma
    o = XpGOracle(g, (0, 1, 2))
    assert explain.find_axp(o) == [0]  # Example 8: {1} is an AXp
    m = explain.enumerate(o, target="cxp")
    list(m)
    brute = BruteForceOracle(g.predict, FIG2_DOMAINS, (0, 1, 2))
    assert set(m.axps) == all_axps(brute) == {(0,)}
    assert set(m.cxps) == all_cxps(brute) == {(0,)}
    assert o.precision([]) == pytest.approx(brute.precision([]))


def test_registry_builds_xpg_oracle(fig1):
    o = for_model(fig1, V1)
    assert isinstance(o, XpGOracle) and o.prediction == "T"


def test_bad_graphs_are_rejected():
    with pytest.raises(ValueError, match="cycle"):
        DecisionGraph([Node(0, ((vs(0), 1), (vs(1), 2))), Node(label=1),
                       Node(0, ((vs(0, 1), 0),))], 1)
    with pytest.raises(ValueError, match="feature 3"):
        DecisionGraph([Node(3, ((vs(0), 1),)), Node(label=0)], 2)
    assert DecisionGraph([Node(label=0)], 1).n_nodes == 1  # a lone terminal is valid
    with pytest.raises(ValueError, match="no outgoing edge"):
        DecisionGraph([Node(0, ()), Node(label=0)], 1)
    g = DecisionGraph([Node(0, ((Interval(0, 1), 1),)), Node(label=0)], 1)
    with pytest.raises(ValueError, match="matches no edge"):
        g.predict_one([5.0])


def test_inconsistent_paths_are_rejected():
    """x0 = 0 at the root, then x0 = 1 below: no point follows that path to class 0, so the
    classifier is constant, but path-to-zero would find the 0-terminal (not an AXp of [])."""
    nodes = [Node(0, ((vs(0), 1), (vs(1), 2))), Node(0, ((vs(1), 3), (vs(0), 2))),
             Node(label=1), Node(label=0)]
    with pytest.raises(ValueError, match="inconsistent path: node 1's edge to 3 needs feature 0"):
        DecisionGraph(nodes, 1, domains=[[0, 1]])
    reals = [Node(0, ((Interval(hi=1.0), 1), (Interval(lo=1.0), 2))),
             Node(0, ((Interval(lo=2.0), 3), (Interval(hi=2.0), 2))), Node(label=1), Node(label=0)]
    with pytest.raises(ValueError, match="inconsistent path"):
        DecisionGraph(reals, 1)
    with pytest.raises(ValueError, match="no domain value meets"):  # read-once, empty literal
        DecisionGraph([Node(0, ((vs(0, 1), 1), (vs(2), 2))), Node(label=1), Node(label=0)], 1,
                      domains=[[0, 1]])


def test_path_check_has_a_budget():
    """A non-read-once DAG with 2^8 distinct constraint sets: over budget is an error."""
    n = 8
    nodes = [Node(i, ((vs(0), i + 1), (vs(1), i + 1))) for i in range(n)]
    nodes += [Node(i, ((vs(0, 1), n + i + 1),)) for i in range(n)]  # each feature again
    nodes.append(Node(label=0))
    assert DecisionGraph(nodes, n, domains=[[0, 1]] * n).n_nodes == 2 * n + 1
    with pytest.raises(ValueError, match="more than 100 distinct paths"):
        DecisionGraph(nodes, n, domains=[[0, 1]] * n, max_paths=100)
