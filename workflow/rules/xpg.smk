# XpG paper (Tables 1 and 2): DTs (sklearn CART, depth tuned) and OBDDs (Orange3 CN2 decision
# lists compiled with dd); all AXps and CXps per instance by MARCO over the explanation graph,
# each run verified independently; aggregated next to the published tables.

XPG = config["xpg"]
XPG_SKIP = set(DATA_UNAVAILABLE)  # common.smk: not in the mirror
XPG_DT = [ds for ds in datasets_of("xpg", "dt_datasets") if ds not in XPG_SKIP]
XPG_OBDD = [ds for ds in datasets_of("xpg", "obdd_datasets") if ds not in XPG_SKIP]
XPG_CAP = XPG["max_instances"]
XPG_CAP_ARG = f"--max-instances {XPG['max_instances']}" if XPG_CAP else ""
XPG_MODEL_FILE = {"dt": "{ds}.joblib", "obdd": "{ds}.bdd.json"}
XPG_DT_CFG = XPG["dt"]
XPG_LEARNERS = XPG_DT_CFG["learners"]
XPG_SIZED = XPG_DT_CFG["sized"]
XPG_OPTIMAL = XPG_DT_CFG["optimal"]
# learner -> suffix of its folders and table: models/dt<s>, runs/xpg<s>, xpg_table2_dt<_s>
XPG_SUFFIX = {"cart": "", "sized": "-sized", "optimal": "-optimal"}
declare_models("obdd", XPG_OBDD)
for _lr in XPG_LEARNERS:
    declare_models("dt" + XPG_SUFFIX[_lr], XPG_DT)


def xpg_max_instances(rows):
    """At most how many instances xpg-explain takes from a table of `rows` rows."""
    n = rows if rows <= XPG["max_rows_all"] else round(XPG["fraction"] * rows)
    return min(n, XPG_CAP) if XPG_CAP else n


rule xpg_train_dt:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        model=f"{RESULTS}/models/dt/{{ds}}.joblib",
        meta=f"{RESULTS}/models/dt/{{ds}}.meta.json",
    params:
        learner="--learner cart --depths "
        + " ".join(str(d) for d in XPG_DT_CFG["depths"])
        + f" --val-size {XPG_DT_CFG['val_size']}",
        out_dir=f"{RESULTS}/models/dt",
        prepared=prepared_dir,
        seed=config["seed"],
    group:
        "prep"
    resources:
        runtime=runtime_min(600),
        mem_mb=4000,
    log:
        log_path("xpg/train_dt_{ds}"),
    shell:
        "{FXAI} xpg-train --family dt --dataset {wildcards.ds} --prepared {params.prepared}"
        " --split {input.split}"
        " --out-dir {params.out_dir} {params.learner} --seed {params.seed} > {log} 2>&1"


use rule xpg_train_dt as xpg_train_dt_sized with:
    output:
        model=f"{RESULTS}/models/dt-sized/{{ds}}.joblib",
        meta=f"{RESULTS}/models/dt-sized/{{ds}}.meta.json",
    params:
        learner=f"--learner sized --size-method {XPG_SIZED['method']}"
        f" --size-reference {XPG_SIZED['reference']}",
        out_dir=f"{RESULTS}/models/dt-sized",
        prepared=prepared_dir,
        seed=config["seed"],
    log:
        log_path("xpg/train_dt-sized_{ds}"),


use rule xpg_train_dt as xpg_train_dt_optimal with:
    output:
        model=f"{RESULTS}/models/dt-optimal/{{ds}}.joblib",
        meta=f"{RESULTS}/models/dt-optimal/{{ds}}.meta.json",
    params:
        learner=f"--learner optimal --size-reference {XPG_OPTIMAL['reference']}"
        f" --time-limit {XPG_OPTIMAL['time_limit']}"
        f" --max-thresholds {XPG_OPTIMAL['max_thresholds']}",
        out_dir=f"{RESULTS}/models/dt-optimal",
        prepared=prepared_dir,
        seed=config["seed"],
    resources:
        runtime=runtime_min(XPG_OPTIMAL["time_limit"] + 600),
        mem_mb=4000,
    log:
        log_path("xpg/train_dt-optimal_{ds}"),


rule xpg_train_obdd:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        bdd=f"{RESULTS}/models/obdd/{{ds}}.bdd.json",
        dlist=f"{RESULTS}/models/obdd/{{ds}}.dlist.json",
        meta=f"{RESULTS}/models/obdd/{{ds}}.meta.json",
    params:
        cn2=f"--beam-width {XPG['cn2']['beam_width']}"
        f" --min-covered {XPG['cn2']['min_covered_examples']}"
        f" --max-rule-length {XPG['cn2']['max_rule_length']}",
        prepared=prepared_dir,
        seed=config["seed"],
    group:
        "prep"
    resources:
        runtime=runtime_min(600),
        mem_mb=4000,
    log:
        log_path("xpg/train_obdd_{ds}"),
    shell:
        "{FXAI} xpg-train --family obdd --dataset {wildcards.ds} --prepared {params.prepared}"
        " --split {input.split}"
        " --out-dir {RESULTS}/models/obdd {params.cn2} --seed {params.seed} > {log} 2>&1"


rule xpg_explain:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
        model=lambda w: f"{RESULTS}/models/{w.family}/" + XPG_MODEL_FILE[w.family].format(ds=w.ds),
    output:
        f"{RESULTS}/runs/xpg/{{family}}_{{ds}}.jsonl",
    wildcard_constraints:
        family="dt|obdd",
    params:
        time_limit=XPG["time_limit"],
        clock=XPG["clock"],
        max_rows_all=XPG["max_rows_all"],
        fraction=XPG["fraction"],
        cap=XPG_CAP_ARG,
        prepared=prepared_dir,
        seed=config["seed"],
    group:
        "explain"
    resources:
        runtime=lambda w, input, attempt: runtime_min(
            xpg_max_instances(table_rows(input.data)) * XPG["time_limit"], attempt),
        mem_mb=4000,
    log:
        log_path("xpg/explain_{family}_{ds}"),
    shell:
        "{FXAI} xpg-explain --family {wildcards.family} --dataset {wildcards.ds}"
        " --prepared {params.prepared}"
        " --model {input.model} --out {output} --time-limit {params.time_limit}"
        " --clock {params.clock} --max-rows-all {params.max_rows_all} --fraction {params.fraction} {params.cap}"
        " --seed {params.seed} > {log} 2>&1"


# the sized and optimal trees' runs sit in runs/xpg-sized/ and runs/xpg-optimal/ (records
# say model "dt" like CART's)
use rule xpg_explain as xpg_explain_sized with:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
        model=f"{RESULTS}/models/dt-sized/{{ds}}.joblib",
    output:
        f"{RESULTS}/runs/xpg-sized/{{family}}_{{ds}}.jsonl",
    log:
        log_path("xpg/explain-sized_{family}_{ds}"),


use rule xpg_explain as xpg_explain_optimal with:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
        model=f"{RESULTS}/models/dt-optimal/{{ds}}.joblib",
    output:
        f"{RESULTS}/runs/xpg-optimal/{{family}}_{{ds}}.jsonl",
    log:
        log_path("xpg/explain-optimal_{family}_{ds}"),


def xpg_table_inputs(family, names, learner="cart"):
    sfx = XPG_SUFFIX[learner]
    return {
        "runs": [f"{RESULTS}/runs/xpg{sfx}/{family}_{ds}.jsonl" for ds in names],
        "metas": [f"{RESULTS}/models/{family}{sfx}/{ds}.meta.json" for ds in names],
    }


for _family, _names, _table, _learner in (
    ("obdd", XPG_OBDD, "xpg_table1_obdd", "cart"),
    *(("dt", XPG_DT if lr in XPG_LEARNERS else [], "xpg_table2_dt" + sfx.replace("-", "_"), lr)
      for lr, sfx in XPG_SUFFIX.items()),
):

    rule:
        name:
            _table
        input:
            **xpg_table_inputs(_family, _names, _learner),
        output:
            table_files(_table, published=True),
        params:
            family=_family,
            table=_table,
            reference=_table.removesuffix("_sized").removesuffix("_optimal"),
            cap=XPG_CAP_ARG,
            why=XPG["missing_reason"],
            clock=XPG["clock"],
        resources:
            runtime=runtime_min(120),
            mem_mb=2000,
        log:
            log_path(f"xpg/{_table}"),
        shell:
            "{FXAI} xpg-table --family {params.family} --runs {input.runs}"
            " --metas {input.metas} --out-dir {RESULTS}/tables --name {params.table}"
            " --reference {params.reference} {params.cap} --missing-reason '{params.why}'"
            " --clock {params.clock}"
            " > {log} 2>&1"

    if _names:
        declare_targets("xpg", [f"{RESULTS}/tables/{_table}.csv", f"{RESULTS}/tables/{_table}.md"])
        RUNS.extend(xpg_table_inputs(_family, _names, _learner)["runs"])


XPG_TI = XPG_DT + XPG_OBDD


rule xpg_instances:
    """Which reading of the paper's #TI rule gives its published counts (docs/fidelity.md)."""
    input:
        csv=[prepared_file(ds) for ds in XPG_TI],
        raw=[f"data/raw/{REG.root(ds)}/manifest.json" for ds in XPG_TI
             if data_source(ds) == "files"],
    output:
        table_files("xpg_instances"),
        table_files("xpg_instances_rules"),
    params:
        names=" ".join(XPG_TI),
        registry=DATA_REGISTRY,
        entries=entry_digest(*XPG_TI),
        order=",".join(DATA_ORDER),
        max_rows_all=XPG["max_rows_all"],
        fraction=XPG["fraction"],
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("xpg/instances"),
    shell:
        "{FXAI} xpg-instances --datasets {params.names} --source-order {params.order}"
        " --registry {params.registry}"
        " --max-rows-all {params.max_rows_all} --fraction {params.fraction} --prepared data/prepared"
        " --out-dir {RESULTS}/tables > {log} 2>&1"


if XPG_TI:
    declare_targets("xpg", [f"{RESULTS}/tables/xpg_instances.csv"])
