"""notebooks/inspect_results.ipynb runs headless on a small results folder built here."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report_results import make_results

from fxai.report.figures import make_figure

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "inspect_results.ipynb"


def run_notebook(results: Path, monkeypatch: pytest.MonkeyPatch, cwd: Path) -> list[str]:
    """Execute the notebook on ``results``; its outputs' texts and MIME types."""
    monkeypatch.setenv("FXAI_RESULTS", str(results))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    )
    client.execute()
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            texts.append(out.get("text", ""))
            texts.extend(out.get("data", {}))  # MIME types, e.g. image/png
            texts.extend(str(v) for k, v in out.get("data", {}).items() if k.startswith("text"))
    return texts


def test_notebook_on_small_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_results(tmp_path / "results" / "toy")
    make_figure("xpg_xp_counts", root)
    out = "\n".join(run_notebook(root, monkeypatch, tmp_path))
    assert "runs/xpg/dt/toy.jsonl" in out  # the runs table
    assert "xps_avg" in out  # a table and its fidelity summary
    assert "xpg_xp_counts.png" in out and "image/png" in out  # figure and anytime curve
    assert "ffa: `toy` instance 3" in out  # first section with a finished record
    assert "every AXp hits every CXp: True" in out
    assert "verified by the independent checker: True" in out


def test_notebook_on_empty_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "results" / "empty"
    empty.mkdir(parents=True)
    out = "\n".join(run_notebook(empty, monkeypatch, tmp_path))
    assert "No run files yet" in out and "No finished run record" in out
