"""Rerun triggers: from a completed default profile, changing one config key (or one dataset's
registry entry) makes a dry run schedule exactly the jobs that depend on it.

The completed state is faked: every output of the default profile (plus ``vote``, a dataset
fetched from its published file, whose URL is not visited by a dry run) is created empty and
``snakemake --touch --forceall`` records snakemake's metadata (params, inputs, code) for each
job. A changed key is then passed as a ``--configfile`` overlay and the dry run's
``--detailed-summary`` lists every output file with its inputs and whether it is to be
rebuilt. Expected: the outputs of the jobs the key reaches (``seeds``: rules, or single
output files), what the change newly requires (outputs missing under the new config), and
everything downstream of these in the new DAG, nothing else. The keys are enumerated from
the config schemas, so a new key without a classification here fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from scratch import snakemake_many

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
SCHEMAS = ROOT / "workflow" / "schemas"
SECTIONS = ("data", "nbc", "xpg", "ffa", "report", "audit")  # each validated by its own schema file
RES = "results/default"

pytestmark = pytest.mark.slow

FFA_RUNS = ["ffa_run"]  # every run job: the command takes the key
NBC_FIGS = [f"{RES}/figures/{f}.png" for f in ("nbc_length_vs_delta", "nbc_precision")]
XPG_FIGS = [f"{RES}/figures/{f}.png" for f in ("xpg_xp_counts", "xpg_runtime")]
BT_DEFAULT = ["digits-5vs8", "mux6", "corral"]  # boosted models of ffa.model
# key -> (new value, seeds): the jobs the key reaches through their params or inputs
RESULT_KEYS = {
    "profile": ("other", []),  # a new results/other/ (all missing); data/prepared is reused
    "seed": (1, ["prepare", "split", "ffa_train_bt", "ffa_run", "xpg_train_dt",
                 "xpg_train_obdd", "xpg_explain", "nbc_explain", "cross_run"]),
    # another registry file: every command reading it (its entries are checked below)
    "data.registry": ("config/datasets-copy.yaml",
                      ["fetch", "prepare", "datasets_table", "xpg_instances", "ffa_report"]),
    "data.mirror": ("mirror", ["fetch"]),  # the manifests record where each file came from
    "data.test_size": (0.3, ["prepare", "split"]),
    "data.source_order": (["generated", "embedded", "files"],
                          ["datasets_table", "xpg_instances"]),
    "data.extra_datasets": (["digits"], ["datasets_table"]),  # + digits' own new jobs
    "nbc.enabled": (False, ["cross_table", "models_table", "report_index", *NBC_FIGS]),
    "nbc.datasets": (["threeOf9", "xd6", "breast-cancer-d", "iris-bin", "mux6"],
                     ["nbc_table", "cross_table", "models_table", *NBC_FIGS]),
    "nbc.alpha": (0.5, ["nbc_train"]),
    "nbc.decimals": (2, ["nbc_train", "nbc_explain"]),
    "nbc.deltas": ([0.98, 0.95], ["nbc_explain"]),
    "nbc.targets": ([9, 7], ["nbc_explain"]),
    "nbc.instances": (100, ["nbc_explain"]),
    "xpg.enabled": (False, ["cross_table", "models_table", "report_index", *XPG_FIGS]),
    "xpg.dt_datasets": (["iris", "zoo", "wine"],
                        ["xpg_table2_dt", "xpg_instances", "cross_table", "models_table",
                         *XPG_FIGS]),
    "xpg.obdd_datasets": (["mux6", "parity5+5", "corral", "threeOf9", "mofn_3_7_10"],
                          ["xpg_table1_obdd", "xpg_instances", "cross_table", "models_table",
                           *XPG_FIGS]),
    "xpg.time_limit": (30, ["xpg_explain"]),
    "xpg.max_rows_all": (500, ["xpg_explain", "xpg_instances"]),
    "xpg.fraction": (0.5, ["xpg_explain", "xpg_instances"]),
    "xpg.max_instances": (50, ["xpg_explain", "xpg_table1_obdd", "xpg_table2_dt"]),
    "xpg.clock": ("wall", ["xpg_explain", "xpg_table1_obdd", "xpg_table2_dt"]),
    "xpg.missing_reason": ("left out", ["xpg_table1_obdd", "xpg_table2_dt"]),
    "xpg.dt.depths": ([3, 4], ["xpg_train_dt"]),
    "xpg.dt.val_size": (0.3, ["xpg_train_dt"]),
    "xpg.dt.learners": (["cart", "sized"],  # + the sized trees' new jobs
                        ["models_table", "report_index", *XPG_FIGS]),
    # the sized learner's settings reach xpg_train_dt_sized (not in the default profile)
    "xpg.dt.sized.method": ("prune", ["xpg_train_dt_sized"]),
    "xpg.dt.sized.reference": ("xpg_table1_obdd", ["xpg_train_dt_sized"]),
    # and the optimal learner's reach xpg_train_dt_optimal (not in the default profile)
    "xpg.dt.optimal.reference": ("xpg_table1_obdd", ["xpg_train_dt_optimal"]),
    "xpg.dt.optimal.time_limit": (30, ["xpg_train_dt_optimal"]),
    "xpg.dt.optimal.max_thresholds": (8, ["xpg_train_dt_optimal"]),
    "xpg.cn2.beam_width": (5, ["xpg_train_obdd"]),
    "xpg.cn2.min_covered_examples": (2, ["xpg_train_obdd"]),
    "xpg.cn2.max_rule_length": (4, ["xpg_train_obdd"]),
    "ffa.enabled": (False, ["models_table", "report_index"]),
    "ffa.datasets": (["digits-1vs3", "digits-1vs7"], ["ffa_report", "models_table"]),
    # ffa.models overrides breast-cancer's ensemble: only the other two are retrained
    # (and the audit's boosted models of mux6 and corral)
    "ffa.model.trees": (20, [f"{RES}/models/bt/{ds}.json" for ds in BT_DEFAULT]),
    "ffa.model.depth": (4, [f"{RES}/models/bt/{ds}.json" for ds in BT_DEFAULT]),
    "ffa.models": ({"breast-cancer": {"trees": 12}}, [f"{RES}/models/bt/breast-cancer.json"]),
    # the part's instances change (a rerun keeps those already in the run file)
    "ffa.instances": (2, FFA_RUNS),
    "ffa.instances_per_job": (1, FFA_RUNS),  # the jobs' instances
    "ffa.methods": (["marco-a", "marco-c"], ["ffa_report"]),
    "ffa.time_limit": (5, FFA_RUNS),
    "ffa.clock": ("wall", FFA_RUNS),
    "ffa.switch.window": (40, FFA_RUNS),
    "ffa.switch.alpha": (3.0, FFA_RUNS),
    "ffa.switch.eps": (0.5, FFA_RUNS),
    "ffa.switch.variant": ("code", FFA_RUNS),
    "ffa.unit_cxps": (True, FFA_RUNS),
    "ffa.screen.time_limit": (5, FFA_RUNS),  # a screen per dataset (missing), then its runs
    "ffa.metric_variant": ("code", ["ffa_report"]),
    "ffa.log_time": (True, ["ffa_report"]),  # the figures' time axis
    "report.figures": (["nbc_precision", "xpg_xp_counts", "xpg_runtime"], ["report_index"]),
    # its tables leave the report, its models the models table and provenance
    "cross.enabled": (False, ["report_index", "models_table", "report_provenance"]),
    "cross.instances": (2, ["cross_run"]),
    "cross.time_limit": (3, ["cross_run"]),
    "cross.delta": (0.9, ["cross_run"]),
    "cross.clock": ("wall", ["cross_run"]),
    # (the audit keeps the boosted model of corral in the models table)
    "cross.bt_datasets": (["mux6"], ["cross_table", "report_provenance"]),
    "cross.ensemble_datasets": (["iris"], ["cross_table", "models_table", "report_provenance"]),
    "cross.nbc_datasets": (["parity5+5"], ["cross_table", "models_table", "report_provenance"]),
    "cross.rf.trees": (10, ["cross_train_rf"]),
    "cross.rf.depth": (3, ["cross_train_rf"]),
    "cross.mbt.trees": (5, ["cross_train_mbt"]),
    "cross.mbt.depth": (2, ["cross_train_mbt"]),
    "cross.hgb.trees": (5, ["cross_train_hgb"]),
    "cross.hgb.depth": (2, ["cross_train_hgb"]),
    "cross.lgbm.trees": (5, ["cross_train_lgbm"]),
    "cross.lgbm.depth": (2, ["cross_train_lgbm"]),
    # a dataset of the user's: its own new jobs and the tables it joins
    "user.datasets": ([{"name": "loans", "target": "approved", "families": ["dt"],
                        "path": str(ROOT / "examples" / "your-data" / "loans.csv")}],
                      ["cross_table", "datasets_table", "models_table", "report_provenance"]),
    "audit.enabled": (False, ["report_index", "report_provenance", "claims_table"]),
    "audit.families": ({"dt": ["mux6", "corral"]}, ["audit_table", "report_provenance"]),
    "audit.points": ("test", ["audit_run"]),
    "audit.max_points": (512, ["audit_run"]),
    "audit.instances": (10, ["audit_run"]),
    "audit.background": (16, ["audit_run"]),
    "audit.time_limit": (5, ["audit_run"]),
    "audit.scores": (["shap", "ffa"], ["audit_run"]),
    "audit.user_scores": (["mymodule:my_score"], ["audit_run"]),
    "audit.lime_samples": (500, ["audit_run"]),
    "audit.shapley_value": ("class", ["audit_run"]),
}
# key -> (new value, why no result changes); the dry run must schedule nothing
NON_RESULT_KEYS = {
    "data.allow_missing": (True, "only whether an unobtainable dataset stops the run; the "
                           "datasets it leaves out change the tables' inputs"),
    "ffa.mem_mb": (3000, "the memory a job asks the scheduler for"),
    "ffa.screen.tries": (50, "read only with ffa.screen.time_limit set (off by default)"),
    "report.enabled": (False, "only whether the report outputs are requested"),
    "cluster.group_components.prep": (3, "how SLURM jobs pack rule groups"),
    "cluster.group_components.explain": (3, "how SLURM jobs pack rule groups"),
    "cluster.group_components.ffa": (3, "how SLURM jobs pack rule groups"),
}
# registry entries (config/datasets.yaml): dataset -> (key, new value, seeds)
REGISTRY_CHANGES = {
    # another URL and checksum of vote's file: fetched and prepared again
    "vote": ("files", [{"name": "vote.tsv.gz", "mirror": "vote/vote.tsv.gz", "sha256": "0" * 64,
                        "urls": ["https://example.org/vote.tsv.gz"]}],
             ["data/raw/vote/manifest.json", "datasets_table"]),
    # mux6's own entry: only its preparation (and the datasets table listing every entry)
    "mux6": ("generator", {"name": "mux6", "noise": 0.1},
             ["data/prepared/generated/mux6.csv", "datasets_table"]),
    # a base entry's setting is inherited: breast-cancer and breast-cancer-d are redone
    "breast-cancer": ("dedup", True, ["data/prepared/embedded/breast-cancer.csv",
                                      "data/prepared/embedded/breast-cancer-d.csv",
                                      "datasets_table"]),
    # a title is the entry's own (not inherited by iris-bin): iris alone
    "iris": ("title", "Iris plants", ["data/prepared/embedded/iris.csv", "datasets_table"]),
}


def schema_keys(schema: dict, prefix: str = "") -> set[str]:
    """Dotted leaf keys of a config schema (objects with named properties are walked)."""
    keys = set()
    for name, sub in schema.get("properties", {}).items():
        key = f"{prefix}{name}"
        if prefix == "" and name in SECTIONS:
            sub = yaml.safe_load((SCHEMAS / f"{name}.schema.yaml").read_text())
        keys |= schema_keys(sub, f"{key}.") if "properties" in sub else {key}
    return keys


def overlay(key: str, value) -> dict:
    doc: dict = {}
    *path, last = key.split(".")
    node = doc
    for p in path:
        node = node.setdefault(p, {})
    node[last] = value
    return doc


def env() -> dict[str, str]:
    e = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])])}
    e.pop("FXAI_DATA_MIRROR", None)
    return e


def base(work: Path) -> list[str]:
    return ["-s", str(ROOT / "Snakefile"), "-d", str(work), "--cores", "1", "--nolock"]


def summaries(work: Path, *runs: list[str]) -> list[dict[str, dict]]:
    """For each list of arguments, the dry run's detailed summary: output file -> {rule, job,
    inputs, status, pending} (the dry runs run two at a time, scratch.snakemake_many)."""
    done = snakemake_many((base(work) + ["-n", "--detailed-summary", *args], work, env())
                          for args in runs)
    tables = []
    for code, out, err in done:
        assert code == 0, out[-2000:] + err[-3000:]
        rows = {}
        for line in out.splitlines():
            cols = line.split("\t")
            if len(cols) != 8 or cols[0] == "output_file":
                continue
            out_file, _, rule, log, inputs, shell, status, plan = cols
            rows[out_file] = {"rule": rule, "job": (rule, log, inputs, shell), "status": status,
                              "inputs": set(filter(None, inputs.split(","))) - {"-"},
                              "pending": plan != "no update"}
        tables.append(rows)
    return tables


def summary(work: Path, *args: str) -> dict[str, dict]:
    return summaries(work, list(args))[0]


def expected(rows: dict[str, dict], seeds: list[str]) -> set[str]:
    """The seeds' outputs (a rule: all its jobs; a path: its job), the outputs now missing,
    and everything downstream of them, whole jobs at a time."""
    todo = {f for f, r in rows.items()
            if r["rule"] in seeds or f in seeds or r["status"] == "missing"}
    assert not [s for s in seeds if "/" in s and s not in rows], "seed file not in the DAG"
    while True:
        jobs = {rows[f]["job"] for f in todo}
        grown = {f for f, r in rows.items() if r["job"] in jobs or r["inputs"] & todo}
        if grown == todo:
            return todo
        todo = grown


def pending(rows: dict[str, dict]) -> set[str]:
    return {f for f, r in rows.items() if r["pending"]}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A default-profile project folder whose every output exists and is up to date."""
    w = tmp_path_factory.mktemp("rerun")
    (w / "config").mkdir()
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["data"]["extra_datasets"].append("vote")
    (w / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    shutil.copy(ROOT / "config" / "datasets.yaml", w / "config" / "datasets.yaml")
    (w / "mirror" / "vote").mkdir(parents=True)  # data.mirror's new value: a mirror with vote
    (w / "mirror" / "vote" / "vote.tsv.gz").touch()
    shutil.copy(ROOT / "config" / "datasets.yaml", w / "config" / "datasets-copy.yaml")
    (w / "data").mkdir()
    (w / "data" / "reference").symlink_to(ROOT / "data" / "reference")
    for out in summary(w):
        (w / out).parent.mkdir(parents=True, exist_ok=True)
        (w / out).touch()
    r = subprocess.run([str(SNAKEMAKE), *base(w), "--touch", "--forceall"], cwd=w, env=env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert not pending(summary(w)), "the faked default profile is not up to date"
    return w


@pytest.fixture(scope="module")
def changed(work) -> dict[str, dict[str, dict]]:
    """Key -> the detailed summary of a dry run with only that key changed."""
    changes = {k: v[0] for k, v in {**RESULT_KEYS, **NON_RESULT_KEYS}.items()}
    runs = []
    for key, value in changes.items():
        path = work / "overlays" / f"{key}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(yaml.safe_dump(overlay(key, value)))
        runs.append(["--configfile", "config/config.yaml", str(path)])
    return dict(zip(changes, summaries(work, *runs), strict=True))


def test_every_schema_key_is_classified():
    keys = schema_keys(yaml.safe_load((SCHEMAS / "config.schema.yaml").read_text()))
    assert keys == set(RESULT_KEYS) | set(NON_RESULT_KEYS)
    assert not set(RESULT_KEYS) & set(NON_RESULT_KEYS)


@pytest.mark.parametrize("key", sorted(RESULT_KEYS))
def test_changed_key_reruns_exactly_its_dependents(changed, key):
    rows = changed[key]
    want = expected(rows, RESULT_KEYS[key][1])
    got = pending(rows)
    assert got == want, (f"{key}: scheduled but not expected {sorted(got - want)[:10]}; "
                         f"expected but not scheduled {sorted(want - got)[:10]}")


@pytest.mark.parametrize("key", sorted(NON_RESULT_KEYS))
def test_changed_key_without_effect_on_results_reruns_nothing(changed, key):
    assert not pending(changed[key]), sorted(pending(changed[key]))[:10]


@pytest.mark.parametrize("ds", sorted(REGISTRY_CHANGES))
def test_changed_registry_entry_reruns_that_dataset_only(work, ds):
    key, value, seeds = REGISTRY_CHANGES[ds]
    reg = work / "config" / "datasets.yaml"
    text = reg.read_text()
    doc = yaml.safe_load(text)
    assert doc["datasets"][ds].get(key) != value
    doc["datasets"][ds][key] = value
    try:
        reg.write_text(yaml.safe_dump(doc, sort_keys=False))
        rows = summary(work)
    finally:
        reg.write_text(text)
    assert pending(rows) == expected(rows, seeds)
    assert not pending(summary(work))


def test_deleted_run_file_is_rebuilt(work):
    """A run file lost (e.g. by a failed forced rerun) is rebuilt although its table is
    newer: the table declares every run file as an input."""
    run = work / RES / "runs" / "ffa" / "breast-cancer" / "marco-a" / "0.jsonl"
    kept = run.with_name("kept")
    run.rename(kept)
    try:
        rows = summary(work)
    finally:
        kept.rename(run)
    assert pending(rows) == expected(rows, [])
    assert rows[str(run.relative_to(work))]["pending"]
    assert rows[f"{RES}/tables/ffa_table1_runtime.csv"]["pending"]


def test_profile_switch_prepares_its_own_data(work, tmp_path):
    """The paper profile builds iris, zoo and the Boolean sets from the published files: it
    prepares them again (data/prepared/files/) instead of using the default profile's
    embedded or generated tables."""
    names = ["iris", "zoo", "corral", "xd6"]
    cfg = tmp_path / "paper.yaml"
    cfg.write_text((ROOT / "config" / "paper.yaml").read_text())
    splits = [f"results/paper/splits/{ds}.json" for ds in names]
    rows = summary(work, *splits, "--configfile", str(cfg),
                   str(ROOT / "config/allow-missing.yaml"))
    for ds in names:
        assert rows[f"data/prepared/files/{ds}.csv"]["pending"]
        src = "embedded" if ds in ("iris", "zoo") else "generated"
        assert (work / "data" / "prepared" / src / f"{ds}.csv").is_file()
