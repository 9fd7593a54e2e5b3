"""Writing files atomically: a reader (or a killed job) never sees a half-written file.

Every file is created with the process umask (``0644`` under the usual ``022``), so group
members on a shared cluster can read results.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import IO


def temp_beside(path: str | Path, mode: str = "w") -> tuple[IO, Path]:
    """A new temporary file (opened with ``mode``) in ``path``'s folder and its path; the
    caller writes it and renames it onto ``path`` with :func:`os.replace`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    return open(tmp, mode.replace("w", "x")), tmp  # "x": never clobbers, mode from the umask


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename."""
    f, tmp = temp_beside(path)
    try:
        with f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)

