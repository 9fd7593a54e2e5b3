"""Report figures: drawn from a small results folder (the plotted numbers are the run files'),
and empty-state figures without runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from test_report_results import make_results

from fxai.report import figures
from fxai.report.figures import FIGURES, make_figure
from fxai.report.results import Results, section_of

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.heavy
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


def _drawn(monkeypatch) -> list:
    figs: list = []
    monkeypatch.setattr(figures, "_save", lambda fig, stem: figs.append(fig) or [])
    return figs


def test_figures_plot_the_numbers_of_the_run_files(tmp_path: Path, monkeypatch) -> None:
    root = make_results(tmp_path / "res")
    recs = Results(root).records("xpg")
    done = [r for r in recs if r["status"] == "done"]
    figs = _drawn(monkeypatch)
    make_figure("xpg_xp_counts", root)
    axps_ax, cxps_ax = figs[0].axes[:2]
    # one box per (dataset, model), its whiskers spanning the per-instance counts
    whiskers = sorted(x for ln in axps_ax.get_lines() for x in ln.get_xdata())
    assert (whiskers[0], whiskers[-1]) == (1, 2)
    assert {int(x) for ln in cxps_ax.get_lines() for x in ln.get_xdata()} == {2}
    make_figure("xpg_runtime", root)
    times = sorted(r["time_s"] for r in done)
    xs = sorted(x for ln in figs[1].axes[0].get_lines() for x in ln.get_xdata())
    assert xs[0] == pytest.approx(times[0]) and xs[-1] == pytest.approx(times[-1])
    make_figure("nbc_length_vs_delta", root)
    nbc = [r for r in Results(root).records("nbc")]
    ax9 = figs[2].axes[0]  # target 9 first
    assert ax9.get_title() == "target ≤ 9"
    line = ax9.get_lines()[0]
    want = [np.mean([len(p["features"]) for r in nbc for p in r["approx_paxp"]
                     if p["delta"] == d and p["target"] == 9]) for d in (0.9, 0.95)]
    np.testing.assert_allclose(np.asarray(line.get_ydata(), dtype=float), want)
    make_figure("nbc_precision", root)
    ax4 = figs[3].axes[1]  # target 4
    shown = sorted(y for c in ax4.collections for _, y in c.get_offsets() if y > 50)
    prec = sorted(100 * p["precision"] for r in nbc for p in r["approx_paxp"] if p["target"] == 4)
    red = [100 * d for d in (0.9, 0.95)]
    np.testing.assert_allclose(sorted(prec + red), shown)


def test_slim_records_keep_counts_not_lists() -> None:
    rec = {"dataset": "d", "axps": [[0], [1, 2]], "cxps": [], "events": [[0.1, "axp", [0]]]}
    assert figures.slim(rec) == {"dataset": "d", "n_axps": 2, "n_cxps": 0}


def test_the_config_schema_and_sections_follow_the_figure_registry():
    """The Snakefile takes the figure names from the config schema and the section from the
    name's prefix (so it never imports matplotlib): both must match FIGURES."""
    schema = yaml.safe_load((ROOT / "workflow/schemas/report.schema.yaml").read_text())
    assert schema["properties"]["figures"]["items"]["enum"] == list(FIGURES)
    assert {name: section_of(name) for name in FIGURES} == {n: s for n, (s, _) in FIGURES.items()}


DRAW_WITHOUT_PYPLOT = """
import sys
from fxai.report import ffa_figures, ffa_pictures, figures
figures.empty_figure(sys.argv[1], "title", "reason")
ffa_pictures.plot_pictures({}, {}, sys.argv[1] + "-pictures.png")
assert "matplotlib.pyplot" not in sys.modules, "pyplot was imported"
"""


@pytest.mark.heavy
def test_figures_leave_the_global_matplotlib_state_alone(tmp_path: Path) -> None:
    """No backend is chosen at import and pyplot is never loaded (issue 18): drawing works
    under a backend that cannot open here (Tk without a display) and leaves it in place."""
    env = {**os.environ, "MPLBACKEND": "TkAgg", "DISPLAY": "",
           "PYTHONPATH": str(ROOT / "src")}
    r = subprocess.run([sys.executable, "-c", DRAW_WITHOUT_PYPLOT, str(tmp_path / "e")],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "e.png").stat().st_size > 0 and (tmp_path / "e-pictures.pdf").is_file()


def test_xpg_runtime_plots_the_clock_of_the_time_limit(monkeypatch) -> None:
    recs = [{"dataset": "d", "model": "dt", "status": "done", "time_s": 5.0 + i, "cpu_s": 0.5 + i,
             "clock": "cpu", "axps": [[0]], "cxps": [[0]]} for i in range(3)]
    figs = _drawn(monkeypatch)
    figures.xpg_runtime(recs, "unused")
    ax = figs[0].axes[0]
    xs = sorted(x for ln in ax.get_lines() for x in ln.get_xdata())
    assert (xs[0], xs[-1]) == (0.5, 2.5) and ax.get_xlabel().startswith("cpu time")
