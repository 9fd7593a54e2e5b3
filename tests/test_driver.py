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
