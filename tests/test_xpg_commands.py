"""fxai xpg-train / xpg-explain / xpg-table on tiny prepared tables written here."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pandas as pd
import pytest

from fxai.cli import main
from fxai.data.prepare import write_prepared as fxai_write_prepared
from fxai.experiments.xpg import build, explain_row, select_instances, summarise
from fxai.runfile import run_records
from fxai.version import code_version

#: the config settings xpg-train requires per family (the xpg schema's defaults)
TRAIN = {"dt": ["--seed", "0", "--learner", "cart", "--depths", "3", "4", "5", "6",
                "--val-size", "0.2"],
         "obdd": ["--seed", "0", "--beam-width", "10", "--min-covered", "1",
                  "--max-rule-length", "5"]}


def write_prepared(root, ds, X, y, types):
    root.mkdir(parents=True, exist_ok=True)
    names = [f"f{i}" for i in range(X.shape[1])]
    df = pd.DataFrame(X, columns=names)
    df["target"] = y
    feats = []
    for i, t in enumerate(types):
        d = {"name": names[i], "type": t}
        if t != "numeric":
            d["values"] = sorted(int(v) for v in np.unique(X[:, i]))
        feats.append(d)
    doc = {"name": ds, "features": feats,
           "target": {"name": "target", "classes": sorted(int(c) for c in np.unique(y))}}
    fxai_write_prepared(df, doc, root)
    ids = np.arange(len(y))  # last quarter is the test set
    cut = 3 * len(y) // 4
    split = {"dataset": ds, "seed": 0, "test_size": 0.25,
             "train": ids[:cut].tolist(), "test": ids[cut:].tolist()}
    (root / f"{ds}.split.json").write_text(json.dumps(split))


@pytest.mark.parametrize("family", ["dt", "obdd"])
def test_train_explain_table(tmp_path, family):
    rng = np.random.default_rng(1)
    prep = tmp_path / "prepared"
    if family == "obdd":
        X = np.array([[int(b) for b in f"{k:06b}"] for k in range(64)] * 2)
        y = np.array([x[2 + 2 * x[0] + x[1]] for x in X])  # mux6
        types = ["binary"] * 6
    else:
        X = np.column_stack([rng.integers(0, 3, 150), rng.normal(size=150).round(2)])
        y = ((X[:, 0] == 2) | (X[:, 1] > 0.3)).astype(int)
        types = ["categorical", "numeric"]
    write_prepared(prep, "toy", X, y, types)
    models, run = tmp_path / "models", tmp_path / "runs" / f"{family}_toy.jsonl"
    model = models / ("toy.joblib" if family == "dt" else "toy.bdd.json")
    assert main(["xpg-train", "--family", family, "--dataset", "toy", "--prepared", str(prep),
                 "--split", str(prep / "toy.split.json"), "--out-dir", str(models),
                 *TRAIN[family]]) == 0
    meta = json.loads((models / "toy.meta.json").read_text())
    assert meta["n_nodes"] >= 3 and meta["accuracy_test"] > 0.7
    assert meta["code_version"] == code_version()
    if family == "obdd":
        assert meta["n_nodes"] == 9  # the mux6 OBDD with address bits first
        assert (models / "toy.dlist.json").exists()
    args = ["xpg-explain", "--family", family, "--dataset", "toy", "--model", str(model),
            "--prepared", str(prep), "--out", str(run), "--time-limit", "60", "--clock", "cpu",
            "--max-rows-all", "1000", "--fraction", "0.3", "--seed", "0"]
    assert main(args + ["--max-instances", "20"]) == 0
    recs = run_records(run)
    assert len(recs) == 20 and all(r["status"] == "done" and r["verified"] for r in recs)
    assert all(r["checked"] == len(r["axps"]) + len(r["cxps"]) > 0 for r in recs)
    first = run.read_text().splitlines()[1:]
    assert main(args) == 0  # extends: only the missing instances are added
    assert run.read_text().splitlines()[1:21] == first
    recs = run_records(run)
    n_distinct = len(np.unique(X, axis=0))
    assert len(recs) == n_distinct == len({r["instance"] for r in recs})
    assert all(r["verified"] for r in recs)
    df, versions = build([str(run)], [str(models / "toy.meta.json")], family, None)
    row = df.iloc[0]
    assert versions == [{code_version()}]
    assert row["n_instances"] == n_distinct and row["verified_pct"] == 100.0
    assert row["time_clock"] == "cpu" and row["timeouts"] == 0  # xpg-explain's default clock
    assert row["time_avg_s"] == row["time_avg_lb_s"]  # nothing censored
    assert row["time_avg_s"] == pytest.approx(np.mean([r["cpu_s"] for r in recs]), abs=1e-4)
    with pytest.raises(ValueError, match="its time limit ran on the cpu clock, the table is on "
                                         "the wall clock"):
        build([str(run)], [str(models / "toy.meta.json")], family, None, "wall")
    assert row["axp_min"] >= 1 and row["xps_avg"] == pytest.approx(
        np.mean([len(r["axps"]) + len(r["cxps"]) for r in recs]), abs=0.01)


def test_no_time_is_not_verified_and_incomplete_runs_are_refused(tmp_path):
    X = np.array([[int(b) for b in f"{k:06b}"] for k in range(64)])
    y = np.array([x[2 + 2 * x[0] + x[1]] for x in X])  # mux6
    prep, models = tmp_path / "prepared", tmp_path / "models"
    write_prepared(prep, "toy", X, y, ["binary"] * 6)
    assert main(["xpg-train", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                 "--split", str(prep / "toy.split.json"), "--out-dir", str(models),
                 *TRAIN["dt"]]) == 0
    run = tmp_path / "run.jsonl"
    assert main(["xpg-explain", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                 "--model", str(models / "toy.joblib"), "--out", str(run), "--time-limit", "1e-9",
                 "--clock", "cpu", "--max-instances", "5", "--max-rows-all", "1000",
                 "--fraction", "0.3",
                 "--seed", "0"]) == 0
    recs = run_records(run)
    assert len(recs) == 5
    for r in recs:  # nothing found, nothing checked: not "verified", and says it timed out
        assert r["status"] == "timeout" and r["checked"] == 0 and r["verified"] is None
    meta = str(models / "toy.meta.json")
    row = build([str(run)], [meta], "dt", None)[0].iloc[0]
    assert row["verified_pct"] == 0.0 and row["timeouts"] == 5
    assert np.isnan(row["time_avg_s"]) and row["time_avg_lb_s"] == round(1e-9, 4)
    lines = run.read_text().splitlines()
    run.write_text("\n".join(lines[:-2]) + "\n")  # two instances short of its plan
    with pytest.raises(ValueError, match=r"run.jsonl: incomplete run file, 3 of 5 instances"):
        build([str(run)], [meta], "dt", None)
    run.write_text("\n".join(lines[1:]) + "\n")  # no header: cannot tell, refused
    with pytest.raises(ValueError, match="run.jsonl: no 'fxai_run' header"):
        build([str(run)], [meta], "dt", None)


def test_select_instances_follows_the_paper():
    X = np.repeat(np.arange(3000).reshape(-1, 1), 2, axis=0)  # 3000 distinct rows, twice
    ids = select_instances(X, 1000, 0.3, seed=0)
    assert len(ids) == 900 and len(set(X[ids, 0])) == 900
    assert ids == select_instances(X, 1000, 0.3, seed=0)
    small = select_instances(X[:1000], 1000, 0.3, seed=0)
    assert len(small) == 500
    assert len(select_instances(X, 1000, 0.3, seed=0, cap=50)) == 50
    # 30 % rounded up (car: 1728 distinct rows -> 519, as published; rounding gives 518)
    assert len(select_instances(np.arange(1728).reshape(-1, 1), 1000, 0.3, seed=0)) == 519


def test_obdd_rejects_non_binary_features(tmp_path):
    prep = tmp_path / "prepared"
    X = np.column_stack([np.arange(40) % 3, np.arange(40) % 2])
    write_prepared(prep, "tri", X, X[:, 1], ["categorical", "binary"])
    with pytest.raises(SystemExit, match="binary features"):
        main(["xpg-train", "--family", "obdd", "--dataset", "tri", "--prepared", str(prep),
              "--split", str(prep / "tri.split.json"), "--out-dir", str(tmp_path / "m"),
              *TRAIN["obdd"]])


@pytest.fixture
def mux6_dt(tmp_path):
    X = np.array([[int(b) for b in f"{k:06b}"] for k in range(64)] * 2)
    y = np.array([x[2 + 2 * x[0] + x[1]] for x in X])
    prep, models = tmp_path / "prepared", tmp_path / "models"
    write_prepared(prep, "toy", X, y, ["binary"] * 6)
    assert main(["xpg-train", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                 "--split", str(prep / "toy.split.json"), "--out-dir", str(models),
                 *TRAIN["dt"]]) == 0
    return prep, models / "toy.joblib"


def explain_args(cmd, prep, model, out):
    if cmd == "xpg-explain":
        return ["xpg-explain", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                "--model", str(model), "--out", str(out), "--time-limit", "60", "--clock", "cpu",
                "--max-rows-all", "1000", "--fraction", "0.3", "--seed", "0"]
    return ["cross-run", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
            "--model", str(model), "--split", str(prep / "toy.split.json"), "--out", str(out),
            "--instances", "6", "--time-limit", "5", "--clock", "cpu", "--delta", "0.95",
            "--seed", "0"]


@pytest.mark.heavy
@pytest.mark.parametrize("cmd", ["xpg-explain", "cross-run"])
def test_a_bad_model_exits_nonzero_naming_it_and_writes_nothing(mux6_dt, tmp_path, fxai_cli,
                                                                cmd):
    prep, model = mux6_dt
    bad = tmp_path / "bad.joblib"
    bad.write_bytes(model.read_bytes()[:100])  # truncated
    out = tmp_path / "runs" / "r.jsonl"
    code, err = fxai_cli(*explain_args(cmd, prep, bad, out))
    assert code != 0 and f"model file {bad} is not a" in err
    assert "cannot read the" not in err  # the loader's message, not wrapped a second time
    assert not out.parent.exists()


@pytest.mark.parametrize("cmd, target", [("xpg-explain", "fxai.commands.xpg_explain.explain_row"),
                                         ("cross-run", "fxai.commands.cross_run.run_instance")])
def test_a_failure_mid_run_is_raised_not_recorded_and_the_rerun_resumes(
        mux6_dt, tmp_path, monkeypatch, cmd, target):
    prep, model = mux6_dt
    out = tmp_path / "r.jsonl"
    module, name = target.rsplit(".", 1)
    real, calls = getattr(importlib.import_module(module), name), []

    def failing(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("simulated")
        return real(*args, **kw)

    monkeypatch.setattr(target, failing)
    with pytest.raises(MemoryError):  # the CLI exits non-zero; no "status: error" record
        main(explain_args(cmd, prep, model, out))
    part = tmp_path / "r.jsonl.partial"
    assert not out.exists() and len(part.read_text().splitlines()) == 3  # header + 2
    kept = part.read_text().splitlines()[1:]
    monkeypatch.setattr(target, real)
    assert main(explain_args(cmd, prep, model, out)) == 0
    assert out.read_text().splitlines()[1:3] == kept
    recs = run_records(out)
    assert all(r["status"] == "done" and r["verified"] is True for r in recs)


def test_missing_reasons_do_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    """Published rows we lack get their reason from any cwd (the checkout's reference CSVs
    when ./data/reference is absent, as write_table reads them; issue 18)."""
    from fxai.experiments.xpg import missing_reasons

    monkeypatch.chdir(tmp_path)
    reasons = missing_reasons("xpg_table1_obdd", {"mux6"}, "not run")
    assert len(reasons) >= 10 and set(reasons.values()) == {"not run"}


def test_timed_out_instances_are_censored_in_the_table():
    meta = {"dataset": "toy", "n_features": 4, "n_nodes": 5, "accuracy_train": 1.0,
            "accuracy_test": 1.0}
    done = {"status": "done", "verified": True, "n_axps": 2, "n_cxps": 1, "axps_len": 1.0,
            "cxps_len": 2.0}
    recs = [done | {"cpu_s": 1.0, "time_s": 9.0}, done | {"cpu_s": 2.0, "time_s": 9.0},
            done | {"status": "timeout", "cpu_s": 10.5, "time_s": 30.0, "verified": None},
            done | {"status": "timeout", "cpu_s": 10.2, "time_s": 30.0, "verified": None}]
    row = summarise(recs, meta, "obdd", None, "cpu", time_limit=10.0)
    assert row["timeouts"] == 2 and row["n_instances"] == 4
    assert row["time_avg_s"] == 1.5 and row["time_total_s"] == 3.0  # the finished ones
    assert row["time_avg_lb_s"] == (1.0 + 2.0 + 10.0 + 10.0) / 4  # censored at the limit
    assert row["axp_avg"] == 2.0 and row["time_clock"] == "cpu"
    wall = summarise(recs, meta, "obdd", None, "wall", time_limit=10.0)
    assert wall["time_avg_s"] == 9.0 and wall["time_avg_lb_s"] == (18 + 20) / 4


@pytest.mark.parametrize("clock, status", [("cpu", "timeout"), ("wall", "done")])
def test_the_time_limit_runs_on_the_configured_clock(mux6_dt, monkeypatch, clock, status):
    """A CPU clock that jumps 100 s per reading: only a run on the CPU clock times out."""
    from fxai import clocks
    from fxai.models import load as load_model
    from fxai.models.dtree import from_sklearn

    prep, model_path = mux6_dt
    ticks = iter(range(0, 10**6, 100))
    monkeypatch.setitem(clocks.CLOCKS, "cpu", lambda: float(next(ticks)))
    model = load_model(model_path, 6, family="dt")
    doms = [[0, 1]] * 6
    rec = explain_row("dt", model, from_sklearn(model, domains=doms), doms, [0] * 6,
                      time_limit=60.0, clock=clock)
    assert rec["status"] == status


def test_a_partial_of_another_code_version_is_explained_again(mux6_dt, tmp_path, monkeypatch,
                                                              caplog):
    prep, model = mux6_dt
    out = tmp_path / "r.jsonl"
    real, calls = explain_row, []

    def failing(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("simulated")
        return real(*args, **kw)

    monkeypatch.setenv("FXAI_CODE_VERSION", "0.1.0+gaaaaaaaaaaaa")
    monkeypatch.setattr("fxai.commands.xpg_explain.explain_row", failing)
    with pytest.raises(MemoryError):
        main(explain_args("xpg-explain", prep, model, out))
    part = tmp_path / "r.jsonl.partial"
    assert len(part.read_text().splitlines()) == 3  # header + 2 records of the old code
    monkeypatch.setattr("fxai.commands.xpg_explain.explain_row", real)
    monkeypatch.setenv("FXAI_CODE_VERSION", "0.1.0+gbbbbbbbbbbbb")  # e.g. a fix in oracles/
    counted = []
    monkeypatch.setattr("fxai.commands.xpg_explain.explain_row",
                        lambda *a, **kw: counted.append(1) or real(*a, **kw))
    assert main(explain_args("xpg-explain", prep, model, out)) == 0
    assert "written by code version 0.1.0+gaaaaaaaaaaaa (now 0.1.0+gbbbbbbbbbbbb)" in caplog.text
    recs = run_records(out)
    assert len(counted) == len(recs)  # every instance explained again, none kept
    assert json.loads(out.read_text().splitlines()[0])["code_version"] == "0.1.0+gbbbbbbbbbbbb"
