"""The docstring examples of the library API modules run (and fail when their output changes)."""

import doctest
import importlib

import pytest

MODULES = ["fxai.explain.exact", "fxai.explain.ffa", "fxai.explain.marco",
           "fxai.explain.tree_cxps", "fxai.oracles.registry", "fxai.oracles.warmup"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
