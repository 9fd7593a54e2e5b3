"""Bad inputs found by trying each command as a careless user would (issue 18's smaller
holes): each stops with exit 1 and one message naming the file, key or value, no traceback,
and leaves no output behind."""

import json
import logging
import os
import shutil
import subprocess

import pytest
import test_faults
from test_faults import DATA, REGISTRY, ROOT, SNAKEMAKE, TRAIN, fxai

from fxai.data.fetch import sha256_of

stages = test_faults.stages  # mux6 prepared, split, an NBC trained (a fixture)


@pytest.mark.parametrize("family", ["nbc", "obdd", "bt"])
def test_cross_run_refuses_a_model_of_another_family(tmp_path, capsys, stages, family):
    """A decision tree given as another family: refused (was: run and labelled `nbc`)."""
    prep, res = stages
    split = res / "splits/mux6.json"
    assert fxai(capsys, "xpg-train", "--family", "dt", "--dataset", "mux6", "--prepared", prep,
                "--split", split, "--out-dir", res / "models/dt", *TRAIN["dt"])[0] == 0
    model, out = res / "models/dt/mux6.joblib", tmp_path / "cross.jsonl"
    code, err = fxai(capsys, "cross-run", "--dataset", "mux6", "--family", family, "--model",
                     model, "--split", split, "--prepared", prep, "--out", out, "--instances", 2,
                     "--time-limit", 1, "--clock", "cpu", "--delta", 0.9, "--seed", 0)
    assert code == 1 and f"model file {model} is not a valid" in err, err
    assert "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("cross.jsonl*"))


def test_rows_dropped_for_missing_values_are_counted_in_the_log(tmp_path, caplog, monkeypatch):
    from test_data_prepare import CSV, make
    from test_data_prepare import run as prepare_toy

    monkeypatch.delenv("FXAI_DATA_MIRROR", raising=False)  # the toy file is local, not mirrored
    caplog.set_level(logging.INFO, logger="fxai.data.prepare")
    text = CSV + "blue,1,2.0,?\n"  # one row without a target, one ('?' weight) without a value
    p = prepare_toy(tmp_path, make(tmp_path, text, features={"default": "categorical",
                                                             "numeric": ["weight"]}, dedup=True))
    assert len(p.y) == 4
    log = caplog.text
    assert "(dataset toy): dropped 1 of 7 rows without a target value" in log
    assert ("(dataset toy): dropped 1 of 6 rows with a missing feature value "
            "(missing.policy drop)") in log
    assert "(dataset toy): dropped 1 duplicate rows of 5 (dedup)" in log


@pytest.mark.parametrize("labels,ok", [("xy", False), ("xxyy", True)])
def test_a_dataset_too_small_to_split_is_named_with_the_minimum(tmp_path, capsys, labels, ok):
    """2 rows (was: a traceback in the trainers, whose training rows held one class)."""
    prep = tmp_path / "prep"
    prep.mkdir()
    names = [{"name": "a", "type": "categorical", "values": list(range(len(labels))),
              "labels": list(map(str, range(len(labels))))}]
    table = "a,target\n" + "".join(f"{i},{int(c == 'y')}\n" for i, c in enumerate(labels))
    (prep / "toy.csv").write_text(table)
    (prep / "toy.domains.json").write_text(json.dumps({
        "name": "toy", "features": names, "source": "files",
        "target": {"name": "target", "classes": [0, 1], "labels": ["x", "y"]},
        "table": {"rows": len(labels), "sha256": sha256_of(prep / "toy.csv")}}))
    out = tmp_path / "splits/toy.json"
    code, err = fxai(capsys, "split", "toy", "--prepared", prep, "--out", out, *DATA)
    if ok:
        assert code == 0 and out.exists()
        return
    assert code == 1 and "Traceback" not in err
    assert f"dataset 'toy' has too few rows to split: {len(labels)} rows" in err
    assert "at least 2 rows of each of two classes" in err and not out.parent.exists()


BROKEN = {"flow": ("profile: x\nseed: [0\nnbc: {a: 1}\n",
                   "YAML syntax error at line 3, column 4: expected ',' or ']', but got ':' "
                   "(while parsing a flow sequence from line 2)"),
          "indent": ("profile: x\n  seed: 0\n",
                     "YAML syntax error at line 2, column 7: mapping values are not allowed"),
          "list": ("- profile\n", "holds no mapping of keys (found list)")}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_check_config_names_the_file_and_line(tmp_path, capsys, case):
    text, message = BROKEN[case]
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    code, err = fxai(capsys, "check-config", ROOT / "config/config.yaml", bad)
    assert code == 1 and f"config file {bad}{'' if case == 'list' else ':'} {message}" in err
    assert fxai(capsys, "check-config", ROOT / "config/config.yaml",
                ROOT / "config/paper.yaml")[0] == 0


def test_a_yaml_error_in_the_default_config_is_named_by_the_workflow(tmp_path):
    """snakemake's own message names no file or line; the Snakefile checks the default config
    first (for --configfile files, `make run` runs fxai check-config)."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(BROKEN["indent"][0])
    r = subprocess.run([str(SNAKEMAKE), "-n", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                        "--cores", "1"], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert r.returncode != 0
    assert f"config file config/config.yaml: {BROKEN['indent'][1]}" in r.stdout + r.stderr


def test_an_unknown_config_key_is_named_with_the_nearest_valid_one(tmp_path, capsys):
    """A typo'd key: one line naming it and its nearest valid key (snakemake's validate
    printed the whole schema), from check-config and from the workflow itself."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("xpg:\n  time_limt: 5\ncluster:\n  group_component: {}\nsed: 1\n")
    code, err = fxai(capsys, "check-config", bad)
    assert code == 1 and err.count("\n") == 1, err
    assert (f"config file {bad}: unknown keys 'cluster.group_component' (did you mean "
            "'cluster.group_components'?); 'sed' (did you mean 'seed'?); 'xpg.time_limt' (did "
            "you mean 'xpg.time_limit'?)") in err
    r = subprocess.run([str(SNAKEMAKE), "-n", "-s", str(ROOT / "Snakefile"), "-d", str(ROOT),
                        "--cores", "1", "--configfile", str(bad)], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert r.returncode != 0 and "did you mean 'xpg.time_limit'?" in r.stdout + r.stderr
    assert "additionalProperties" not in r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_checks_the_config_files_first():
    r = subprocess.run(["make", "-n", "run", "CONFIG=config/paper.yaml config/paper-quick.yaml"],
                       cwd=ROOT, capture_output=True, text=True)
    lines = r.stdout.splitlines()
    check = next(i for i, ln in enumerate(lines) if "fxai.cli check-config config/paper.yaml "
                 "config/paper-quick.yaml" in ln)
    assert check < next(i for i, ln in enumerate(lines) if "snakemake" in ln)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """mux6 prepared and split, NBC and DT trained, a short run of nbc-explain, xpg-explain
    and cross-run each."""
    from fxai.cli import main

    d = tmp_path_factory.mktemp("runs")
    prep, split = d / "prep", d / "s.json"
    for args in [
        ["prepare", "mux6", "--registry", REGISTRY, "--out-dir", prep, "--source-order",
         "embedded,generated,files", *DATA],
        ["split", "mux6", "--prepared", prep, "--out", split, *DATA],
        ["nbc-train", "--data", prep / "mux6.csv", "--split", split, "--out", d / "nbc.joblib",
         "--alpha", 1, "--decimals", 3],
        ["xpg-train", "--family", "dt", "--dataset", "mux6", "--prepared", prep, "--split",
         split, "--out-dir", d / "dt", *TRAIN["dt"]],
        ["nbc-explain", "--data", prep / "mux6.csv", "--split", split, "--model",
         d / "nbc.joblib", "--out", d / "nbc.jsonl", "--instances", 2, "--deltas", 0.9,
         "--targets", 4, "--decimals", 3, "--seed", 0],
        ["xpg-explain", "--family", "dt", "--dataset", "mux6", "--prepared", prep, "--model",
         d / "dt/mux6.joblib", "--out", d / "dt.jsonl", "--max-instances", 2, "--time-limit",
         10, "--clock", "cpu", "--max-rows-all", 1000, "--fraction", 0.3, "--seed", 0],
    ]:
        assert main([str(a) for a in args]) == 0, args
    (d / "list.json").write_text("[1, 2]")
    (d / "obj.json").write_text('{"a": 1}')
    (d / "empty.csv").write_text("")
    return d


CASES = {  # case: (command and arguments, with {d} the fixture's folder; message)
    "nbc-table, a cut meta file": (
        "nbc-table --runs {d}/nbc.jsonl --models {d}/cut.meta.json --out-dir {d}/out",
        "NBC model meta file {d}/cut.meta.json is not valid JSON (Unterminated string"),
    "nbc-table, an xpg-explain run file": (
        "nbc-table --runs {d}/dt.jsonl --models {d}/nbc.meta.json --out-dir {d}/out",
        "{d}/dt.jsonl: a run file of 'fxai xpg-explain', not of 'fxai nbc-explain'"),
    "xpg-table, DT runs as OBDD runs": (
        "xpg-table --family obdd --runs {d}/dt.jsonl --metas {d}/dt/mux6.meta.json "
        "--out-dir {d}/out --name t --clock cpu --missing-reason none",
        "{d}/dt/mux6.meta.json: not the meta file of a obdd model (family 'dt')"),
    "xpg-table, a meta file that is not one": (
        "xpg-table --family dt --runs {d}/dt.jsonl --metas {d}/obj.json --out-dir {d}/out "
        "--name t --clock cpu --missing-reason none",
        "{d}/obj.json: not the meta file of a dt model"),
    "cross-table, an nbc-explain run file": (
        "cross-table {d}/nbc.jsonl --out-dir {d}/out",
        "{d}/nbc.jsonl: a run file of 'fxai nbc-explain', not of 'fxai cross-run'"),
    "ffa-run, an instance beyond the test rows": (
        "ffa-run --model {d}/nbc.joblib --data {d}/prep/mux6.csv --split {d}/s.json "
        "--instance 999 --method marco-a --time-limit 1 --out {d}/out/r.json --seed 0 "
        "--clock cpu --window 50 --alpha 2 --eps 1 --switch-variant paper",
        "instance index 999 out of range: the test split has 26 rows"),
    "ffa-verify, a JSON list": (
        "ffa-verify --run {d}/list.json --model {d}/nbc.joblib --out {d}/out/c.json",
        "{d}/list.json: last line cut off"),
    "ffa-report, a JSON object that is no run record": (
        "ffa-report --runs {d}/obj.json --figures-dir {d}/out --tables-dir {d}/out "
        "--variant paper --registry config/datasets.yaml",
        "{d}/obj.json: no 'fxai_run' header line: not a run file"),
    "report index, an empty provenance file": (
        "report index --results {d} --provenance {d}/empty.csv --out {d}/out/i.md",
        "provenance file {d}/empty.csv is not valid JSON"),
    "report table-html, an empty table": (
        "report table-html {d}/empty.csv --out {d}/out/t.html",
        "table {d}/empty.csv is not a CSV table"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_inputs_of_the_table_and_run_commands(runs, capsys, case):
    """Each was a traceback or (xpg-table) a table silently labelled with the wrong family."""
    d = runs
    cut = d / "cut.meta.json"
    cut.write_text((d / "nbc.meta.json").read_text()[:30])
    args, message = CASES[case]
    code, err = fxai(capsys, *args.format(d=d).split())
    assert code == 1 and "Traceback" not in err, err
    assert message.format(d=d) in err
    assert not (d / "out").exists()


@pytest.fixture(scope="module")
def mixed(runs):
    """``runs`` plus iris (three classes, real-valued features) prepared and split, an XGBoost
    model of mux6 and a registry that is not YAML: inputs that do not go together."""
    from fxai.cli import main

    d = runs
    for args in [
        ["prepare", "iris", "--registry", REGISTRY, "--out-dir", d / "prep", "--source-order",
         "embedded,generated,files", *DATA],
        ["split", "iris", "--prepared", d / "prep", "--out", d / "iris.json", *DATA],
        ["bt-train", "--data", d / "prep/mux6.csv", "--split", d / "s.json", "--trees", 2,
         "--depth", 2, "--seed", 0, "--out", d / "bt.json"],
        ["ffa-run", "--model", d / "bt.json", "--data", d / "prep/mux6.csv", "--split",
         d / "s.json", "--instance", 0, "--method", "marco-a", "--time-limit", 5, "--out",
         d / "ffa.jsonl", *FFA.split()],
    ]:
        assert main([str(a) for a in args]) == 0, args
    (d / "broken.yaml").write_text("a: [1\n")
    return d


FFA = "--seed 0 --clock cpu --window 50 --alpha 2 --eps 1 --switch-variant paper"
MISMATCHED = {  # case: (command and arguments, with {d} the fixture's folder; message)
    "nbc-train, real-valued features": (
        "nbc-train --data {d}/prep/iris.csv --split {d}/iris.json --out {o}/m.joblib "
        "--alpha 1 --decimals 3", "{d}/prep/iris.csv: the NBC needs categorical"),
    "nbc-train, the split of another table": (
        "nbc-train --data {d}/prep/mux6.csv --split {d}/iris.json --out {o}/m.joblib "
        "--alpha 1 --decimals 3", "split file {d}/iris.json does not match its prepared table"),
    "bt-train, three classes": (
        "bt-train --data {d}/prep/iris.csv --split {d}/iris.json --trees 2 --depth 2 --seed 0 "
        "--out {o}/b.json", "{d}/prep/iris.csv: bt-train needs a binary target"),
    "ensemble-train mbt, two classes": (
        "ensemble-train --family mbt --data {d}/prep/mux6.csv --split {d}/s.json --trees 2 "
        "--depth 2 --seed 0 --out {o}/m.json",
        "{d}/prep/mux6.csv: --family mbt (multi:softprob) needs three or more classes"),
    "ffa-run, the model of another dataset": (
        "ffa-run --model {d}/bt.json --data {d}/prep/iris.csv --split {d}/iris.json "
        "--instance 0 --method marco-a --time-limit 5 --out {o}/r.json " + FFA,
        "model file {d}/bt.json takes 6 features, the table {d}/prep/iris.csv has 4"),
    "cross-run, the model of another dataset": (
        "cross-run --dataset iris --family dt --model {d}/dt/mux6.joblib --split {d}/iris.json "
        "--prepared {d}/prep --out {o}/c.jsonl --instances 2 --time-limit 5 --clock cpu "
        "--delta 0.9 --seed 0",
        "model file {d}/dt/mux6.joblib takes 6 features, the table {d}/prep/iris.csv has 4"),
    "audit-run, the model of another dataset": (
        "audit-run --dataset iris --family dt --model {d}/dt/mux6.joblib --split {d}/iris.json "
        "--prepared {d}/prep --out {o}/a.jsonl --points all --max-points 8 --instances 2 "
        "--background 4 --time-limit 5 --scores ffa --lime-samples 100 --shapley-value "
        "probability --seed 0",
        "model file {d}/dt/mux6.joblib takes 6 features, the table {d}/prep/iris.csv has 4"),
    "xpg-train, a published table that does not exist": (
        "xpg-train --family dt --dataset mux6 --prepared {d}/prep --split {d}/s.json "
        "--out-dir {o} --seed 0 --learner sized --size-method leaves --size-reference "
        "nowhere", "no reference table 'nowhere'"),
    "xpg-train, an option its learner needs": (
        "xpg-train --family dt --dataset mux6 --prepared {d}/prep --split {d}/s.json "
        "--out-dir {o} --seed 0 --learner cart --val-size 0.2",
        "--family dt --learner cart needs --depths"),
    "xpg-table, a published table that does not exist": (
        "xpg-table --family dt --runs {d}/dt.jsonl --metas {d}/dt/mux6.meta.json --out-dir "
        "{o} --name t --clock cpu --missing-reason none --reference nowhere",
        "no reference table 'nowhere'"),
    "fetch, a registry that is not YAML": (
        "fetch mux6 --registry {d}/broken.yaml",
        "dataset registry {d}/broken.yaml is not valid YAML: YAML syntax error at line 2"),
    "ffa-verify, another model than the run's": (
        "ffa-verify --run {d}/ffa.jsonl --model {d}/nbc.joblib --out {o}/c.jsonl",
        "model file {d}/nbc.joblib is not the model the run {d}/ffa.jsonl explained"),
    "report figure, no results folder": (
        "report figure nbc_precision --results {d}/nowhere --out {o}",
        "results folder {d}/nowhere does not exist"),
    "report index, no claims table": (
        "report index --results {d} --claims {d}/nowhere.csv --out {o}/i.md",
        "No such file or directory: '{d}/nowhere.csv'"),
}


@pytest.mark.parametrize("case", sorted(MISMATCHED))
def test_inputs_that_do_not_go_together(mixed, tmp_path, fxai_cli, case):
    """Each was a traceback (or, report figure, an empty figure of a folder that is not
    there): now one line naming the file or option, exit 1, nothing written."""
    d, o = mixed, tmp_path / "out"
    args, message = MISMATCHED[case]
    code, err = fxai_cli(*args.format(d=d, o=o).split())
    assert code == 1 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and message.format(d=d) in err, err
    assert not o.exists() and not (d / "nowhere").exists()


def test_a_valid_model_of_another_type_gets_no_advice_to_delete_it(tmp_path):
    """A user's own AdaBoostClassifier is readable, just not a supported family:
    the error names its type and never says to delete it."""
    import joblib
    from sklearn.ensemble import AdaBoostClassifier

    from fxai import models

    path = tmp_path / "mine.joblib"
    joblib.dump(AdaBoostClassifier(n_estimators=2).fit([[0], [1]], [0, 1]), path)
    with pytest.raises(models.ModelError, match="it holds a AdaBoostClassifier") as e:
        models.load(path)
    assert "delete" not in str(e.value) and "pass a model of one of those types" in str(
        e.value)


def test_what_people_save_with_joblib_is_read_and_the_rest_exits_2(tmp_path, capsys):
    """Issue 66: an XGBClassifier saved with joblib was refused as "not a valid joblib
    model"; a model fxai cannot read (AdaBoost, a regressor, a multi-output tree) gave exit 1
    and a TypeError text, or a traceback. XGBoost is read; the others exit 2 with one line
    naming what the model is and what fxai reads."""
    import joblib
    import numpy as np
    import pandas as pd
    import xgboost as xgb
    from sklearn.ensemble import AdaBoostClassifier, RandomForestRegressor
    from sklearn.tree import DecisionTreeClassifier

    from fxai.cli import main

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (60, 3)).astype(float)
    y = (X[:, 0] > X[:, 1]).astype(int)
    pd.DataFrame(X[:2], columns=list("abc")).to_csv(tmp_path / "rows.csv", index=False)
    models = {"xgb": xgb.XGBClassifier(n_estimators=3, max_depth=2).fit(X, y),
              "ada": AdaBoostClassifier(n_estimators=2).fit(X, y),
              "regressor": RandomForestRegressor(n_estimators=2).fit(X, y),
              "two_outputs": DecisionTreeClassifier().fit(X, np.c_[y, 1 - y])}
    said = {"ada": "it holds a AdaBoostClassifier; fxai reads a CategoricalNB",
            "regressor": "it holds a RandomForestRegressor; fxai reads",
            "two_outputs": "a DecisionTreeClassifier with 2 outputs (fitted on a 2-column"}
    for name, model in models.items():
        joblib.dump(model, tmp_path / f"{name}.joblib")
        out = tmp_path / f"{name}.json"
        code = main(["explain", "--model", str(tmp_path / f"{name}.joblib"), "--instances",
                     str(tmp_path / "rows.csv"), "--out", str(out)])
        err = capsys.readouterr().err
        if name == "xgb":
            assert code == 0 and out.exists()
            continue
        assert code == 2 and not out.exists(), err
        assert len(err.strip().splitlines()) == 1 and said[name] in err, err
