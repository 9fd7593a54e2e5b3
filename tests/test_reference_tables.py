"""The published tables in data/reference/ against the paper texts they were typed from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fxai.report import reference

PAPERS = Path(__file__).resolve().parents[1].parent / "shared" / "papers"


def paper_lines(name: str) -> list[str]:
    path = PAPERS / f"{name}.txt"
    if not path.is_file():
        pytest.skip(f"paper text {path} not available")
    return path.read_text().splitlines()


def numbers(line: str) -> list[float]:
    """All numbers of a table line after its first (name) cell, in order (thin spaces ``\\,``
    in thousands removed)."""
    cells = line.split("\t", 1)[-1].replace("\\,", "")
    return [float(t) for t in re.findall(r"\d+(?:\.\d+)?", cells)]


def rows_of(lines: list[str], dataset: str) -> list[str]:
    hits = [ln for ln in lines if ln.split("\t")[0] == dataset]
    assert hits, f"{dataset} not in paper text"
    return hits


def test_row_counts() -> None:
    assert reference.load("nbc_table7_datasets").shape[0] == 10
    nbc = reference.load("nbc_table7")
    assert nbc.shape[0] == 10 * 4 * 3
    assert nbc.groupby("dataset").size().eq(12).all()
    assert reference.load("xpg_table1_obdd").shape[0] == 11
    assert reference.load("xpg_table2_dt").shape[0] == 34
    assert reference.load("ffa_table1_runtime").shape[0] == 5


def test_no_missing_cells_and_unique_keys() -> None:
    keys = {
        "nbc_table7_datasets": ["dataset"],
        "nbc_table7": ["dataset", "delta", "target"],
        "xpg_table1_obdd": ["dataset"],
        "xpg_table2_dt": ["dataset"],
        "ffa_table1_runtime": ["dataset"],
    }
    for name, key in keys.items():
        df = reference.load(name)
        assert not df.isna().any().any(), name
        assert not df.duplicated(key).any(), name


@pytest.mark.parametrize("name", ["xpg_table1_obdd", "xpg_table2_dt"])
def test_xpg_rows_match_paper(name: str) -> None:
    lines = paper_lines("xpg-graph-classifiers")
    df = reference.load(name)
    for rec in df.to_dict("records"):
        hits = rows_of(lines, rec["dataset"])
        ours = [float(v) for k, v in rec.items() if k != "dataset"]
        assert any(numbers(h) == ours for h in hits), rec["dataset"]


def test_xpg_spot_cells() -> None:
    t1 = reference.load("xpg_table1_obdd").set_index("dataset")
    t2 = reference.load("xpg_table2_dt").set_index("dataset")
    assert t1.loc["spect", "n_nodes"] == 284
    assert t1.loc["spect", "time_max_s"] == pytest.approx(0.074)
    assert t2.loc["bank", "n_instances"] == 10837
    assert t2.loc["dna", "time_avg_s"] == pytest.approx(0.036)
    assert t2.loc["divorce", "depth"] == 5


def test_nbc_rows_match_paper() -> None:
    lines = paper_lines("nbc-relevant-features")
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Dataset\t(#F"))
    body = []
    for ln in lines[start + 2 :]:
        if not ln.strip():
            break
        body.append(ln)
    per_ds = reference.load("nbc_table7_datasets").set_index("dataset")
    long = reference.load("nbc_table7")
    expected_rows = []
    for rec in per_ds.reset_index().to_dict("records"):
        sub = long[long["dataset"] == rec["dataset"]]
        for i, delta in enumerate(dict.fromkeys(sub["delta"])):
            cells = sub[sub["delta"] == delta].set_index("target").loc[[9, 7, 4]]
            row = [round(delta * 100)]
            for c in cells.to_dict("records"):
                row += [c["len_mean"], c["len_sd"], c["precision_pct_mean"]]
                row += [c["precision_pct_sd"], c["wins_pct"], c["time_mean_s"]]
            if i == 0:
                head = [rec["n_features"], rec["n_instances"], rec["train_acc_pct"]]
                row = head + [rec["axp_len_mean"], rec["axp_len_sd"]] + row
            expected_rows.append([float(v) for v in row])
    assert [numbers(ln) for ln in body] == expected_rows


def test_nbc_spot_cells() -> None:
    long = reference.load("nbc_table7").set_index(["dataset", "delta", "target"])
    assert long.loc[("agaricus", 0.95, 7), "len_mean"] == pytest.approx(5.3)
    assert long.loc[("mushroom", 0.95, 7), "len_mean"] == pytest.approx(5.1)
    assert long.loc[("mamo", 0.90, 4), "precision_pct_mean"] == pytest.approx(96.18)
    per_ds = reference.load("nbc_table7_datasets").set_index("dataset")
    assert per_ds.loc["chess", "axp_len_mean"] == pytest.approx(12.1)
    assert per_ds.loc["vote", "n_instances"] == 81


def test_ffa_matches_paper() -> None:
    lines = paper_lines("anytime-ffa")
    rows = {ln.split("\t")[0]: numbers(ln) for ln in lines if ln.startswith("MARCO-")}
    df = reference.load("ffa_table1_runtime")
    assert list(df["dataset"]) == [
        "mnist-1vs3",
        "mnist-1vs7",
        "pneumoniamnist",
        "sarcasm",
        "disaster",
    ]
    for approach in ("a", "c", "s"):
        got = [float(v) for v in df[f"marco_{approach}_time_mean_s"]]
        assert got == rows[f"MARCO-{approach.upper()}"]
    assert df.set_index("dataset").loc["sarcasm", "marco_c_time_mean_s"] == 33391.29
