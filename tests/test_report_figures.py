"""Report figures: drawn from a small results folder, and empty-state figures without runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_report_results import make_results

from fxai.report.figures import FIGURES, make_figure


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figures_from_runs(tmp_path: Path, name: str) -> None:
    root = make_results(tmp_path / "res")
    paths = make_figure(name, root)
    assert [p.name for p in paths] == [f"{name}.png", f"{name}.pdf"]
    for p in paths:
        assert p.is_file() and p.stat().st_size > 1000
    # a drawn figure is larger than the empty-state one
    empty = make_figure(name, tmp_path / "empty", tmp_path / "empty_figs")
    assert empty[0].stat().st_size < paths[0].stat().st_size


def test_unknown_figure(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="known"):
        make_figure("nope", tmp_path)
