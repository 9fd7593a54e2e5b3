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
from test_faults import ROOT, SNAKEMAKE, fxai

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
                     model, "--split", split, "--prepared", prep, "--out", out)
    assert code == 1 and f"model file {model} is not a valid" in err, err
    assert "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob("cross.jsonl*"))


def test_rows_dropped_for_missing_values_are_counted_in_the_log(tmp_path, caplog):
    from test_data_prepare import CSV, make
    from test_data_prepare import run as prepare_toy

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
