"""fxai bt-train on a tiny prepared table, then the oracle on the saved model."""

import json

import numpy as np
import pandas as pd

from fxai import oracles
from fxai.cli import main
from fxai.data.prepare import write_prepared as fxai_write_prepared
from fxai.models import boosted as B
from fxai.version import code_version


def write_prepared(root, name="toy", n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 4))
    y = ((X[:, 0] + X[:, 2]) >= 3).astype(int)
    df = pd.DataFrame(X, columns=[f"a{i}" for i in range(4)]).assign(target=y)
    feats = [{"name": f"a{i}", "type": "categorical", "values": [0, 1, 2]} for i in range(4)]
    doc = {"name": name, "features": feats,
           "target": {"name": "target", "classes": [0, 1], "labels": ["no", "yes"]}}
    fxai_write_prepared(df, doc, root)
    split = {"dataset": name, "seed": 0, "test_size": 0.25,
             "train": list(range(90)), "test": list(range(90, n))}
    (root / f"{name}.split.json").write_text(json.dumps(split))
    return X, y


def test_train_bt_writes_model_and_meta(tmp_path):
    X, y = write_prepared(tmp_path)
    out = tmp_path / "models" / "bt" / "toy.json"
    assert main(["bt-train", "--data", str(tmp_path / "toy.csv"), "--split",
                 str(tmp_path / "toy.split.json"), "--trees", "5", "--depth", "2",
                 "--seed", "1", "--out", str(out)]) == 0
    meta = json.loads((out.parent / "toy.meta.json").read_text())
    assert meta["trees"] == 5 and meta["depth"] == 2 and meta["seed"] == 1
    assert meta["n_classes"] == 2
    assert meta["n_train_unique"] <= 81 and meta["accuracy_test"] > 0.9
    assert meta["versions"]["xgboost"] and meta["code_version"] == code_version()
    booster = B.load(out)
    assert len(B.from_booster(booster).trees) == 5
    o = oracles.for_model(booster, X[95])
    assert set(o.features) <= {0, 1, 2, 3} and o.prediction == y[95]
