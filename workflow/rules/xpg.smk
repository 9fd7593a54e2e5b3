# XpG paper (Tables 1 and 2): DTs (sklearn CART, depth tuned) and OBDDs (Orange3 CN2 decision
# lists compiled with dd); all AXps and CXps per instance by MARCO over the explanation graph,
# each run verified independently; aggregated next to the published tables.
import sys

from snakemake.utils import validate

if "xpg" in config:
    validate(config["xpg"], "../schemas/xpg.schema.yaml")

XPG = config.get("xpg") or {}
XPG_SKIP = set(globals().get("DATA_UNAVAILABLE", []))  # data.smk: not in the mirror
XPG_DT = [ds for ds in datasets_of("xpg", "dt_datasets") if ds not in XPG_SKIP]
XPG_OBDD = [ds for ds in datasets_of("xpg", "obdd_datasets") if ds not in XPG_SKIP]
XPG_FXAI = f"{sys.executable} -m fxai.cli"
XPG_CAP = XPG.get("max_instances")
XPG_ROWS_ALL = XPG.get("max_rows_all", 1000)
XPG_FRACTION = XPG.get("fraction", 0.3)
XPG_CAP_ARG = f"--max-instances {XPG_CAP}" if XPG_CAP else ""
XPG_MODEL_FILE = {"dt": "{ds}.joblib", "obdd": "{ds}.bdd.json"}
XPG_DT_CFG = XPG.get("dt") or {}
XPG_LEARNERS = XPG_DT_CFG.get("learners", ["cart"])  # cart: models/dt; sized: models/dt-sized
XPG_SIZED = XPG_DT_CFG.get("sized") or {}


def xpg_max_instances(rows):
    """At most how many instances xpg-explain takes from a table of `rows` rows."""
    n = rows if rows <= XPG.get("max_rows_all", 1000) else round(XPG.get("fraction", 0.3) * rows)
    return min(n, XPG_CAP) if XPG_CAP else n


rule xpg_train_dt:
    input:
        data="data/prepared/{ds}.csv",
        domains="data/prepared/{ds}.domains.json",
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        model=f"{RESULTS}/models/dt/{{ds}}.joblib",
        meta=f"{RESULTS}/models/dt/{{ds}}.meta.json",
    params:
        learner="--learner cart --depths "
        + " ".join(str(d) for d in XPG_DT_CFG.get("depths", [3, 4, 5, 6]))
        + f" --val-size {XPG_DT_CFG.get('val_size', 0.2)}",
        out_dir=f"{RESULTS}/models/dt",
        seed=config.get("seed", 0),
    group:
        "prep"
    resources:
        runtime=runtime_min(600),
        mem_mb=4000,
    log:
        log_path("xpg/train_dt_{ds}"),
    shell:
        "{XPG_FXAI} xpg-train --family dt --dataset {wildcards.ds} --split {input.split}"
        " --out-dir {params.out_dir} {params.learner} --seed {params.seed} > {log} 2>&1"


use rule xpg_train_dt as xpg_train_dt_sized with:
    output:
        model=f"{RESULTS}/models/dt-sized/{{ds}}.joblib",
        meta=f"{RESULTS}/models/dt-sized/{{ds}}.meta.json",
    params:
        learner=f"--learner sized --size-method {XPG_SIZED.get('method', 'leaves')}"
        f" --size-reference {XPG_SIZED.get('reference', 'xpg_table2_dt')}",
        out_dir=f"{RESULTS}/models/dt-sized",
        seed=config.get("seed", 0),
    log:
        log_path("xpg/train_dt-sized_{ds}"),


rule xpg_train_obdd:
    input:
        data="data/prepared/{ds}.csv",
        domains="data/prepared/{ds}.domains.json",
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        bdd=f"{RESULTS}/models/obdd/{{ds}}.bdd.json",
        dlist=f"{RESULTS}/models/obdd/{{ds}}.dlist.json",
        meta=f"{RESULTS}/models/obdd/{{ds}}.meta.json",
    params:
        cn2=" ".join(
            f"--{opt} {(XPG.get('cn2') or {}).get(key, dflt)}"
            for opt, key, dflt in (
                ("beam-width", "beam_width", 10),
                ("min-covered", "min_covered_examples", 1),
                ("max-rule-length", "max_rule_length", 5),
            )
        ),
        seed=config.get("seed", 0),
    group:
        "prep"
    resources:
        runtime=runtime_min(600),
        mem_mb=4000,
    log:
        log_path("xpg/train_obdd_{ds}"),
    shell:
        "{XPG_FXAI} xpg-train --family obdd --dataset {wildcards.ds} --split {input.split}"
        " --out-dir {RESULTS}/models/obdd {params.cn2} --seed {params.seed} > {log} 2>&1"


rule xpg_explain:
    input:
        data="data/prepared/{ds}.csv",
        domains="data/prepared/{ds}.domains.json",
        model=lambda w: f"{RESULTS}/models/{w.family}/" + XPG_MODEL_FILE[w.family].format(ds=w.ds),
    output:
        f"{RESULTS}/runs/xpg/{{family}}_{{ds}}.jsonl",
    wildcard_constraints:
        family="dt|obdd",
    params:
        time_limit=XPG.get("time_limit", 60),
        clock=XPG.get("clock", "cpu"),
        max_rows_all=XPG.get("max_rows_all", 1000),
        fraction=XPG.get("fraction", 0.3),
        cap=XPG_CAP_ARG,
        seed=config.get("seed", 0),
    group:
        "explain"
    resources:
        runtime=lambda w, input, attempt: runtime_min(
            xpg_max_instances(table_rows(input.data)) * XPG.get("time_limit", 60), attempt),
        mem_mb=4000,
    log:
        log_path("xpg/explain_{family}_{ds}"),
    shell:
        "{XPG_FXAI} xpg-explain --family {wildcards.family} --dataset {wildcards.ds}"
        " --model {input.model} --out {output} --time-limit {params.time_limit}"
        " --clock {params.clock} --max-rows-all {params.max_rows_all} --fraction {params.fraction} {params.cap}"
        " --seed {params.seed} > {log} 2>&1"


# the sized trees' runs sit in runs/xpg-sized/ (records say model "dt" like CART's)
use rule xpg_explain as xpg_explain_sized with:
    input:
        data="data/prepared/{ds}.csv",
        domains="data/prepared/{ds}.domains.json",
        model=f"{RESULTS}/models/dt-sized/{{ds}}.joblib",
    output:
        f"{RESULTS}/runs/xpg-sized/{{family}}_{{ds}}.jsonl",
    log:
        log_path("xpg/explain-sized_{family}_{ds}"),


def xpg_table_inputs(family, names, learner=""):
    runs, models = ("xpg-sized", f"{family}-sized") if learner == "sized" else ("xpg", family)
    return {
        "runs": [f"{RESULTS}/runs/{runs}/{family}_{ds}.jsonl" for ds in names],
        "metas": [f"{RESULTS}/models/{models}/{ds}.meta.json" for ds in names],
    }


for _family, _names, _table, _learner in (
    ("obdd", XPG_OBDD, "xpg_table1_obdd", ""),
    ("dt", XPG_DT if "cart" in XPG_LEARNERS else [], "xpg_table2_dt", "cart"),
    ("dt", XPG_DT if "sized" in XPG_LEARNERS else [], "xpg_table2_dt_sized", "sized"),
):

    rule:
        name:
            _table
        input:
            **xpg_table_inputs(_family, _names, _learner),
        output:
            csv=f"{RESULTS}/tables/{_table}.csv",
            md=f"{RESULTS}/tables/{_table}.md",
            tex=f"{RESULTS}/tables/{_table}.tex",
        params:
            family=_family,
            table=_table,
            reference=_table.removesuffix("_sized"),
            cap=XPG_CAP_ARG,
            why=XPG.get("missing_reason", "not run in this profile"),
            clock=XPG.get("clock", "cpu"),
        resources:
            runtime=runtime_min(120),
            mem_mb=2000,
        log:
            log_path(f"xpg/{_table}"),
        shell:
            "{XPG_FXAI} xpg-table --family {params.family} --runs {input.runs}"
            " --metas {input.metas} --out-dir {RESULTS}/tables --name {params.table}"
            " --reference {params.reference} {params.cap} --missing-reason '{params.why}'"
            " --clock {params.clock}"
            " > {log} 2>&1"

    if _names:
        OUTPUTS.extend([f"{RESULTS}/tables/{_table}.csv", f"{RESULTS}/tables/{_table}.md"])


XPG_TI = XPG_DT + XPG_OBDD


rule xpg_instances:
    """Which reading of the paper's #TI rule gives its published counts (docs/fidelity.md)."""
    input:
        csv=expand("data/prepared/{ds}.csv", ds=XPG_TI),
        raw=[f"data/raw/{REG.root(ds)}/manifest.json" for ds in XPG_TI
             if source_of(REG.entry(ds), DATA_ORDER) == "files"],
    output:
        csv=f"{RESULTS}/tables/xpg_instances.csv",
        rules=f"{RESULTS}/tables/xpg_instances_rules.csv",
    params:
        names=" ".join(XPG_TI),
        order=",".join(DATA_ORDER),
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("xpg/instances"),
    shell:
        "{XPG_FXAI} xpg-instances --datasets {params.names} --source-order {params.order}"
        " --max-rows-all {XPG_ROWS_ALL} --fraction {XPG_FRACTION}"
        " --out-dir {RESULTS}/tables > {log} 2>&1"


if XPG_TI:
    OUTPUTS.append(f"{RESULTS}/tables/xpg_instances.csv")
