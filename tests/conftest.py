"""Hypothesis profiles: ``seeded`` (the default, in ``make test`` and CI alike) draws the
same examples on every run, so a verdict is reproducible; ``HYPOTHESIS_PROFILE=random``
draws new random examples (to explore, then pin what it finds with ``@example``).

The tests of the files in ``CLI_FILES`` are marked ``cli``: they run fxai commands or
snakemake (subprocesses, workflow plans, the docs build). ``make test-fast`` leaves them out,
with the ``slow`` (workflow runs) and ``heavy`` ones; ``make test`` runs everything."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("seeded", derandomize=True)
settings.register_profile("random", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))

CLI_FILES = {"test_audit.py", "test_bad_inputs.py", "test_cli.py", "test_cluster.py",
             "test_docs.py", "test_docs_commands.py", "test_explain_cli.py", "test_ffa_cli.py",
             "test_ffa_report.py", "test_forkserver.py", "test_nbc_workflow.py",
             "test_notebook.py", "test_report_captions.py", "test_workflow.py",
             "test_your_data.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in CLI_FILES:
            item.add_marker(pytest.mark.cli)


@pytest.fixture(scope="session", autouse=True)
def no_slurm_controller_probe(tmp_path_factory):
    """Put first on PATH an ``scontrol`` that fails at once. The SLURM executor plugin runs
    ``scontrol show config`` at every snakemake start (to word its help text); with SLURM
    installed but no controller running that waits ~3 s (its 10-s timeout without a
    slurm.conf), and the suite starts snakemake some 200 times. No test here submits to
    SLURM (tools/slurm-test.sh does, outside pytest)."""
    shim = tmp_path_factory.mktemp("no-slurm-probe")
    tool = shim / "scontrol"
    tool.write_text("#!/bin/sh\nexit 1\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
        yield


@pytest.fixture
def fxai_cli():
    """Run ``python -m fxai.cli ARGS`` (this checkout's package) in a subprocess and return
    ``(exit code, stderr)``: what a rule sees of a command's failure."""

    def run(*args: object) -> tuple[int, str]:
        src = str(Path(__file__).resolve().parents[1] / "src")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [src, *filter(None, [os.environ.get("PYTHONPATH")])])}
        r = subprocess.run([sys.executable, "-m", "fxai.cli", *map(str, args)], env=env,
                           capture_output=True, text=True, timeout=300)
        return r.returncode, r.stderr

    return run
