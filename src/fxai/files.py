"""Writing files atomically: a reader (or a killed job) never sees a half-written file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_jsonl(path: str | Path) -> list[dict]:
    """The objects of a complete JSON Lines file (a run file); DataError naming the file and line
    when one does not parse (a complete file is renamed into place whole, so a bad line means
    it was corrupted or cut afterwards)."""
    from fxai.data.errors import DataError

    path = Path(path)
    if not path.is_file():
        raise DataError(f"run file {path} does not exist; run the rule that writes it.")
    out = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataError(f"{path}:{i}: not a JSON object ({e.msg}); the run file is corrupt "
                            "or cut short: delete it and rerun the rule that writes it.") from None
        if not isinstance(rec, dict):
            raise DataError(f"{path}:{i}: not a JSON object; delete the file and rerun its rule.")
        out.append(rec)
    return out


def read_json(path: str | Path, what: str = "JSON file") -> Any:
    """The JSON document at ``path``; DataError naming the file when missing or unparsable."""
    from fxai.data.errors import DataError

    path = Path(path)
    if not path.is_file():
        raise DataError(f"{what} {path} does not exist; run the rule that writes it.")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise DataError(f"{what} {path} is not valid JSON ({e}); it is corrupt or cut short: "
                        "delete it and rerun the rule that writes it.") from None
