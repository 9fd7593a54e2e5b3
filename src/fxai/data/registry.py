"""The dataset registry (``config/datasets.yaml``): names, aliases, sources and settings.

An entry either names raw ``files`` (mirror path, URLs, sha256), an ``embedded`` copy bundled
with an installed package, a ``generator`` (synthetic Boolean benchmarks), or a ``base`` entry
it derives from (class filter, one-vs-rest, discretisation). :meth:`Registry.entry` returns the
entry merged with its base chain.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from fxai.data.config import read_yaml, yaml_error
from fxai.errors import DataError

SCHEMA_RELPATH = Path("workflow/schemas/datasets.schema.yaml")
#: keys a derived entry does not inherit from its base
_OWN_KEYS = {"title", "aliases", "papers", "note", "rows", "base", "homepage", "base_only",
             "published_as"}


def _schema_path(registry_path: Path) -> Path:
    """The registry schema: beside the registry's repository, else beside this package's."""
    for root in (registry_path.resolve().parent.parent, Path(__file__).resolve().parents[3]):
        if (root / SCHEMA_RELPATH).is_file():
            return root / SCHEMA_RELPATH
    raise DataError(
        f"cannot validate the registry {registry_path}: schema {SCHEMA_RELPATH} not found next to "
        "it or next to the fxai sources; run from a checkout of the fxai repository."
    )


@dataclass(frozen=True)
class Registry:
    """Validated registry: ``raw`` entries by canonical name plus an alias map."""

    path: Path
    raw: dict[str, dict[str, Any]]
    aliases: dict[str, str]

    @property
    def names(self) -> list[str]:
        return sorted(self.raw)

    @property
    def published_names(self) -> dict[str, str]:
        """Lower-cased name -> the name the papers' tables give it (``published_as``): an
        encoding of a published dataset (e.g. binarised MNIST) is compared with its rows."""
        return {n.lower(): e["published_as"] for n, e in self.raw.items() if "published_as" in e}

    @property
    def preparable(self) -> list[str]:
        """Names that can be prepared (all but ``base_only`` entries)."""
        return [n for n in self.names if not self.raw[n].get("base_only")]

    def resolve(self, name: str) -> str:
        """Canonical name for ``name`` or an alias (case-insensitive); DataError if unknown."""
        key = name.lower()
        if key in self.aliases:
            return self.aliases[key]
        raise DataError(
            f"unknown dataset {name!r}: not a name or alias in the registry {self.path}. "
            f"Known names: {', '.join(self.names)}."
        )

    def entry(self, name: str) -> dict[str, Any]:
        """The entry for ``name`` merged with its base chain; ``name`` key is canonical."""
        canon = self.resolve(name)
        own = dict(self.raw[canon])
        merged: dict[str, Any] = {}
        if "base" in own:
            base = self.entry(own["base"])
            merged = {k: v for k, v in base.items() if k not in _OWN_KEYS | {"name"}}
            merged["base_name"] = base.get("base_name", base["name"])
        merged.update(own)
        merged["name"] = canon
        return merged

    def root(self, name: str) -> str:
        """The entry whose raw files ``name`` uses (itself unless derived)."""
        return self.entry(name).get("base_name", self.resolve(name))

    def using(self, paper: str) -> list[str]:
        """Canonical names of the entries whose ``papers`` list contains ``paper``."""
        return [n for n in self.names if paper in self.raw[n].get("papers", [])]


def load_registry(path: str | Path = "config/datasets.yaml") -> Registry:
    """Read and validate the registry; DataError naming the file and the problem otherwise."""
    path = Path(path)
    try:
        doc = read_yaml(path.read_text())
    except FileNotFoundError as e:
        raise DataError(f"dataset registry {path} does not exist (config data.registry).") from e
    except yaml.YAMLError as e:
        raise DataError(f"dataset registry {path} is not valid YAML: {yaml_error(e)}") from e
    schema = read_yaml(_schema_path(path).read_text())
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        where = "/".join(str(p) for p in e.absolute_path)
        raise DataError(
            f"dataset registry {path} is invalid at {where or '<top>'}: {e.message}"
        ) from e
    raw: dict[str, dict[str, Any]] = doc["datasets"]
    aliases: dict[str, str] = {}
    for name, ent in raw.items():
        for key in [name, *ent.get("aliases", [])]:
            other = aliases.setdefault(key.lower(), name)
            if other != name:
                raise DataError(f"dataset registry {path}: {key!r} names both {other} and {name}.")
    for name, ent in raw.items():
        seen = [name]
        while "base" in ent:
            if ent["base"] not in raw:
                raise DataError(
                    f"dataset registry {path}: {name} has unknown base {ent['base']!r}."
                )
            if ent["base"] in seen:
                raise DataError(f"dataset registry {path}: base cycle {' -> '.join(seen)}.")
            seen.append(ent["base"])
            ent = raw[ent["base"]]
    return Registry(path=path, raw=raw, aliases=aliases)
