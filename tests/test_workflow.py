"""The workflow's DAG resolves for both profiles, offline, and bad configs stop early."""

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import scratch
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from fxai.data.config import check_numbers, read_yaml
from fxai.errors import DataError

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def dry_run(*args, env=None):
    """A dry run in a scratch project (:mod:`scratch`): it plans as on a fresh clone."""
    work = scratch.fresh()
    return subprocess.run(
        [*scratch.snakemake(work), "-n", "--cores", "2", "--nolock", *args],
        cwd=work, capture_output=True, text=True, env={**os.environ, **(env or {})},
        timeout=600,
    )


def test_default_profile_resolves():
    r = dry_run()
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def out(r):
    return r.stdout + r.stderr


def test_paper_profile_names_the_dataset_it_cannot_obtain():
    """mouse has no public URL: without a mirror holding it the paper profile stops, naming
    it, unless data.allow_missing is set (next test)."""
    r = dry_run("--configfile", "config/paper.yaml", env={"FXAI_DATA_MIRROR": ""})
    assert r.returncode != 0
    assert "mouse: no URL is known for mouse.csv" in out(r) and "allow_missing" in out(r)


def test_paper_quick_overlay_resolves_allowing_missing_datasets():
    r = dry_run("--configfile", "config/paper.yaml", "config/paper-quick.yaml",
                "config/allow-missing.yaml", env={"FXAI_DATA_MIRROR": ""})
    assert r.returncode == 0, out(r)[-3000:]


def test_paper_exact_overlay_plans_every_ffa_run_without_a_time_limit():
    """Issue 67: every run to the exact FFA, MNIST with binarised (categorical) pixels,
    Sarcasm and Disaster with their whole vocabularies, read from sparse (npz) tables."""
    r = dry_run("--configfile", "config/paper.yaml", "config/allow-missing.yaml",
                "config/paper-exact.yaml", "-p", "--",
                "results/paper-exact/tables/ffa_table1_runtime.csv",
                env={"FXAI_DATA_MIRROR": ""})
    assert r.returncode == 0, out(r)[-3000:]
    runs = [line for line in out(r).splitlines() if "fxai.cli ffa-run" in line]
    assert len(runs) == 225 and all("--time-limit none" in line for line in runs)
    assert sum("mnist-1vs3-c.json" in line for line in runs) == 45
    for ds, model in (("disaster-full", "--trees 40 --depth 4"),  # the paper's ensembles
                      ("sarcasm-full", "--trees 25 --depth 5")):
        assert sum(f"{ds}.json" in line for line in runs) == 45
        assert all(f"--data data/prepared/files/{ds}.npz" in line for line in runs
                   if f"{ds}.json" in line)
        train = [line for line in out(r).splitlines() if "bt-train" in line and ds in line]
        assert len(train) == 1 and model in train[0] and f"{ds}.npz" in train[0]
    assert any("fxai.cli prepare sarcasm-full" in line for line in out(r).splitlines())
    train_jobs = {ds: job for job in (b.split("rule ")[0]
                                      for b in out(r).split("rule ffa_train_bt:")[1:])
                  for ds in ("sarcasm-full", "disaster-full") if f"ds={ds}" in job}
    assert "mem_mb=10000," in train_jobs["sarcasm-full"]  # ffa.models train_mem_mb: 9.2 GB
    assert "mem_mb=8000," in train_jobs["disaster-full"]  # the run jobs' mem_mb
    # the instances the authors' way: one screen per dataset, whose picks the runs explain
    screens = [line for line in out(r).splitlines() if "fxai.cli ffa-screen" in line]
    assert len(screens) == 5 and all("--instances 15 --time-limit 60 --tries 100" in line
                                     for line in screens)
    assert all("--picks results/paper-exact/runs/ffa-screen/" in line for line in runs)


def test_mirror_that_does_not_exist_stops(tmp_path):
    r = dry_run(env={"FXAI_DATA_MIRROR": str(tmp_path / "no-such-dir")})
    assert r.returncode != 0
    assert f"the data mirror {tmp_path / 'no-such-dir'} (set by $FXAI_DATA_MIRROR) is not a " \
           "directory" in out(r)


def test_mirror_lacking_a_dataset_names_it(tmp_path):
    """An existing mirror without the file: the dataset is named, not silently dropped."""
    cfg = tmp_path / "files.yaml"
    cfg.write_text("data: {source_order: [files], extra_datasets: [adult]}\n"
                   + "".join(f"{s}: {{enabled: false}}\n" for s in ("nbc", "xpg", "ffa", "cross")))
    r = dry_run("--configfile", str(cfg), env={"FXAI_DATA_MIRROR": str(tmp_path)})
    assert r.returncode != 0
    assert f"adult: the mirror lacks {tmp_path}/adult/" in out(r)


def with_config(tmp_path, old, new):
    text = (ROOT / "config/config.yaml").read_text()
    assert old in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(old, new))
    return bad


def test_profile_must_be_a_plain_folder_name(tmp_path):
    r = dry_run("--configfile", str(with_config(tmp_path, "profile: default", "profile: '..'")))
    assert r.returncode != 0
    assert "profile" in out(r) and "does not match" in out(r)


@pytest.mark.parametrize("profile", ["..", ".", "../x", "a/b", ".hidden", "/tmp/x", ""])
def test_profile_schema_rejects_paths(profile):
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    with pytest.raises(WorkflowError, match="profile"):
        validate({**config, "profile": profile}, str(ROOT / "workflow/schemas/config.schema.yaml"))


def test_non_finite_time_limit_is_named(tmp_path):
    r = dry_run("--configfile", str(with_config(tmp_path, "time_limit: 60 ", "time_limit: .inf ")))
    assert r.returncode != 0
    assert "config: xpg.time_limit must be a finite number" in out(r)


def test_non_finite_numbers_are_named_wherever_they_are():
    config = {"xpg": {"time_limit": math.nan}, "nbc": {"deltas": [0.9, -math.inf]}, "seed": 0}
    with pytest.raises(DataError, match=r"xpg.time_limit, nbc.deltas.1 must be a finite"):
        check_numbers(config)
    check_numbers({"a": [1.5, 2], "b": {"c": 0.0}})


@pytest.mark.parametrize("section,key,value", [
    ("ffa", "time_limit", -5), ("ffa", "time_limit", 0), ("nbc", "instances", -3),
    ("nbc", "deltas", [1.7]), ("xpg", "fraction", 1.5), ("cross", "instances", 0),
    ("ffa", "instances", 0), ("nbc", "targets", [0]),
])
def test_schemas_reject_out_of_range_values(section, key, value):
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    sec = {**config[section], key: value}
    schema = ROOT / "workflow/schemas" / f"{section}.schema.yaml"
    with pytest.raises(WorkflowError, match=key if section != "cross" else "instances"):
        if schema.exists():
            validate(sec, str(schema))
        else:
            validate({**config, section: sec},
                     str(ROOT / "workflow/schemas/config.schema.yaml"))


@pytest.mark.parametrize("section,key,value,rule", [
    ("ffa", "methods", [], "minItems"), ("ffa", "methods", ["marco-a", "marco-a"], "unique"),
    ("ffa", "datasets", ["mux6", "mux6"], "unique"),
    ("nbc", "datasets", ["iris", "iris"], "unique"),
    ("nbc", "deltas", [0.9, 0.9], "unique"), ("nbc", "targets", [4, 4], "unique"),
    ("xpg", "dt_datasets", ["iris", "iris"], "unique"),
    ("xpg", "obdd_datasets", ["corral", "corral"], "unique"),
])
def test_schemas_reject_empty_or_repeated_lists(section, key, value, rule):
    """An empty method list fails at the config, not later; a dataset (or delta, target)
    listed twice would give duplicated table rows."""
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    with pytest.raises(WorkflowError, match=rule):
        validate({**config[section], key: value},
                 str(ROOT / "workflow/schemas" / f"{section}.schema.yaml"))


def test_config_without_report_section_uses_the_defaults(tmp_path):
    text = (ROOT / "config/config.yaml").read_text()
    cut = tmp_path / "noreport.yaml"
    cut.write_text(text[:text.index("\nreport:")] + text[text.index("\ncross:"):])
    r = dry_run("--configfile", str(cut), "--", "results/default/figures/xpg_runtime.png")
    assert r.returncode == 0, out(r)[-3000:]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("path", sorted(
    str(p.relative_to(ROOT)) for d in ("config", "workflow/schemas", "tests/configs")
    for p in (ROOT / d).glob("*.yaml")))
def test_fast_yaml_reads_as_safe_load(path):
    """fxai.data.config.read_yaml (libyaml's parser) reads every config, registry and schema
    as yaml.safe_load does; a broken text raises safe_load's own error."""
    text = (ROOT / path).read_text()
    assert read_yaml(text) == yaml.safe_load(text)
    broken = text + "\n  - [: x\n"
    with pytest.raises(yaml.YAMLError) as slow:
        yaml.safe_load(broken)
    with pytest.raises(yaml.YAMLError) as fast:
        read_yaml(broken)
    assert str(fast.value) == str(slow.value)


def test_makefile_has_the_two_commands():
    r = subprocess.run(["make", "-n", "run", "test"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and "snakemake" in r.stdout and "pytest" in r.stdout
