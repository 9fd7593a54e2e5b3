"""Which fxai code made a result: the package version, the git commit and a dirty marker.

:func:`code_version` is stamped into every run header (and so into the resume fingerprint),
every model's ``.meta.json`` and every FFA run record (docs/resume.md, "Code version")::

    0.1.0+g1a2b3c4d5e6f                  a clean git checkout at commit 1a2b3c4d5e6f
    0.1.0+g1a2b3c4d5e6f.dirty.9f86d081   tracked files under src/ or workflow/ differ from
                                         that commit; 9f86d081 hashes ``git diff HEAD``
                                         of those folders, so another edit gives another
                                         version
    0.1.0+nogit                          not a git checkout (an installed wheel), or no git

Untracked files, and changes outside src/ and workflow/ (docs, tests, config: the config's
values reach the fingerprint as settings), do not count. Git runs at most twice per process
(the answer is cached). ``FXAI_CODE_VERSION`` in the environment replaces the whole answer
(tests use it to simulate another code version).
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from pathlib import Path

from fxai import __version__

ENV = "FXAI_CODE_VERSION"
UNKNOWN = "unknown (not stamped)"  # files written before code versions were stamped
CODE_DIRS = ("src", "workflow")
_PACKAGE = Path(__file__).resolve().parent


def code_version() -> str:
    """This process's code version (see the module docstring); ``FXAI_CODE_VERSION`` wins."""
    return os.environ.get(ENV) or _from_git()


@functools.cache
def _from_git() -> str:
    head = _git(["rev-parse", "--show-toplevel", "HEAD"], _PACKAGE)
    if head is None:
        return f"{__version__}+nogit"
    top, commit = head.decode().split()
    root = Path(top).resolve()
    if root / "src" / "fxai" != _PACKAGE:  # a package installed inside some other checkout
        return f"{__version__}+nogit"
    version = f"{__version__}+g{commit[:12]}"
    diff = _git(["diff", "HEAD", "--", *CODE_DIRS], root)
    if diff is None:
        return f"{version}.dirty.unknown"
    if diff:
        version += f".dirty.{hashlib.sha256(diff).hexdigest()[:8]}"
    return version


def _git(args: list[str], where: Path) -> bytes | None:
    """``git -C where args`` output, or None when git is missing or fails."""
    try:
        return subprocess.run(["git", "-C", str(where), *args], capture_output=True, check=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def stamped(obj: object) -> str:
    """The code version stamped into a run header, model meta or record (else ``UNKNOWN``)."""
    return (obj.get("code_version") if isinstance(obj, dict) else None) or UNKNOWN
