"""Aggregation of FFA run records into figures 1-10, FFA pictures, Table 1 and the run
summary: streamed run by run, and the figures hold the numbers the run files imply."""

import gc
import json
import weakref
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from ffa_files import write_run, write_runs

from fxai.experiments.ffa_report import make_report, runtime_table, summary_table
from fxai.experiments.ffa_runs import collect, exact_ffa, read_runs, reduce_run
from fxai.explain import ffa_from_axps
from fxai.metrics.curves import instance_curves
from fxai.report import canvas, ffa_figures, ffa_pictures
from fxai.report.ffa_figures import figure_paths

REGISTRY = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"


def record(ds, inst, method, events, complete=True, time_s=1.0, status=None, verified=True):
    axps = [e[2] for e in events if e[1] == "axp"]
    cxps = [e[2] for e in events if e[1] == "cxp"]
    return {"dataset": ds, "instance": inst, "method": method, "events": events,
            "complete": complete, "status": status or ("done" if complete else "timeout"),
            "axps": axps, "cxps": cxps, "n_axps": len(axps), "n_cxps": len(cxps),
            "time_s": time_s, "verified": verified, "switched_at": None, "x": [0.5] * 100}


A = [[0.1, "axp", [0]], [0.2, "cxp", [0, 1]], [0.3, "axp", [1]]]
C = [[0.1, "cxp", [0, 1]], [0.4, "axp", [1]], [0.5, "axp", [0]]]


def runs_of(ds, inst, a_time=1.0):
    return [record(ds, inst, "marco-a", A, time_s=a_time), record(ds, inst, "marco-c", C, time_s=3),
            record(ds, inst, "marco-s", C, time_s=2)]


def test_exact_ffa_from_complete_runs_and_disagreement():
    runs = {r["method"]: reduce_run(r) for r in runs_of("d", 0)}
    ffa, n, agree = exact_ffa(runs)
    assert ffa == {0: 0.5, 1: 0.5} and n == 2 and agree
    runs["marco-c"] = reduce_run(record("d", 0, "marco-c", [[0.1, "axp", [0, 1]]]))
    assert exact_ffa(runs)[2] is False
    assert exact_ffa({"marco-a": reduce_run(record("d", 0, "marco-a", A, complete=False))}) \
        is None


def test_collect_keeps_instances_with_all_methods_and_exact():
    recs = runs_of("d", 0) + runs_of("d", 1)[:2]  # instance 1 lacks MARCO-S
    recs += [record("d", 2, m, A[:1], complete=False) for m in ("marco-a", "marco-c", "marco-s")]
    agg = collect(map(reduce_run, recs))
    assert len(agg.per_dataset()["d"]) == 1
    assert agg.notes["d"] == {"instances": 3, "used": 1, "no_exact": 1, "missing_or_error": 1,
                              "disagree": 0}


def test_reduced_runs_give_the_curves_of_the_raw_events():
    rng = np.random.default_rng(0)
    pool = [sorted(rng.choice(12, rng.integers(1, 6), replace=False).tolist())
            for _ in range(3000)]
    pool = [list(a) for a in dict.fromkeys(map(tuple, pool))]
    recs = []
    for m in ("marco-a", "marco-c", "marco-s"):
        order = rng.permutation(len(pool))
        times = np.sort(rng.random(len(pool)))
        ev = [[float(t), "axp", pool[i]] for t, i in zip(times, order, strict=True)]
        recs.append(record("d", 0, m, ev + [[2.0, "cxp", [0]]]))
    agg = collect(map(reduce_run, recs))
    ex = ffa_from_axps(sorted(map(tuple, pool)))
    want = instance_curves({r["method"]: r["events"] for r in recs}, ex, len(pool))
    got = agg.curves["d", 0]
    for metric in want:
        for m in want[metric]:
            np.testing.assert_array_equal(got[metric][m][0], want[metric][m][0])
            np.testing.assert_array_equal(got[metric][m][1], want[metric][m][1])


def test_collect_streams_and_drops_finished_instances():
    refs = []

    def runs():
        for inst in range(3):
            for r in runs_of("d", inst):
                red = reduce_run(r)
                refs.append(weakref.ref(red))
                yield red
                del red
            gc.collect()
            # the instances before this one are gone (this one's may still be referenced)
            assert all(ref() is None for ref in refs[:-3])

    agg = collect(runs())
    assert sorted(agg.curves) == [("d", 0), ("d", 1), ("d", 2)] and len(refs) == 9


def test_duplicate_run_and_unreadable_run_fail_loudly(tmp_path):
    with pytest.raises(ValueError, match="two run records for d instance 0 marco-a"):
        collect(map(reduce_run, runs_of("d", 0) + runs_of("d", 0)[:1]))
    bad = write_run(tmp_path / "cut.jsonl", runs_of("d", 0)[:1])
    bad.write_text(bad.read_text()[:-20])
    with pytest.raises(ValueError, match="cut.jsonl, line 2: cannot read an FFA run record"):
        list(read_runs(bad))
    other = write_run(tmp_path / "other.jsonl", [{"dataset": "d", "instance": 0}])
    with pytest.raises(ValueError, match="other.jsonl.*missing"):
        list(read_runs(other))
    nbc = write_run(tmp_path / "nbc.jsonl", runs_of("d", 0)[:1], "nbc-explain")
    with pytest.raises(ValueError, match="a run file of 'fxai nbc-explain', not of 'fxai ffa-run'"):
        list(read_runs(nbc))


def _capture(monkeypatch) -> dict:
    """Figures as drawn (name -> matplotlib figure), instead of files."""
    figs: dict = {}
    monkeypatch.setattr(ffa_figures, "_save", lambda fig, png: figs.__setitem__(png.name, fig))
    return figs


def _lines(ax) -> dict:
    return {ln.get_label(): (np.asarray(ln.get_xdata()), np.asarray(ln.get_ydata()))
            for ln in ax.get_lines()}


def test_figures_plot_the_curves_the_run_files_imply(tmp_path, monkeypatch):
    figs = _capture(monkeypatch)
    agg = collect(map(reduce_run, runs_of("d", 0) + runs_of("d", 1) + runs_of("e", 0)))
    ffa_figures.plot_figures(agg.per_dataset(), tmp_path)
    # exact FFA {0: .5, 1: .5}; largest AXp time 0.5: MARCO-A's AXps at normalised 0.2 and
    # 0.6, MARCO-C's (and -S's) at 0.8 and 1.0; the last value is held to t = 1
    error = _lines(figs["ffa_fig1_error.png"].axes[0])
    np.testing.assert_allclose(error["MARCO-A"][0], [0, 0.2, 0.6, 1])
    np.testing.assert_allclose(error["MARCO-A"][1], [1, 1, 0, 0])  # {0} alone: error 1
    np.testing.assert_allclose(error["MARCO-C"][0], [0, 0.8, 1, 1])
    np.testing.assert_allclose(error["MARCO-C"][1], [1, 1, 0, 0])
    naxp = _lines(figs["ffa_fig5_naxp.png"].axes[0])
    np.testing.assert_allclose(naxp["MARCO-S"][1], [0, 0.5, 1, 1])
    per_ds = figs["ffa_fig10_naxp.png"].axes
    assert [ax.get_title() for ax in per_ds] == ["(a) d (2)", "(b) e (1)"]
    np.testing.assert_allclose(_lines(per_ds[1])["MARCO-A"][1], [0, 0.5, 1, 1])
    assert "3 instances" in figs["ffa_fig2_tau.png"].axes[0].get_title()


def test_ffa_pictures_draw_the_exact_and_approximate_ffa(tmp_path, monkeypatch):
    recs = runs_of("digits-1vs3", 5)
    for r in recs:
        r["x"] = list(range(64))
    agg = collect(map(reduce_run, recs))
    shapes = ffa_pictures.image_shapes(agg.pictures, REGISTRY)
    assert shapes == {"digits-1vs3": (8, 8)}
    assert ffa_pictures.image_shapes(["breast-cancer", "mnist-1vs3", "nope"], REGISTRY) == \
        {"mnist-1vs3": (10, 10)}
    arrays = ffa_pictures.panels(agg.pictures["digits-1vs3"], (8, 8))
    np.testing.assert_array_equal(arrays["image", ""], np.arange(64).reshape(8, 8))
    exact = np.zeros((8, 8))
    exact[0, :2] = 0.5
    np.testing.assert_array_equal(arrays["exact", ""], exact)
    # normalised time 0.5: MARCO-A has found {0} (at 0.2), MARCO-C nothing yet (0.8)
    np.testing.assert_array_equal(arrays["marco-a", "0.5"].ravel()[:2], [1.0, 0.0])
    assert not arrays["marco-c", "0.5"].any() and not arrays["marco-c", "0.1"].any()
    drawn = []

    def new_figure(*args, **kwargs):
        fig, axes = canvas.new_figure(*args, **kwargs)
        drawn.append(fig)
        return fig, axes

    monkeypatch.setattr(ffa_pictures, "new_figure", new_figure)
    ffa_pictures.plot_pictures(agg.pictures, shapes, tmp_path / "p.png")
    heat = drawn[0].axes[1].get_images()[1].get_array()  # exact FFA over the image
    np.testing.assert_array_equal(heat.filled(0), exact)
    assert (tmp_path / "p.png").stat().st_size > 0 and (tmp_path / "p.pdf").is_file()
    with pytest.raises(ValueError, match="digits-1vs3: 64 features, not a 10x10 image"):
        ffa_pictures.plot_pictures(agg.pictures, {"digits-1vs3": (10, 10)}, tmp_path / "q.png")


def test_runtime_table_uses_complete_runs_only():
    recs = runs_of("d", 0, a_time=1.0) + runs_of("d", 1, a_time=3.0)
    recs.append(record("e", 0, "marco-a", A[:1], complete=False, time_s=20))
    t = runtime_table(recs).set_index("dataset")
    assert t.loc["d", "marco_a_time_mean_s"] == 2.0 and t.loc["d", "marco_c_time_mean_s"] == 3.0
    assert np.isnan(t.loc["e", "marco_a_time_mean_s"]) and t.loc["e", "marco_a_complete"] == "0/1"
    assert t.loc["d", "marco_a_time_mean_lb_s"] == 2.0  # nothing censored: the same mean
    assert t.loc["e", "marco_a_time_mean_lb_s"] == 20  # no limit recorded: its own time
    s = summary_table(recs, {"d": {"used": 2, "disagree": 0}}).set_index(["dataset", "method"])
    small = runtime_table(runs_of("d", 0, a_time=0.012345) + runs_of("d", 1, a_time=0.0045678))
    assert small.loc[0, "marco_a_time_mean_s"] == 0.00846  # 3 significant digits, not 0.01
    assert s.loc[("e", "marco-a"), "timeout"] == 1 and s.loc[("d", "marco-c"), "verified"] == "2/2"


def test_runtime_table_censors_timed_out_runs_at_their_limit():
    recs = runs_of("d", 0, a_time=1.0) + runs_of("d", 1, a_time=3.0)
    for k in (2, 3):
        recs.append(record("d", k, "marco-a", A[:1], complete=False, time_s=10.4)
                    | {"time_limit": 10.0})
    recs.append(record("d", 4, "marco-a", A, complete=False, status="error",
                       time_s=99.0))  # not a time
    t = runtime_table(recs).set_index("dataset")
    assert t.loc["d", "marco_a_time_mean_s"] == 2.0 and t.loc["d", "marco_a_complete"] == "2/5"
    assert t.loc["d", "marco_a_time_mean_lb_s"] == (1.0 + 3.0 + 10.0 + 10.0) / 4


def test_ffa_tables_say_when_results_mix_code_versions(tmp_path):
    from fxai.experiments.ffa_report import _code_versions
    from fxai.report.tables import write_table

    recs = [r | {"code_version": "v1"} for r in runs_of("d", 0)]
    recs += [r | {"code_version": "v2"} for r in runs_of("e", 0)]
    versions = _code_versions(recs, ["dataset"], {"d": {"code_version": "v1"}})
    assert versions == [{"v1"}, {"v2"}]
    write_table(runtime_table(recs), "t1", tmp_path, code_versions=versions, caption="Cap.")
    md = (tmp_path / "t1.md").read_text()
    assert "Note: built from results of 2 fxai code versions (v1, v2)" in md
    assert list(pd.read_csv(tmp_path / "t1.csv")["code_version"]) == ["v1", "v2"]
    one = _code_versions(recs[:3], ["dataset", "method"], None)
    write_table(summary_table(recs[:3], {}), "s", tmp_path, code_versions=one, caption="Cap.")
    assert "code_version" not in pd.read_csv(tmp_path / "s.csv").columns
    assert "Note:" not in (tmp_path / "s.md").read_text()


def test_runtime_table_beside_published(tmp_path):
    from fxai.report.tables import write_table

    write_table(runtime_table(runs_of("mnist-1vs3", 0)), "t1", tmp_path,
                reference="ffa_table1_runtime")
    table = pd.read_csv(tmp_path / "t1.csv")
    row = table[table["dataset"] == "mnist-1vs3"].iloc[0]
    assert row["marco_a_time_mean_s"] == pytest.approx(1.0)
    assert row["marco_a_time_mean_s (published)"] == pytest.approx(9350.79)


@pytest.mark.slow  # renders 20 figure files (~5 s alone, much longer on a busy machine)
def test_make_report_writes_all_figures_and_table(tmp_path):
    paths = write_runs(tmp_path / "runs", runs_of("mnist-1vs3", 0) + runs_of("sarcasm", 4))
    checks = write_runs(tmp_path / "checks", [  # the sarcasm runs have no check record
        {"dataset": r["dataset"], "method": r["method"], "instance": r["instance"],
         "verified": i != 1, "n_checked": 4, "n_failed": int(i == 1)}
        for i, r in enumerate(runs_of("mnist-1vs3", 0))], "ffa-verify")
    figs = make_report(paths, checks, tmp_path / "fig", tmp_path / "tab", registry=REGISTRY)
    pictures = tmp_path / "fig" / ffa_pictures.PICTURES
    assert sorted(figs) == sorted([*figure_paths(tmp_path / "fig"), pictures])
    assert all(f.stat().st_size > 0 and f.with_suffix(".pdf").is_file() for f in figs)
    table = pd.read_csv(tmp_path / "tab" / "ffa_table1_runtime.csv")
    assert "marco_a_time_mean_s (published)" in table.columns
    row = table[table["dataset"] == "mnist-1vs3"].iloc[0]
    assert row["marco_a_time_mean_s"] == pytest.approx(1.0)
    assert row["marco_a_time_mean_s (published)"] == pytest.approx(9350.79)
    assert (tmp_path / "tab" / "ffa_table1_runtime.md").is_file()
    summary = pd.read_csv(tmp_path / "tab" / "ffa_summary.csv").set_index(["dataset", "method"])
    assert summary.loc[("mnist-1vs3", "marco-a"), "verified"] == "1/1"
    assert summary.loc[("mnist-1vs3", "marco-c"), "verified"] == "0/1"
    assert summary.loc[("mnist-1vs3", "marco-c"), "explanations_failed"] == 1
    assert summary.loc[("sarcasm", "marco-a"), "verified"] == "0/0"
    with pytest.raises(ValueError, match="no FFA run"):
        make_report([], [], tmp_path / "fig", tmp_path / "tab")


def test_runtime_table_hardness_columns():
    recs = runs_of("mnist-1vs3", 0) + runs_of("sarcasm", 1)
    meta = {"n_used_features": 40, "n_features": 100, "thresholds": 120, "trees": 25, "depth": 3}
    paper = pd.DataFrame({"dataset": ["mnist-1vs3", "sarcasm"], "n_features": [100, np.nan],
                          "trees": [25, 25], "depth": [3, 5]})
    t = runtime_table(recs, {"mnist-1vs3": meta}, paper).set_index("dataset")
    assert t.loc["mnist-1vs3", "features_used"] == 40 and t.loc["mnist-1vs3", "thresholds"] == 120
    assert t.loc["mnist-1vs3", "axps_mean"] == 2 and t.loc["mnist-1vs3", "cxps_mean"] == 1
    assert "paper: 100 features, 25 trees of depth 3 (at most 175" in t.loc["mnist-1vs3",
                                                                            "hardness"]
    assert t.loc["sarcasm", "hardness"] == "model meta not given"
    assert "hardness" not in runtime_table(recs).columns
    # an encoding of a published dataset (binarised MNIST) is compared with the paper's model
    t = runtime_table(runs_of("mnist-1vs3-c", 0), {"mnist-1vs3-c": meta}, paper,
                      {"mnist-1vs3-c": "mnist-1vs3"}).set_index("dataset")
    assert "paper: 100 features, 25 trees of depth 3" in t.loc["mnist-1vs3-c", "hardness"]


@pytest.mark.parametrize("cut", ["run", "check", "meta"])
def test_a_cut_run_check_or_meta_file_is_named_with_its_line(tmp_path, fxai_cli, cut):
    """ffa-report stops with the file and the line of a record cut short, no traceback."""
    files = {
        "run": write_run(tmp_path / "run.jsonl", [record("mnist-1vs3", 0, "marco-a", A)]),
        "check": write_run(tmp_path / "check.jsonl", [{"dataset": "mnist-1vs3", "method":
                                                       "marco-a", "instance": 0,
                                                       "verified": True}], "ffa-verify"),
        "meta": tmp_path / "meta.json"}
    text = json.dumps({"dataset": "mnist-1vs3", "trees": 5, "depth": 3}, indent=1)
    files["meta"].write_text(text)
    cut_text = files[cut].read_text()
    files[cut].write_text(cut_text[:len(cut_text) // 2 + 3] if cut == "meta"
                          else cut_text[:-len(cut_text) // 4])
    code, err = fxai_cli("ffa-report", "--runs", files["run"], "--checks", files["check"],
                         "--models", files["meta"], "--figures-dir", tmp_path / "fig",
                         "--tables-dir", tmp_path / "tab", "--registry", REGISTRY,
                         "--variant", "paper")
    assert code == 1 and "Traceback" not in err, err
    assert f"{files[cut]}" in err and "line" in err and "rerun" in err


def test_a_last_step_at_normalised_time_one_is_inside_the_axes():
    _, ax = canvas.new_figure()
    ffa_figures._draw(ax, {"marco-s": (np.array([0.0, 1.0]), np.array([1.0, 0.0]))}, False)
    (line,) = ax.get_lines()
    assert line.get_xdata()[-1] == 1.0 and ax.get_xlim()[1] > 1.0
