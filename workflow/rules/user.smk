# Your own datasets and models (config user.datasets, docs/your-data.md): each table is
# prepared into results/<profile>/data/prepared/user/<name>.csv keeping its column names,
# split like the registry's datasets, its listed families trained by their sections' rules
# or its fitted model checked and copied, then explained and verified by the cross
# experiment (cross.smk) and tabulated per feature by name (table and figure
# cross_user_features).
import json

USER_SPEC = {e["name"]: e for e in USER}  # common.smk: USER, checked there


rule user_prepare:
    input:
        lambda wc: USER_SPEC[wc.ds]["path"],
    output:
        csv=f"{USER_PREPARED}/{{ds}}.csv",
        domains=f"{USER_PREPARED}/{{ds}}.domains.json",
    wildcard_constraints:
        ds="|".join(re.escape(n) for n in USER_NAMES) or "$^",
    params:
        spec=lambda wc: json.dumps(USER_SPEC[wc.ds], sort_keys=True),
        out_dir=USER_PREPARED,
    group:
        "prep"
    resources:
        runtime=runtime_min(300),
        mem_mb=4000,
    log:
        log_path("data/prepare_user_{ds}"),
    shell:
        "{FXAI} user-prepare --spec {params.spec:q} --out-dir {params.out_dir} > {log} 2>&1"


for _fam, _ext in USER_MODEL_EXT.items():

    rule:
        name:
            f"user_model_{_fam}"
        input:
            model=lambda wc: USER_SPEC[wc.ds]["model"]["file"],
            data=f"{USER_PREPARED}/{{ds}}.csv",
            split=f"{RESULTS}/splits/{{ds}}.json",
        output:
            model=user_model_file(_fam, "{ds}"),
            meta=f"{RESULTS}/models/user/{{ds}}.{_fam}.meta.json",
        wildcard_constraints:
            ds="|".join(re.escape(n) for n in USER_NAMES) or "$^",
        params:
            family=_fam,
        group:
            "prep"
        resources:
            runtime=runtime_min(60),
            mem_mb=2000,
        log:
            log_path(f"data/user_model_{_fam}_{{ds}}"),
        shell:
            "{FXAI} user-model --model {input.model:q} --family {params.family}"
            " --data {input.data} --split {input.split} --out {output.model}"
            " --meta {output.meta} > {log} 2>&1"


rule user_table:
    """Per feature of the user's datasets, by name: share in the AXp, mean FFA, verified."""
    input:
        runs=USER_RUNS,
        domains=[f"{USER_PREPARED}/{ds}.domains.json" for ds in USER_NAMES],
    output:
        table_files("cross_user_features"),
        f"{RESULTS}/figures/cross_user_features.png",
        f"{RESULTS}/figures/cross_user_features.pdf",
    params:
        prepared=USER_PREPARED,
    resources:
        runtime=runtime_min(60),
        mem_mb=2000,
    log:
        log_path("cross_user_features"),
    shell:
        "{FXAI} user-table {input.runs} --prepared {params.prepared}"
        " --out-dir {RESULTS}/tables --figures-dir {RESULTS}/figures > {log} 2>&1"


if USER_RUNS:  # cross.smk requests the runs and the cross tables
    declare_targets("user", rules.user_table.output)
