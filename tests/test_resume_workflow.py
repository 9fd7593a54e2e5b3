"""Kill tests under plain snakemake: each explaining rule (nbc_explain, xpg_explain,
cross_run, ffa_run) is killed in the middle of its run, rerun, and must keep the finished
lines byte for byte, recompute only the rest (an FFA instance cut by the kill restarts from
zero), and end equal to an uninterrupted run (time fields aside). A SIGKILL leaves
snakemake's lock behind: the rerun must say to run ``snakemake --unlock``. Config:
tests/configs/resume.yaml."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from fxai.cli import main
from fxai.runfile import partial_path, run_records

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
CONFIG = ROOT / "tests" / "configs" / "resume.yaml"
RES = "results/resume-test"
# measurements that differ between two runs: times, and MARCO's oracle calls (its scans of the
# known explanations go by their measured cost, fxai.explain.known; the events do not differ)
TIME_KEYS = {"time_s", "cpu_s", "wall_s", "axp_time_s", "oracle_calls"}

pytestmark = pytest.mark.slow


def snakemake(work: Path, *args: str, wait: bool = True):
    cmd = [str(SNAKEMAKE), "-s", str(ROOT / "Snakefile"), "-d", str(work), "--configfile",
           str(CONFIG), "--cores", "1", "-p", "--rerun-incomplete", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    if not wait:
        return subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A project folder with the data, splits and models the explaining rules need."""
    w = tmp_path_factory.mktemp("resume")
    (w / "config").symlink_to(ROOT / "config")
    (w / "data").mkdir()
    (w / "data" / "reference").symlink_to(ROOT / "data" / "reference")
    r = snakemake(w, "--cores", "2", f"{RES}/models/nbc/xd6.joblib",
                  f"{RES}/models/dt/breast-cancer.joblib", f"{RES}/models/bt/breast-cancer.json",
                  f"{RES}/splits/xd6.json")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return w


def lines_of(path: Path) -> list[str]:
    """Complete lines (a line cut by the kill is not one)."""
    text = path.read_text() if path.exists() else ""
    return text.split("\n")[:-1]


def kill(proc: subprocess.Popen, sig: int) -> str:
    """Send ``sig`` to snakemake and every process under it (SIGTERM: scancel or a SLURM time
    limit; SIGKILL: a lost node); return what snakemake printed."""
    procs = [psutil.Process(proc.pid)]
    procs += procs[0].children(recursive=True)
    for p in procs:
        p.send_signal(sig)
    out, _ = proc.communicate(timeout=120)
    _, alive = psutil.wait_procs(procs, timeout=30)
    assert not alive, f"left running after the kill: {alive}"
    return out


def normalised(rec):
    """A record without its measurements that differ between two runs (``TIME_KEYS``)."""
    if isinstance(rec, dict):
        return {k: (normalised([e[1:] for e in v]) if k == "events" else normalised(v))
                for k, v in rec.items() if k not in TIME_KEYS}
    if isinstance(rec, list):
        return [normalised(v) for v in rec]
    return rec


def reference(work: Path, printed: str, out: Path, ref: Path, monkeypatch) -> None:
    """Run the rule's own command (as snakemake printed it) uninterrupted into ``ref``."""
    rel = f"--out {out.relative_to(work)}"
    line = next(ln for ln in printed.splitlines() if rel + " " in ln)
    cmd = re.search(r" -m fxai\.cli (.*?) > ", line).group(1).replace(rel, f"--out {ref}")
    monkeypatch.chdir(work)
    assert main(shlex.split(cmd)) == 0


def rerun(work: Path, target: str, sig: int) -> None:
    if sig == signal.SIGKILL:  # the lock of the killed snakemake is still there
        r = snakemake(work, target)
        assert r.returncode != 0 and "--unlock" in r.stdout + r.stderr
        assert snakemake(work, "--unlock").returncode == 0
    r = snakemake(work, target)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


@pytest.mark.parametrize("rule, out, log, sig, lines", [
    ("nbc_explain", "runs/nbc/xd6.jsonl", "logs/nbc/explain_xd6.log", signal.SIGTERM, 4),
    ("xpg_explain", "runs/xpg/dt_breast-cancer.jsonl", "logs/xpg/explain_dt_breast-cancer.log",
     signal.SIGKILL, 4),
    ("cross_run", "runs/cross/dt_breast-cancer.jsonl", "logs/cross/dt_breast-cancer.log",
     signal.SIGTERM, 4),
    ("ffa_run", "runs/ffa/breast-cancer/marco-a/0.jsonl",
     "logs/ffa/run_breast-cancer_marco-a_0.log", signal.SIGTERM, 2),
])
def test_killed_run_file_resumes(work, monkeypatch, rule, out, log, sig, lines):
    """Killed once ``lines`` lines (the header, then records) are in the partial."""
    out, target = work / RES / out, f"{RES}/{out}"
    part = partial_path(out)
    proc = snakemake(work, target, wait=False)
    deadline = time.monotonic() + 300
    while len(lines_of(part)) < lines and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, f"{rule} finished before it could be killed"
    printed = kill(proc, sig)
    assert not out.exists() and part.exists()
    kept = lines_of(part)[1:]
    if sig == signal.SIGTERM:  # the command saw it and said where its work is kept
        assert "stopped by SIGTERM received" in (work / RES / log).read_text()
    with part.open("a") as fh:  # as if the kill had cut a line in the middle
        fh.write('{"dataset": "cut')
    rerun(work, target, sig)
    assert not part.exists()
    done = lines_of(out)
    assert done[1:1 + len(kept)] == kept  # finished lines unchanged
    assert f"resuming, {len(kept)} of" in (work / RES / log).read_text()
    recs = run_records(out)  # complete: every planned instance once
    ref = work / "ref" / out.name
    reference(work, printed, out, ref, monkeypatch)
    assert normalised(recs) == normalised(run_records(ref))
