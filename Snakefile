# fxai workflow: data -> models -> explanations (verified) -> tables, figures, report.
# Default profile: `snakemake --cores 2` (config/config.yaml, offline, minutes).
# Full reproduction: `snakemake --cores 2 --configfile config/paper.yaml`.
from pathlib import Path

from snakemake.utils import min_version, validate

from fxai.data.config import check_keys, load_config

min_version("8.0")

# a YAML error in the default config is named with its line (snakemake's message names none;
# for --configfile files, `fxai check-config FILE` does it: make run calls it)
if Path("config/config.yaml").exists():
    load_config("config/config.yaml")


configfile: "config/config.yaml"


# an unknown key is named with the nearest valid one (snakemake's validate prints the schema)
check_keys(config, Path(workflow.basedir) / "workflow" / "schemas")
# the schemas state every default once: validate fills them into config (set_default=True)
validate(config, "workflow/schemas/config.schema.yaml")
for _section in ("data", "nbc", "xpg", "ffa", "report", "audit"):
    validate(config[_section], f"workflow/schemas/{_section}.schema.yaml")

PROFILE = config["profile"]
RESULTS = f"results/{PROFILE}"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/user.smk"
include: "workflow/rules/nbc.smk"
include: "workflow/rules/xpg.smk"
include: "workflow/rules/ffa.smk"
include: "workflow/rules/cross.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/report.smk"


# head-node work under a cluster executor (docs/cluster.md): downloads, tables, figures, report
localrules:
    all,
    fetch,
    datasets_table,
    nbc_table,
    xpg_table1_obdd,
    xpg_table2_dt,
    xpg_instances,
    models_table,
    ffa_report,
    cross_table,
    user_table,
    audit_table,
    claims_table,
    report_figure,
    report_table_html,
    report_provenance,
    report_index,


# what the workflow makes: each part's final outputs (declared in its rule file; none when
# the part is off), and every run and check file
rule all:
    input:
        data=targets_of("data"),
        user=targets_of("user"),
        nbc=targets_of("nbc"),
        xpg=targets_of("xpg"),
        ffa=targets_of("ffa"),
        cross=targets_of("cross"),
        audit=targets_of("audit"),
        report=targets_of("report"),
        runs=RUNS,
