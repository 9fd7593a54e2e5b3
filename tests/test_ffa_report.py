"""Aggregation of FFA run records into figures 1-10, Table 1 and the run summary."""

import json

import numpy as np
import pandas as pd
import pytest

from fxai.report.ffa_figures import (
    collect,
    exact_ffa,
    figure_paths,
    make_report,
    runtime_table,
    summary_table,
)


def record(ds, inst, method, events, complete=True, time_s=1.0, status=None, verified=True):
    axps = [e[2] for e in events if e[1] == "axp"]
    cxps = [e[2] for e in events if e[1] == "cxp"]
    return {"dataset": ds, "instance": inst, "method": method, "events": events,
            "complete": complete, "status": status or ("done" if complete else "timeout"),
            "axps": axps, "cxps": cxps, "n_axps": len(axps), "n_cxps": len(cxps),
            "time_s": time_s, "verified": verified, "switched_at": None}


A = [[0.1, "axp", [0]], [0.2, "cxp", [0, 1]], [0.3, "axp", [1]]]
C = [[0.1, "cxp", [0, 1]], [0.4, "axp", [1]], [0.5, "axp", [0]]]


def runs_of(ds, inst, a_time=1.0):
    return [record(ds, inst, "marco-a", A, time_s=a_time), record(ds, inst, "marco-c", C, time_s=3),
            record(ds, inst, "marco-s", C, time_s=2)]


def test_exact_ffa_from_complete_runs_and_disagreement():
    runs = {r["method"]: r for r in runs_of("d", 0)}
    ffa, n, agree = exact_ffa(runs)
    assert ffa == {0: 0.5, 1: 0.5} and n == 2 and agree
    runs["marco-c"] = record("d", 0, "marco-c", [[0.1, "axp", [0, 1]]])
    assert exact_ffa(runs)[2] is False
    assert exact_ffa({"marco-a": record("d", 0, "marco-a", A, complete=False)}) is None


def test_collect_keeps_instances_with_all_methods_and_exact():
    recs = runs_of("d", 0) + runs_of("d", 1)[:2]  # instance 1 lacks MARCO-S
    recs += [record("d", 2, m, A[:1], complete=False) for m in ("marco-a", "marco-c", "marco-s")]
    curves, notes = collect(recs)
    assert len(curves["d"]) == 1
    assert notes["d"] == {"instances": 3, "used": 1, "no_exact": 1, "missing_or_error": 1,
                          "disagree": 0}


def test_runtime_table_uses_complete_runs_only():
    recs = runs_of("d", 0, a_time=1.0) + runs_of("d", 1, a_time=3.0)
    recs.append(record("e", 0, "marco-a", A[:1], complete=False, time_s=20))
    t = runtime_table(recs).set_index("dataset")
    assert t.loc["d", "marco_a_time_mean_s"] == 2.0 and t.loc["d", "marco_c_time_mean_s"] == 3.0
    assert np.isnan(t.loc["e", "marco_a_time_mean_s"]) and t.loc["e", "marco_a_complete"] == "0/1"
    s = summary_table(recs, {"d": {"used": 2, "disagree": 0}}).set_index(["dataset", "method"])
    assert s.loc[("e", "marco-a"), "timeout"] == 1 and s.loc[("d", "marco-c"), "verified"] == "2/2"


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
    paths = []
    for i, r in enumerate(runs_of("mnist-1vs3", 0) + runs_of("sarcasm", 4)):
        p = tmp_path / f"r{i}.json"
        p.write_text(json.dumps(r))
        paths.append(p)
    checks = []
    for i, r in enumerate(runs_of("mnist-1vs3", 0)):  # the sarcasm runs have no check record
        p = tmp_path / f"c{i}.json"
        p.write_text(json.dumps({"dataset": r["dataset"], "method": r["method"],
                                 "instance": r["instance"], "verified": i != 1,
                                 "n_checked": 4, "n_failed": int(i == 1)}))
        checks.append(p)
    figs = make_report(paths, checks, tmp_path / "fig", tmp_path / "tab")
    assert sorted(figs) == sorted(figure_paths(tmp_path / "fig")) and len(figs) == 10
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
