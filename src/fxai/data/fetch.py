"""Fetch raw files into ``data/raw/<ds>/``: from a mirror directory or a URL, checked by sha256.

Each file is written to a temporary name in the target directory, verified, then renamed, so
nothing half-written is ever left under its final name. ``manifest.json`` in the same directory
records, per file, where it came from and its sha256 (the datasets table reads it).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from fxai.errors import FetchError
from fxai.files import open_atomic, write_atomic

log = logging.getLogger(__name__)

MIRROR_ENV = "FXAI_DATA_MIRROR"
Opener = Callable[..., IO[bytes]]
_CHUNK = 1 << 20


def mirror_dir(configured: str | Path | None = None) -> Path | None:
    """The mirror directory: ``$FXAI_DATA_MIRROR`` wins over the configured one; None if unset.
    FetchError if one is set but is not a directory (a typo must not silently drop datasets)."""
    value = os.environ.get(MIRROR_ENV) or configured
    if not value:
        return None
    if not Path(value).is_dir():
        origin = f"${MIRROR_ENV}" if os.environ.get(MIRROR_ENV) else "data.mirror / --mirror"
        raise FetchError(f"the data mirror {value} (set by {origin}) is not a directory: fix the "
                         f"path, or unset {origin} to download from the canonical URLs.")
    return Path(value)


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _copy_verified(src: IO[bytes], dest: Path, expected: str | None, what: str) -> str:
    """Stream ``src`` to a temp file beside ``dest``, check sha256, rename; return the digest."""
    with open_atomic(dest, "wb") as out:
        h = hashlib.sha256()
        for chunk in iter(lambda: src.read(_CHUNK), b""):
            h.update(chunk)
            out.write(chunk)
        digest = h.hexdigest()
        if expected is not None and digest != expected:
            raise _Mismatch(f"{what}: sha256 {digest} differs from the registry's {expected}")
    return digest


class _Mismatch(Exception):
    pass


def fetch_file(
    ds: str,
    spec: dict[str, Any],
    dest_dir: Path,
    mirror: Path | None,
    opener: Opener | None = None,
    timeout: float = 60.0,
) -> dict[str, Any] | None:
    """Fetch one registry file spec; return its manifest record (None: optional and absent).

    Tries the mirror first when one is set, otherwise the URLs in order (``opener``: default
    ``urllib.request.urlopen``, imported only then). Raises FetchError listing every attempt
    when none succeeds (an optional file is then skipped with a warning).
    """
    if opener is None:
        import urllib.request

        opener = urllib.request.urlopen
    dest = dest_dir / spec["name"]
    tried: list[str] = []
    if mirror is not None:
        src = mirror / (spec.get("mirror") or f"{ds}/{spec['name']}")
        if not src.is_file():
            tried.append(f"mirror file {src}: does not exist")
        else:
            try:
                with open(src, "rb") as f:
                    digest = _copy_verified(f, dest, spec["sha256"], f"mirror file {src}")
                if spec["sha256"] is None:
                    log.warning("%s: %s has no known sha256; recorded %s", ds, src, digest)
                return {"name": spec["name"], "source": "mirror", "from": str(src),
                        "sha256": digest, "verified": spec["sha256"] is not None}
            except _Mismatch as e:
                tried.append(str(e) + " (a changed or corrupt mirror copy)")
    else:
        expected = spec.get("url_sha256", spec["sha256"])
        for url in spec.get("urls", []):
            try:
                with opener(url, timeout=timeout) as resp:
                    digest = _copy_verified(resp, dest, expected, f"URL {url}")
                if expected is None:
                    log.warning("%s: %s has no known sha256; recorded %s", ds, url, digest)
                return {"name": spec["name"], "source": "url", "from": url, "sha256": digest,
                        "verified": expected is not None}
            except _Mismatch as e:
                tried.append(str(e) + " (the online file changed, or the download is corrupt)")
            except (OSError, ValueError) as e:
                tried.append(f"URL {url}: {e}")
        if not spec.get("urls"):
            tried.append("no URL is known for this file")
    if spec.get("optional"):
        log.warning("%s: optional file %s not fetched: %s", ds, spec["name"], "; ".join(tried))
        return None
    where = f"the mirror {mirror}" if mirror is not None else "its URLs"
    hint = (
        f"Put a verified copy at {mirror}/{spec.get('mirror') or ds + '/' + spec['name']}, or "
        f"unset {MIRROR_ENV} / config data.mirror to download it"
        if mirror is not None
        else f"Check the network, or set {MIRROR_ENV} to a directory holding the datasets"
    )
    raise FetchError(
        f"Cannot fetch {spec['name']} of dataset {ds!r} from {where}. Tried: "
        + "; ".join(tried) + f". {hint}. Nothing was written to {dest_dir}."
    )


def fetch(
    ds: str,
    entry: dict[str, Any],
    raw_root: str | Path = "data/raw",
    mirror: str | Path | None = None,
    opener: Opener | None = None,
) -> Path:
    """Fetch every file of ``entry`` into ``raw_root/<ds>/`` and write its ``manifest.json``.

    ``mirror``: the configured mirror (``$FXAI_DATA_MIRROR`` overrides it). Returns the manifest
    path. On failure nothing new is left under a final name (earlier files of this call
    are removed too).
    """
    if not entry.get("files"):
        raise FetchError(f"dataset {ds!r} has no raw files to fetch (embedded or generated).")
    dest_dir = Path(raw_root) / ds
    mdir = mirror_dir(mirror)
    records: list[dict[str, Any]] = []
    try:
        for spec in entry["files"]:
            rec = fetch_file(ds, spec, dest_dir, mdir, opener)
            if rec is not None:
                records.append(rec)
    except FetchError:
        for rec in records:
            (dest_dir / rec["name"]).unlink(missing_ok=True)
        raise
    manifest = dest_dir / "manifest.json"
    write_atomic(manifest, json.dumps({"dataset": ds, "files": records}, indent=1))
    return manifest


def read_manifest(raw_dir: str | Path) -> dict[str, Any]:
    """The manifest written by :func:`fetch` in ``raw_dir``."""
    with open(Path(raw_dir) / "manifest.json") as f:
        return json.load(f)


def obtainable(ds: str, entry: dict[str, Any], mirror: Path | None) -> bool:
    """Whether every required raw file can be sought: in ``mirror`` when one is set (an
    existence check), else at some URL."""
    return unobtainable(ds, entry, mirror) is None


def unobtainable(ds: str, entry: dict[str, Any], mirror: Path | None) -> str | None:
    """Why a required raw file of ``entry`` cannot be sought (not in ``mirror`` when one is set,
    else no URL known), or None when every one can."""
    for spec in entry.get("files", []):
        if spec.get("optional"):
            continue
        if mirror is not None:
            src = mirror / (spec.get("mirror") or f"{ds}/{spec['name']}")
            if not src.is_file():
                return f"the mirror lacks {src}"
        elif not spec.get("urls"):
            return f"no URL is known for {spec['name']} and no mirror is set"
    return None


def missing_message(reasons: dict[str, str]) -> str:
    """The error for datasets a config uses that cannot be obtained (``{name: reason}``)."""
    return ("these datasets of the config cannot be obtained: "
            + "; ".join(f"{ds}: {why}" for ds, why in sorted(reasons.items()))
            + ". Fix the mirror (FXAI_DATA_MIRROR / data.mirror) or the network, or run "
            "without them by setting data.allow_missing: true (e.g. add the overlay "
            "`--configfile <config> config/allow-missing.yaml`); they are then listed as "
            "missing in the tables.")


def mirror_has(ds: str, entry: dict[str, Any], mirror: Path) -> bool:
    """Whether ``mirror`` holds every required raw file of ``entry`` (a cheap existence check)."""
    return unobtainable(ds, entry, mirror) is None
