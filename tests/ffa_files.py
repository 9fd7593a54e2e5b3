"""FFA run and check files as ``fxai ffa-run`` and ``fxai ffa-verify`` write them (a run file
header, then a record per instance), from records made in a test."""

from pathlib import Path

from fxai.runfile import RunWriter


def write_run(path: Path, records: list[dict], command: str = "ffa-run") -> Path:
    """``records`` (distinct ``instance`` values) as a complete run file of ``command``."""
    with RunWriter(path, command, {}, {}, [r["instance"] for r in records]) as w:
        for r in records:
            w.write(r)
    return path


def write_runs(folder: Path, records: list[dict], command: str = "ffa-run") -> list[Path]:
    """One run file per (dataset, method) of ``records``, as the workflow writes them."""
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault((r["dataset"], r["method"]), []).append(r)
    return [write_run(folder / ds / f"{method}.jsonl", recs, command)
            for (ds, method), recs in groups.items()]
