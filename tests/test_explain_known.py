"""Extraction questions answered by the explanations found before (fxai.explain.known): the
same sets as asking the oracle, in fewer questions."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from fxai import explain
from fxai.explain.known import Known
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


def test_meets_alone_is_the_set_logic():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.choice([4, 9, 70, 140]))  # one 64-bit word and several
        k = Known(n)
        sets = {kind: [set(rng.choice(n, size=int(rng.integers(1, min(n, 5) + 1)),
                                      replace=False).tolist())
                       for _ in range(int(rng.integers(0, 40)))] for kind in ("axp", "cxp")}
        for kind, xs in sets.items():
            for xp in xs:
                k.add(kind, xp)
        current = set(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).tolist())
        for kind, xs in sets.items():
            for i in current:
                want = any(xp & current == {i} for xp in xs)
                assert k.meets_alone(kind, Known.bits(current), i) == want


def random_oracle(seed: int) -> BruteForceOracle:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    X = rng.integers(0, 2, size=(128, n))
    y = (X @ rng.normal(size=n) + rng.normal(scale=0.5, size=128) > 0).astype(int)
    clf = DecisionTreeClassifier(max_depth=5, random_state=seed).fit(X, y)
    return BruteForceOracle(clf.predict, [[0, 1]] * n, X[int(rng.integers(128))].tolist())


@pytest.mark.parametrize("seed", range(15))
def test_extractions_with_known_sets_are_the_oracles(seed):
    """Every seed shrunk with and without the true AXps and CXps known: the same set."""
    o = random_oracle(seed)
    axps, cxps = all_axps(o), all_cxps(o)
    known = Known(o.n_features)
    for a in axps:
        known.add("axp", a)
    for c in cxps:
        known.add("cxp", c)
    rng = np.random.default_rng(seed)
    feats = list(o.features)
    asked = {"plain": 0, "known": 0}
    for _ in range(10):
        order = rng.permutation(feats).tolist()
        for use, k in (("plain", None), ("known", known)):
            calls = o.calls
            got = (explain.find_axp(o, order=order, known=k),
                   explain.find_cxp(o, order=order, known=k))
            asked[use] += o.calls - calls
            if use == "plain":
                want = got
        assert got == want
    if len(axps) > 1:
        assert asked["known"] < asked["plain"]


@pytest.mark.parametrize("target", ["axp", "cxp", "switch"])
@pytest.mark.parametrize("seed", range(8))
def test_marco_finds_the_same_sequence_with_fewer_questions(seed, target, monkeypatch):
    o = random_oracle(seed)
    m = explain.Marco(o, target=target)
    events = [(e.kind, e.features) for e in m]
    assert set(m.axps) == all_axps(o) and set(m.cxps) == all_cxps(o)
    monkeypatch.setattr(Known, "meets_alone", lambda *a: False)
    plain = explain.Marco(o, target=target)
    assert [(e.kind, e.features) for e in plain] == events
    assert m.oracle_calls <= plain.oracle_calls


def test_adaptive_scans_only_while_they_pay():
    """MARCO's record: scans that cost more than the questions their hits answer stop, but
    for a sample of the extractions (the SAMPLE-th, then at doubling gaps up to MAX_GAP);
    scans that pay go on; without ``adaptive`` always."""
    from fxai.explain import known as kn

    def decisions(adaptive, counts, n=2 * kn.SAMPLE):
        k = Known(8, adaptive=adaptive)
        k.record("axp", counts)
        return [k.worth_scanning("axp") for _ in range(n)]

    # 100 scans of 1 s with 10 hits; a question a hit answers takes 2 s: 20 s saved < 100 s
    costly = decisions(True, [100, 10, 100.0, 50, 100.0], n=8 * kn.MAX_GAP)
    sampled = [n + 1 for n, yes in enumerate(costly) if yes]
    assert sampled[:4] == [kn.SAMPLE, 3 * kn.SAMPLE, 7 * kn.SAMPLE, 15 * kn.SAMPLE]
    assert {b - a for a, b in zip(sampled[-4:-1], sampled[-3:], strict=True)} == {kn.MAX_GAP}
    k = Known(8, adaptive=True)  # scans that pay again: every extraction, the gap reset
    k.record("axp", [100, 10, 100.0, 50, 100.0])
    assert [k.worth_scanning("axp") for _ in range(3 * kn.SAMPLE)].count(True) == 2
    k.record("axp", [0, 100, 0.0, 0, 0.0])
    assert k.worth_scanning("axp") and k._gap["axp"] == kn.SAMPLE
    assert all(decisions(True, [100, 60, 100.0, 50, 100.0]))  # 120 s saved > 100 s
    assert all(decisions(False, [100, 10, 100.0, 50, 100.0]))
    assert all(decisions(True, [kn.WARMUP - 1, 0, 100.0, 50, 100.0]))  # too few to judge
    k = Known(8, adaptive=True)
    k.record("axp", [kn.WINDOW + 2, 10, 1.0, 4, 2.0])  # an overflowing window halves
    assert k._record["axp"] == [kn.WINDOW / 2 + 1, 5, 0.5, 2, 1.0]
