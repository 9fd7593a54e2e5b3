"""The docstring examples of the modules whose semantics docs/semantics.md describes."""

import doctest
import importlib

import pytest

MODULES = [
    "fxai.explain.marco",
    "fxai.metrics.ffa",
    "fxai.models.boosted",
    "fxai.models.dgraph",
    "fxai.models.dtree",
    "fxai.oracles.boosted",
    "fxai.oracles.nbc",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
