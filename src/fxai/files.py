"""Writing files atomically: a reader (or a killed job) never sees a half-written file.

Every file is created with the process umask (``0644`` under the usual ``022``), so group
members on a shared cluster can read results.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from fxai.errors import DataError


def temp_beside(path: str | Path, mode: str = "w") -> tuple[IO, Path]:
    """A new temporary file (opened with ``mode``) in ``path``'s folder and its path; the
    caller writes it and renames it onto ``path`` with :func:`os.replace`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    return open(tmp, mode.replace("w", "x")), tmp  # "x": never clobbers, mode from the umask


@contextmanager
def open_atomic(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """A temporary file beside ``path`` to write in the ``with`` block: renamed onto ``path``
    when the block ends normally, removed on every failure (a full disk, an exception)."""
    f, tmp = temp_beside(path, mode)
    try:
        with f:
            yield f
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename."""
    with open_atomic(path) as f:
        f.write(text)


def read_json(path: str | Path, what: str = "JSON file") -> Any:
    """The JSON document at ``path``; DataError naming the file when missing or unparsable."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{what} {path} does not exist; run the rule that writes it.")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise DataError(f"{what} {path} is not valid JSON ({e}); it is corrupt or cut short: "
                        "delete it and rerun the rule that writes it.") from None
