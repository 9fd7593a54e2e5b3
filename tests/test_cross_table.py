"""The cross-algorithm tables (full and narrow) and heat map from cross-run files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fxai.commands import cross_table
from fxai.experiments import cross
from fxai.report import figures
from fxai.runfile import iter_records, make_header


def result(t: float, complete: bool = True, agree: bool = True, paxp: bool = False) -> dict:
    marco = {"complete": complete, "time_s": t, "axps": [[0], [1]], "cxps": [[0, 1]],
             "oracle_calls": 3, "switched_at": None}
    res = {"axp": {"features": [0, 2], "time_s": t / 10},
           "cxp": {"features": [1], "time_s": t / 20},
           "marco-a": marco, "marco-c": marco | {"time_s": 2 * t},
           "marco-s": marco | {"complete": True, "time_s": 3 * t}}
    if complete:
        res["ffa"] = {"exact": {"0": 0.5, "1": 0.5}, "methods_agree": agree}
    if paxp:
        res["approx_paxp"] = {"delta": 0.95, "features": [0], "precision": 0.97, "time_s": 0.004}
    return res


def write(path: Path, family: str, ds: str, results: list[dict]) -> Path:
    lines = [{"dataset": ds, "model": family, "instance": i, "x": [0, 1, 2], "status": "done",
              "verified": True, "results": r} for i, r in enumerate(results)]
    lines.append({"dataset": ds, "model": family, "instance": 99, "x": [0, 1, 2],
                  "status": "error", "error": "boom", "verified": None})
    head = make_header("cross-run", {"clock": "cpu", "time_limit": 10.0}, {},
                       [line["instance"] for line in lines])
    path.write_text("".join(json.dumps(line) + "\n" for line in [head, *lines]))
    return path


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    return [write(tmp_path / "nbc_a.jsonl", "nbc", "a", [result(0.002, paxp=True)] * 2),
            write(tmp_path / "bt_b.jsonl", "bt", "b",
                  [result(2.0, complete=False), result(4.0, agree=False)])]


def test_tables_from_run_files(tmp_path: Path, runs: list[Path]) -> None:
    args = argparse.Namespace(runs=[str(p) for p in runs], out_dir=str(tmp_path / "tab"),
                              figures_dir=str(tmp_path / "fig"))
    assert cross_table.run(args) == 0
    full = pd.read_csv(tmp_path / "tab" / "cross_algorithms.csv").set_index("family")
    assert full.loc["bt", "instances"] == 3 and full.loc["bt", "errors"] == 1
    assert full.loc["bt", "marco-a_s"] == pytest.approx(3.0)
    assert full.loc["bt", "marco-a_complete_pct"] == pytest.approx(50.0)
    assert full.loc["bt", "ffa_methods_agree_pct"] == pytest.approx(0.0)  # the one complete
    assert full.loc["nbc", "paxp_precision"] == pytest.approx(0.97)
    assert np.isnan(full.loc["bt", "paxp_ms"])
    narrow = pd.read_csv(tmp_path / "tab" / "cross_summary.csv").set_index("family")
    assert len(narrow.columns) <= 10
    assert full.loc["bt", "marco-a_timeouts"] == 1 and full.loc["bt", "marco-s_timeouts"] == 0
    assert narrow.loc["bt", "marco-a_ms (complete %)"] == "≥3000 (50)"  # a lower bound
    assert narrow.loc["bt", "marco-s_ms (complete %)"] == "9000 (100)"
    assert narrow.loc["nbc", "marco-c_ms (complete %)"] == "4 (100)"
    assert narrow.loc["nbc", "axp_ms"] == pytest.approx(0.2)
    md = (tmp_path / "tab" / "cross_summary.md").read_text()
    assert md.startswith("Every algorithm on every model family, narrow: one row per")
    assert "mean CPU time" in md and "time limit of 10 s" in md and "code versions" not in md
    assert (tmp_path / "fig" / "cross_times.png").stat().st_size > 0


def test_heat_map_shows_the_table(tmp_path: Path, runs: list[Path], monkeypatch) -> None:
    table = pd.DataFrame([cross.summarise(iter_records(p)) for p in runs])
    drawn = []
    monkeypatch.setattr(figures, "_save", lambda fig, stem: drawn.append(fig) or [])
    figures.cross_algorithms(table, tmp_path / "x")
    ax = drawn[0].axes[0]
    shown = ax.get_images()[0].get_array()
    want = np.log10([[0.0002, 0.0001, 0.002, 0.004, 0.006, 0.004],
                     [0.3, 0.15, 3.0, 6.0, 9.0, np.nan]])
    np.testing.assert_allclose(shown.filled(np.nan), want)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["nbc: a", "bt: b"]
    texts = {t.get_text() for t in ax.texts}
    assert {"3 s\n50% complete", "6 s\n50% complete", "9 s", "✓", "✗ 0%", "–"} <= texts


def test_error_line_in_the_middle_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    head = json.dumps(make_header("cross-run", {}, {}, [1, 2, 3])) + "\n"
    bad.write_text(head + '{"a": 1}\n{"a": \n{"a": 2}\n')
    with pytest.raises(ValueError, match="bad.jsonl:3"):
        list(iter_records(bad))
    head = json.dumps(make_header("cross-run", {}, {}, [1, 2])) + "\n"
    bad.write_text(head + '{"instance": 1}\n{"a": ')
    with pytest.raises(ValueError, match="cut off"):
        list(iter_records(bad))
