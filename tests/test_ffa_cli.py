"""``fxai ffa-run`` and ``fxai ffa-verify`` end to end on a tiny XGBoost model: the three
methods agree and every explanation is verified; a wrong one is caught."""

import json

import numpy as np
import pandas as pd
import pytest

from fxai.cli import main
from fxai.data.prepare import write_prepared
from fxai.models import boosted
from fxai.version import code_version

#: the settings ffa-run requires besides --window (the ffa schema's defaults)
SETTINGS = ["--seed", "0", "--clock", "cpu", "--alpha", "2", "--eps", "1",
            "--switch-variant", "paper"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("ffa")
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(200, 5)).astype(float)
    y = ((X[:, 0] + X[:, 1] > 3) ^ (X[:, 2] > 2)).astype(int)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)])
    df["target"] = y
    feats = [{"name": f"f{i}", "type": "categorical", "values": [0, 1, 2, 3]} for i in range(5)]
    write_prepared(df, {"name": "toy", "features": feats,
                        "target": {"name": "target", "classes": [0, 1]}}, d)
    (d / "split.json").write_text(json.dumps({"train": list(range(160)),
                                              "test": list(range(160, 200))}))
    boosted.save(boosted.train(X[:160], y[:160], trees=6, depth=2), d / "model.json", {})
    return d


@pytest.mark.parametrize("k", [0, 1])
def test_three_methods_agree_and_verify(tiny, k):
    ffas = []
    for method in ("marco-a", "marco-c", "marco-s"):
        out = tiny / method / f"{k}.json"
        assert main(["ffa-run", "--model", str(tiny / "model.json"), "--data",
                     str(tiny / "toy.csv"), "--split", str(tiny / "split.json"), "--instance",
                     str(k), "--method", method, "--time-limit", "30", "--window", "2",
                     *SETTINGS, "--out", str(out)]) == 0
        rec = json.loads(out.read_text())
        assert rec["status"] == "done", rec.get("error")
        assert out.read_text().startswith(f'{{"code_version": "{code_version()}"')
        assert rec["dataset"] == "toy" and 160 <= rec["instance"] < 200
        check = verify_run(tiny, out)
        assert check["verified"] is True and check["n_checked"] == rec["n_axps"] + rec["n_cxps"]
        assert not out.with_name(out.name + ".partial").exists()
        ffas.append(rec["ffa"])
    assert ffas[0] == ffas[1] == ffas[2]


def verify_run(tiny, run, model="model.json"):
    out = run.with_suffix(".check.json")
    assert main(["ffa-verify", "--run", str(run), "--model", str(tiny / model),
                 "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_wrong_explanations_are_caught(tiny):
    run = tiny / "marco-a" / "0.json"
    rec = json.loads(run.read_text())
    axp, cxp = rec["axps"][0], rec["cxps"][0]
    rec["axps"] = [axp, axp[1:]] if len(axp) > 1 else [axp, []]  # a subset is not sufficient
    rec["cxps"] = [cxp, sorted(set(cxp) | set(axp))]  # a superset is not minimal
    bad = tiny / "wrong.json"
    bad.write_text(json.dumps(rec))
    check = verify_run(tiny, bad)
    assert check["verified"] is False and check["n_failed"] == 2
    assert check["failed_axps"] == [rec["axps"][1]] and check["failed_cxps"] == [rec["cxps"][1]]


@pytest.mark.parametrize("name, text", [("cut.json", '{"learner": {"gradient_booster"'),
                                        ("absent.json", None)])
def test_bad_model_exits_nonzero_naming_it(tiny, fxai_cli, name, text):
    out = tiny / "bad" / "0.json"
    if text is not None:
        (tiny / name).write_text(text)
    code, err = fxai_cli("ffa-run", "--model", tiny / name, "--data", tiny / "toy.csv",
                         "--split", tiny / "split.json", "--instance", "0", "--method",
                         "marco-a", "--time-limit", "5", "--window", "50", *SETTINGS, "--out",
                         out)
    assert code != 0 and f"model file {tiny / name} " in err
    assert not out.parent.exists()  # nothing written, not even a partial


def test_instance_out_of_range_exits_nonzero_without_traceback(tiny, fxai_cli):
    out = tiny / "range" / "0.json"
    code, err = fxai_cli("ffa-run", "--model", tiny / "model.json", "--data", tiny / "toy.csv",
                         "--split", tiny / "split.json", "--instance", "500", "--method",
                         "marco-a", "--time-limit", "5", "--window", "50", *SETTINGS, "--out",
                         out)
    assert code == 1 and "Traceback" not in err
    assert (f"--instance 500 with split {tiny / 'split.json'}: instance index 500 out of "
            "range: the test split has 40 rows (use 0..39)") in err
    assert not out.parent.exists()


def test_nothing_checked_is_not_verified(tiny):
    rec = {"dataset": "toy", "method": "marco-a", "instance": 160, "k": 0, "x": [0.0] * 5,
           "axps": [], "cxps": [], "status": "timeout", "complete": False}
    empty = tiny / "empty.json"
    empty.write_text(json.dumps(rec))
    check = verify_run(tiny, empty)
    assert check["verified"] is None and check["n_checked"] == 0


def test_decision_tree_runs_and_verifies(tiny):
    import joblib
    from sklearn.tree import DecisionTreeClassifier

    from fxai import verify

    df = pd.read_csv(tiny / "toy.csv")
    X, y = df.drop(columns="target").to_numpy(), df["target"].to_numpy()
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[:160], y[:160])
    joblib.dump(clf, tiny / "dt.joblib")
    out = tiny / "dt" / "0.json"
    main(["ffa-run", "--model", str(tiny / "dt.joblib"), "--data", str(tiny / "toy.csv"),
          "--split", str(tiny / "split.json"), "--instance", "0", "--method", "marco-s",
          "--time-limit", "30", "--window", "50", *SETTINGS, "--out", str(out)])
    rec = json.loads(out.read_text())
    assert rec["status"] == "done" and rec["n_axps"] >= 1
    assert verify_run(tiny, out, "dt.joblib")["verified"] is True
    axp = rec["axps"][0]
    ok_a, ok_c = verify.check_all(clf, rec["x"], [axp, axp[1:]],
                                  [sorted(set(range(5)) - set(axp))])  # fixing an AXp keeps it
    assert ok_a == [True, False] and ok_c == [False]
