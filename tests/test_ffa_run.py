"""Anytime FFA runs end to end on tiny brute-force models: all three methods agree."""

import os
import signal
import threading
import time

import numpy as np
import psutil
import pytest

from fxai import explain
from fxai.data.split import pick_instance
from fxai.experiments.ffa import run_instance
from fxai.experiments.process import in_own_process
from fxai.metrics.curves import instance_curves
from fxai.verify.brute import BruteForceOracle, all_axps, all_cxps


def table_model(seed: int, n: int = 5):
    rng = np.random.default_rng(seed)
    domains = [list(range(int(rng.integers(2, 4)))) for _ in range(n)]
    table = np.where(rng.random([len(d) for d in domains]) < 0.6, 0, 1)

    def predict(points):
        return table[tuple(np.asarray(points).T)]

    return predict, domains, [int(rng.integers(0, len(d))) for d in domains]


class SlowOracle(BruteForceOracle):
    """A brute-force oracle that sleeps on each call (to force a timeout)."""

    def entails(self, fixed):
        time.sleep(0.02)
        return super().entails(fixed)

    def counterexample(self, fixed):
        time.sleep(0.02)
        return super().counterexample(fixed)


@pytest.mark.parametrize("seed", [1, 7, 42])
def test_three_methods_give_the_same_exact_ffa(seed):
    model = table_model(seed)
    truth = explain.ffa_from_axps(sorted(all_axps(BruteForceOracle(*model))))
    for method in ("marco-a", "marco-c", "marco-s"):
        lines = []
        rec = run_instance(BruteForceOracle(*model), method, 60,
                           switch=explain.SwitchRule(w=2, alpha=1.0, eps=0.5),
                           on_event=lines.append)
        assert rec["status"] == "done" and rec["complete"]
        assert {int(f): v for f, v in rec["ffa"].items()} == pytest.approx(truth)
        assert lines == rec["events"]
        assert [e[2] for e in lines if e[1] == "axp"] == rec["axps"]


def test_a_long_enumeration_logs_its_counts(caplog):
    """Progress inside one enumeration (a run without a time limit can take hours): every
    ``progress_s`` of its clock, at the next event; none within the first ``progress_s``."""
    model = table_model(11, n=6)
    with caplog.at_level("INFO", logger="fxai.ffa"):
        quiet = run_instance(BruteForceOracle(*model), "marco-a", None)
        assert quiet["complete"] and not caplog.records
        rec = run_instance(BruteForceOracle(*model), "marco-a", None, progress_s=0)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == len(rec["events"])
    assert lines[-1].startswith(f"marco-a: {rec['n_axps']} AXps, {rec['n_cxps']} CXps after ")


@pytest.mark.parametrize("method", ["marco-a", "marco-c", "marco-s"])
def test_unit_cxp_prepass_keeps_the_exact_sets(method):
    for seed in (2, 8, 13):
        model = table_model(seed)
        o = BruteForceOracle(*model)
        rec = run_instance(BruteForceOracle(*model), method, 60,
                           switch=explain.SwitchRule(w=2, alpha=1.0, eps=0.5), unit_cxps=True)
        assert rec["complete"] and {tuple(a) for a in rec["axps"]} == all_axps(o)
        assert {tuple(c) for c in rec["cxps"]} == all_cxps(o)
        units = sorted(c for c in all_cxps(o) if len(c) == 1)
        assert [tuple(e[2]) for e in rec["events"][: len(units)]] == units


def test_timed_out_run_still_yields_its_curve():
    model = table_model(11, n=6)
    full = run_instance(BruteForceOracle(*model), "marco-a", 60)
    cut = run_instance(SlowOracle(*model), "marco-c", 0.15, clock="wall")
    assert full["complete"] and not cut["complete"] and cut["status"] == "timeout"
    assert cut["ffa"] is None and cut["events"]
    exact = explain.ffa_from_axps(full["axps"])
    curves = instance_curves({"a": full["events"], "c": cut["events"]}, exact, full["n_axps"])
    t, v = curves["naxp"]["c"]
    assert t.size == cut["n_axps"] + 1 and v[-1] == pytest.approx(cut["n_axps"] / full["n_axps"])
    assert curves["error"]["a"][1][-1] == 0.0


def test_pick_instance_is_a_seeded_permutation():
    ids = list(range(100, 140))
    picks = [pick_instance(ids, k, seed=3) for k in range(10)]
    assert len(set(picks)) == 10 and set(picks) <= set(ids)
    assert picks == [pick_instance(ids[::-1], k, seed=3) for k in range(10)]
    assert picks != [pick_instance(ids, k, seed=4) for k in range(10)]
    with pytest.raises(ValueError, match="out of range"):
        pick_instance(ids, 40, seed=3)


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="method"):
        run_instance(BruteForceOracle(*table_model(1)), "marco-x", 1)



def test_an_instance_runs_in_its_own_process():
    model = table_model(2)
    rec = in_own_process(lambda: run_instance(BruteForceOracle(*model), "marco-s", 60)
                         | {"pid": os.getpid()})
    assert rec["pid"] != os.getpid() and rec["complete"]
    assert {tuple(sorted(a)) for a in rec["axps"]} == all_axps(BruteForceOracle(*model))


def test_an_error_in_the_instance_process_is_raised_here():
    def fails():
        raise ValueError("boom in the child")

    with pytest.raises(ValueError, match="boom in the child"):
        in_own_process(fails)
    with pytest.raises(RuntimeError, match="without a result"):
        in_own_process(lambda: os.kill(os.getpid(), signal.SIGKILL))


def test_the_instance_process_ends_when_its_job_is_killed(tmp_path):
    """The job killed outright (SIGKILL: no handler runs) while its instance process writes
    a result larger than a pipe holds: the instance process ends (it held the pipe's read
    end too, and waited for ever on a reader that was itself)."""
    pid_file = tmp_path / "instance.pid"

    def big_result():
        pid_file.write_text(str(os.getpid()))
        time.sleep(0.5)
        return {"axps": [[1, 2, 3]] * 100_000}

    job = os.fork()
    if job == 0:
        try:
            in_own_process(big_result)
        finally:
            os._exit(0)
    deadline = time.monotonic() + 30
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(job, signal.SIGKILL)
    os.waitpid(job, 0)
    instance = int(pid_file.read_text())
    gone = ended(instance, within=30)
    if not gone:  # left waiting: it holds the suite's output open, end it here
        os.kill(instance, signal.SIGKILL)
    assert gone


def ended(pid: int, within: float) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def test_sigterm_stops_the_instance_and_its_process():
    def stop(signum, frame):
        raise SystemExit("SIGTERM received")

    old = signal.signal(signal.SIGTERM, stop)
    try:
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        start = time.monotonic()
        with pytest.raises(SystemExit, match="SIGTERM"):
            in_own_process(lambda: time.sleep(30) or {})
        assert time.monotonic() - start < 10  # the child was killed, not waited for
    finally:
        signal.signal(signal.SIGTERM, old)
