"""The fork server of `make run` (fxai.forkserver): commands run by it behave as in their own
process (output, files, exit status, usage line), signals reach them, a killed job's command
is killed, and without a server the client runs the command itself."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from fxai import forkclient

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
ENV.pop(forkclient.ENV, None)
FXAI = [sys.executable, "-m", "fxai.cli"]
SERVER = [sys.executable, "-m", "fxai.forkserver", "--"]

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="Linux only")


def test_commands_run_by_the_server_behave_as_in_their_own_process(tmp_path):
    script = (f"{FXAI[0]} -m fxai.cli check-config {ROOT / 'config/config.yaml'}; echo ok=$?; "
              f"{FXAI[0]} -m fxai.cli check-config {tmp_path / 'nope.yaml'}; echo bad=$?; "
              "echo server=$FXAI_FORKSERVER; exit 3")
    r = subprocess.run([*SERVER, "bash", "-c", script], env={**ENV, "FXAI_JOB_USAGE": "1"},
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 3, r.stderr  # the command's status
    assert "ok=0" in r.stdout and "bad=1" in r.stdout
    assert "nope.yaml" in r.stderr and "fork server" not in r.stderr  # not run here
    assert r.stderr.count("fxai usage: cpu_s=") == 2
    sock = r.stdout.split("server=")[1].strip()
    assert sock and not Path(sock).exists()  # removed with the server


def test_without_a_server_the_command_runs_here(tmp_path, capsys):
    assert forkclient.run(str(tmp_path / "none"), ["--version"]) is None
    assert "not answering" in capsys.readouterr().err


SLOW = ("import sys, time\nfrom fxai import cli, forkserver\n"
        "def slow(argv):\n    print('started', flush=True)\n    time.sleep(120)\n    return 0\n"
        "cli.main_here = slow\nsys.exit(forkserver.main(sys.argv[1:]))\n")


def started(sig: int) -> tuple[int, bool]:
    """A server whose commands sleep; ``sig`` sent to the job (the client) once its command
    started: the server's exit code, and whether the command's process is gone."""
    proc = subprocess.Popen([sys.executable, "-c", SLOW, "--", *FXAI, "anything"], env=ENV,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "started"
        server = psutil.Process(proc.pid)
        kids = server.children()
        client = next(k for k in kids if "fxai.cli" in " ".join(k.cmdline()))
        command = next(k for k in kids if k.pid != client.pid)  # forked by the server
        start = time.monotonic()
        client.send_signal(sig)
        code = proc.wait(timeout=30)
        assert time.monotonic() - start < 20
        return code, not command.is_running() or command.status() == psutil.STATUS_ZOMBIE
    finally:
        proc.kill()


def test_a_signal_to_the_job_reaches_its_command():
    code, gone = started(signal.SIGTERM)
    assert code == 128 + signal.SIGTERM and gone


def test_a_killed_job_takes_its_command_with_it():
    code, gone = started(signal.SIGKILL)
    assert code == 128 + signal.SIGKILL and gone


def test_a_child_of_the_warmed_server_runs_openmp_code():
    """What the server does before forking (imports, compiled code loaded) leaves no OpenMP
    thread pool behind: one would not survive the fork, and a job that then ran XGBoost or
    LightGBM on several threads waited for ever (the tie band measured from XGBoost did)."""
    code = ("import os, signal\nfrom fxai import forkserver\n"
            "forkserver.preload()\nforkserver.warm_up()\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    signal.alarm(60)\n"
            "    import numpy as np, xgboost, lightgbm\n"
            "    X = np.random.default_rng(0).random((2000, 8))\n"
            "    y = X[:, 0] > 0.5\n"
            "    xgboost.XGBClassifier(n_estimators=5, n_jobs=2).fit(X, y).predict(X)\n"
            "    lightgbm.LGBMClassifier(n_estimators=5, n_jobs=2, verbose=-1).fit(X, y)\n"
            "    os._exit(0)\n"
            "os._exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n")
    r = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, f"the child ended with {r.returncode}\n{r.stderr}"
