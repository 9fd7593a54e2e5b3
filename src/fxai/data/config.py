"""Checks of the workflow configuration that its JSON schemas cannot express."""

from __future__ import annotations

import math
from typing import Any

from fxai.errors import DataError


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
