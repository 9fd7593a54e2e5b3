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
import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from fxai.runfile import incomplete, is_header, parse_lines, stream_lines
from fxai.version import stamped

LOG = logging.getLogger(__name__)
TABLE_SUFFIXES = (".fidelity", ".missing")
# the report's order, then other
SECTIONS = ("claims", "data", "nbc", "xpg", "ffa", "cross", "audit")


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


def natural_key(name: str) -> list:
    """Sort key putting ``fig2`` before ``fig10`` (digit runs compare as numbers)."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(name))]


def read_records(path: str | Path) -> list[dict]:
    """The JSON objects of a run file without its header line: JSON Lines (``.jsonl`` or a
    running job's ``.jsonl.partial``; a cut-off last line is skipped with a warning) or one
    JSON object / list (``.json``)."""
    return _read(Path(path))[1]


def _read(path: Path) -> tuple[dict | None, list[dict], bool]:
    """``(header or None, records, cut)`` of a run file."""
    if path.suffix == ".json":
        doc = json.loads(path.read_text())
        return None, doc if isinstance(doc, list) else [doc], False
    objs, cut = parse_lines(path)
    if cut:
        LOG.warning("%s: skipping a truncated last line", path)
    head = objs[0] if objs and is_header(objs[0]) else None
    return head, objs[1:] if head else objs, cut


def _iter_lines(path: Path) -> Iterator:
    """The JSON values of a JSON Lines run file after its header line, one line at a time;
    a cut-off last line is skipped with a warning, a bad line elsewhere is an error."""
    for i, obj in stream_lines(path):
        if not (i == 1 and is_header(obj)):
            yield obj
    size = path.stat().st_size
    with path.open("rb") as fh:
        fh.seek(max(size - 1, 0))
        if size and fh.read(1) != b"\n":
            LOG.warning("%s: skipping a truncated last line", path)


def _complete(path: Path, head: dict | None, recs: list[dict], cut: bool) -> bool | None:
    """Whether a run file is complete: False for a partial (running or killed job) or one
    missing planned instances, None when it has no header to tell (older fxai, ``.json``)."""
    if path.suffix == ".partial" or cut:
        return False
    if head is None:
        return None
    return not incomplete(head, recs)


class Results:
    """A results folder ``results/<profile>`` laid out as in docs/design.md."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"no results folder {self.root}")

    # runs ---------------------------------------------------------------
    def run_files(self, section: str | None = None) -> list[Path]:
        """Run files (``.jsonl``/``.json``, and ``.jsonl.partial`` of running or killed jobs)
        under ``runs/<section>/``, sorted."""
        base = self.root / "runs" / section if section else self.root / "runs"
        if not base.is_dir():
            return []
        return sorted(p for p in base.rglob("*")
                      if p.suffix in (".jsonl", ".json") or p.name.endswith(".jsonl.partial"))

    def sections(self) -> list[str]:
        """The sections that have a runs folder (``nbc``, ``xpg``, ``ffa``, ...)."""
        base = self.root / "runs"
        return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    def runs(self) -> pd.DataFrame:
        """One row per run file: section, file, whether it is complete (False: a running or
        killed job's partial; None: cannot tell), datasets, models, records, status counts,
        and the code version that wrote it (the header's; an FFA record's own)."""
        rows = []
        for section in self.sections():
            for path in self.run_files(section):
                head, recs, cut = _read(path)
                complete = _complete(path, head, recs, cut)
                recs = [r for r in recs if isinstance(r, dict) and "status" in r]
                status = pd.Series([r.get("status") for r in recs], dtype=object)
                verified = [r.get("verified") for r in recs]
                rows.append(
                    {
                        "section": section,
                        "file": str(path.relative_to(self.root)),
                        "complete": complete,
                        "datasets": ",".join(sorted({str(r.get("dataset")) for r in recs})),
                        "models": ",".join(sorted({str(r.get("model")) for r in recs})),
                        "records": len(recs),
                        "done": int((status == "done").sum()),
                        "timeout": int((status == "timeout").sum()),
                        "error": int((status == "error").sum()),
                        "verified": sum(v is True for v in verified),
                        "not_verified": sum(v is False for v in verified),
                        "code_version": ",".join(sorted(
                            {stamped(head)} if head else {stamped(r) for r in recs})),
                    }
                )
        cols = ["section", "file", "complete", "datasets", "models", "records", "done",
                "timeout", "error", "verified", "not_verified", "code_version"]
        return pd.DataFrame(rows, columns=cols)

    def iter_records(self, section: str) -> Iterator[dict]:
        """Run records (objects with a ``status``) of a section's finished run files, JSON
        Lines read one line at a time (memory does not grow with the files)."""
        for path in self.run_files(section):
            if path.suffix == ".partial":
                continue
            recs = _iter_lines(path) if path.suffix == ".jsonl" else read_records(path)
            for rec in recs:
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
