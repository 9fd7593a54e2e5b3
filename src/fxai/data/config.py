"""Checks of the workflow configuration that its JSON schemas cannot express."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from fxai.errors import DataError


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
        doc = yaml.safe_load(path.read_text())
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
