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
XPG_CAP_ARG = f"--max-instances {XPG_CAP}" if XPG_CAP else ""
XPG_MODEL_FILE = {"dt": "{ds}.joblib", "obdd": "{ds}.bdd.json"}


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
        depths=" ".join(str(d) for d in (XPG.get("dt") or {}).get("depths", [3, 4, 5, 6])),
        val_size=(XPG.get("dt") or {}).get("val_size", 0.2),
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
        " --out-dir {RESULTS}/models/dt --depths {params.depths} --val-size {params.val_size}"
        " --seed {params.seed} > {log} 2>&1"


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
        " --max-rows-all {params.max_rows_all} --fraction {params.fraction} {params.cap}"
        " --seed {params.seed} > {log} 2>&1"


def xpg_table_inputs(family, names):
    return {
        "runs": [f"{RESULTS}/runs/xpg/{family}_{ds}.jsonl" for ds in names],
        "metas": [f"{RESULTS}/models/{family}/{ds}.meta.json" for ds in names],
    }


for _family, _names, _table in (
    ("obdd", XPG_OBDD, "xpg_table1_obdd"),
    ("dt", XPG_DT, "xpg_table2_dt"),
):

    rule:
        name:
            _table
        input:
            **xpg_table_inputs(_family, _names),
        output:
            csv=f"{RESULTS}/tables/{_table}.csv",
            md=f"{RESULTS}/tables/{_table}.md",
            tex=f"{RESULTS}/tables/{_table}.tex",
        params:
            family=_family,
            table=_table,
            cap=XPG_CAP_ARG,
            why=XPG.get("missing_reason", "not run in this profile"),
            clock=XPG.get("clock", "wall"),
        resources:
            runtime=runtime_min(120),
            mem_mb=2000,
        log:
            log_path(f"xpg/{_table}"),
        shell:
            "{XPG_FXAI} xpg-table --family {params.family} --runs {input.runs}"
            " --metas {input.metas} --out-dir {RESULTS}/tables --name {params.table}"
            " --reference {params.table} {params.cap} --missing-reason '{params.why}'"
            " --clock {params.clock}"
            " > {log} 2>&1"

    if _names:
        OUTPUTS.extend([f"{RESULTS}/tables/{_table}.csv", f"{RESULTS}/tables/{_table}.md"])
