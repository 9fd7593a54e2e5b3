"""Read a profile's results folder (``results/<profile>``): runs, tables, figures, one record.

from fxai.report import results
r = results.Results("results/default")
r.runs()                       # one row per run file: section, path, records, done, ...
r.records("xpg")               # every run record of a section (list of dicts)
r.tables(); r.table("xpg_table2_dt")
r.instance("nbc", "adult", 17) # the record of one explained instance
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

LOG = logging.getLogger(__name__)
TABLE_SUFFIXES = (".fidelity", ".missing")
SECTIONS = ("data", "nbc", "xpg", "ffa")


def section_of(path: str | Path) -> str:
    """The part a table or figure belongs to, from its file name (``nbc_...`` -> ``nbc``) or a
    folder of that name in its path; ``other`` when neither says."""
    p = Path(path)
    head = p.name.split("_", 1)[0].split(".", 1)[0].lower()
    if head in SECTIONS:
        return head
    if head == "datasets":
        return "data"
    return next((part for part in reversed(p.parts[:-1]) if part in SECTIONS), "other")


def iter_lines(path: str | Path, strict: bool = True) -> Iterator[dict]:
    """The JSON objects of a JSON Lines run file, one line at a time (the one place JSON Lines
    run files are read). A line that is not JSON is an error naming the file and line; with
    ``strict=False`` a cut-off *last* line (a killed run) is skipped with a warning."""
    path = Path(path)
    with path.open() as fh:
        bad = None
        for i, line in enumerate(fh, start=1):
            if bad is not None:
                raise ValueError(f"{path}:{bad}: not a JSON object")
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                bad = i
        if bad is not None:
            if strict:
                raise ValueError(f"{path}:{bad}: not a JSON object (cut-off last line?)")
            LOG.warning("%s: skipping a truncated last line", path)


def read_records(path: str | Path) -> list[dict]:
    """The JSON objects of a run file: JSON Lines (``.jsonl``, one object a line; a truncated
    last line of a killed run is skipped with a warning) or one JSON object / list (``.json``)."""
    path = Path(path)
    if path.suffix == ".json":
        doc = json.loads(path.read_text())
        return doc if isinstance(doc, list) else [doc]
    return list(iter_lines(path, strict=False))


class Results:
    """A results folder ``results/<profile>`` laid out as in DESIGN.md."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"no results folder {self.root}")

    # runs ---------------------------------------------------------------
    def run_files(self, section: str | None = None) -> list[Path]:
        """Run files (``.jsonl``/``.json``) under ``runs/<section>/``, sorted."""
        base = self.root / "runs" / section if section else self.root / "runs"
        if not base.is_dir():
            return []
        return sorted(p for p in base.rglob("*") if p.suffix in (".jsonl", ".json"))

    def sections(self) -> list[str]:
        """The sections that have a runs folder (``nbc``, ``xpg``, ``ffa``, ...)."""
        base = self.root / "runs"
        return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    def runs(self) -> pd.DataFrame:
        """One row per run file: section, file, datasets, models, records and status counts."""
        rows = []
        for section in self.sections():
            for path in self.run_files(section):
                recs = [r for r in read_records(path) if isinstance(r, dict) and "status" in r]
                status = pd.Series([r.get("status") for r in recs], dtype=object)
                verified = [r.get("verified") for r in recs]
                rows.append(
                    {
                        "section": section,
                        "file": str(path.relative_to(self.root)),
                        "datasets": ",".join(sorted({str(r.get("dataset")) for r in recs})),
                        "models": ",".join(sorted({str(r.get("model")) for r in recs})),
                        "records": len(recs),
                        "done": int((status == "done").sum()),
                        "timeout": int((status == "timeout").sum()),
                        "error": int((status == "error").sum()),
                        "verified": sum(v is True for v in verified),
                        "not_verified": sum(v is False for v in verified),
                    }
                )
        cols = ["section", "file", "datasets", "models", "records", "done", "timeout", "error"]
        return pd.DataFrame(rows, columns=cols + ["verified", "not_verified"])

    def iter_records(self, section: str) -> Iterator[dict]:
        """Run records (objects with a ``status``) of a section, file by file."""
        for path in self.run_files(section):
            for rec in read_records(path):
                if isinstance(rec, dict) and "status" in rec:
                    yield rec

    def records(self, section: str) -> list[dict]:
        """All run records of a section (empty when the section produced nothing)."""
        return list(self.iter_records(section))

    def instance(
        self, section: str, dataset: str, instance: int, **match: object
    ) -> dict | list[dict]:
        """The record of one explained instance (row id) of a dataset. Extra keyword arguments
        (e.g. ``model="dt"``, ``method="marco-s"``) narrow the match; several matches are
        returned as a list."""
        hits = [
            r
            for r in self.iter_records(section)
            if r.get("dataset") == dataset
            and r.get("instance") == instance
            and all(r.get(k) == v for k, v in match.items())
        ]
        if not hits:
            raise KeyError(f"no {section} record for dataset {dataset!r}, instance {instance}")
        return hits[0] if len(hits) == 1 else hits

    # tables and figures ------------------------------------------------
    def tables(self) -> list[str]:
        """Names of the tables (``tables/<name>.csv``, without fidelity/missing side files)."""
        base = self.root / "tables"
        if not base.is_dir():
            return []
        stems = (p.stem for p in base.glob("*.csv"))
        return sorted(s for s in stems if not s.endswith(TABLE_SUFFIXES))

    def table(self, name: str) -> pd.DataFrame:
        """Table ``tables/<name>.csv``."""
        path = self.root / "tables" / f"{name}.csv"
        if not path.is_file():
            raise FileNotFoundError(f"no table {path}; available: {self.tables()}")
        return pd.read_csv(path)

    def fidelity(self, name: str) -> pd.DataFrame | None:
        """The fidelity summary of table ``name`` (None when it has no published reference)."""
        path = self.root / "tables" / f"{name}.fidelity.csv"
        return pd.read_csv(path) if path.is_file() else None

    def figures(self) -> list[Path]:
        """PNG figures under ``figures/``."""
        base = self.root / "figures"
        return sorted(base.glob("*.png")) if base.is_dir() else []
