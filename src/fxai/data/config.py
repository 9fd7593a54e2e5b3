"""Checks of the workflow configuration that its JSON schemas cannot express."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from fxai.errors import DataError

#: libyaml's parser when PyYAML was built with it (the registry, configs and schemas are read at
#: every snakemake start: about 0.6 CPU s with the pure-Python parser)
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, parsed by libyaml when it is there; a text it refuses is read
    again by the pure-Python parser, whose error names the expected token (libyaml's words it
    differently), so both raise the same ``yaml.YAMLError``."""
    try:
        return yaml.load(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        return yaml.safe_load(text)


def yaml_error(e: yaml.YAMLError) -> str:
    """A YAML error on one line: ``YAML syntax error at line L, column C: problem``."""
    mark, start = getattr(e, "problem_mark", None), getattr(e, "context_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    what = getattr(e, "problem", None) or " ".join(str(e).split())
    if start is not None and getattr(e, "context", None):
        what += f" ({e.context} from line {start.line + 1})"
    return f"YAML syntax error{where}: {what}"


def load_config(path: str | Path) -> dict[str, Any]:
    """A config file's mapping; DataError naming the file, and the line and column of a YAML
    syntax error (snakemake's own message names neither)."""
    path = Path(path)
    try:
        doc = read_yaml(path.read_text())
    except OSError as e:
        raise DataError(f"config file {path} cannot be read ({e.strerror}).") from None
    except yaml.YAMLError as e:
        raise DataError(f"config file {path}: {yaml_error(e)}; fix the file and rerun.") from None
    if not isinstance(doc, dict):
        raise DataError(f"config file {path} holds no mapping of keys (found "
                        f"{type(doc).__name__}); see config/config.yaml for the layout.")
    return doc


def nonfinite_keys(doc: Any, prefix: str = "") -> list[str]:
    """Dotted keys of every infinite or NaN number in a config (JSON Schema bounds let NaN
    through: every comparison with it is false)."""
    if isinstance(doc, float) and not math.isfinite(doc):
        return [prefix or "<top>"]
    if isinstance(doc, list):
        doc = dict(enumerate(doc))
    items = doc.items() if isinstance(doc, dict) else ()
    return [k for key, v in items for k in nonfinite_keys(v, f"{prefix}.{key}".lstrip("."))]


def check_numbers(config: dict[str, Any]) -> None:
    """DataError naming each config key whose value is infinite or NaN."""
    bad = nonfinite_keys(config)
    if bad:
        raise DataError(f"config: {', '.join(bad)} must be a finite number (.inf and .nan are "
                        "not allowed)")


SECTIONS = ("data", "nbc", "xpg", "ffa", "report", "audit")  # schemas of their own
SCHEMAS = Path(__file__).resolve().parents[3] / "workflow" / "schemas"


def unknown_keys(doc: Any, schema: dict, prefix: str = "") -> list[tuple[str, str | None]]:
    """(dotted key, nearest valid key or None) of each key a schema with
    ``additionalProperties: false`` does not define, at any depth."""
    import difflib

    if not isinstance(doc, dict) or not isinstance(schema, dict):
        return []
    props = schema.get("properties", {})
    out = []
    for key, value in doc.items():
        dotted = f"{prefix}{key}"
        if key in props:
            out += unknown_keys(value, props[key], dotted + ".")
        elif schema.get("additionalProperties") is False:
            near = difflib.get_close_matches(str(key), list(props), n=1)
            out.append((dotted, f"{prefix}{near[0]}" if near else None))
    return out


def check_keys(config: dict[str, Any], schemas: str | Path = SCHEMAS,
               where: str = "config") -> None:
    """DataError naming each unknown key of ``config`` (a whole config or an overlay) and
    the nearest valid one, instead of snakemake's dump of the whole schema."""
    schemas = Path(schemas)
    top = read_yaml((schemas / "config.schema.yaml").read_text())
    bad = unknown_keys({k: v for k, v in config.items() if k not in SECTIONS}, top)
    for section in SECTIONS:
        if isinstance(config.get(section), dict):
            schema = read_yaml((schemas / f"{section}.schema.yaml").read_text())
            bad += unknown_keys(config[section], schema, f"{section}.")
    if bad:
        said = "; ".join(f"{k!r}" + (f" (did you mean {n!r}?)" if n else "") for k, n in bad)
        keys = "keys" if len(bad) > 1 else "key"
        raise DataError(f"{where}: unknown {keys} {said}; the valid keys and their meaning are "
                        f"in {schemas}/ and config/config.yaml.")
