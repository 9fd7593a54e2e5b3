# Beyond the papers: every algorithm on every model family, on the models the other
# parts train (NBC, DT, OBDD, BT) and on the tree ensembles trained here (RF: random
# forests, soft vote; RFH: the same forests, hard vote; MBT: multi-class XGBoost; HGB:
# HistGradientBoosting; LGBM: LightGBM); see fxai.experiments.cross.
CROSS = config["cross"]  # defaults filled by workflow/schemas/config.schema.yaml
# naive Bayes models of further (e.g. multi-class) sets, trained as the NBC part trains its own
CROSS_NBC_EXTRA = [
    ds for ds in datasets_of("cross", "nbc_datasets") if ds not in datasets_of("nbc")
]
declare_models("nbc", [ds for ds in CROSS_NBC_EXTRA if ds in DATA_READY])
for _m in ENSEMBLES:
    declare_models(_m, datasets_of("cross", "ensemble_datasets"))
CROSS_FAMILIES = {
    "nbc": datasets_of("nbc") + CROSS_NBC_EXTRA,
    "dt": datasets_of("xpg", "dt_datasets"),
    "obdd": datasets_of("xpg", "obdd_datasets"),
    "bt": datasets_of("ffa") if CROSS["bt_datasets"] is None else CROSS["bt_datasets"],
    # the ensembles trained here, and the families reading their files (rfh: rf, hard vote)
    **{
        fam: datasets_of("cross", "ensemble_datasets")
        for fam, f in FAMILIES.items()
        if f.directory in ENSEMBLES
    },
}
CROSS_RUNS = [
    f"{RESULTS}/runs/cross/{fam}_{ds}.jsonl"
    for fam, names in CROSS_FAMILIES.items()
    for ds in names
    if ds in DATA_READY
] if CROSS["enabled"] else []
CROSS_RUNS += USER_RUNS  # common.smk: the user's datasets, whether cross.enabled or not


def cross_model(wildcards):
    """The model file of (family, ds): the user's checked copy for a model of theirs."""
    from fxai.models import model_path

    if wildcards.ds in USER_MODELS.get(wildcards.family, []):
        return user_model_file(wildcards.family, wildcards.ds)
    return str(model_path(RESULTS, wildcards.family, wildcards.ds))


rule cross_run:
    input:
        model=cross_model,
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        f"{RESULTS}/runs/cross/{{family}}_{{ds}}.jsonl",
    wildcard_constraints:
        family="|".join(FAMILIES),
    params:
        instances=CROSS["instances"],
        time_limit=CROSS["time_limit"],
        clock=CROSS["clock"],
        delta=CROSS["delta"],
        prepared=prepared_dir,
        seed=config["seed"],
    group:
        "explain"
    resources:
        # MARCO-A, -C and -S per instance, each under the time limit
        runtime=lambda w, attempt: runtime_min(
            3 * CROSS["instances"] * CROSS["time_limit"], attempt),
        mem_mb=4000,
    log:
        f"{RESULTS}/logs/cross/{{family}}_{{ds}}.log",
    shell:
        "{FXAI} cross-run --dataset {wildcards.ds} --prepared {params.prepared}"
        " --family {wildcards.family} --model {input.model} --split {input.split}"
        " --instances {params.instances} --time-limit {params.time_limit}"
        " --clock {params.clock} --delta {params.delta} --seed {params.seed} --out {output} > {log} 2>&1"


for _fam in ENSEMBLES:
    _ext = FAMILIES[_fam].suffix

    rule:
        name:
            f"cross_train_{_fam}"
        input:
            data=prepared_input(),
            split=f"{RESULTS}/splits/{{ds}}.json",
        output:
            model=f"{RESULTS}/models/{_fam}/{{ds}}{_ext}",
            meta=f"{RESULTS}/models/{_fam}/{{ds}}.meta.json",
        params:
            family=_fam,
            trees=CROSS[_fam]["trees"],
            depth=CROSS[_fam]["depth"],
            seed=config["seed"],
        group:
            "prep"
        resources:
            runtime=runtime_min(300),
            mem_mb=2000,
        log:
            f"{RESULTS}/logs/cross/train_{_fam}_{{ds}}.log",
        shell:
            "{FXAI} ensemble-train --family {params.family} --data {input.data}"
            " --split {input.split} --trees {params.trees} --depth {params.depth}"
            " --seed {params.seed} --out {output.model} > {log} 2>&1"


rule cross_table:
    input:
        CROSS_RUNS,
    output:
        table_files("cross_algorithms"),
        table_files("cross_summary"),
        f"{RESULTS}/figures/cross_times.png",
        f"{RESULTS}/figures/cross_times.pdf",
    log:
        f"{RESULTS}/logs/cross_table.log",
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    shell:
        "{FXAI} cross-table {input} --out-dir {RESULTS}/tables"
        " --figures-dir {RESULTS}/figures > {log} 2>&1"


if CROSS_RUNS:
    declare_targets("cross", rules.cross_table.output)
    RUNS.extend(CROSS_RUNS)
