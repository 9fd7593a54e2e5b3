"""fxai xpg-train / xpg-explain / xpg-table on tiny prepared tables written here."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fxai.cli import main
from fxai.commands.xpg_explain import select_instances
from fxai.commands.xpg_table import build
from fxai.data.prepare import write_prepared as fxai_write_prepared


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
                 "--split", str(prep / "toy.split.json"), "--out-dir", str(models)]) == 0
    meta = json.loads((models / "toy.meta.json").read_text())
    assert meta["n_nodes"] >= 3 and meta["accuracy_test"] > 0.7
    if family == "obdd":
        assert meta["n_nodes"] == 9  # the mux6 OBDD with address bits first
        assert (models / "toy.dlist.json").exists()
    args = ["xpg-explain", "--family", family, "--dataset", "toy", "--model", str(model),
            "--prepared", str(prep), "--out", str(run)]
    assert main(args + ["--max-instances", "20"]) == 0
    recs = [json.loads(line) for line in run.read_text().splitlines()]
    assert len(recs) == 20 and all(r["status"] == "done" and r["verified"] for r in recs)
    assert main(args) == 0  # resumes: only the missing instances are added
    recs = [json.loads(line) for line in run.read_text().splitlines()]
    n_distinct = len(np.unique(X, axis=0))
    assert len(recs) == n_distinct == len({r["instance"] for r in recs})
    assert all(r["verified"] for r in recs)
    df = build([str(run)], [str(models / "toy.meta.json")], family, None)
    row = df.iloc[0]
    assert row["n_instances"] == n_distinct and row["verified_pct"] == 100.0
    cpu = build([str(run)], [str(models / "toy.meta.json")], family, None, "cpu").iloc[0]
    assert cpu["time_clock"] == "cpu" and cpu["time_avg_s"] <= row["time_max_s"] + 0.01
    assert row["axp_min"] >= 1 and row["xps_avg"] == pytest.approx(
        np.mean([len(r["axps"]) + len(r["cxps"]) for r in recs]), abs=0.01)


def test_select_instances_follows_the_paper():
    X = np.repeat(np.arange(3000).reshape(-1, 1), 2, axis=0)  # 3000 distinct rows, twice
    ids = select_instances(X, 1000, 0.3, seed=0)
    assert len(ids) == 900 and len(set(X[ids, 0])) == 900
    assert ids == select_instances(X, 1000, 0.3, seed=0)
    small = select_instances(X[:1000], 1000, 0.3, seed=0)
    assert len(small) == 500
    assert len(select_instances(X, 1000, 0.3, seed=0, cap=50)) == 50


def test_obdd_rejects_non_binary_features(tmp_path):
    prep = tmp_path / "prepared"
    X = np.column_stack([np.arange(40) % 3, np.arange(40) % 2])
    write_prepared(prep, "tri", X, X[:, 1], ["categorical", "binary"])
    with pytest.raises(SystemExit, match="binary features"):
        main(["xpg-train", "--family", "obdd", "--dataset", "tri", "--prepared", str(prep),
              "--split", str(prep / "tri.split.json"), "--out-dir", str(tmp_path / "m")])
