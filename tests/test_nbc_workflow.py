"""The NBC commands end to end on a small fixture of our own (train, explain, resume, table)."""

import json

import numpy as np
import pandas as pd
import pytest

from fxai.cli import main
from fxai.data.prepare import write_prepared
from fxai.runfile import run_records


def toy(tmp_path, classes: int = 2):
    rng = np.random.default_rng(3)
    doms = [2, 3, 4, 2, 5, 3, 2, 4, 3, 2, 3]
    n = 300
    y = rng.integers(0, classes, n)
    X = np.stack([np.where(rng.random(n) < 0.7, (y * (k + 1)) % d, rng.integers(0, d, n))
                  for k, d in enumerate(doms)], axis=1)
    names = [f"f{i}" for i in range(len(doms))]
    df = pd.DataFrame(X, columns=names)
    df["target"] = y
    csv = tmp_path / "toy.csv"
    feats = [{"name": c, "type": "categorical", "values": list(range(d))}
             for c, d in zip(names, doms, strict=True)]
    write_prepared(df, {"name": "toy", "features": feats,
                        "target": {"name": "target", "classes": list(range(classes)),
                                   "labels": list("abcde"[:classes])}},
                   tmp_path)
    ids = rng.permutation(n).tolist()
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"dataset": "toy", "seed": 0, "test_size": 0.2,
                                 "train": ids[:240], "test": ids[240:]}))
    return csv, split


@pytest.fixture
def prepared(tmp_path):
    return toy(tmp_path)


NBC_SETTINGS = ["--deltas", "0.9", "--targets", "4", "--decimals", "3", "--instances", "4",
                "--seed", "0"]


def test_train_explain_resume_table(prepared, tmp_path):
    csv, split = prepared
    model, runs = tmp_path / "m" / "toy.joblib", tmp_path / "runs" / "toy.jsonl"
    assert main(["nbc-train", "--data", str(csv), "--split", str(split),
                 "--out", str(model), "--alpha", "1", "--decimals", "3"]) == 0
    meta = json.loads(model.with_suffix(".meta.json").read_text())
    assert meta["accuracy_train"] > 0.6 and meta["n_features"] == 11
    args = ["nbc-explain", "--data", str(csv), "--split", str(split), "--model", str(model),
            "--out", str(runs), "--seed", "1", "--targets", "9", "4", "--deltas", "0.98",
            "0.95", "0.93", "0.90", "--decimals", "3"]
    assert main(args + ["--instances", "10"]) == 0
    first = runs.read_text().splitlines()[1:]
    partial = runs.with_name(runs.name + ".partial")
    runs.replace(partial)  # as if killed after 10 instances, in the middle of a line
    with partial.open("a") as fh:
        fh.write('{"dataset": "toy", "inst')
    assert main(args + ["--instances", "25"]) == 0  # more instances: the same settings
    assert not partial.exists()
    assert runs.read_text().splitlines()[1:11] == first  # kept, not recomputed
    recs = run_records(runs)
    assert len(recs) == 25 and len({r["instance"] for r in recs}) == 25
    for r in recs:
        assert r["status"] == "done" and r["verified"] is True
        assert len(r["approx_paxp"]) == 8
        axp = set(r["axps"][0])
        for s in r["approx_paxp"]:
            assert set(s["features"]) <= axp and s["precision"] >= s["delta"]
            assert s["trimmed"] == (len(axp) > s["target"])
    out = tmp_path / "tables"
    assert main(["nbc-table", "--runs", str(runs), "--models",
                 str(model.with_suffix(".meta.json")), "--out-dir", str(out)]) == 0
    t = pd.read_csv(out / "nbc_table7.csv")
    ours = t[t["dataset"] == "toy"]
    assert len(ours) == 8 and (ours["verified_pct"] == 100).all()
    assert (out / "nbc_table7.md").exists() and (out / "nbc_table7_datasets.tex").exists()


def test_multiclass_train_explain_table(tmp_path):
    """Three classes: AXps and ApproxPAXps (precision counted exactly) all verified, and
    the tables say how many classes the model has."""
    csv, split = toy(tmp_path, classes=3)
    model, runs = tmp_path / "m" / "toy.joblib", tmp_path / "runs" / "toy.jsonl"
    assert main(["nbc-train", "--data", str(csv), "--split", str(split),
                 "--out", str(model), "--alpha", "1.0", "--decimals", "3"]) == 0
    meta = json.loads(model.with_suffix(".meta.json").read_text())
    assert meta["classes"] == 3 and meta["scaled_accuracy_test"] is None
    assert main(["nbc-explain", "--data", str(csv), "--split", str(split), "--model",
                 str(model), "--out", str(runs), "--targets", "9", "2", "--instances",
                 "12", "--deltas", "0.9", "--decimals", "3", "--seed", "0"]) == 0
    recs = run_records(runs)
    assert len(recs) == 12 and len({r["prediction"] for r in recs}) > 1
    assert all(r["verified"] is True and r["classes"] == 3 for r in recs)
    assert all(s["precision"] >= s["delta"] and s["precision_err"] == 0
               for r in recs for s in r["approx_paxp"])
    out = tmp_path / "tables"
    assert main(["nbc-table", "--runs", str(runs), "--models",
                 str(model.with_suffix(".meta.json")), "--out-dir", str(out)]) == 0
    heads = pd.read_csv(out / "nbc_table7_datasets.csv")
    assert heads.loc[heads["dataset"] == "toy", "classes"].tolist() == [3]


def test_a_corrupt_model_exits_nonzero_naming_it(prepared, tmp_path, fxai_cli):
    csv, split = prepared
    bad = tmp_path / "bad.joblib"
    bad.write_bytes(b"\x80\x04 not a joblib file")
    out = tmp_path / "runs" / "toy.jsonl"
    code, err = fxai_cli("nbc-explain", "--data", csv, "--split", split, "--model", bad,
                         "--out", out, *NBC_SETTINGS)
    assert code != 0 and f"model file {bad} is not a valid naive Bayes" in err
    assert "cannot read the" not in err  # not wrapped a second time
    assert not out.parent.exists()
