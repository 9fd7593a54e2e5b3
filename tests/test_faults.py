"""Fault injection (issue 11): bad input at each stage (raw file, prepared table, split, model,
run file), a missing mirror, and a failing command inside a rule. Each stops with a non-zero
exit and a message naming the file, and leaves nothing half-written. The commands run
in-process; the last tests run real snakemake on a tiny config in a temporary folder."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from fxai import models
from fxai.cli import main
from fxai.data.fetch import MIRROR_ENV, sha256_of
from fxai.runfile import make_header, run_records

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = str(ROOT / "config/datasets.yaml")
#: the config settings prepare/split and xpg-train require (the schemas' defaults)
DATA = ["--seed", 0, "--test-size", 0.2]
TRAIN = {"dt": ["--seed", 0, "--learner", "cart", "--depths", 3, 4, 5, 6, "--val-size", 0.2],
         "obdd": ["--seed", 0, "--beam-width", 10, "--min-covered", 1, "--max-rule-length", 5]}
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def fxai(capsys, *args) -> tuple[int, str]:
    """Exit code and stderr of ``fxai args`` run in-process."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# --- raw files and the mirror -------------------------------------------------------------

@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A mirror with one verified raw file and a registry naming it."""
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    src = tmp_path / "mirror" / "toy" / "toy.csv"
    src.parent.mkdir(parents=True)
    src.write_text("a,label\n" + "".join(f"{i % 3},{i % 2}\n" for i in range(40)))
    reg = {"version": 1, "datasets": {"toy": {
        "title": "toy", "aliases": [], "papers": [], "format": "csv", "target": "label",
        "files": [{"name": "toy.csv", "mirror": "toy/toy.csv", "sha256": sha256_of(src),
                   "urls": []}]}}}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "datasets.yaml").write_text(yaml.safe_dump(reg))
    return src


@pytest.mark.parametrize("fault", ["corrupt", "truncated"])
def test_raw_file_that_fails_its_checksum(tmp_path, capsys, mirror, fault):
    data = mirror.read_bytes()
    mirror.write_bytes(data.replace(b"1,", b"2,", 1) if fault == "corrupt" else data[:50])
    code, err = fxai(capsys, "fetch", "toy", "--registry", tmp_path / "config/datasets.yaml",
                     "--raw-root", tmp_path / "raw", "--mirror", tmp_path / "mirror")
    assert code == 1
    assert f"mirror file {mirror}: sha256" in err and "Traceback" not in err
    assert files_under(tmp_path / "raw") == []  # no half-written file, no manifest


def test_missing_mirror(tmp_path, capsys, mirror):
    code, err = fxai(capsys, "fetch", "toy", "--registry", tmp_path / "config/datasets.yaml",
                     "--raw-root", tmp_path / "raw", "--mirror", tmp_path / "nope")
    assert code == 1
    assert f"the data mirror {tmp_path / 'nope'} (set by data.mirror / --mirror) is not a " \
           "directory" in err
    assert not (tmp_path / "raw").exists()


# --- prepared tables, splits, models, run files ------------------------------------------

@pytest.fixture
def stages(tmp_path, capsys):
    """mux6 prepared, split, and an NBC trained on it, under tmp_path (prep/, results/)."""
    prep, res = tmp_path / "prep", tmp_path / "results"
    assert fxai(capsys, "prepare", "mux6", "--registry", REGISTRY, "--out-dir", prep,
                "--source-order", "embedded,generated,files", *DATA)[0] == 0
    assert fxai(capsys, "split", "mux6", "--prepared", prep, "--out",
                res / "splits/mux6.json", *DATA)[0] == 0
    assert fxai(capsys, "nbc-train", "--data", prep / "mux6.csv", "--split",
                res / "splits/mux6.json", "--out", res / "models/nbc/mux6.joblib",
                "--alpha", 1, "--decimals", 3)[0] == 0
    return prep, res


def cut_last_line(p: Path) -> None:
    p.write_text(p.read_text()[:-4])


def keep_30_rows(p: Path) -> None:
    p.write_text("".join(p.read_text().splitlines(keepends=True)[:31]))


def change_a_value(p: Path) -> None:
    lines = p.read_text().splitlines(keepends=True)
    lines[5] = lines[5].replace("0", "1", 1) if "0" in lines[5] else lines[5].replace("1", "0", 1)
    p.write_text("".join(lines))


@pytest.mark.parametrize("fault", [cut_last_line, keep_30_rows, change_a_value])
def test_prepared_table_changed_after_preparing(tmp_path, capsys, stages, fault):
    """The issue's cases: a cut last line (read as a NaN target), 101 -> 71 rows accepted."""
    prep, res = stages
    rows = json.loads((prep / "mux6.domains.json").read_text())["table"]["rows"]
    fault(prep / "mux6.csv")
    out = tmp_path / "fresh/splits/mux6.json"
    code, err = fxai(capsys, "split", "mux6", "--prepared", prep, "--out", out, *DATA)
    assert code == 1
    assert f"{prep / 'mux6.csv'} was changed or cut after it was prepared" in err
    assert f"records {rows} rows" in err and "fxai prepare mux6" in err
    assert not out.parent.exists()


def test_prepared_domains_file_cut(tmp_path, capsys, stages):
    prep, _ = stages
    cut_last_line(prep / "mux6.domains.json")
    code, err = fxai(capsys, "nbc-train", "--data", prep / "mux6.csv", "--split",
                     tmp_path / "results/splits/mux6.json", "--out", tmp_path / "m.joblib",
                     "--alpha", 1, "--decimals", 3)
    assert code == 1 and f"{prep / 'mux6.domains.json'} is not a valid domains file" in err
    assert not (tmp_path / "m.joblib").exists()


def test_prepared_table_without_its_record(tmp_path, capsys, stages):
    """A table written by hand or by an older fxai: no row count and checksum to check."""
    prep, _ = stages
    dom = prep / "mux6.domains.json"
    dom.write_text(json.dumps({k: v for k, v in json.loads(dom.read_text()).items()
                               if k != "table"}))
    code, err = fxai(capsys, "split", "mux6", "--prepared", prep, "--out", tmp_path / "s.json",
                     *DATA)
    assert code == 1 and f"{dom} records no row count and checksum of {prep / 'mux6.csv'}" in err
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize("fault,command", [
    ("truncated", "nbc-train"), ("overlapping", "nbc-train"), ("other table", "xpg-train")])
def test_split_file_fault(tmp_path, capsys, stages, fault, command):
    prep, res = stages
    split = res / "splits/mux6.json"
    doc = json.loads(split.read_text())
    if fault == "truncated":
        split.write_text(split.read_text()[:40])
    elif fault == "overlapping":
        split.write_text(json.dumps({**doc, "test": doc["test"] + doc["train"][:1]}))
    else:  # a split drawn for a table of another size
        split.write_text(json.dumps({**doc, "rows": 100, "test": doc["test"] + [80]}))
    out = tmp_path / "models"
    if command == "nbc-train":
        args = ["--data", prep / "mux6.csv", "--out", out / "mux6.joblib", "--alpha", 1,
                "--decimals", 3]
    else:
        args = ["--family", "dt", "--dataset", "mux6", "--prepared", prep, "--out-dir", out,
                *TRAIN["dt"]]
    code, err = fxai(capsys, command, "--split", split, *args)
    assert code == 1 and f"split file {split}" in err
    assert not out.exists()


@pytest.mark.heavy
@pytest.mark.parametrize("family", ["nbc", "dt", "obdd", "bt"])
@pytest.mark.parametrize("fault", ["truncated", "garbage", "missing"])
def test_model_file_fault_names_the_file(tmp_path, capsys, stages, family, fault):
    prep, res = stages
    split = res / "splits/mux6.json"
    if family == "bt":
        assert fxai(capsys, "bt-train", "--data", prep / "mux6.csv", "--split", split,
                    "--trees", 2, "--depth", 2, "--seed", 0,
                    "--out", res / "models/bt/mux6.json")[0] == 0
    elif family != "nbc":
        assert fxai(capsys, "xpg-train", "--family", family, "--dataset", "mux6", "--prepared",
                    prep, "--split", split, "--out-dir", res / "models" / family,
                    *TRAIN[family])[0] == 0
    path = models.model_path(res, family, "mux6")
    assert models.load(path, n_features=6) is not None
    data = path.read_bytes()
    if fault == "missing":
        path.unlink()
    else:
        path.write_bytes(data[: len(data) // 2] if fault == "truncated" else b"\x00junk" * 9)
    with pytest.raises(models.ModelError, match=str(path)) as e:
        models.load(path, n_features=6)
    said = "does not exist" if fault == "missing" else "delete it and rerun snakemake"
    assert said in str(e.value)
    assert fault == "missing" or "a model file of your own is not made" in str(e.value)
    assert "\n" not in str(e.value)  # one message, no C++ stack trace


def test_corrupt_models_stop_the_commands_that_read_them(tmp_path, capsys, stages):
    prep, res = stages
    nbc = res / "models/nbc/mux6.joblib"
    nbc.write_bytes(nbc.read_bytes()[:100])
    out = res / "runs/nbc/mux6.jsonl"
    code, err = fxai(capsys, "nbc-explain", "--data", prep / "mux6.csv", "--split",
                     res / "splits/mux6.json", "--model", nbc, "--out", out, "--deltas", 0.9,
                     "--targets", 4, "--decimals", 3, "--instances", 4, "--seed", 0)
    assert code != 0 and f"model file {nbc} is not a valid naive Bayes" in err
    assert "cannot read the" not in err  # the loader's message, not wrapped a second time
    assert not out.exists()
    bt = tmp_path / "bt.json"
    bt.write_text('{"learner": {"gradient_booster": ')
    record = tmp_path / "run.jsonl"
    head = json.dumps(make_header("ffa-run", {}, {"model": bt}, [0]))
    record.write_text(head + "\n" + json.dumps({"instance": 0, "x": [0] * 6}) + "\n")
    code, err = fxai(capsys, "ffa-verify", "--run", record, "--model", bt, "--out",
                     tmp_path / "check.jsonl")
    assert code == 1 and f"model file {bt} is not a valid XGBoost (JSON) model" in err
    assert not list(tmp_path.glob("check.jsonl*"))


@pytest.mark.parametrize("command", ["nbc-table", "cross-table", "ffa-verify"])
def test_corrupt_run_file(tmp_path, capsys, stages, command):
    prep, res = stages
    run = res / "runs/run.jsonl"
    run.parent.mkdir(parents=True)
    writer = {"cross-table": "cross-run", "ffa-verify": "ffa-run"}.get(command, "nbc-explain")
    model = res / "models/nbc/mux6.joblib"
    head = json.dumps(make_header(writer, {}, {"model": model}, [0, 1, 2]))
    run.write_text(head + '\n{"dataset": "mu\n{"dataset": "mux6", "status": "done"}\n{"a": 1}\n')
    tables = tmp_path / "tables"
    if command == "nbc-table":
        args = ["--runs", run, "--models", res / "models/nbc/mux6.meta.json",
                "--out-dir", tables]
    elif command == "cross-table":
        args = [run, "--out-dir", tables]
    else:
        args = ["--run", run, "--model", model, "--out", tables / "check.jsonl"]
    code, err = fxai(capsys, command, *args)
    assert code == 1
    assert f"{run}:2: not a JSON object" in err
    assert not tables.exists()


# --- the workflow: real rules on a tiny config --------------------------------------------

TINY = {
    "profile": "tiny",
    "data": {"extra_datasets": []},
    "nbc": {"datasets": ["mux6"], "instances": 4, "deltas": [0.95], "targets": [4]},
    **{s: {"enabled": False} for s in ("xpg", "ffa", "report", "cross", "audit")},
}


def snakemake(workdir: Path, *targets: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop(MIRROR_ENV, None)
    return subprocess.run(
        [str(SNAKEMAKE), *targets, "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
         "--cores", "2", "--configfile", str(workdir / "tiny.yaml")],
        capture_output=True, text=True, env=env, timeout=600, cwd=workdir)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """The workflow run once on a tiny config (mux6: prepare, split, NBC train/explain/table)."""
    workdir = tmp_path_factory.mktemp("tiny")
    (workdir / "config").symlink_to(ROOT / "config")
    (workdir / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    return workdir, snakemake(workdir)


@pytest.mark.slow
def test_end_to_end_tiny_workflow(tiny_run):
    workdir, r = tiny_run
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    res = workdir / "results/tiny"
    records = run_records(res / "runs/nbc/mux6.jsonl")
    assert sorted(len(r["x"]) for r in records) == [6] * 4
    assert all(r["status"] == "done" and r["axp_verified"] for r in records)
    table = (res / "tables/nbc_table7.csv").read_text()
    assert "mux6" in table
    assert "mux6" in (res / "tables/datasets.csv").read_text()
    prep = json.loads((workdir / "data/prepared/generated/mux6.domains.json").read_text())
    csv = (workdir / "data/prepared/generated/mux6.csv").read_text()
    assert prep["table"]["rows"] == csv.count("\n") - 1


@pytest.mark.slow
def test_failing_command_inside_a_rule(tiny_run):
    """A prepared table cut after the run: the rule split reruns and fails, naming the file;
    its output is removed; once the table is removed, the rule prepare reruns it."""
    workdir, first = tiny_run
    assert first.returncode == 0
    csv = workdir / "data/prepared/generated/mux6.csv"
    keep_30_rows(csv)
    r = snakemake(workdir)
    assert r.returncode != 0
    assert "Error in rule split" in r.stdout + r.stderr
    log = (workdir / "results/tiny/logs/data/split_mux6.log").read_text()
    assert "data/prepared/generated/mux6.csv was changed or cut after it was prepared" in log
    res = workdir / "results/tiny"
    assert not (res / "splits/mux6.json").exists()
    assert not [f for f in files_under(res) if Path(f).name.startswith(".")
                or f.endswith((".partial", ".part", ".tmp"))]
    csv.unlink()
    r = snakemake(workdir, "results/tiny/splits/mux6.json")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert json.loads((res / "splits/mux6.json").read_text())["rows"] == 128
    shutil.rmtree(workdir / ".snakemake", ignore_errors=True)
