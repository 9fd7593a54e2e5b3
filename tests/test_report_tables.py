"""write_table: published values beside ours, alias matching, fidelity and missing rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from fxai.errors import DataError
from fxai.report.tables import (
    MATCH,
    Tolerance,
    alias_map,
    combine,
    fidelity,
    to_latex,
    to_markdown,
    write_table,
)


@pytest.fixture()
def ref_root(tmp_path: Path) -> Path:
    root = tmp_path / "reference"
    root.mkdir()
    pd.DataFrame(
        {
            "dataset": ["iris", "agaricus-lepiota", "zoo"],
            "n_nodes": [23, 37, 23],
            "time_avg_s": [0.001, 0.002, 0.002],
            "depth": [5, 6, 6],
        }
    ).to_csv(root / "toy.csv", index=False)
    return root


@pytest.fixture()
def registry(tmp_path: Path) -> Path:
    path = tmp_path / "datasets.yaml"
    path.write_text("version: 1\ndatasets:\n  mushroom:\n    title: Mushroom\n    papers: []\n"
                    "    aliases: [agaricus-lepiota, Agaricus]\n    generator: {name: mux6}\n")
    return path


def ours() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": ["mushroom", "iris", "mux6"],
            "n_nodes": [40, 23, 9],
            "time_avg_s": [0.5, 0.001, 0.01],
        }
    )


def test_alias_map_reads_the_registry(tmp_path: Path, registry: Path) -> None:
    """The registry's one parser: its aliases, and its error for a file that is no registry
    (the map once read other layouts of its own)."""
    assert alias_map(registry) == {"mushroom": "mushroom", "agaricus-lepiota": "mushroom",
                                   "agaricus": "mushroom"}
    assert alias_map(tmp_path / "absent.yaml") == {}


def test_alias_map_from_another_working_directory(tmp_path: Path, monkeypatch) -> None:
    """Without ./config/datasets.yaml the checkout's registry gives the aliases (issue 18:
    tables matched published rows differently by the working directory)."""
    monkeypatch.chdir(tmp_path)
    assert alias_map()["mammographic-masses"] == "mamo"
    # an encoding of a published dataset joins the published rows (published_as)
    assert alias_map()["mnist-1vs3-c"] == "mnist-1vs3" == alias_map()["mnist-1vs3"]
    listed = tmp_path / "list.yaml"
    listed.write_text("datasets:\n  - name: iris\n    aliases: [Iris]\n")
    with pytest.raises(DataError, match=f"dataset registry {listed} is invalid"):
        alias_map(listed)


def test_combine_layout_and_rows(ref_root: Path, registry: Path) -> None:
    pub = pd.read_csv(ref_root / "toy.csv")
    table = combine(ours(), pub, aliases=alias_map(registry))
    assert list(table.columns) == [
        "dataset",
        "n_nodes",
        "n_nodes (published)",
        "n_nodes (diff)",
        "time_avg_s",
        "time_avg_s (published)",
        "time_avg_s (diff)",
        MATCH,
    ]
    assert list(table["dataset"]) == ["mushroom", "iris", "mux6", "zoo"]
    assert list(table[MATCH]) == ["both", "both", "ours only", "published only"]
    row = table.set_index("dataset").loc["mushroom"]
    assert row["n_nodes (published)"] == 37 and row["n_nodes (diff)"] == 3
    assert pd.isna(table.set_index("dataset").loc["zoo", "n_nodes"])


def test_float_keys_match_and_bad_key(ref_root: Path) -> None:
    a = pd.DataFrame({"dataset": ["x"], "delta": [0.9], "v": [1.0]})
    b = pd.DataFrame({"dataset": ["x"], "delta": [float("0.90")], "v": [1.0]})
    assert combine(a, b, key=("dataset", "delta"))[MATCH].tolist() == ["both"]
    with pytest.raises(ValueError, match="delta"):
        combine(a, b.drop(columns="delta"), key=("dataset", "delta"))


def test_fidelity_tolerances(ref_root: Path, registry: Path) -> None:
    table = combine(ours(), pd.read_csv(ref_root / "toy.csv"), aliases=alias_map(registry))
    fid = fidelity(table, {"n_nodes": Tolerance(rel=0.05), "*": Tolerance(rel=0.0, abs=0.01)})
    got = fid.set_index("column")
    # n_nodes: 40 vs 37 is 8 % off (outside 5 %), 23 vs 23 agrees
    assert got.loc["n_nodes", "compared"] == 2 and got.loc["n_nodes", "within"] == 1
    # time: 0.5 vs 0.002 outside abs 0.01, 0.001 vs 0.001 inside
    assert got.loc["time_avg_s", "within"] == 1
    loose = fidelity(table, Tolerance(rel=0.1)).set_index("column")
    assert loose.loc["n_nodes", "within"] == 2


def test_write_table_files(tmp_path: Path, ref_root: Path, registry: Path) -> None:
    out = tmp_path / "tables"
    table = write_table(
        ours(),
        "toy_out",
        out,
        reference="toy",
        reference_root=ref_root,
        registry=registry,
        missing_reason={"zoo": "not in the default profile"},
        caption="Toy table",
    )
    for suffix in (".csv", ".md", ".tex", ".fidelity.csv", ".fidelity.md", ".missing.csv"):
        assert (out / f"toy_out{suffix}").is_file(), suffix
    assert pd.read_csv(out / "toy_out.csv").shape == table.shape
    md = (out / "toy_out.md").read_text()
    assert "n_nodes (published)" in md and "missing" in md and md.startswith("Toy table")
    miss = pd.read_csv(out / "toy_out.missing.csv")
    assert miss.to_dict("records") == [{"dataset": "zoo", "reason": "not in the default profile"}]
    assert "not in the default profile" in (out / "toy_out.fidelity.md").read_text()


def test_write_table_without_reference(tmp_path: Path) -> None:
    write_table(ours(), "plain", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.csv", "plain.md", "plain.tex"]


def test_unknown_reference_is_a_clear_error(tmp_path: Path, ref_root: Path) -> None:
    with pytest.raises(FileNotFoundError, match="toy"):
        write_table(ours(), "x", tmp_path, reference="nope", reference_root=ref_root)


def test_markdown_and_latex_rendering() -> None:
    df = pd.DataFrame({"data_set": ["a&b"], "n": [3.0], "t": [0.1234567], "big": [33391.29]})
    md = to_markdown(df)
    cells = [c.strip() for c in md.splitlines()[2].strip("|").split("|")]
    assert cells == ["a&b", "3", "0.1235", "33391.29"]
    tex = to_latex(df, caption="50% of x", label="tab:x")
    assert r"a\&b & 3 & 0.1235 & 33391.29 \\" in tex and r"50\% of x" in tex and r"data\_set" in tex


def test_real_reference_alias_example(tmp_path: Path) -> None:
    mine = pd.DataFrame({"dataset": ["iris"], "n_nodes": [23], "depth": [5]})
    table = write_table(mine, "dt", tmp_path, reference="xpg_table2_dt")
    assert table.set_index("dataset").loc["iris", "n_nodes (diff)"] == 0
    assert (table[MATCH] == "published only").sum() == 33
