"""Hypothesis profiles: ``ci`` (set by .ci/run) draws the same examples on every run, so a
CI verdict is reproducible; locally the default profile draws new random examples."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
