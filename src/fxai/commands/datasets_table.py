"""Write the datasets table (source, sha256, rows, feature types, classes, papers)."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("datasets", nargs="*", help="registry names")
    # no defaults: the workflow passes config data.registry and data.source_order
    p.add_argument("--registry", required=True, help="dataset registry YAML (data.registry)")
    p.add_argument("--prepared", default="data/prepared",
                   help="root of the per-source folders <prepared>/<source>/<ds>.csv")
    p.add_argument("--raw-root", default="data/raw")
    p.add_argument("--source-order", required=True,
                   help="comma-separated preference among files, embedded, generated")
    p.add_argument("--unavailable", nargs="*", default=[],
                   help="datasets whose raw files are not available (listed as such)")
    p.add_argument("--user", nargs="*", default=[],
                   help="user datasets (config user.datasets), prepared in --user-prepared")
    p.add_argument("--user-prepared", default=None,
                   help="folder of the prepared user datasets (default <prepared>/user; the "
                        "workflow: results/<profile>/data/prepared/user)")
    p.add_argument("--out-dir", required=True, help="tables directory")


def run(args: argparse.Namespace) -> int:
    from fxai.data.registry import load_registry
    from fxai.data.table import datasets_table
    from fxai.report.tables import write_table

    table = datasets_table(args.datasets, load_registry(args.registry), args.prepared,
                           args.raw_root, args.source_order.split(","), args.unavailable, args.user,
                           args.user_prepared)
    write_table(table, "datasets", args.out_dir,
                caption="One row per dataset: source, checksum of the raw file, prepared size "
                "and types (nothing published).")
    print(f"datasets table: {len(table)} datasets -> {args.out_dir}/datasets.csv")
    return 0
