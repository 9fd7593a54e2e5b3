"""Aggregate NBC run files into Table 7 of the NBC paper (with the published values)."""

from __future__ import annotations

import argparse
from pathlib import Path

from fxai.errors import DataError
from fxai.experiments.nbc import aggregate
from fxai.files import read_json
from fxai.runfile import iter_run
from fxai.version import stamped

CAPTION = ("Table 7 of the NBC paper: AXp and ApproxPAXp length, precision (real-valued "
           "model, exact count), W% and time (s, over trimmed instances)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", nargs="+", required=True, help="runs/nbc/<ds>.jsonl files")
    p.add_argument("--models", nargs="+", required=True, help="models/nbc/<ds>.meta.json")
    p.add_argument("--out-dir", required=True, help="tables directory")


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from fxai.report.tables import write_table

    if len(args.runs) != len(args.models):
        raise SystemExit("--runs and --models must list the same datasets in the same order")
    heads, rows, head_versions, row_versions = [], [], [], []
    for run_path, meta_path in zip(args.runs, args.models, strict=True):
        meta = read_json(meta_path, "NBC model meta file")
        if not isinstance(meta, dict) or "dataset" not in meta:
            raise DataError(f"{meta_path}: not a model meta file (no dataset); pass the "
                            "<ds>.meta.json nbc-train writes")
        head, records = iter_run(run_path, "nbc-explain")
        h, r = aggregate(meta["dataset"], list(records), meta)
        heads.append(h)
        rows.extend(r)
        versions = {stamped(head), stamped(meta)}
        head_versions.append(versions)
        row_versions.extend([versions] * len(r))
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_table(pd.DataFrame(rows), "nbc_table7", out, reference="nbc_table7",
                key=("dataset", "delta", "target"), caption=CAPTION, code_versions=row_versions)
    write_table(pd.DataFrame(heads), "nbc_table7_datasets", out,
                reference="nbc_table7_datasets", caption=CAPTION, code_versions=head_versions)
    return 0
