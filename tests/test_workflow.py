"""The workflow's DAG resolves for both profiles, offline, and bad configs stop early."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def dry_run(*args, env=None, cwd=ROOT):
    return subprocess.run(
        [str(SNAKEMAKE), "-n", "--cores", "2", "--nolock", *args],
        cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})},
        timeout=600,
    )


def test_default_profile_resolves():
    r = dry_run()
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_paper_profile_resolves_without_network():
    r = dry_run("--configfile", "config/paper.yaml", env={"FXAI_DATA_MIRROR": ""})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_paper_quick_overlay_resolves():
    r = dry_run("--configfile", "config/paper.yaml", "config/paper-quick.yaml",
                env={"FXAI_DATA_MIRROR": ""})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_unknown_config_key_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "config/config.yaml").read_text() + "\nnot_a_section: 1\n")
    r = dry_run("--configfile", str(bad))
    assert r.returncode != 0
    assert "not_a_section" in r.stdout + r.stderr


def test_wrong_type_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = (ROOT / "config/config.yaml").read_text().replace("seed: 0", "seed: zero")
    bad.write_text(text)
    r = dry_run("--configfile", str(bad))
    assert r.returncode != 0
    assert "zero" in r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_makefile_has_the_two_commands():
    r = subprocess.run(["make", "-n", "run", "test"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and "snakemake" in r.stdout and "pytest" in r.stdout
