# report rules: figures the papers lack (NBC, XpG), an HTML page per table, provenance, and
# the registration of every table and figure of all parts for `snakemake --report`.
# Included last, so common.smk's TARGETS already holds the other parts' final outputs. Their
# tables and figures are marked with report(...) as *inputs* of rule report_index (snakemake
# reads the report flag on inputs too), so no part has to change its rules and nothing is
# copied.
import re
from pathlib import Path

from fxai.report.provenance import git_commit as report_git_commit
from fxai.report.provenance import versions as report_versions
from fxai.report.results import section_of as report_section_of



report: "../report/workflow.rst"


REPORT_CLI = f"{FXAI} report"  # through the fork server of make run
REPORT_RST = Path(workflow.basedir) / "workflow" / "report"
REPORT_CATEGORIES = {
    "claims": "0 Claims: the papers' findings on this run",
    "data": "1 Data",
    "nbc": "2 NBC: delta-relevant sets",
    "xpg": "3 XpG: decision graphs",
    "ffa": "4 FFA: anytime attribution",
    "cross": "5 Cross: every algorithm on every model",
    "audit": "6 Audit: attribution vs formal ground truth",
    "other": "7 Other",
}


def _report_flat(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _report_flat(item)
        else:
            yield str(item)


def _report_part_outputs():
    """The other parts' final targets plus the other outputs of the rules making them (e.g. a
    summary table a part writes beside its main table but does not declare)."""
    targets = list(dict.fromkeys(_report_flat(TARGETS.values())))
    wanted = set(targets)
    for r in workflow.rules:
        files = [str(f) for f in r.output]
        if wanted.intersection(files):
            targets += [f for f in files if f not in wanted and "{" not in f]
            wanted.update(files)
    return targets




rule models_table:
    """Table models: per trained model its size, features and thresholds used, accuracy."""
    input:
        MODEL_METAS,
    output:
        table_files("models"),
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("report/models_table"),
    shell:
        "{FXAI} models-table --metas {input} --out-dir {RESULTS}/tables > {log} 2>&1"


if MODEL_METAS:
    declare_targets("report", [f"{RESULTS}/tables/models.csv"])


rule claims_table:
    """Table claims: the papers' qualitative claims checked on this run (docs/claims.md);
    its inputs are every part's final outputs, so all runs are done."""
    input:
        _report_part_outputs(),
    output:
        csv=f"{RESULTS}/tables/claims.csv",
        md=f"{RESULTS}/tables/claims.md",
        tex=f"{RESULTS}/tables/claims.tex",
    params:
        results=RESULTS,
        out_dir=f"{RESULTS}/tables",
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("report/claims_table"),
    shell:
        "{FXAI} claims --results {params.results} --out-dir {params.out_dir}"
        " > {log} 2>&1"


# the papers' claims: only when a paper's part runs (a profile of your own data has none)
REPORT_CLAIMS = config["report"]["enabled"] and any(
    config[part]["enabled"] for part in ("nbc", "xpg", "ffa"))
if REPORT_CLAIMS:
    declare_targets("report", [f"{RESULTS}/tables/claims.csv"])
REPORT_PART_OUTPUTS = _report_part_outputs()  # report.smk is included last


def report_part_outputs(section):
    """The other parts' final targets that belong to a section (by folder or file name)."""
    return [f for f in REPORT_PART_OUTPUTS if report_section_of(f) == section]


REPORT_DATA_TABLES = {"audit_instances"}  # tidy per-instance data (CSV only), not a page


def report_table_sources():
    """Table name -> the file a part lists for it (its .csv, else its .md/.tex twin)."""
    found = {}
    for f in REPORT_PART_OUTPUTS:
        p = Path(f)
        if p.parent != Path(RESULTS, "tables") or p.suffix not in (".csv", ".md", ".tex"):
            continue
        if p.stem.endswith((".fidelity", ".missing")) or p.stem in REPORT_DATA_TABLES:
            continue
        if p.stem not in found or p.suffix == ".csv":
            found[p.stem] = f
    return found


REPORT_TABLES = report_table_sources()
REPORT_MY_FIGURES = [
    f"{RESULTS}/figures/{name}.png" for name in config["report"]["figures"]
]
REPORT_FIGURE_FILES = list(
    dict.fromkeys(
        [
            f
            for f in REPORT_PART_OUTPUTS
            if f.endswith(".png") and Path(RESULTS, "figures") in Path(f).parents
        ]
        + REPORT_MY_FIGURES
    )
)


def report_caption(path):
    """workflow/report/<name>.rst when it exists, else the section's generic caption."""
    name = Path(path).stem
    if (REPORT_RST / f"{name}.rst").is_file():
        return f"../report/{name}.rst"
    return f"../report/{report_section_of(path)}.rst"


def report_flag(path, kind):
    section = report_section_of(path)
    return report(
        path,
        caption=report_caption(path),
        category=REPORT_CATEGORIES[section],
        subcategory="Figures" if kind == "figure" else "Tables",
        labels={"name": Path(path).stem, "part": section, "kind": kind},
    )


def report_alternation(names):
    return "|".join(re.escape(n) for n in names) or "$^"


rule report_figure:
    """One figure of fxai.report.figures, drawn from results/<profile>/runs/<section>/ (the
    section is the name's prefix; matplotlib is imported by the job, not by the Snakefile)."""
    input:
        lambda wc: report_part_outputs(report_section_of(wc.fig)),
    output:
        png=f"{RESULTS}/figures/{{fig}}.png",
        pdf=f"{RESULTS}/figures/{{fig}}.pdf",
    wildcard_constraints:
        fig=report_alternation(config["report"]["figures"]),
    params:
        cli=REPORT_CLI,
        results=RESULTS,
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("report/figure_{fig}"),
    shell:
        "{params.cli} figure {wildcards.fig} --results {params.results} > {log} 2>&1"


def report_table_inputs(wildcards):
    """The table a page shows, and the fidelity summary and missing rows it reads beside it
    (fxai.report.html) when the table has them."""
    table = REPORT_TABLES[wildcards.name]
    stem = table.rsplit(".", 1)[0]
    beside = [f"{stem}{s}" for s in (".fidelity.csv", ".missing.csv")]
    return {"table": table, "beside": [f for f in beside if f in REPORT_PART_OUTPUTS]}


rule report_table_html:
    """An HTML page of a table with its fidelity summary (the report shows HTML inline)."""
    input:
        unpack(report_table_inputs),
    output:
        f"{RESULTS}/report/tables/{{name}}.html",
    wildcard_constraints:
        name=report_alternation(REPORT_TABLES),
    params:
        cli=REPORT_CLI,
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("report/table_{name}"),
    shell:
        "{params.cli} table-html {input.table} --out {output} > {log} 2>&1"


rule report_provenance:
    """Versions, commit, platform, the whole config and the code versions in the results."""
    input:
        REPORT_PART_OUTPUTS,  # the parts' tables: their run files and models are made
    output:
        json=f"{RESULTS}/report/provenance.json",
        html=f"{RESULTS}/report/provenance.html",
    params:
        versions=report_versions(),
        commit=report_git_commit(),
    resources:
        runtime=runtime_min(60),
        mem_mb=1000,
    run:
        from fxai.report.provenance import write

        write(config, output.json, output.html, RESULTS)


rule report_index:
    """Registers every table and figure for `snakemake --report` and writes an index."""
    input:
        figures=[report_flag(f, "figure") for f in REPORT_FIGURE_FILES],
        tables=[
            report_flag(f"{RESULTS}/report/tables/{name}.html", "table") for name in REPORT_TABLES
        ],
        provenance=report(
            f"{RESULTS}/report/provenance.html",
            caption="../report/provenance.rst",
            category="8 Provenance",
            labels={"name": "provenance", "part": "report", "kind": "table"},
        ),
        provenance_json=f"{RESULTS}/report/provenance.json",
        claims=[f"{RESULTS}/tables/claims.csv"] if REPORT_CLAIMS else [],
    output:
        f"{RESULTS}/report/index.md",
    params:
        cli=REPORT_CLI,
        results=RESULTS,
        versions=report_versions(),
        commit=report_git_commit(),
        claims=f"--claims {RESULTS}/tables/claims.csv" if REPORT_CLAIMS else "",
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("report/index"),
    shell:
        "{params.cli} index {input.figures} {input.tables} --results {params.results}"
        " --provenance {input.provenance_json} {params.claims} --out {output}"
        " > {log} 2>&1"


if config["report"]["enabled"]:
    declare_targets("report", rules.report_index.output)
