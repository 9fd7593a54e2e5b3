"""Hypothesis profiles: ``seeded`` (the default, in ``make test`` and CI alike) draws the
same examples on every run, so a verdict is reproducible; ``HYPOTHESIS_PROFILE=random``
draws new random examples (to explore, then pin what it finds with ``@example``)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("seeded", derandomize=True)
settings.register_profile("random", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))


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
