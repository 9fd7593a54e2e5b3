# Data: fetch raw files (mirror or URL, sha256) -> prepare (data/prepared/<source>/<ds>.csv
# + .domains.json) -> split (results/<profile>/splits/<ds>.json) -> datasets table.
import hashlib
import json
import re
from pathlib import Path

from fxai.errors import DataError
from fxai.data.fetch import missing_message, unobtainable
from fxai.data.prepare import source_of
from fxai.data.registry import load_registry
from fxai.data.user import check_entries as check_user_entries

DATA = config["data"]  # defaults filled by workflow/schemas/data.schema.yaml
DATA_REGISTRY = DATA["registry"]
DATA_ORDER = DATA["source_order"]
REG = load_registry(DATA_REGISTRY)
# the user's own datasets (config user.datasets, user.smk): checked before anything is planned
USER = config["user"]["datasets"]
USER_NAMES = [e["name"] for e in USER]
check_user_entries(USER, [*REG.names, *REG.aliases])


def audit_datasets():
    """Datasets of the audit section (config audit.families: family -> datasets)."""
    sec = config["audit"]
    return [ds for names in sec["families"].values() for ds in names] if sec["enabled"] else []


def data_source(ds):
    """The source (files, embedded, generated; user: a user's own) the dataset is built from in
    this config."""
    if ds in USER_NAMES:
        return "user"
    return source_of(REG.entry(ds), DATA_ORDER)


def all_datasets():
    """Every dataset a section of the active config uses, plus data.extra_datasets, checked
    against the registry (canonical names only, so file names are unambiguous)."""
    extra = DATA["extra_datasets"]
    names = (
        datasets_of("nbc")
        + datasets_of("xpg", "dt_datasets")
        + datasets_of("xpg", "obdd_datasets")
        + datasets_of("ffa")
        + audit_datasets()
        + datasets_of("cross", "ensemble_datasets")
        + datasets_of("cross", "nbc_datasets")
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
_mirror = data_mirror()  # an error naming the setting when it is not a directory


def _why_missing(ds):
    """Why a file-based dataset's raw files cannot be obtained here (None: they can)."""
    if data_source(ds) != "files":
        return None
    return unobtainable(REG.root(ds), REG.entry(REG.root(ds)), Path(_mirror) if _mirror else None)


_why_missing = {ds: why for ds in DATASETS if (why := _why_missing(ds))}
if _why_missing and not DATA["allow_missing"]:
    raise DataError(missing_message(_why_missing))
DATA_UNAVAILABLE = sorted(_why_missing)  # allowed missing: left out, listed as missing
DATA_READY = [ds for ds in DATASETS if ds not in DATA_UNAVAILABLE]
_ANY_NAME = "|".join(re.escape(n) for n in REG.names)
_ANY_PREPARED = "|".join(re.escape(n) for n in [*REG.names, *USER_NAMES])  # split: user's too


USER_PREPARED = f"{RESULTS}/data/prepared/user"  # a user's tables: per profile, as its file


def prepared_file(ds, ext="csv"):
    """data/prepared/<source>/<ds>.<ext>: tables built from different sources (e.g. iris
    embedded in the default profile, from the published file in the paper profile) never
    share a path, so a profile switch prepares its own copy. A user's dataset is prepared
    under its profile (USER_PREPARED): two configs may give one name to different files."""
    if data_source(ds) == "user":
        return f"{USER_PREPARED}/{ds}.{ext}"
    return f"data/prepared/{data_source(ds)}/{ds}.{ext}"


def prepared_input(ext="csv"):
    """Input function: the prepared table (or its domains, ext="domains.json") of {ds}."""
    return lambda wc: prepared_file(wc.ds, ext)


def prepared_dir(wildcards, input):
    """Params function: the folder holding the rule's prepared input (--prepared)."""
    return str(Path(input.data).parent)


def entry_digest(*names):
    """Digest of datasets' resolved registry entries (with their bases'): a changed entry
    reruns only what is made from it."""
    text = json.dumps([REG.entry(n) for n in names], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def raw_manifest(wildcards):
    if data_source(wildcards.ds) != "files":
        return []
    return f"data/raw/{REG.root(wildcards.ds)}/manifest.json"


rule fetch:
    output:
        "data/raw/{root}/manifest.json",
    wildcard_constraints:
        root=_ANY_NAME,
    params:
        registry=DATA_REGISTRY,
        entry=lambda wc: entry_digest(wc.root),  # a changed URL or sha256 fetches again
        mirror=lambda wc: f"--mirror {_mirror}" if _mirror else "",
    resources:
        runtime=runtime_min(1200),  # downloads
        mem_mb=1000,
    log:
        log_path("data/fetch_{root}"),
    shell:
        "{FXAI} fetch {wildcards.root:q} --registry {params.registry} --raw-root data/raw"
        " {params.mirror} > {log} 2>&1"


rule prepare:
    input:
        raw=raw_manifest,
    output:
        csv="data/prepared/{source}/{ds}.csv",
        domains="data/prepared/{source}/{ds}.domains.json",
    wildcard_constraints:
        source="files|embedded|generated",
        ds=_ANY_NAME,
    params:
        registry=DATA_REGISTRY,
        entry=lambda wc: entry_digest(wc.ds),
        checks="rows+sha256",  # domains.json records them: tables prepared before are redone
        seed=config["seed"],
        test_size=DATA["test_size"],
    group:
        "prep"
    resources:
        runtime=runtime_min(300),
        mem_mb=4000,
    log:
        log_path("data/prepare_{source}_{ds}"),
    shell:
        "{FXAI} prepare {wildcards.ds:q} --registry {params.registry} --raw-root data/raw"
        " --out-dir data/prepared/{wildcards.source} --source-order {wildcards.source}"
        " --seed {params.seed} --test-size {params.test_size} > {log} 2>&1"


rule split:
    input:
        data=prepared_input(),
        domains=prepared_input("domains.json"),
    output:
        f"{RESULTS}/splits/{{ds}}.json",
    wildcard_constraints:
        ds=_ANY_PREPARED,
    params:
        prepared=prepared_dir,
        seed=config["seed"],
        test_size=DATA["test_size"],
    group:
        "prep"
    resources:
        runtime=runtime_min(60),
        mem_mb=2000,
    log:
        log_path("data/split_{ds}"),
    shell:
        "{FXAI} split {wildcards.ds:q} --prepared {params.prepared} --out {output}"
        " --test-size {params.test_size} --seed {params.seed} > {log} 2>&1"


rule datasets_table:
    input:
        csv=[prepared_file(ds) for ds in DATA_READY + USER_NAMES],
        splits=expand(f"{RESULTS}/splits/{{ds}}.json", ds=DATA_READY + USER_NAMES),
    output:
        table_files("datasets"),
    params:
        registry=DATA_REGISTRY,
        entries=entry_digest(*DATASETS),
        names=" ".join(f"{ds!r}" for ds in DATA_READY),
        order=",".join(DATA_ORDER),
        unavailable=" ".join(f"{ds!r}" for ds in DATA_UNAVAILABLE),
        user=" ".join(f"{ds!r}" for ds in USER_NAMES),
        user_prepared=USER_PREPARED,
    resources:
        runtime=runtime_min(120),
        mem_mb=2000,
    log:
        log_path("data/datasets_table"),
    shell:
        "{FXAI} datasets-table {params.names} --registry {params.registry}"
        " --prepared data/prepared --user-prepared {params.user_prepared} --raw-root data/raw"
        " --source-order {params.order}"
        " --unavailable {params.unavailable} --user {params.user} --out-dir {RESULTS}/tables > {log} 2>&1"


declare_targets("data", rules.datasets_table.output)
