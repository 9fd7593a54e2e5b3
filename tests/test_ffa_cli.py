"""``fxai ffa-run`` and ``fxai ffa-verify`` end to end on a tiny XGBoost model: the three
methods agree and every explanation is verified; a wrong one is caught; a run file resumes."""

import json

import numpy as np
import pandas as pd
import pytest
from ffa_files import write_run

from fxai.cli import main
from fxai.data.fetch import sha256_of
from fxai.data.prepare import write_prepared
from fxai.models import boosted
from fxai.runfile import read_run, run_records
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


def ffa_run(tiny, method, out, *ks, model="model.json", window="2", limit="30"):
    return main(["ffa-run", "--model", str(tiny / model), "--data", str(tiny / "toy.csv"),
                 "--split", str(tiny / "split.json"), "--instance", *map(str, ks), "--method",
                 method, "--time-limit", limit, "--window", window, *SETTINGS, "--out", str(out)])


def test_no_time_limit_runs_to_the_exact_ffa(tiny):
    """``--time-limit none`` (config ``ffa.time_limit: null``, the paper-exact profile)."""
    out = tiny / "runs" / "unlimited.jsonl"
    assert ffa_run(tiny, "marco-s", out, 0, limit="none") == 0
    head, (rec,) = read_run(out)
    assert head["settings"]["time_limit"] is None
    assert rec["time_limit"] is None and rec["status"] == "done" and rec["complete"]
    assert verify_run(tiny, out)[0]["verified"] is True


def test_three_methods_agree_and_verify(tiny):
    ffas = []
    for method in ("marco-a", "marco-c", "marco-s"):
        out = tiny / "runs" / f"{method}.jsonl"
        assert ffa_run(tiny, method, out, 0, 1) == 0
        head, recs = read_run(out)
        assert head["command"] == "ffa-run" and [r["k"] for r in recs] == [0, 1]
        for rec in recs:
            assert rec["status"] == "done", rec.get("error")
            assert rec["code_version"] == code_version()
            assert rec["dataset"] == "toy" and 160 <= rec["instance"] < 200
        checks = verify_run(tiny, out)
        for rec, check in zip(recs, checks, strict=True):
            assert check["instance"] == rec["instance"] and check["verified"] is True
            assert check["n_checked"] == rec["n_axps"] + rec["n_cxps"]
        assert not out.with_name(out.name + ".partial").exists()
        ffas.append([r["ffa"] for r in recs])
    assert ffas[0] == ffas[1] == ffas[2]


def test_a_killed_run_keeps_its_finished_instances(tiny):
    out = tiny / "resume" / "marco-a.jsonl"
    assert ffa_run(tiny, "marco-a", out, 0) == 0
    first = out.read_text().splitlines()[1]
    out.rename(out.with_name(out.name + ".partial"))  # as if killed after instance 0
    assert ffa_run(tiny, "marco-a", out, 0, 1) == 0
    lines = out.read_text().splitlines()
    assert lines[1] == first and json.loads(lines[2])["k"] == 1


def verify_run(tiny, run, model="model.json"):
    out = run.with_suffix(".check.jsonl")
    assert main(["ffa-verify", "--run", str(run), "--model", str(tiny / model),
                 "--out", str(out)]) == 0
    return run_records(out, "ffa-verify")


def test_wrong_explanations_are_caught(tiny):
    rec = read_run(tiny / "runs" / "marco-a.jsonl")[1][0]
    axp, cxp = rec["axps"][0], rec["cxps"][0]
    rec["axps"] = [axp, axp[1:]] if len(axp) > 1 else [axp, []]  # a subset is not sufficient
    rec["cxps"] = [cxp, sorted(set(cxp) | set(axp))]  # a superset is not minimal
    bad = write_ffa(tiny, "wrong.jsonl", rec)
    (check,) = verify_run(tiny, bad)
    assert check["verified"] is False and check["n_failed"] == 2
    assert check["failed_axps"] == [rec["axps"][1]] and check["failed_cxps"] == [rec["cxps"][1]]


def write_ffa(tiny, name, rec, model="model.json"):
    """``rec`` as the run file of ffa-run on ``model`` (its checksum in the header)."""
    path = write_run(tiny / name, [rec])
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head["inputs"] = {"model": {"file": str(tiny / model),
                                "sha256": sha256_of(tiny / model)}}
    path.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    return path


@pytest.mark.parametrize("name, text", [("cut.json", '{"learner": {"gradient_booster"'),
                                        ("absent.json", None)])
def test_bad_model_exits_nonzero_naming_it(tiny, fxai_cli, name, text):
    out = tiny / "bad" / "r.jsonl"
    if text is not None:
        (tiny / name).write_text(text)
    code, err = fxai_cli("ffa-run", "--model", tiny / name, "--data", tiny / "toy.csv",
                         "--split", tiny / "split.json", "--instance", "0", "--method",
                         "marco-a", "--time-limit", "5", "--window", "50", *SETTINGS, "--out",
                         out)
    assert code != 0 and f"model file {tiny / name} " in err
    assert not out.parent.exists()  # nothing written, not even a partial


def test_instance_out_of_range_exits_nonzero_without_traceback(tiny, fxai_cli):
    out = tiny / "range" / "r.jsonl"
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
    (check,) = verify_run(tiny, write_ffa(tiny, "empty.jsonl", rec))
    assert check["verified"] is None and check["n_checked"] == 0


def test_decision_tree_runs_and_verifies(tiny):
    import joblib
    from sklearn.tree import DecisionTreeClassifier

    from fxai import verify

    df = pd.read_csv(tiny / "toy.csv")
    X, y = df.drop(columns="target").to_numpy(), df["target"].to_numpy()
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[:160], y[:160])
    joblib.dump(clf, tiny / "dt.joblib")
    out = tiny / "dt" / "marco-s.jsonl"
    assert ffa_run(tiny, "marco-s", out, 0, model="dt.joblib", window="50") == 0
    (rec,) = run_records(out, "ffa-run")
    assert rec["status"] == "done" and rec["n_axps"] >= 1
    assert verify_run(tiny, out, "dt.joblib")[0]["verified"] is True
    axp = rec["axps"][0]
    ok_a, ok_c = verify.check_all(clf, rec["x"], [axp, axp[1:]],
                                  [sorted(set(range(5)) - set(axp))])  # fixing an AXp keeps it
    assert ok_a == [True, False] and ok_c == [False]
