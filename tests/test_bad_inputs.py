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
from test_faults import REGISTRY, ROOT, SNAKEMAKE, fxai

from fxai.data.fetch import sha256_of

stages = test_faults.stages  # mux6 prepared, split, an NBC trained (a fixture)


@pytest.mark.parametrize("family", ["nbc", "obdd", "bt"])
def test_cross_run_refuses_a_model_of_another_family(tmp_path, capsys, stages, family):
    """A decision tree given as another family: refused (was: run and labelled `nbc`)."""
    prep, res = stages
    split = res / "splits/mux6.json"
    assert fxai(capsys, "xpg-train", "--family", "dt", "--dataset", "mux6", "--prepared", prep,
                "--split", split, "--out-dir", res / "models/dt")[0] == 0
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
    code, err = fxai(capsys, "split", "toy", "--prepared", prep, "--out", out)
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
        ["prepare", "mux6", "--registry", REGISTRY, "--out-dir", prep],
        ["split", "mux6", "--prepared", prep, "--out", split],
        ["nbc-train", "--data", prep / "mux6.csv", "--split", split, "--out", d / "nbc.joblib",
         "--alpha", 1, "--decimals", 3],
        ["xpg-train", "--family", "dt", "--dataset", "mux6", "--prepared", prep, "--split",
         split, "--out-dir", d / "dt"],
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
        "--out-dir {d}/out --name t",
        "{d}/dt/mux6.meta.json: not the meta file of a obdd model (family 'dt')"),
    "xpg-table, a meta file that is not one": (
        "xpg-table --family dt --runs {d}/dt.jsonl --metas {d}/obj.json --out-dir {d}/out "
        "--name t", "{d}/obj.json: not the meta file of a dt model"),
    "cross-table, an nbc-explain run file": (
        "cross-table {d}/nbc.jsonl --out-dir {d}/out",
        "{d}/nbc.jsonl: a run file of 'fxai nbc-explain', not of 'fxai cross-run'"),
    "ffa-run, an instance beyond the test rows": (
        "ffa-run --model {d}/nbc.joblib --data {d}/prep/mux6.csv --split {d}/s.json "
        "--instance 999 --method marco-a --time-limit 1 --out {d}/out/r.json",
        "instance index 999 out of range: the test split has 26 rows"),
    "ffa-verify, a JSON list": (
        "ffa-verify --run {d}/list.json --model {d}/nbc.joblib --out {d}/out/c.json",
        "{d}/list.json: status None is not a finished run"),
    "ffa-report, a JSON object that is no run record": (
        "ffa-report --runs {d}/obj.json --figures-dir {d}/out --tables-dir {d}/out",
        "{d}/obj.json: not an FFA run record (missing ['dataset', 'method', 'instance', "
        "'status'])"),
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
