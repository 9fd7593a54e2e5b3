"""Which rule gives the XpG paper's #TI (tested instances)? Counts per candidate rule.

The paper says: duplicate rows removed, and a random 30 % of the rows of a dataset with more
than 1000. For each published dataset with a prepared table this writes the counts the rule
gives when "rows" means the prepared table's rows, its distinct rows, its distinct feature
vectors, or the distinct feature vectors of the raw table before discretisation (and before
missing-value handling), each with the 30 % rounded or rounded up (as scikit-learn's
``train_test_split`` sizes a 30 % test set), and which candidates hit the published #TI.
"""

from __future__ import annotations

import argparse

from fxai.argtypes import positive_int, share
from fxai.experiments.xpg import instance_rules


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--datasets", nargs="*", default=None,
                   help="only these (registry names); default: every prepared published one")
    p.add_argument("--references", nargs="+", default=["xpg_table2_dt", "xpg_table1_obdd"])
    p.add_argument("--prepared", default="data/prepared",
                   help="root of the per-source folders <prepared>/<source>/<ds>.csv")
    p.add_argument("--raw-root", default="data/raw")
    # no defaults: the workflow passes config data.source_order, data.registry,
    # xpg.max_rows_all and xpg.fraction (the schema states them)
    p.add_argument("--source-order", required=True,
                   help="data sources in order of preference, as the prepare step used them")
    p.add_argument("--registry", required=True, help="dataset registry YAML (data.registry)")
    p.add_argument("--max-rows-all", type=positive_int, required=True)
    p.add_argument("--fraction", type=share, required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--name", default="xpg_instances")


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from fxai.report.tables import write_table

    df = instance_rules(args.references, args.datasets, args.prepared, args.raw_root,
                        tuple(args.source_order.split(",")), args.registry,
                        args.max_rows_all, args.fraction)
    if df.empty:
        raise SystemExit(f"no published dataset has a prepared table in {args.prepared}/<source>/")
    rules = [c for c in df.columns if c.endswith(("_round", "_ceil"))]
    summary = pd.DataFrame({"rule": rules,
                            "exact": [int((df[r] == df["published"]).sum()) for r in rules],
                            "datasets": len(df)}).sort_values("exact", ascending=False)
    write_table(df, args.name, args.out_dir,
                caption="Published #TI beside the counts of each candidate rule.")
    write_table(summary, f"{args.name}_rules", args.out_dir,
                caption="Candidate #TI rules: datasets whose published #TI they give exactly.")
    print(summary.to_string(index=False))
    return 0
