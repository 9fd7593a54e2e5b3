# Anytime FFA (Figures 1-10, Table 1): XGBoost per dataset, then one job per (dataset,
# method, part of ffa.instances_per_job instances) running MARCO-A / -C / -S on each of its
# instances with a time limit or none (a run file that resumes at the instance a kill
# stopped), one job checking every explanation of that run file, then the figures and the
# runtime table. With ffa.screen, one job per dataset first picks the instances that reach
# the exact FFA (fxai ffa-screen), and the runs explain its picks.

from fxai.cluster import ffa_group  # one SLURM group per dataset (profiles/slurm)

FFA = config["ffa"]
FFA_SKIP = set(DATA_UNAVAILABLE)  # common.smk: not in the mirror
FFA_DATASETS = [ds for ds in datasets_of("ffa") if ds not in FFA_SKIP]
declare_models("bt", FFA_DATASETS)
FFA_METHODS = FFA["methods"]
FFA_K = range(FFA["instances"])
# the instances of each job (part): ffa.instances_per_job at a time
FFA_PARTS = [list(FFA_K)[i:i + FFA["instances_per_job"]]
             for i in range(0, len(FFA_K), FFA["instances_per_job"])]
FFA_SWITCH = FFA["switch"]
FFA_SCREEN = FFA["screen"] if FFA["screen"]["time_limit"] is not None else None
FFA_FIGS = [f"{RESULTS}/figures/ffa_fig{n}_{m}.{ext}"
            for m, ns in {"error": (1, 6), "tau": (2, 7), "rbo": (3, 8), "kl": (4, 9),
                          "naxp": (5, 10)}.items() for n in ns for ext in ("png", "pdf")]
FFA_FIGS += [f"{RESULTS}/figures/ffa_pictures.{ext}" for ext in ("png", "pdf")]


def ffa_runtime(w, attempt):
    """SLURM minutes of a run or check job: its instances' time limits, or the cap when the
    runs have none."""
    limit = FFA["time_limit"]
    if limit is None:
        return RUNTIME_CAP_MIN * 2 ** (attempt - 1)
    return runtime_min(len(FFA_PARTS[int(w.part)]) * limit, attempt)


def ffa_model(ds):
    """(trees, depth) of the dataset's ensemble: ffa.models[ds] over ffa.model."""
    spec = {**FFA["model"], **FFA["models"].get(ds, {})}
    return spec["trees"], spec["depth"]


def ffa_train_mem(w):
    """MB of a training job: 4 GB, the run jobs' mem_mb, or the dataset's train_mem_mb."""
    return max(4000, FFA["mem_mb"], FFA["models"].get(w.ds, {}).get("train_mem_mb", 0))


rule ffa_train_bt:
    input:
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        model=f"{RESULTS}/models/bt/{{ds}}.json",
        meta=f"{RESULTS}/models/bt/{{ds}}.meta.json",
    params:
        trees=lambda w: ffa_model(w.ds)[0],
        depth=lambda w: ffa_model(w.ds)[1],
        seed=config["seed"],
    group:
        "prep"
    resources:
        runtime=runtime_min(300),
        mem_mb=ffa_train_mem,
    log:
        log_path("ffa/train_bt_{ds}"),
    shell:
        "{FXAI} bt-train --data {input.data} --split {input.split} --trees {params.trees}"
        " --depth {params.depth} --seed {params.seed} --out {output.model} > {log} 2>&1"


def ffa_screen_file(w):
    """The dataset's screen file when ffa.screen is set (an input of its runs), else none."""
    return [f"{RESULTS}/runs/ffa-screen/{w.ds}.jsonl"] if FFA_SCREEN else []


rule ffa_screen:
    input:
        model=f"{RESULTS}/models/bt/{{ds}}.json",
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        f"{RESULTS}/runs/ffa-screen/{{ds}}.jsonl",
    params:
        instances=FFA["instances"],
        time_limit=lambda w: FFA_SCREEN["time_limit"],
        tries=lambda w: FFA_SCREEN["tries"],
        seed=config["seed"],
        clock=FFA["clock"],
    # no group: in the ffa group it would join all its dataset's runs into one piece (one
    # SLURM job running them one after the other)
    resources:
        runtime=lambda w, attempt: runtime_min(FFA_SCREEN["tries"] * FFA_SCREEN["time_limit"],
                                               attempt),
        mem_mb=FFA["mem_mb"],
    log:
        log_path("ffa/screen_{ds}"),
    shell:
        "{FXAI} ffa-screen --model {input.model} --data {input.data} --split {input.split}"
        " --instances {params.instances} --time-limit {params.time_limit}"
        " --tries {params.tries} --seed {params.seed} --clock {params.clock}"
        " --out {output} > {log} 2>&1"


rule ffa_run:
    input:
        model=f"{RESULTS}/models/bt/{{ds}}.json",
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
        picks=ffa_screen_file,
    output:
        f"{RESULTS}/runs/ffa/{{ds}}/{{method}}/{{part}}.jsonl",
    wildcard_constraints:
        method="marco-[acs]",
        part=r"\d+",
    params:
        instances=lambda w: " ".join(str(k) for k in FFA_PARTS[int(w.part)]),
        time_limit="none" if FFA["time_limit"] is None else FFA["time_limit"],
        seed=config["seed"],
        clock=FFA["clock"],
        unit="--unit-cxps" if FFA["unit_cxps"] else "",
        picks=lambda w, input: f"--picks {input.picks}" if FFA_SCREEN else "",
        switch=f"--window {FFA_SWITCH['window']} --alpha {FFA_SWITCH['alpha']}"
        f" --eps {FFA_SWITCH['eps']} --switch-variant {FFA_SWITCH['variant']}",
    group:
        lambda w: ffa_group(w.ds)
    resources:
        runtime=ffa_runtime,
        mem_mb=FFA["mem_mb"],
    log:
        log_path("ffa/run_{ds}_{method}_{part}"),
    shell:
        "{FXAI} ffa-run --model {input.model} --data {input.data} --split {input.split}"
        " --instance {params.instances} --method {wildcards.method} --time-limit {params.time_limit}"
        " --seed {params.seed} --clock {params.clock} {params.switch}"
        " {params.unit} {params.picks} --out {output} > {log} 2>&1"


rule ffa_verify:
    input:
        run=f"{RESULTS}/runs/ffa/{{ds}}/{{method}}/{{part}}.jsonl",
        model=f"{RESULTS}/models/bt/{{ds}}.json",
    output:
        f"{RESULTS}/checks/ffa/{{ds}}/{{method}}/{{part}}.jsonl",
    wildcard_constraints:
        method="marco-[acs]",
        part=r"\d+",
    group:
        lambda w: ffa_group(w.ds)
    resources:
        runtime=ffa_runtime,
        mem_mb=FFA["mem_mb"],
    log:
        log_path("ffa/verify_{ds}_{method}_{part}"),
    shell:
        "{FXAI} ffa-verify --run {input.run} --model {input.model} --out {output}"
        " > {log} 2>&1"


rule ffa_report:
    input:
        runs=expand(f"{RESULTS}/runs/ffa/{{ds}}/{{method}}/{{part}}.jsonl", ds=FFA_DATASETS,
                    method=FFA_METHODS, part=range(len(FFA_PARTS))),
        checks=expand(f"{RESULTS}/checks/ffa/{{ds}}/{{method}}/{{part}}.jsonl",
                      ds=FFA_DATASETS, method=FFA_METHODS, part=range(len(FFA_PARTS))),
        models=expand(f"{RESULTS}/models/bt/{{ds}}.meta.json", ds=FFA_DATASETS),
    output:
        FFA_FIGS,
        table_files("ffa_table1_runtime", published=True),
        table_files("ffa_summary"),
    params:
        variant=FFA["metric_variant"],
        log_time="--log-time" if FFA["log_time"] else "",
        registry=config["data"]["registry"],
    log:
        log_path("ffa/report"),
    resources:
        runtime=runtime_min(1200),
        mem_mb=4000,
    shell:
        "{FXAI} ffa-report --runs {input.runs} --checks {input.checks} --models {input.models}"
        " --figures-dir {RESULTS}/figures"
        " --tables-dir {RESULTS}/tables --variant {params.variant} {params.log_time}"
        " --registry {params.registry} > {log} 2>&1"


if FFA_DATASETS:
    declare_targets("ffa", [*FFA_FIGS, *table_files("ffa_table1_runtime")])
    RUNS.extend([*rules.ffa_report.input.runs, *rules.ffa_report.input.checks])
