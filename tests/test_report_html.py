"""HTML table pages, provenance and the results index written for the report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fxai.errors import DataError
from fxai.report import html, provenance
from fxai.report.index import write_index
from fxai.report.results import section_of
from fxai.report.tables import write_table


def test_table_page_with_reference(tmp_path: Path) -> None:
    ours = pd.DataFrame({"dataset": ["iris", "mux6"], "n_nodes": [23, 9], "depth": [5, 4]})
    write_table(
        ours,
        "xpg_dt",
        tmp_path,
        reference="xpg_table2_dt",
        missing_reason={"adult": "paper profile only"},
        caption="DT <XPs>",
    )
    out = html.table_page(tmp_path / "xpg_dt.md", tmp_path / "page" / "xpg_dt.html")
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<title>xpg_dt</title>" in text
    assert "<p>DT &lt;XPs&gt;</p>" in text
    assert '<td class="key">iris</td>' in text
    assert '<td class="published">23</td>' in text
    assert '<tr class="published-only"><td class="key">adult</td>' in text
    assert "Fidelity to the published values" in text and "paper profile only" in text


def test_table_page_plain_and_missing(tmp_path: Path) -> None:
    pd.DataFrame({"dataset": ["a<b"], "v": [1.5]}).to_csv(tmp_path / "t.csv", index=False)
    text = html.table_page(tmp_path / "t.csv", tmp_path / "t.html").read_text()
    assert "a&lt;b" in text and "Fidelity" not in text
    with pytest.raises(DataError, match="absent.csv does not exist"):
        html.table_page(tmp_path / "absent.csv", tmp_path / "x.html")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(DataError, match="empty.csv is not a CSV table"):
        html.table_page(tmp_path / "empty.csv", tmp_path / "x.html")


def test_provenance_files(tmp_path: Path) -> None:
    cfg = {"profile": "toy", "seed": 3, "nbc": {"datasets": ["iris"]}}
    prov = provenance.write(cfg, tmp_path / "p.json", tmp_path / "p.html")
    assert json.loads((tmp_path / "p.json").read_text())["config"] == cfg
    assert prov["versions"]["numpy"] == __import__("numpy").__version__
    assert prov["seed"] == 3 and "datasets: [iris]" in (tmp_path / "p.html").read_text()


def test_provenance_lists_every_code_version_in_the_results(tmp_path: Path, monkeypatch) -> None:
    from fxai.models import nbc
    from fxai.runfile import RunWriter
    from fxai.version import UNKNOWN

    res = tmp_path / "res"
    (tmp_path / "m.bin").write_bytes(b"model")
    for version, name in (("0.1.0+gaaaaaaaaaaaa", "nbc/a.jsonl"),
                          ("0.1.0+gaaaaaaaaaaaa", "ffa/toy/marco-a/0.jsonl"),
                          ("0.1.0+gbbbbbbbbbbbb", "xpg/b.jsonl")):
        monkeypatch.setenv("FXAI_CODE_VERSION", version)
        with RunWriter(res / "runs" / name, "t", {}, {"model": tmp_path / "m.bin"}, [0]) as run:
            run.write({"instance": 0})
    nbc.save(nbc.train([[0], [1]], [0, 1], [2]), res / "models" / "nbc" / "a.joblib", {})
    (res / "models" / "dt").mkdir()
    (res / "models" / "dt" / "old.meta.json").write_text("{}")  # written before stamping
    prov = provenance.write({"profile": "toy"}, tmp_path / "p.json", tmp_path / "p.html", res)
    assert prov["code_versions"] == {
        "0.1.0+gaaaaaaaaaaaa": {"run files": 2, "model metas": 0},
        "0.1.0+gbbbbbbbbbbbb": {"run files": 1, "model metas": 1},
        UNKNOWN: {"run files": 0, "model metas": 1}}
    page = (tmp_path / "p.html").read_text()
    assert "made by 3 code versions" in page and "0.1.0+gbbbbbbbbbbbb" in page
    assert json.loads((tmp_path / "p.json").read_text())["code_versions"] == prov["code_versions"]
    write_index([], str(res), str(tmp_path / "index.md"), str(tmp_path / "p.json"))
    assert ("fxai code versions in the results: `0.1.0+gaaaaaaaaaaaa`, `0.1.0+gbbbbbbbbbbbb`, "
            f"`{UNKNOWN}` (**more than one**") in (tmp_path / "index.md").read_text()


def test_section_of() -> None:
    assert section_of("results/default/figures/nbc_precision.png") == "nbc"
    assert section_of("results/default/figures/ffa/error_mnist.png") == "ffa"
    assert section_of("results/default/tables/datasets.csv") == "data"
    assert section_of("results/default/tables/summary.csv") == "other"
    assert section_of("results/default/tables/data_sets.csv") == "data"
    assert section_of("results/default/figures/cross_algorithms.png") == "cross"


def test_index(tmp_path: Path) -> None:
    root = tmp_path / "res"
    prov = tmp_path / "p.json"
    provenance.write({"profile": "toy", "seed": 0}, prov, tmp_path / "p.html")
    files = [f"{root}/figures/xpg_runtime.png", f"{root}/report/tables/nbc_t7.html"]
    write_index(files, str(root), str(root / "report" / "index.md"), str(prov))
    text = (root / "report" / "index.md").read_text()
    assert "Profile `toy`, seed 0" in text and "code versions" not in text  # none given
    assert "## nbc\n\n- [`report/tables/nbc_t7.html`](tables/nbc_t7.html)" in text
    assert "- [`figures/xpg_runtime.png`](../figures/xpg_runtime.png)" in text
    assert "## xpg" in text


def test_index_in_paper_order(tmp_path: Path) -> None:
    root = tmp_path / "res"
    names = ["cross_algorithms.png", "ffa_fig10_naxp.png", "ffa_fig2_tau.png", "ffa_fig1_error.png",
             "xpg_runtime.png", "nbc_precision.png", "summary.png"]
    write_index([f"{root}/figures/{n}" for n in names], str(root), str(root / "i.md"), None)
    text = (root / "i.md").read_text()
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads == ["## nbc", "## xpg", "## ffa", "## cross", "## other"]
    pos = [text.index(n) for n in ("ffa_fig1_error", "ffa_fig2_tau", "ffa_fig10_naxp")]
    assert pos == sorted(pos)


def test_index_states_the_claims_beside_their_figures(tmp_path: Path) -> None:
    root = tmp_path / "res"
    claims = tmp_path / "claims.csv"
    pd.DataFrame({"id": ["ffa-c-early"], "paper": ["ffa"],
                  "shown_in": ["ffa_fig1_error ffa_fig6_error"], "statement": ["C early"],
                  "verdict": ["does not hold"], "numbers": ["C 0.3, A 0.2"]}).to_csv(
        claims, index=False)
    files = [f"{root}/figures/ffa_fig1_error.png", f"{root}/figures/ffa_fig2_tau.png"]
    write_index(files, str(root), str(root / "i.md"), None, str(claims))
    lines = (root / "i.md").read_text().splitlines()
    at = lines.index("- [`figures/ffa_fig1_error.png`](figures/ffa_fig1_error.png)")
    assert lines[at + 1] == "  - claim `ffa-c-early` does not hold: C 0.3, A 0.2"
    assert lines[at + 2].startswith("- [`figures/ffa_fig2_tau.png`]")
