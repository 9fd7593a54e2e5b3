"""fxai audit-run / audit-table end to end (with the user score of docs/audit.md), the
measures on constructed cases, and the audit rules of the workflow."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from test_workflow import ROOT, dry_run, out
from test_xpg_commands import write_prepared

from fxai.attribution.measures import disagreement
from fxai.cli import main
from fxai.runfile import read_run

DOC = ROOT / "docs" / "audit.md"


def doc_score_module() -> str:
    """The code block of docs/audit.md that starts with ``# my_scores.py``."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    return next(b for b in blocks if b.startswith("# my_scores.py"))


@pytest.fixture
def mux6(tmp_path):
    X = np.array([[int(b) for b in f"{k:06b}"] for k in range(64)] * 2)
    y = np.array([x[2 + 2 * x[0] + x[1]] for x in X])
    prep, models = tmp_path / "prepared", tmp_path / "models"
    write_prepared(prep, "toy", X, y, ["binary"] * 6)
    assert main(["xpg-train", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
                 "--split", str(prep / "toy.split.json"), "--out-dir", str(models), "--seed", "0",
                 "--learner", "cart", "--depths", "3", "4", "5", "6", "--val-size", "0.2"]) == 0
    return prep, models / "toy.joblib"


def audit_args(prep, model, out, *extra):
    return ["audit-run", "--family", "dt", "--dataset", "toy", "--prepared", str(prep),
            "--model", str(model), "--split", str(prep / "toy.split.json"), "--out", str(out),
            "--background", "8", "--lime-samples", "200", *_settings(extra)]


def _settings(extra: tuple | list) -> list:
    """``extra`` and the config settings audit-run requires (the audit schema's defaults)
    that ``extra`` does not give."""
    given = set(extra)
    defaults = {"--points": "all", "--max-points": "1024", "--instances": "20",
                "--time-limit": "10", "--scores": "shapley,shapley_background,shap,lime,ffa,"
                "holler_packel,deegan_packel,responsibility", "--shapley-value": "probability",
                "--seed": "0"}
    return [*extra, *(x for k, v in defaults.items() if k not in given for x in (k, v))]


def test_audit_end_to_end_with_the_documented_user_score(mux6, tmp_path, monkeypatch):
    prep, model = mux6
    (tmp_path / "my_scores.py").write_text(doc_score_module())
    monkeypatch.syspath_prepend(str(tmp_path))
    run = tmp_path / "runs" / "dt_toy.jsonl"
    args = audit_args(prep, model, run, "--user-score", "my_scores:occlusion")
    assert main(args) == 0
    head, recs = read_run(run)
    assert len(recs) == 64 and head["settings"]["points"] == "all"
    clf = joblib.load(model)
    space = np.array([[int(b) for b in f"{k:06b}"] for k in range(64)])
    for r in recs:
        x = np.array(r["x"])
        assert np.array_equal(x, space[r["instance"]])
        assert r["status"] == "done" and r["verified"] and r["complete"]
        s = r["scores"]
        assert set(s) == {"shapley", "shapley_background", "shap", "lime", "my_scores:occlusion",
                          "ffa", "holler_packel", "deegan_packel", "responsibility"}
        # efficiency of the exact (uniform) Shapley values: v(N) - v(empty set)
        v0 = float(np.mean(clf.predict(space) == r["prediction"]))
        assert sum(s["shapley"]["values"]) == pytest.approx(1 - v0, abs=1e-12)
        for name in ("ffa", "holler_packel", "deegan_packel", "responsibility"):
            assert not any(s[name][k] for k in ("irrelevant_ge", "relevant_zero",
                                                "irrelevant_nonzero") if s[name][k] is not None)
        for name in s:
            assert len(s[name]["values"]) == 6 and s[name]["time_s"] >= 0
    before = run.read_bytes()
    assert main(args) == 0 and run.read_bytes() == before  # complete: resumes to no work
    tables, figs = tmp_path / "tables", tmp_path / "figures"
    assert main(["audit-table", str(run), "--out-dir", str(tables),
                 "--figures-dir", str(figs)]) == 0
    tidy = pd.read_csv(tables / "audit_instances.csv")
    assert len(tidy) == 64 * 9 and tidy["ground_truth"].all()
    summary = pd.read_csv(tables / "audit_summary.csv")
    assert (summary["instances"] == 64).all() and len(summary) == 9
    formal = summary[summary["score"].isin(["ffa", "holler_packel", "responsibility"])]
    assert (formal[["irr_ge_pct", "rel_zero_pct", "irr_nonzero_pct"]] == 0).all().all()
    user = summary[summary["score"] == "my_scores:occlusion"].iloc[0]
    want = tidy[tidy["score"] == "my_scores:occlusion"]["irrelevant_nonzero"].dropna()
    assert user["irr_nonzero_pct"] == pytest.approx(100 * want.astype(bool).mean(), abs=0.05)
    for name in ("audit_gap", "audit_disagreement"):
        assert (figs / f"{name}.png").stat().st_size > 0 and (figs / f"{name}.pdf").is_file()


def test_a_score_that_cannot_load_or_misbehaves_stops_naming_it(mux6, tmp_path, fxai_cli,
                                                                 monkeypatch):
    prep, model = mux6
    run = tmp_path / "runs" / "r.jsonl"
    code, err = fxai_cli(*audit_args(prep, model, run, "--user-score", "no_such_mod:f"))
    assert code != 0 and "score 'no_such_mod:f': cannot import module" in err
    assert "Traceback" not in err and not run.parent.exists()
    (tmp_path / "bad_scores.py").write_text("def short(model, bg, x, names):\n    return [1.0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["fxai"])
    assert main(audit_args(prep, model, run, "--user-score", "bad_scores:short",
                           "--scores", "ffa")) == 1
    assert not run.exists()


def test_points_fall_back_to_test_rows_beyond_max_points(mux6, tmp_path):
    prep, model = mux6
    run = tmp_path / "r.jsonl"
    assert main(audit_args(prep, model, run, "--max-points", "10", "--instances", "5",
                           "--scores", "shapley,ffa", "--shapley-value", "class")) == 0
    head, recs = read_run(run)
    test = json.loads((prep / "toy.split.json").read_text())["test"]
    assert head["settings"]["points"] == "test" and len(recs) == 5
    assert all(r["instance"] in test and r["points"] == "test" for r in recs)
    space = np.array([[int(b) for b in f"{k:06b}"] for k in range(64)])
    mean_class = float(np.mean(joblib.load(model).predict(space)))
    for r in recs:  # value "class": efficiency is kappa(x) - E[kappa]
        phi = r["scores"]["shapley"]["values"]
        assert sum(phi) == pytest.approx(r["prediction"] - mean_class, abs=1e-12)


def test_measures_on_constructed_scores():
    # relevant {0, 1}, irrelevant {2, 3}
    m = disagreement([0.0, 0.4, 0.4, 0.0], [0, 1], {0: 0.5, 1: 1.0})
    assert (m["irrelevant_ge"], m["irrelevant_gt"], m["top_irrelevant"]) == (True, True, True)
    assert (m["relevant_zero"], m["irrelevant_nonzero"], m["gap"]) == (True, True, -1.0)
    m = disagreement([0.5, -0.7, 0.5, 0.0], [0, 1], {0: 0.5, 1: 1.0})
    assert (m["irrelevant_ge"], m["irrelevant_gt"], m["top_irrelevant"]) == (True, False, False)
    m = disagreement([0.5, -1.0, 1e-17, 0.0], [0, 1], {0: 0.5, 1: 1.0})
    assert not m["irrelevant_ge"] and not m["irrelevant_nonzero"] and m["gap"] == 0.5
    assert m["kendall_tau"] == pytest.approx(1.0) and m["rbo"] == pytest.approx(1.0)
    m = disagreement([0.2, 0.1], [0, 1])  # nothing irrelevant: comparisons undefined
    assert m["irrelevant_ge"] is None and m["gap"] is None and m["relevant_zero"] is False


def test_default_profile_audits_every_configured_model():
    r = dry_run("results/default/tables/audit_summary.csv", "--forcerun", "audit_run")
    assert r.returncode == 0, out(r)[-3000:]
    for fam, ds in [("dt", "threeOf9"), ("obdd", "mux6"), ("nbc", "corral"), ("bt", "mux6")]:
        assert f"results/default/runs/audit/{fam}_{ds}.jsonl" in out(r)


def test_a_bad_audit_config_stops_naming_the_key(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("audit: {enabled: true, points: everywhere}\n")
    r = dry_run("--configfile", "config/config.yaml", str(cfg))
    assert r.returncode != 0 and "everywhere" in out(r)
    cfg.write_text("audit: {enabled: true, user_scores: [not-a-function]}\n")
    r = dry_run("--configfile", "config/config.yaml", str(cfg))
    assert r.returncode != 0 and "not-a-function" in out(r)


def test_audit_rule_passes_every_config_value_through_params():
    text = (ROOT / "workflow/rules/audit.smk").read_text()
    shell = text[text.index("rule audit_run"):text.index("rule audit_table")]
    shell = shell[shell.index("shell:"):]
    assert "AUDIT.get" not in shell and "config[" not in shell
    for key in ("points", "max_points", "instances", "background", "time_limit", "scores",
                "user_scores", "lime_samples", "shapley_value", "seed"):
        assert f"params.{key}" in shell, key
    assert Path(ROOT / "workflow/schemas/audit.schema.yaml").is_file()


def test_incomplete_or_unverified_ground_truth_is_excluded_from_every_rate():
    from fxai.experiments.audit import rows_of, summarise

    score = {"values": [1.0, 0.0], "time_s": 0.001, "irrelevant_ge": True,
             "irrelevant_gt": True, "top_irrelevant": True, "relevant_zero": True,
             "irrelevant_nonzero": False, "gap": -1.0, "kendall_tau": -1.0, "rbo": 0.0}
    base = {"model": "dt", "dataset": "toy", "x": [0, 1], "relevant": [1],
            "scores": {"s": score}}
    recs = [base | {"instance": 0, "status": "done", "verified": True},
            base | {"instance": 1, "status": "timeout", "verified": True},
            base | {"instance": 2, "status": "done", "verified": False}]
    tidy = pd.DataFrame([row for r in recs for row in rows_of(r)])
    assert tidy["ground_truth"].tolist() == [True, False, False]
    assert tidy["irrelevant_gt"].isna().tolist() == [False, True, True]
    row = summarise(tidy).iloc[0]
    assert (row["instances"], row["excluded"], row["irr_gt_pct"]) == (1, 2, 100.0)
