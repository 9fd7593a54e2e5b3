"""Your own dataset and model through the workflow (config user.datasets, docs/your-data.md):
config/your-data.yaml run end to end as `make run CONFIG=config/your-data.yaml` runs it, and
the errors of a bad entry (file, checksum, target, names, model)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import joblib
import pandas as pd
import pytest
import yaml
from sklearn.tree import DecisionTreeClassifier

from fxai.commands import user_model
from fxai.data.fetch import MIRROR_ENV
from fxai.data.prepared import load
from fxai.data.registry import load_registry
from fxai.data.split import write_split
from fxai.data.user import check_entries, prepare_user
from fxai.errors import DataError, ModelError
from fxai.runfile import run_records

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
EXAMPLE = ROOT / "examples" / "your-data"
CONFIG = yaml.safe_load((ROOT / "config" / "your-data.yaml").read_text())
ENTRIES = {e["name"]: e for e in CONFIG["user"]["datasets"]}
COLUMNS = list(pd.read_csv(EXAMPLE / "loans.csv", nrows=0).columns)
RES = f"results/{CONFIG['profile']}"


def env() -> dict:
    e = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    e.pop(MIRROR_ENV, None)
    return e


def workdir(tmp: Path) -> Path:
    """A project folder holding the config (as the repository's) and the example files."""
    (tmp / "config").symlink_to(ROOT / "config")
    shutil.copytree(EXAMPLE, tmp / "examples" / "your-data")
    return tmp


def snakemake(wd: Path, *args: str, config: str = "config/your-data.yaml", server=()):
    return subprocess.run([*server, str(SNAKEMAKE), "-s", str(ROOT / "Snakefile"), "-d", str(wd),
                           "--configfile", config, *args], cwd=wd, env=env(),
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_your_data_config_end_to_end(tmp_path):
    """make run's commands: check-config, then snakemake with the profile local (2 cores,
    the report after the run) under the fork server."""
    wd = workdir(tmp_path)
    r = subprocess.run([sys.executable, "-m", "fxai.cli", "check-config", "config/your-data.yaml"],
                       cwd=wd, env=env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = snakemake(wd, "--profile", str(ROOT / "profiles" / "local"), "--cores", "2",
                  server=(sys.executable, "-m", "fxai.forkserver", "--"))
    assert r.returncode == 0, r.stderr[-3000:]
    docutils = re.findall(r".*\((?:INFO|WARNING|ERROR|SEVERE)/\d\).*", r.stdout + r.stderr)
    assert not docutils, "the report build printed docutils messages:\n" + "\n".join(docutils)
    runs = sorted((wd / RES / "runs" / "cross").glob("*.jsonl"))
    assert [p.name for p in runs] == ["bt_loans-own.jsonl", "dt_loans.jsonl", "nbc_loans.jsonl"]
    table = pd.read_csv(EXAMPLE / "loans.csv", dtype=str)
    for p in runs:
        recs = run_records(p, "cross-run")
        assert len(recs) == CONFIG["cross"]["instances"]
        assert all(rec["verified"] is True for rec in recs), p
        for rec in recs:  # the file's names, values and class beside the codes
            drop = ENTRIES[rec["dataset"]].get("drop", [])
            assert list(rec["values"]) == [c for c in COLUMNS if c not in (*drop, "approved")]
            assert all(str(v) in set(table[c]) for c, v in rec["values"].items())
            assert rec["class"] in set(table["approved"])
            assert rec["results"]["axp"]["names"] == [
                list(rec["values"])[f] for f in rec["results"]["axp"]["features"]]
    features = pd.read_csv(wd / RES / "tables" / "cross_user_features.csv", comment="#")
    for (_, ds), g in features.groupby(["family", "dataset"]):
        drop = ENTRIES[ds].get("drop", [])
        assert list(g["feature"]) == [c for c in COLUMNS if c not in (*drop, "approved")]
        assert (g["verified_pct"] == 100).all() and g["ffa_mean"].notna().all()
    assert (wd / RES / "figures" / "cross_user_features.png").stat().st_size > 10_000
    summary = pd.read_csv(wd / RES / "tables" / "cross_summary.csv", comment="#")
    assert set(zip(summary["family"], summary["dataset"], strict=True)) == {
        ("dt", "loans"), ("nbc", "loans"), ("bt", "loans-own")}
    datasets = pd.read_csv(wd / RES / "tables" / "datasets.csv", comment="#")
    assert list(datasets["source"]) == ["user", "user"]
    assert set(datasets["sha256"]) == {ENTRIES["loans"]["sha256"]}
    models = pd.read_csv(wd / RES / "tables" / "models.csv", comment="#")
    assert set(models["dataset"]) == {"loans", "loans-own"}
    index = (wd / RES / "report" / "index.md").read_text()
    assert "cross_user_features" in index
    report = (wd / RES / "report.html").read_text(errors="replace")
    assert "cross_user_features" in report
    # a report about your data: nothing about the papers, no claims, no absent section
    assert "your own datasets" in report and "three papers" not in report
    assert "Claims" not in report and "6 Audit" not in report
    assert "claims" not in index
    doms = json.loads((wd / RES / "data/prepared/user/loans.domains.json").read_text())
    assert doms["target"]["name"] == "approved" and doms["source"] == "user"


def test_default_config_plans_no_user_job(tmp_path):
    (tmp_path / "config").symlink_to(ROOT / "config")
    r = snakemake(tmp_path, "-n", "--cores", "1", config="config/config.yaml")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "user_" not in r.stdout and "cross_user_features" not in r.stdout


def test_bad_entry_stops_the_plan_naming_file_and_key(tmp_path):
    wd = workdir(tmp_path)
    cfg = {**CONFIG, "user": {"datasets": [{**ENTRIES["loans"], "sha256": "0" * 64}]}}
    (wd / "bad.yaml").write_text(yaml.safe_dump(cfg))
    r = snakemake(wd, "-n", "--cores", "1", config="bad.yaml")
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "examples/your-data/loans.csv" in out and "key sha256" in out


def entry(**changes) -> dict:
    return {**ENTRIES["loans"], "path": str(EXAMPLE / "loans.csv"), **changes}


REG_NAMES = [*load_registry(ROOT / "config" / "datasets.yaml").names]


@pytest.mark.parametrize("changes, words", [
    ({"path": "nowhere/loans.csv"}, ["nowhere/loans.csv", "does not exist", "key path"]),
    ({"path": str(EXAMPLE / "make_example.py")}, ["neither .csv nor .parquet"]),
    ({"sha256": "0" * 64}, ["key sha256", "fc168bbf"]),
    ({"target": "approval"}, ["key target", "no column 'approval'"]),
    ({"features": {"binary": ["employed", "salary"]}}, ["key features.binary", "'salary'"]),
    ({"name": "IRIS"}, ["key name", "registry"]),
    ({"model": {"file": "m.json", "family": "dt"}}, ["key model.family", "also in families"]),
    ({"model": {"file": "m.json", "family": "bt"}}, ["key model.file", "m.json"]),
])
def test_bad_entries_are_named(changes, words):
    with pytest.raises(DataError) as err:
        check_entries([entry(**changes)], REG_NAMES)
    for w in words:
        assert w in str(err.value)


def test_two_entries_of_one_name():
    with pytest.raises(DataError, match="two entries are named 'loans'"):
        check_entries([entry(), entry()], REG_NAMES)


def test_prepare_keeps_the_column_names(tmp_path):
    prepare_user(entry(), tmp_path)
    p = load("loans", tmp_path)
    assert p.feature_names == [c for c in COLUMNS if c != "approved"]
    purpose = p.domains[COLUMNS.index("purpose")]
    assert purpose["labels"] == ["car", "education", "house"]
    assert [d["type"] for d in p.domains].count("binary") == 2


def test_parquet_is_read_and_a_bad_one_refused(tmp_path):
    path = tmp_path / "loans.parquet"
    pd.read_csv(EXAMPLE / "loans.csv").to_parquet(path)
    prepare_user(entry(path=str(path), sha256=None), tmp_path / "out")
    assert load("loans", tmp_path / "out").feature_names[0] == "age_band"
    path.write_bytes(b"PAR1 not a parquet file")
    with pytest.raises(DataError, match="not a readable table"):
        prepare_user(entry(path=str(path), sha256=None), tmp_path / "bad")


def own_model(tmp_path, drop=("purpose",)):
    """The prepared loans table without ``drop``, its split and a tree fitted on the file."""
    spec = entry(name="own", drop=list(drop), families=None)
    csv = prepare_user(spec, tmp_path)
    prep = load("own", tmp_path)
    write_split("own", prep.y, tmp_path / "split.json", 0.2, 0)
    raw = pd.read_csv(EXAMPLE / "loans.csv").drop(columns=list(drop))
    return csv, raw


def run_user_model(tmp_path, model_path, csv, family="dt"):
    args = argparse.Namespace(
        model=str(model_path), family=family, data=str(csv), split=str(tmp_path / "split.json"),
        out=str(tmp_path / "copy.joblib"), meta=str(tmp_path / "copy.meta.json"))
    return user_model.run(args)


def test_user_model_checked_copied_and_scored(tmp_path):
    csv, raw = own_model(tmp_path)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    tree.fit(raw.drop(columns="approved"), raw["approved"])
    joblib.dump(tree, tmp_path / "tree.joblib")
    assert run_user_model(tmp_path, tmp_path / "tree.joblib", csv) == 0
    assert (tmp_path / "copy.joblib").read_bytes() == (tmp_path / "tree.joblib").read_bytes()
    meta = json.loads((tmp_path / "copy.meta.json").read_text())
    assert meta["dataset"] == "own" and 0.5 < meta["accuracy_test"] <= 1


@pytest.mark.parametrize("case, words", [
    ("names", ["fitted on the features", "income_band"]),
    ("width", ["takes 5 features"]),
    ("codes", ["feature 'age_band'", "code the column 0..k-1"]),
])
def test_user_model_that_cannot_read_the_table(tmp_path, case, words):
    csv, raw = own_model(tmp_path)
    X, y = raw.drop(columns="approved"), raw["approved"]
    if case == "names":
        X = X.rename(columns={"income_band": "income"})
    elif case == "width":
        X = X.drop(columns="guarantor")
    else:  # the file's age_band 0..3 shifted to 1..4: the model saw other values
        shifted = pd.read_csv(EXAMPLE / "loans.csv").assign(
            age_band=lambda d: d["age_band"] + 1)
        shifted.to_csv(tmp_path / "shifted.csv", index=False)
        csv = prepare_user(entry(name="own", path=str(tmp_path / "shifted.csv"), sha256=None,
                                 drop=["purpose"]), tmp_path)
        X = shifted.drop(columns=["purpose", "approved"])
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    joblib.dump(tree, tmp_path / "tree.joblib")
    with pytest.raises(ModelError) as err:
        run_user_model(tmp_path, tmp_path / "tree.joblib", csv)
    for w in words:
        assert w in str(err.value)
    assert not (tmp_path / "copy.joblib").exists()


def test_a_column_named_target_that_is_not_the_class(tmp_path):
    df = pd.read_csv(EXAMPLE / "loans.csv").assign(target=1)
    df.to_csv(tmp_path / "t.csv", index=False)
    spec = entry(path=str(tmp_path / "t.csv"), sha256=None)
    with pytest.raises(DataError, match="has a column 'target' that is not the target"):
        prepare_user(spec, tmp_path / "out")
    prepare_user({**spec, "drop": ["target"]}, tmp_path / "out")
    assert "target" not in load("loans", tmp_path / "out").feature_names


def fitted_pipeline(raw: pd.DataFrame, path: Path) -> None:
    """A Pipeline on the file's own values: purpose one-hot (text), the bands scaled."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    pipe = Pipeline([("pre", ColumnTransformer([
        ("text", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["purpose"]),
        ("bands", StandardScaler(), ["age_band", "income_band"])], remainder="passthrough")),
        ("forest", RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0))])
    joblib.dump(pipe.fit(raw.drop(columns="approved"), raw["approved"]), path)


def cross_run_copy(tmp_path, family: str) -> list[dict]:
    """``cross-run`` on the checked copy of a user's model (3 rows): its records."""
    from fxai.commands import cross_run

    args = argparse.Namespace(
        dataset="own", prepared=str(tmp_path), family=family,
        model=str(tmp_path / "copy.joblib"), split=str(tmp_path / "split.json"), instances=3,
        time_limit=10.0, clock="cpu", delta=0.95, seed=0,
        out=str(tmp_path / f"{family}_own.jsonl"))
    assert cross_run.run(args) == 0
    return run_records(tmp_path / f"{family}_own.jsonl")


def test_a_pipeline_of_yours_is_checked_and_explained_on_the_file_values(tmp_path):
    """user_model and cross_run with family pipe: the prepared rows go to the pipeline as
    the file shows them (purpose as text), every explanation by column and verified."""
    csv, raw = own_model(tmp_path, drop=())
    fitted_pipeline(raw, tmp_path / "pipe.joblib")
    assert run_user_model(tmp_path, tmp_path / "pipe.joblib", csv, family="pipe") == 0
    meta = json.loads((tmp_path / "copy.meta.json").read_text())
    assert 0.6 < meta["accuracy_test"] <= 1
    recs = cross_run_copy(tmp_path, "pipe")
    assert len(recs) == 3 and all(r["verified"] for r in recs)
    for r in recs:
        assert r["x"][COLUMNS.index("purpose")] in ("car", "education", "house")
        assert r["class"] == ["0", "1"][r["prediction"]]  # the target's value in the file
        assert "approx_paxp_skipped" in r["results"]
        assert all(len(a) <= len(COLUMNS) - 1 for a in r["results"]["marco-a"]["axps"])


def test_a_gradient_boosting_model_of_yours_is_checked_and_explained(tmp_path):
    """user_model and cross_run with family gbc: a GradientBoostingClassifier fitted on the
    prepared columns, every explanation verified."""
    from sklearn.ensemble import GradientBoostingClassifier

    csv, raw = own_model(tmp_path)
    gbc = GradientBoostingClassifier(n_estimators=10, max_depth=2, random_state=0)
    joblib.dump(gbc.fit(raw.drop(columns="approved"), raw["approved"]), tmp_path / "g.joblib")
    assert run_user_model(tmp_path, tmp_path / "g.joblib", csv, family="gbc") == 0
    recs = cross_run_copy(tmp_path, "gbc")
    assert len(recs) == 3 and all(r["verified"] for r in recs)
    assert all(r["results"]["marco-a"]["complete"] for r in recs)


def test_a_pipeline_with_a_step_fxai_cannot_follow_is_refused_naming_it(tmp_path):
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    csv, raw = own_model(tmp_path)
    pipe = make_pipeline(SimpleImputer(), DecisionTreeClassifier(max_depth=2))
    joblib.dump(pipe.fit(raw.drop(columns="approved"), raw["approved"]), tmp_path / "p.joblib")
    with pytest.raises(ModelError, match="pipeline step 'simpleimputer' \\(SimpleImputer\\)"):
        run_user_model(tmp_path, tmp_path / "p.joblib", csv, family="pipe")
    assert not (tmp_path / "copy.joblib").exists()


def test_a_pipeline_entry_plans_its_check_and_cross_run(tmp_path):
    wd = workdir(tmp_path)
    fitted_pipeline(pd.read_csv(EXAMPLE / "loans.csv"), wd / "pipe.joblib")
    own = {k: v for k, v in ENTRIES["loans"].items() if k != "families"}
    cfg = {**CONFIG, "user": {"datasets": [
        {**own, "name": "loans-pipe", "model": {"file": "pipe.joblib", "family": "pipe"}}]}}
    (wd / "pipe.yaml").write_text(yaml.safe_dump(cfg))
    r = snakemake(wd, "-n", "--cores", "1", config="pipe.yaml")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "user_model_pipe" in r.stdout and "pipe_loans-pipe.jsonl" in r.stdout


def test_two_profiles_with_one_dataset_name_prepare_their_own_tables(tmp_path):
    """Prepared user data lives under its profile: two configs naming different files
    "loans" do not share (nor overwrite) a prepared table."""
    wd = workdir(tmp_path)
    half = pd.read_csv(EXAMPLE / "loans.csv").iloc[:100]
    half.to_csv(wd / "half.csv", index=False)
    entry = {k: v for k, v in ENTRIES["loans"].items() if k != "sha256"}
    for profile, path in (("mine", entry["path"]), ("theirs", "half.csv")):
        cfg = {**CONFIG, "profile": profile, "user": {"datasets": [{**entry, "path": path}]}}
        (wd / f"{profile}.yaml").write_text(yaml.safe_dump(cfg))
        target = f"results/{profile}/data/prepared/user/loans.csv"
        r = snakemake(wd, "--cores", "1", target, config=f"{profile}.yaml")
        assert r.returncode == 0, r.stderr[-3000:]
    rows = {p: len(pd.read_csv(wd / f"results/{p}/data/prepared/user/loans.csv"))
            for p in ("mine", "theirs")}
    assert rows == {"mine": len(pd.read_csv(EXAMPLE / "loans.csv")), "theirs": 100}
    assert not (wd / "data" / "prepared" / "user").exists()


def test_what_preparation_filled_is_in_the_run_header_and_the_datasets_table(tmp_path):
    from fxai.cli import main
    from fxai.data.table import datasets_table

    raw = pd.read_csv(EXAMPLE / "loans.csv")
    raw.loc[[3, 7, 11], "age_band"] = None  # three empty cells
    raw.to_csv(tmp_path / "holes.csv", index=False)
    prepare_user(entry(name="holes", path=str(tmp_path / "holes.csv"), sha256=None,
                       missing={"policy": "most_frequent"}), tmp_path / "prep")
    prep = load("holes", tmp_path / "prep")
    assert prep.cleaning["filled"] == {"age_band": {"count": 3, "value": "2"}}
    # the values as the file writes them (pandas read the column as floats: 2.0)
    assert prep.domains[0]["labels"] == ["0", "1", "2", "3"]
    write_split("holes", prep.y, tmp_path / "split.json", 0.2, 0)
    joblib.dump(DecisionTreeClassifier(max_depth=3, random_state=0).fit(prep.X, prep.y),
                tmp_path / "dt.joblib")
    out = tmp_path / "dt_holes.jsonl"
    assert main(["cross-run", "--dataset", "holes", "--family", "dt", "--model",
                 str(tmp_path / "dt.joblib"), "--split", str(tmp_path / "split.json"),
                 "--prepared", str(tmp_path / "prep"), "--instances", "2", "--time-limit", "5",
                 "--clock", "cpu", "--delta", "0.95", "--seed", "0", "--out", str(out)]) == 0
    head = json.loads(out.read_text().splitlines()[0])
    assert head["about"]["data_cleaning"]["filled"]["age_band"]["count"] == 3
    table = datasets_table([], load_registry(ROOT / "config" / "datasets.yaml"),
                           user=["holes"], user_prepared=tmp_path / "prep")
    assert "age_band 3 of 240 (1.2 %) with '2'" in table["cleaning"][0]
