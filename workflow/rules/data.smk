# Data: fetch raw files (mirror or URL, sha256) -> prepare (data/prepared/<ds>.csv +
# .domains.json) -> split (results/<profile>/splits/<ds>.json) -> datasets table.
import hashlib
import json
import re
import sys
from pathlib import Path

from snakemake.utils import validate

from fxai.errors import DataError
from fxai.data.fetch import missing_message, unobtainable
from fxai.data.prepare import DEFAULT_ORDER, source_of
from fxai.data.registry import load_registry

validate(config["data"], "../schemas/data.schema.yaml")

DATA = config["data"]
DATA_REGISTRY = DATA["registry"]
DATA_ORDER = DATA.get("source_order") or list(DEFAULT_ORDER)
DATA_FXAI = f"{sys.executable} -m fxai.cli"
REG = load_registry(DATA_REGISTRY)


def audit_datasets():
    """Datasets of the audit section (config audit.families: family -> datasets)."""
    sec = config.get("audit") or {}
    if not sec.get("enabled", False):
        return []
    return [ds for names in (sec.get("families") or {}).values() for ds in names]


def all_datasets():
    """Every dataset a section of the active config uses, plus data.extra_datasets, checked
    against the registry (canonical names only, so file names are unambiguous)."""
    extra = DATA.get("extra_datasets") or []
    names = (
        datasets_of("nbc")
        + datasets_of("xpg", "dt_datasets")
        + datasets_of("xpg", "obdd_datasets")
        + datasets_of("ffa")
        + audit_datasets()
        + datasets_of("cross", "ensemble_datasets")
        + (REG.preparable if extra == "all" else list(extra))
    )
    for n in names:
        canon = REG.resolve(n)  # DataError naming n and the known names
        if canon != n:
            raise DataError(f"config names dataset {n!r}: use its registry name {canon!r}.")
        if REG.raw[canon].get("base_only"):
            raise DataError(f"config names dataset {n!r}, which only provides raw files; "
                            "use a dataset derived from it.")
    return sorted(set(names))


DATASETS = all_datasets()
DATA_SOURCE = {ds: source_of(REG.entry(ds), DATA_ORDER) for ds in DATASETS}
_mirror = data_mirror()  # an error naming the setting when it is not a directory


def _why_missing(ds):
    """Why a file-based dataset's raw files cannot be obtained here (None: they can)."""
    if DATA_SOURCE[ds] != "files":
        return None
    return unobtainable(REG.root(ds), REG.entry(REG.root(ds)), Path(_mirror) if _mirror else None)


_why_missing = {ds: why for ds in DATASETS if (why := _why_missing(ds))}
if _why_missing and not DATA.get("allow_missing", False):
    raise DataError(missing_message(_why_missing))
DATA_UNAVAILABLE = sorted(_why_missing)  # allowed missing: left out, listed as missing
DATA_READY = [ds for ds in DATASETS if ds not in DATA_UNAVAILABLE]
_ANY_NAME = "|".join(re.escape(n) for n in REG.names)


def raw_manifest(wildcards):
    ds = wildcards.ds
    if source_of(REG.entry(ds), DATA_ORDER) != "files":
        return []
    return f"data/raw/{REG.root(ds)}/manifest.json"


rule fetch:
    output:
        "data/raw/{root}/manifest.json",
    wildcard_constraints:
        root=_ANY_NAME,
    params:
        mirror=lambda wc: f"--mirror {_mirror}" if _mirror else "",
    resources:
        runtime=runtime_min(1200),  # downloads
        mem_mb=1000,
    log:
        log_path("data/fetch_{root}"),
    shell:
        "{DATA_FXAI} fetch {wildcards.root:q} --registry {DATA_REGISTRY} --raw-root data/raw"
        " {params.mirror} > {log} 2>&1"


def entry_digest(wildcards):
    """Digest of the dataset's resolved registry entry: a changed entry re-prepares only it."""
    text = json.dumps(REG.entry(wildcards.ds), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


rule prepare:
    input:
        raw=raw_manifest,
    output:
        csv="data/prepared/{ds}.csv",
        domains="data/prepared/{ds}.domains.json",
    wildcard_constraints:
        ds=_ANY_NAME,
    params:
        source=lambda wc: source_of(REG.entry(wc.ds), DATA_ORDER),
        entry=entry_digest,
        checks="rows+sha256",  # domains.json records them: tables prepared before are redone
        seed=config["seed"],
        test_size=DATA.get("test_size", 0.2),
    group:
        "prep"
    resources:
        runtime=runtime_min(300),
        mem_mb=4000,
    log:
        log_path("data/prepare_{ds}"),
    shell:
        "{DATA_FXAI} prepare {wildcards.ds:q} --registry {DATA_REGISTRY} --raw-root data/raw"
        " --out-dir data/prepared --source-order {params.source} --seed {params.seed}"
        " --test-size {params.test_size} > {log} 2>&1"


rule split:
    input:
        csv="data/prepared/{ds}.csv",
        domains="data/prepared/{ds}.domains.json",
    output:
        f"{RESULTS}/splits/{{ds}}.json",
    wildcard_constraints:
        ds=_ANY_NAME,
    params:
        seed=config["seed"],
        test_size=DATA.get("test_size", 0.2),
    group:
        "prep"
    resources:
        runtime=runtime_min(60),
        mem_mb=2000,
    log:
        log_path("data/split_{ds}"),
    shell:
        "{DATA_FXAI} split {wildcards.ds:q} --prepared data/prepared --out {output}"
        " --test-size {params.test_size} --seed {params.seed} > {log} 2>&1"


rule datasets_table:
    input:
        csv=expand("data/prepared/{ds}.csv", ds=DATA_READY),
        splits=expand(f"{RESULTS}/splits/{{ds}}.json", ds=DATA_READY),
    output:
        csv=f"{RESULTS}/tables/datasets.csv",
        md=f"{RESULTS}/tables/datasets.md",
    params:
        names=" ".join(f"{ds!r}" for ds in DATA_READY),
        order=",".join(DATA_ORDER),
        unavailable=" ".join(f"{ds!r}" for ds in DATA_UNAVAILABLE),
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("data/datasets_table"),
    shell:
        "{DATA_FXAI} datasets-table {params.names} --registry {DATA_REGISTRY}"
        " --prepared data/prepared --raw-root data/raw --source-order {params.order}"
        " --unavailable {params.unavailable} --out-dir {RESULTS}/tables > {log} 2>&1"


OUTPUTS.extend(rules.datasets_table.output)
