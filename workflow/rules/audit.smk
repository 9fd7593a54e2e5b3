# Beyond the papers: heuristic attribution (SHAP, LIME, user scores) and exact Shapley values
# against formal ground truth (relevancy, exact FFA and power indices), per model; see
# fxai.experiments.audit and docs/audit.md.

AUDIT = config["audit"]  # defaults filled by workflow/schemas/audit.schema.yaml
AUDIT_RUNS = [
    f"{RESULTS}/runs/audit/{fam}_{ds}.jsonl"
    for fam, names in AUDIT["families"].items()
    for ds in names
    if ds in DATA_READY
]


def audit_model(wildcards):
    from fxai.models import model_path

    return str(model_path(RESULTS, wildcards.family, wildcards.ds))


rule audit_run:
    input:
        model=audit_model,
        data=prepared_input(),
        split=f"{RESULTS}/splits/{{ds}}.json",
    output:
        f"{RESULTS}/runs/audit/{{family}}_{{ds}}.jsonl",
    wildcard_constraints:
        family="[a-z][a-z0-9-]*",
    params:
        points=AUDIT["points"],
        max_points=AUDIT["max_points"],
        instances=AUDIT["instances"],
        background=AUDIT["background"],
        time_limit=AUDIT["time_limit"],
        scores=",".join(AUDIT["scores"]),
        user_scores=" ".join(f"--user-score {s}" for s in AUDIT["user_scores"]),
        lime_samples=AUDIT["lime_samples"],
        shapley_value=AUDIT["shapley_value"],
        seed=config["seed"],
        prepared=prepared_dir,
    group:
        "explain"
    resources:
        # one enumeration per instance under the time limit, plus the scores
        runtime=lambda w, attempt: runtime_min(
            2 * AUDIT["max_points"] * AUDIT["time_limit"], attempt),
        mem_mb=4000,
    log:
        f"{RESULTS}/logs/audit/{{family}}_{{ds}}.log",
    shell:
        "{FXAI} audit-run --dataset {wildcards.ds} --family {wildcards.family}"
        " --model {input.model} --split {input.split} --prepared {params.prepared}"
        " --points {params.points}"
        " --max-points {params.max_points} --instances {params.instances}"
        " --background {params.background} --time-limit {params.time_limit}"
        " --scores {params.scores} {params.user_scores} --lime-samples {params.lime_samples}"
        " --shapley-value {params.shapley_value}"
        " --seed {params.seed} --out {output} > {log} 2>&1"


rule audit_table:
    input:
        AUDIT_RUNS,
    output:
        f"{RESULTS}/tables/audit_instances.csv",
        f"{RESULTS}/tables/audit_summary.csv",
        f"{RESULTS}/tables/audit_summary.md",
        f"{RESULTS}/figures/audit_gap.png",
        f"{RESULTS}/figures/audit_gap.pdf",
        f"{RESULTS}/figures/audit_disagreement.png",
        f"{RESULTS}/figures/audit_disagreement.pdf",
    log:
        f"{RESULTS}/logs/audit_table.log",
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    shell:
        "{FXAI} audit-table {input} --out-dir {RESULTS}/tables"
        " --figures-dir {RESULTS}/figures > {log} 2>&1"


if AUDIT["enabled"] and AUDIT_RUNS:
    declare_targets("audit", rules.audit_table.output)
