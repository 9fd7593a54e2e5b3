"""Data layer: registry, fetch (mirror / URL, sha256), embedded and generated sets, prepare,
split, prepared-table loading.

The names below are imported on first use (PEP 562), so that importing one light submodule
(``fxai.data.fetch``, ``fxai.data.config``) does not import pandas.
"""

import importlib

from fxai.errors import DataError, FetchError

_LAZY = {"Prepared": "fxai.data.prepared", "load": "fxai.data.prepared",
         "load_split": "fxai.data.prepared", "Registry": "fxai.data.registry",
         "load_registry": "fxai.data.registry"}

__all__ = ["DataError", "FetchError", "Prepared", "Registry", "load", "load_registry",
           "load_split"]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'fxai.data' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
