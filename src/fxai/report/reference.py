"""Published reference tables (``data/reference/<name>.csv``), typed in from the papers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

_REPO_REFERENCE = Path(__file__).resolve().parents[3] / "data" / "reference"


def reference_dir(root: str | Path | None = None) -> Path:
    """The folder of reference CSVs: ``root`` if given, else ``./data/reference`` when it
    exists, else the one of the source checkout."""
    if root is not None:
        return Path(root)
    local = Path("data") / "reference"
    return local if local.is_dir() else _REPO_REFERENCE


def names(root: str | Path | None = None) -> list[str]:
    """Names of the available reference tables (file stems)."""
    return sorted(p.stem for p in reference_dir(root).glob("*.csv"))


def load(name: str, root: str | Path | None = None) -> pd.DataFrame:
    """Read reference table ``name`` (a stem such as ``"xpg_table2_dt"`` or a path to a CSV)."""
    path = Path(name)
    if path.suffix != ".csv":
        path = reference_dir(root) / f"{name}.csv"
    if not path.is_file():
        raise FileNotFoundError(
            f"no reference table {name!r} (looked for {path}); available: {names(root)}"
        )
    return pd.read_csv(path)
