"""Per feature of the user's datasets, by its own column name: how often it is in the AXp
and its mean exact FFA over the cross experiment's instances (table and figure
cross_user_features).

Reads the cross-run files of the user's datasets and their prepared domains (the names).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fxai.errors import DataError
from fxai.experiments.user import feature_rows
from fxai.runfile import iter_run
from fxai.version import stamped

CAPTION = ("Your datasets, per feature (your column names): the share of the cross "
           "experiment's instances whose AXp holds the feature, its mean exact formal feature "
           "attribution (FFA: the share of an instance's AXps holding it; empty where no "
           "enumeration completed) and the share of instances whose every explanation was "
           "verified. No column is published.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="cross-run JSON Lines files of user datasets")
    p.add_argument("--prepared", required=True, help="folder of the prepared user tables")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--figures-dir", required=True)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from fxai.report.tables import write_table

    rows, versions = [], []
    for path in args.runs:
        head, records = iter_run(path, "cross-run")
        settings = head.get("settings", {})
        ds, family = settings.get("dataset"), settings.get("family")
        dom = Path(args.prepared) / f"{ds}.domains.json"
        if not dom.is_file():
            raise DataError(f"{path}: dataset {ds!r} has no prepared domains {dom}.")
        names = [f["name"] for f in json.loads(dom.read_text())["features"]]
        new = feature_rows(names, list(records), family, ds)
        rows += new
        versions += [{stamped(head)}] * len(new)
    table = pd.DataFrame(rows)
    write_table(table.round(3), "cross_user_features", args.out_dir,
                key=("family", "dataset", "feature"), caption=CAPTION, code_versions=versions)
    from fxai.report.figures import user_features

    user_features(table, Path(args.figures_dir) / "cross_user_features")
    return 0
