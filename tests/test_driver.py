"""The one driver shape (fxai.experiments.driver): prime outside the clock, explain and
check each timed apart on the run's clock, and the parts' drivers built on it."""

import pytest

from fxai import clocks, oracles
from fxai.experiments.driver import Stopwatch, drive


@pytest.fixture
def fake_clocks(monkeypatch):
    """Clocks that move only when told: ``bump(cpu, wall)``."""
    now = {"cpu": 0.0, "wall": 0.0}
    for name in now:
        monkeypatch.setitem(clocks.CLOCKS, name, lambda name=name: now[name])

    def bump(cpu: float, wall: float) -> None:
        now["cpu"] += cpu
        now["wall"] += wall

    return bump


@pytest.mark.parametrize("clock, seconds", [("cpu", 2.0), ("wall", 7.0)])
def test_a_stopwatch_reads_the_runs_clock_and_both(fake_clocks, clock, seconds):
    with Stopwatch(clock) as sw:
        fake_clocks(2.0, 7.0)
    assert (sw.took.clock, sw.took.seconds, sw.took.cpu_s, sw.took.wall_s) == \
        (clock, seconds, 2.0, 7.0)


def test_drive_primes_untimed_then_times_explain_and_check_apart(fake_clocks):
    steps = []

    def step(name, cpu, out=None):
        def run(*args):
            steps.append((name, args))
            fake_clocks(cpu, 0.0)
            return out
        return run

    out = drive(step("explain", 2.0, "xp"), prime=step("prime", 5.0),
                check=step("check", 3.0, True))
    assert steps == [("prime", ()), ("explain", ()), ("check", ("xp",))]
    assert (out.result, out.verdict) == ("xp", True)
    assert (out.explained.seconds, out.checked.seconds) == (2.0, 3.0)
    unchecked = drive(step("explain", 1.0, "xp"))
    assert unchecked.verdict is None and unchecked.checked is None


def test_an_unknown_clock_is_refused():
    with pytest.raises(ValueError, match="clock must be one of"):
        Stopwatch("gpu")
    with pytest.raises(ValueError, match="clock must be one of"):
        drive(lambda: None, clock="gpu")


def test_the_cross_driver_primes_explains_and_checks():
    from sklearn.tree import DecisionTreeClassifier

    from fxai.data.generators import cube
    from fxai.experiments.cross import run_instance

    X = cube(3)
    model = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] | (X[:, 1] & X[:, 2]))
    o = oracles.for_model(model, [1, 1, 1], domains=[[0, 1]] * 3)
    out = run_instance(o, model, [1, 1, 1], [[0, 1]] * 3, None, 30, 0.9)
    assert out.verdict is True and out.result["marco-a"]["complete"]
    assert sorted(map(tuple, out.result["marco-a"]["axps"])) == [(0,), (1, 2)]


def test_the_nbc_driver_repairs_a_wrong_dp_set_and_times_both_passes(monkeypatch, fake_clocks):
    """A DP pass that returns an unsound set (here: the empty set) is caught by the
    independent count and redone with the sound decision; the record keeps both sets and
    the time of both passes."""
    import dataclasses

    import numpy as np
    from sklearn.naive_bayes import CategoricalNB

    from fxai.experiments import nbc
    from fxai.explain import paxp
    from fxai.oracles.nbc import NBCOracle
    from fxai.verify.nbc import PrecisionChecker

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (300, 6))
    model = CategoricalNB().fit(X, (X.sum(axis=1) > 6).astype(int))
    x = X[0]
    o = NBCOracle(model, x, 3)
    axp = o.axp()
    assert len(axp) > 1
    real = paxp.approx_paxp

    def dp_wrong(o, delta, seed=None, order=None, sound=False):
        fake_clocks(1.0, 2.0)
        found = real(o, delta, seed=seed, order=order, sound=sound)
        return found if sound else dataclasses.replace(found, features=[])

    monkeypatch.setattr(paxp, "approx_paxp", dp_wrong)
    rec = nbc.paxp_record(model, PrecisionChecker(model, x), x, axp, 0.95, 0, 3)
    assert rec["repaired"] and rec["dp_unsound"] and not rec["dp_nonminimal"]
    assert rec["features_dp"] == [] and rec["verified"] is True
    order = sorted(axp, key=lambda i: (o.deltas[i], i))
    assert rec["features"] == real(o, 0.95, seed=axp, order=order, sound=True).features
    assert (rec["time_s"], rec["cpu_s"]) == (4.0, 2.0)  # both passes, on both clocks


def test_the_user_driver_times_the_check_apart_and_tells_the_stage(monkeypatch, fake_clocks):
    from sklearn.tree import DecisionTreeClassifier

    from fxai import verify
    from fxai.data.generators import cube
    from fxai.experiments.user import explain_row

    X = cube(3)
    model = DecisionTreeClassifier(random_state=0).fit(X, X[:, 0] | (X[:, 1] & X[:, 2]))
    real, stages = verify.check_all, []

    def slow_check(*args, **kw):
        fake_clocks(3.0, 0.0)
        return real(*args, **kw)

    monkeypatch.setattr(verify, "check_all", slow_check)
    rec = explain_row(model, [1, 1, 1], [[0, 1]] * 3, 30, "cpu", ["a", "b", "c"],
                      stage=stages.append)
    assert rec["verified"] is True and stages == ["checking"]
    assert sorted(rec["axps"]) == [["a"], ["b", "c"]]
    assert (rec["check_s"], rec["time_s"]) == (3.0, 3.0)
