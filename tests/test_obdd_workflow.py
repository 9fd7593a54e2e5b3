"""The OBDD rules under snakemake with two cores (issue 18): train, explain and cross on two
Boolean sets, from scratch, in a temporary workdir that holds a stale ``__shelve__`` folder of
an old fxai; the run is killed (SIGKILL to snakemake and its jobs) while the OBDD jobs run, a
hidden temporary model file is left as a kill in the middle of a dump leaves it, and a rerun
finishes."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from fxai import models
from fxai.data.fetch import MIRROR_ENV
from fxai.runfile import run_records

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
DATASETS = ["mux6", "corral"]
CONFIG = {
    "profile": "obdd",
    "data": {"extra_datasets": []},
    "xpg": {"enabled": True, "dt_datasets": [], "obdd_datasets": DATASETS, "time_limit": 10},
    "cross": {"enabled": True, "instances": 2, "time_limit": 1},
    **{s: {"enabled": False} for s in ("nbc", "ffa", "report")},
}
RES = "results/obdd"
TARGETS = [f"{RES}/runs/{part}/obdd_{ds}.jsonl" for part in ("xpg", "cross") for ds in DATASETS]


def command(workdir: Path, *extra: str) -> list[str]:
    return [str(SNAKEMAKE), *TARGETS, "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
            "--cores", "2", "--configfile", str(workdir / "obdd.yaml"), *extra]


def env() -> dict:
    e = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    e.pop(MIRROR_ENV, None)
    return e


def snakemake(workdir: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(command(workdir, *extra), capture_output=True, text=True, env=env(),
                          timeout=600, cwd=workdir)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    wd = tmp_path_factory.mktemp("obdd")
    (wd / "config").symlink_to(ROOT / "config")
    (wd / "obdd.yaml").write_text(yaml.safe_dump(CONFIG))
    (wd / "__shelve__").mkdir()  # left by a killed job of an older fxai (dd's dump)
    (wd / "__shelve__" / "temporary_shelf.db").write_bytes(b"\x00stale")
    return wd


def n_features(wd: Path, ds: str) -> int:
    doms = wd / "data" / "prepared" / "generated" / f"{ds}.domains.json"
    return len(json.loads(doms.read_text())["features"])


def check_results(wd: Path) -> None:
    for ds in DATASETS:
        model = models.load(wd / RES / f"models/obdd/{ds}.bdd.json", n_features(wd, ds))
        assert model.n_nodes >= 3
        xpg = run_records(wd / RES / f"runs/xpg/obdd_{ds}.jsonl")
        assert xpg and all(r["status"] == "done" and r["verified"] for r in xpg)
        cross = run_records(wd / RES / f"runs/cross/obdd_{ds}.jsonl")
        assert len(cross) == 2 and all(r["verified"] for r in cross)
    assert os.listdir(wd / "__shelve__") == ["temporary_shelf.db"]  # neither needed nor touched


@pytest.mark.slow
def test_obdd_rules_with_two_cores_killed_and_rerun(workdir):
    """From scratch, snakemake and its jobs are killed once the first OBDD model is written
    (other jobs are then running or waiting); a dump killed before its rename left a
    temporary file. Unlocking and rerunning (what `make unlock` and `make run` do) finishes
    the run with every model readable and every explanation verified."""
    models_dir = workdir / RES / "models/obdd"
    p = subprocess.Popen(command(workdir), env=env(), cwd=workdir, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    while not list(models_dir.glob("*.bdd.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    written = list(models_dir.glob("*.bdd.json"))
    assert written  # a model file is there whole or not at all
    for path in written:
        ds = path.name.removesuffix(".bdd.json")
        assert models.load(path, n_features(workdir, ds)).n_nodes >= 3
    (models_dir / ".corral.bdd.json.99999.0123abcd.tmp").write_text('{"format": "fxai-ob')
    (models_dir / "corral.bdd.json").unlink(missing_ok=True)
    assert snakemake(workdir, "--unlock").returncode == 0
    r = snakemake(workdir, "--rerun-incomplete")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    check_results(workdir)
    assert sorted(p.name for p in models_dir.iterdir() if not p.name.startswith(".")) == sorted(
        f"{ds}.{kind}.json" for ds in DATASETS for kind in ("bdd", "dlist", "meta"))
    assert "Nothing to be done" in snakemake(workdir, "-n").stdout
