# NBC paper (Table 7): train a CategoricalNB per dataset, explain test instances (AXp via the
# XLC, ApproxPAXp per delta and target size, each independently verified), aggregate.

NBC = config["nbc"]
# datasets the mirror lacks (common.smk's DATA_UNAVAILABLE) are left out of the table
NBC_DATASETS = [ds for ds in datasets_of("nbc") if ds not in DATA_UNAVAILABLE]
declare_models("nbc", NBC_DATASETS)


rule nbc_train:
    input:
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        model=f"{RESULTS}/models/nbc/{{ds}}.joblib",
        meta=f"{RESULTS}/models/nbc/{{ds}}.meta.json",
    params:
        alpha=NBC["alpha"],
        decimals=NBC["decimals"],
    group:
        "prep"
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("nbc/train_{ds}"),
    shell:
        "{FXAI} nbc-train --data {input.data} --split {input.split} --out {output.model}"
        " --alpha {params.alpha} --decimals {params.decimals} > {log} 2>&1"


rule nbc_explain:
    input:
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
        model=f"{RESULTS}/models/nbc/{{ds}}.joblib",
    output:
        f"{RESULTS}/runs/nbc/{{ds}}.jsonl",
    params:
        deltas=" ".join(map(str, NBC["deltas"])),
        targets=" ".join(map(str, NBC["targets"])),
        decimals=NBC["decimals"],
        instances=NBC["instances"],
        seed=config["seed"],
    group:
        "explain"
    resources:
        # no time limit (poly-time); about 1 s per instance on the paper's sets
        runtime=lambda w, attempt: runtime_min(NBC["instances"], attempt),
        mem_mb=4000,
    log:
        log_path("nbc/explain_{ds}"),
    shell:
        "{FXAI} nbc-explain --data {input.data} --split {input.split} --model {input.model}"
        " --out {output} --deltas {params.deltas} --targets {params.targets}"
        " --decimals {params.decimals} --instances {params.instances} --seed {params.seed}"
        " > {log} 2>&1"


rule nbc_table:
    input:
        runs=expand(f"{RESULTS}/runs/nbc/{{ds}}.jsonl", ds=NBC_DATASETS),
        meta=expand(f"{RESULTS}/models/nbc/{{ds}}.meta.json", ds=NBC_DATASETS),
    output:
        table_files("nbc_table7", published=True),
        table_files("nbc_table7_datasets", published=True),
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("nbc/table"),
    shell:
        "{FXAI} nbc-table --runs {input.runs} --models {input.meta}"
        " --out-dir {RESULTS}/tables > {log} 2>&1"


if NBC_DATASETS:
    declare_targets("nbc", rules.nbc_table.output)
    RUNS.extend(rules.nbc_table.input.runs)
