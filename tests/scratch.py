"""Scratch project folders: snakemake plans and runs there as on a fresh clone, and never
reads or writes this checkout's ``results/`` or ``data/`` (issue 35: a test must not depend
on what the user ran before)."""

from __future__ import annotations

import atexit
import contextlib
import functools
import io
import multiprocessing
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
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


#: what starting snakemake on this Snakefile imports (about 3 of its 4.4 CPU seconds)
PRELOAD = ["snakemake.cli", "snakemake.api", "fxai.cli", "fxai.data.config", "fxai.data.fetch",
           "fxai.data.prepare", "fxai.data.registry", "fxai.data.user", "fxai.models",
           "fxai.report.provenance", "fxai.report.results"]


def _snakemake_in_child(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[int, str, str]:
    """``snakemake ARGV`` in ``cwd`` with ``env`` in this (forked, one-use) process:
    (exit code, stdout, stderr)."""
    from snakemake.cli import main

    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["snakemake", *argv]  # the profiles read it
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as e:
            code = e.code or 0
    return code, out.getvalue(), err.getvalue()


def snakemake_many(calls: Iterable[tuple[list[str], Path, dict[str, str]]],
                   workers: int = 2) -> list[tuple[int, str, str]]:
    """Run ``snakemake ARGV`` for each ``(argv, cwd, env)``, ``workers`` at a time, each in a
    fresh process forked from a server that imported snakemake and the Snakefile's modules
    once (a subprocess each would import them again): (exit code, stdout, stderr) each."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    with ctx.Pool(workers, maxtasksperchild=1) as pool:
        res = pool.starmap(_snakemake_in_child, [(a, str(c), e) for a, c, e in calls],
                           chunksize=1)
        pool.close()
        pool.join()
    return res
