# fxai workflow: data -> models -> explanations (verified) -> tables, figures, report.
# Default profile: `snakemake --cores 2` (config/config.yaml, offline, minutes).
# Full reproduction: `snakemake --cores 2 --configfile config/paper.yaml`.
from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")

PROFILE = config["profile"]
RESULTS = f"results/{PROFILE}"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/nbc.smk"
include: "workflow/rules/xpg.smk"
include: "workflow/rules/ffa.smk"
include: "workflow/rules/cross.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_outputs(),
