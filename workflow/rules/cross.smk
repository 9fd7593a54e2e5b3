# Beyond the papers: every algorithm on every model family, on the models the other
# parts train (NBC, DT, OBDD, BT) and on the tree ensembles trained here (RF: random
# forests, MBT: multi-class XGBoost); see fxai.commands.cross_run.
CROSS = config.get("cross") or {}
CROSS_FAMILIES = {
    "nbc": datasets_of("nbc"),
    "dt": datasets_of("xpg", "dt_datasets"),
    "obdd": datasets_of("xpg", "obdd_datasets"),
    "bt": datasets_of("ffa"),
    "rf": datasets_of("cross", "ensemble_datasets"),
    "mbt": datasets_of("cross", "ensemble_datasets"),
}
CROSS_ENSEMBLE = {"rf": {"trees": 20, "depth": 4}, "mbt": {"trees": 10, "depth": 3}}
CROSS_RUNS = [
    f"{RESULTS}/runs/cross/{fam}_{ds}.jsonl"
    for fam, names in CROSS_FAMILIES.items()
    for ds in names
    if ds in DATA_READY
]


def cross_model(wildcards):
    from fxai.models import model_path

    return str(model_path(RESULTS, wildcards.family, wildcards.ds))


rule cross_run:
    input:
        model=cross_model,
        data="data/prepared/{ds}.csv",
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        f"{RESULTS}/runs/cross/{{family}}_{{ds}}.jsonl",
    wildcard_constraints:
        family="nbc|dt|obdd|bt|rf|mbt",
    params:
        instances=CROSS.get("instances", 5),
        time_limit=CROSS.get("time_limit", 10),
        clock=CROSS.get("clock", "cpu"),
        delta=CROSS.get("delta", 0.95),
        seed=config["seed"],
    group:
        "explain"
    resources:
        # MARCO-A, -C and -S per instance, each under the time limit
        runtime=lambda w, attempt: runtime_min(
            3 * CROSS.get("instances", 5) * CROSS.get("time_limit", 10), attempt),
        mem_mb=4000,
    log:
        f"{RESULTS}/logs/cross/{{family}}_{{ds}}.log",
    shell:
        "{DATA_FXAI} cross-run --dataset {wildcards.ds}"
        " --family {wildcards.family} --model {input.model} --split {input.split}"
        " --instances {params.instances} --time-limit {params.time_limit}"
        " --clock {params.clock} --delta {params.delta} --seed {params.seed} --out {output} > {log} 2>&1"


def ensemble_size(family, key):
    """trees or depth of the cross experiment's rf / mbt models (config over defaults)."""
    return {**CROSS_ENSEMBLE[family], **(CROSS.get(family) or {})}[key]


for _fam, _ext in (("rf", "joblib"), ("mbt", "json")):

    rule:
        name:
            f"cross_train_{_fam}"
        input:
            data="data/prepared/{ds}.csv",
            split=f"{RESULTS}/splits/{{ds}}.json",
        output:
            model=f"{RESULTS}/models/{_fam}/{{ds}}.{_ext}",
            meta=f"{RESULTS}/models/{_fam}/{{ds}}.meta.json",
        params:
            family=_fam,
            trees=ensemble_size(_fam, "trees"),
            depth=ensemble_size(_fam, "depth"),
            seed=config["seed"],
        group:
            "prep"
        resources:
            runtime=runtime_min(300),
            mem_mb=2000,
        log:
            f"{RESULTS}/logs/cross/train_{_fam}_{{ds}}.log",
        shell:
            "{DATA_FXAI} ensemble-train --family {params.family} --data {input.data}"
            " --split {input.split} --trees {params.trees} --depth {params.depth}"
            " --seed {params.seed} --out {output.model} > {log} 2>&1"


rule cross_table:
    input:
        CROSS_RUNS,
    output:
        f"{RESULTS}/tables/cross_algorithms.csv",
        f"{RESULTS}/tables/cross_algorithms.md",
        f"{RESULTS}/tables/cross_summary.csv",
        f"{RESULTS}/figures/cross_times.png",
        f"{RESULTS}/figures/cross_times.pdf",
    log:
        f"{RESULTS}/logs/cross_table.log",
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    shell:
        "{DATA_FXAI} cross-table {input} --out-dir {RESULTS}/tables"
        " --figures-dir {RESULTS}/figures > {log} 2>&1"


if CROSS.get("enabled", False) and CROSS_RUNS:
    OUTPUTS.extend(rules.cross_table.output)
