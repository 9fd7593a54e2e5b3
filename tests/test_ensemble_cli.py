"""fxai ensemble-train (rf, mbt, hgb, lgbm) on a small 3-class table, then cross-run on the
saved model: every explanation verified, the number of classes recorded."""

import json

import numpy as np
import pytest
from test_xpg_commands import write_prepared

from fxai.cli import main
from fxai.experiments import models
from fxai.models import load, model_path, n_classes
from fxai.runfile import iter_records


@pytest.mark.parametrize("family", ["rf", "mbt", "hgb", "lgbm"])
def test_train_then_cross_run(tmp_path, family):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (160, 4))
    y = (X[:, 0] + X[:, 2]) % 3
    prep = tmp_path / "prepared"
    write_prepared(prep, "toy3", X, y, ["categorical"] * 4)
    out = model_path(tmp_path, family, "toy3")
    split = str(prep / "toy3.split.json")
    assert main(["ensemble-train", "--family", family, "--data", str(prep / "toy3.csv"),
                 "--split", split, "--trees", "6", "--depth", "3", "--seed", "0",
                 "--out", str(out)]) == 0
    meta = json.loads(out.with_name("toy3.meta.json").read_text())
    assert meta["n_classes"] == 3 and meta["trees"] == 6 and meta["accuracy_test"] > 1 / 3
    from fxai.version import code_version

    assert meta["code_version"] == code_version()  # one code version in the models table
    row = models.row(out.with_name("toy3.meta.json"))  # the models table's classes
    assert row["n_classes"] == 3 and row["model"] == family
    model = load(out)
    assert n_classes(model) == 3
    runs = tmp_path / "cross.jsonl"
    assert main(["cross-run", "--dataset", "toy3", "--family", family, "--model", str(out),
                 "--split", split, "--prepared", str(prep), "--instances", "2",
                 "--time-limit", "5", "--clock", "cpu", "--delta", "0.95", "--seed", "0",
                 "--out", str(runs)]) == 0
    recs = list(iter_records(runs))
    assert len(recs) == 2
    assert all(r["verified"] and r["n_classes"] == 3 and r["status"] == "done" for r in recs)
    if family in ("hgb", "lgbm"):  # real features: no uniform measure for ApproxPAXps
        assert all("no uniform measure" in r["results"]["approx_paxp_skipped"] for r in recs)
    if family == "rf":  # rfh: the same forest file, explained and checked under the hard vote
        assert model_path(tmp_path, "rfh", "toy3") == out
        hard = tmp_path / "cross-hard.jsonl"
        assert main(["cross-run", "--dataset", "toy3", "--family", "rfh", "--model", str(out),
                     "--split", split, "--prepared", str(prep), "--instances", "2",
                     "--time-limit", "5", "--clock", "cpu", "--delta", "0.95", "--seed", "0",
                     "--out", str(hard)]) == 0
        recs = list(iter_records(hard))
        assert len(recs) == 2 and all(r["verified"] and r["model"] == "rfh" for r in recs)
