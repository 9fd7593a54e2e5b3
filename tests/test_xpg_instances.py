"""fxai xpg-instances: the candidate rules for the XpG paper's #TI."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fxai.cli import main
from fxai.experiments.xpg import sample_size

ROOT = Path(__file__).resolve().parents[1]


def test_sample_size_rounds_or_rounds_up_above_the_limit():
    assert sample_size(1000, 1000, 0.3, up=True) == 1000
    assert (sample_size(1728, 1000, 0.3, False), sample_size(1728, 1000, 0.3, True)) == (518, 519)
    assert sample_size(3196, 1000, 0.3, True) == 959 and sample_size(5000, 1000, 0.3, True) == 1500


def test_counts_per_rule_beside_the_published_value(tmp_path):
    prep = tmp_path / "prepared"
    (prep / "files").mkdir(parents=True)  # iris from the files (the default source order)
    rows = [[1, 2, 0], [1, 2, 0], [1, 2, 1], [3, 4, 1]]  # 4 rows, 3 distinct, 2 distinct x
    pd.DataFrame(rows, columns=["a", "b", "target"]).to_csv(prep / "files" / "iris.csv",
                                                            index=False)
    assert main(["xpg-instances", "--prepared", str(prep), "--raw-root", str(tmp_path / "raw"),
                 "--registry", str(ROOT / "config" / "datasets.yaml"),
                 "--references", "xpg_table2_dt", "--out-dir", str(tmp_path / "t"),
                 "--source-order", "files,embedded,generated", "--max-rows-all", "1000",
                 "--fraction", "0.3"]) == 0
    df = pd.read_csv(tmp_path / "t" / "xpg_instances.csv").set_index("dataset")
    row = df.loc["iris"]
    assert (row["rows"], row["distinct_rows"], row["distinct_x"]) == (4, 3, 2)
    assert row["published"] == 149 and pd.isna(row["raw_distinct_x"])  # raw not fetched
    rules = pd.read_csv(tmp_path / "t" / "xpg_instances_rules.csv")
    assert set(rules["exact"]) == {0} and len(rules) == 8
