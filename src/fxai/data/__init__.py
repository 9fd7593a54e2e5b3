"""Data layer: registry, fetch (mirror / URL, sha256), embedded and generated sets, prepare,
split, prepared-table loading."""

from fxai.data.prepared import Prepared, load, load_split
from fxai.data.registry import Registry, load_registry
from fxai.errors import DataError, FetchError

__all__ = ["DataError", "FetchError", "Prepared", "Registry", "load", "load_registry",
           "load_split"]
