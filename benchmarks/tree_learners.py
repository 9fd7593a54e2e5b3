"""Tree learners against the XpG paper's trees: depth, node count and test accuracy.

    .venv/bin/python -m benchmarks.tree_learners [--results results/paper] [--out DIR]

For every Table 2 dataset with a prepared table and a split of the profile: depth-tuned CART
(learner ``cart``) and the sized learner's two methods (``leaves``: ``max_leaf_nodes``;
``prune``: cost-complexity pruning), beside the published depth and #N. Prints and writes
``<out>/tree_learners.csv``; the last lines count, per learner, the trees with the published
depth, with a node count within 10 % of the published one, and the mean test accuracy.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from fxai.data.prepared import load, load_split
from fxai.experiments.xpg import published_size
from fxai.models.dtree import train_dt, train_dt_sized
from fxai.report.reference import load as load_reference
from fxai.report.tables import alias_map

LEARNERS = ("cart", "leaves", "prune")


def compare(results: Path, prepared: Path, seed: int = 0) -> pd.DataFrame:
    aliases = alias_map()
    rows = []
    for name in load_reference("xpg_table2_dt")["dataset"]:
        ds = aliases.get(name.lower(), name)
        split = results / "splits" / f"{ds}.json"
        if not split.is_file() or not (prepared / f"{ds}.csv").is_file():
            continue
        data = load(ds, prepared)
        tr, te = load_split(split)
        depth, nodes = published_size(ds, "xpg_table2_dt")
        row = {"dataset": ds, "published_depth": depth, "published_nodes": nodes}
        for learner in LEARNERS:
            if learner == "cart":
                clf, _ = train_dt(data.X[tr], data.y[tr], seed=seed)
            else:
                clf, _ = train_dt_sized(data.X[tr], data.y[tr], depth, nodes, learner, seed)
            row |= {f"{learner}_depth": clf.get_depth(), f"{learner}_nodes": clf.tree_.node_count,
                    f"{learner}_test_acc_pct": round(100 * clf.score(data.X[te], data.y[te]), 1)}
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default="results/paper", help="profile folder with splits/")
    p.add_argument("--prepared", default="data/prepared")
    p.add_argument("--out", default="results/bench")
    args = p.parse_args()
    df = compare(Path(args.results), Path(args.prepared))
    if df.empty:
        raise SystemExit(f"no Table 2 dataset has a split in {args.results}/splits")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "tree_learners.csv", index=False)
    print(df.to_string(index=False))
    for learner in LEARNERS:
        ratio = df[f"{learner}_nodes"] / df["published_nodes"]
        depth_ok = int((df[f"{learner}_depth"] == df["published_depth"]).sum())
        print(f"{learner}: published depth {depth_ok}/{len(df)}, "
              f"#N within 10 % {int(((ratio - 1).abs() <= 0.1).sum())}/{len(df)}, "
              f"mean test accuracy {df[f'{learner}_test_acc_pct'].mean():.1f} %")


if __name__ == "__main__":
    main()
