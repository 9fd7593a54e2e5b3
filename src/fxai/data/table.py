"""The datasets table: where each dataset came from and what the prepared table holds."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fxai.data.prepare import DEFAULT_ORDER, source_dir, source_of
from fxai.data.prepared import cleaning_note, load
from fxai.data.registry import Registry

TYPES = ("categorical", "binary", "discretised", "numeric")


def _provenance(entry: dict[str, Any], source: str, raw_dir: Path) -> tuple[str, str, str]:
    """``(source, sha256 of the main file, note)`` from the fetch manifest when files are used."""
    if source == "embedded":
        emb = entry["embedded"]
        return "embedded", "", f"{emb['loader']}:{emb['name']}"
    if source == "generated":
        return "generated", "", f"generator {entry['generator']['name']}"
    man = json.loads((raw_dir / "manifest.json").read_text())
    got = {f["name"]: f for f in man["files"]}
    main = next(f for f in entry["files"] if f.get("role", "main") == "main")
    rec = got[main["name"]]
    lacking = [f["name"] for f in entry["files"] if f["name"] not in got]
    note = f"absent: {', '.join(lacking)}" if lacking else ""
    if lacking and entry.get("kind") == "image":
        note += " (only the files present are used, split 80/20)"
    if not rec["verified"]:
        note = "; ".join(filter(None, [note, "no published checksum"]))
    return rec["source"], rec["sha256"], note


def datasets_table(
    names: Sequence[str],
    registry: Registry,
    prepared_root: str | Path = "data/prepared",
    raw_root: str | Path = "data/raw",
    source_order: Sequence[str] = DEFAULT_ORDER,
    unavailable: Sequence[str] = (),
    user: Sequence[str] = (),
    user_prepared: str | Path | None = None,
) -> pd.DataFrame:
    """One row per dataset: source, sha256, rows, features by type, classes, balance, papers,
    from the prepared tables ``<prepared_root>/<source>/<name>.csv``.

    ``unavailable`` datasets (raw files neither in the mirror nor fetched) get a row saying so;
    ``user`` datasets (config user.datasets) are read from ``user_prepared`` (default
    ``<prepared_root>/user/``), with the sha256 and path of the user's file.
    """
    rows = []
    missing = {registry.resolve(n) for n in unavailable}
    for name in sorted({registry.resolve(n) for n in names} | missing):
        entry = registry.entry(name)
        if name in missing:
            rows.append({"dataset": name, "source": "unavailable",
                         "papers": ", ".join(entry.get("papers", [])),
                         "note": "raw files not obtainable here (not in the mirror, or no "
                                 "URL known): " + entry.get("note", "")})
            continue
        source = source_of(entry, source_order)
        src, sha, note = _provenance(entry, source, Path(raw_root) / registry.root(name))
        p = load(name, source_dir(prepared_root, entry, source_order))
        rows.append(_row(name, p, src, sha, note, entry.get("papers", [])))
    for name in user:
        folder = Path(user_prepared or Path(prepared_root) / "user")
        file = json.loads((folder / f"{name}.domains.json").read_text())["file"]
        rows.append(_row(name, load(name, folder), "user", file["sha256"],
                         f"your file {file['path']}"))
    return pd.DataFrame(rows)


def _row(name: str, p, source: str, sha: str, note: str,
         papers: Sequence[str] = ()) -> dict[str, Any]:
    """The table row of a prepared dataset."""
    kinds = Counter(d["type"] for d in p.domains)
    counts = np.bincount(p.y, minlength=len(p.classes))
    return {
        "dataset": name,
        "source": source,
        "sha256": sha,
        "rows": len(p.y),
        "features": p.n_features,
        **{t: kinds.get(t, 0) for t in TYPES},
        "classes": len(p.classes),
        "class_balance": "/".join(f"{100 * c / counts.sum():.0f}" for c in counts),
        "papers": ", ".join(papers),
        "note": note,
        "cleaning": cleaning_note(p.cleaning),
    }
