"""Scratch project folders: snakemake plans and runs there as on a fresh clone, and never
reads or writes this checkout's ``results/`` or ``data/`` (issue 35: a test must not depend
on what the user ran before)."""

from __future__ import annotations

import atexit
import functools
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def project(dest: Path) -> Path:
    """``dest`` as a project folder: the repository's configs, examples, snakemake profiles
    and published tables, and no results or prepared data (run :func:`snakemake` there)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("config", "examples", "profiles"):
        (dest / name).symlink_to(ROOT / name)
    (dest / "data").mkdir()
    (dest / "data" / "reference").symlink_to(ROOT / "data" / "reference")
    return dest


@functools.cache
def fresh() -> Path:
    """One scratch project for the session's dry runs (removed at exit)."""
    tmp = Path(tempfile.mkdtemp(prefix="fxai-fresh-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return project(tmp / "work")


def snakemake(workdir: Path) -> list[str]:
    """The command line of snakemake on this checkout's Snakefile in ``workdir``."""
    return [str(SNAKEMAKE), "-s", str(ROOT / "Snakefile"), "-d", str(workdir)]
