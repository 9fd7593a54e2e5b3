# Helpers shared by the rule files: dataset lists, paths, resources.
import os
import sys

from fxai.cli import USAGE_ENV
from fxai.data.config import check_numbers
from fxai.data.fetch import mirror_dir
from fxai.models import ENSEMBLES, FAMILIES  # the model families, one record each

check_numbers(config)  # .inf / .nan pass the schemas' bounds; name the key instead

# the command line of every job: this interpreter's fxai (make run forks it from one server)
FXAI = f"{sys.executable} -m fxai.cli"


def datasets_of(section, key="datasets"):
    """Dataset names listed in config[section][key] (empty when the section is off)."""
    sec = config[section]
    return list(sec[key]) if sec["enabled"] else []


def log_path(name):
    return f"{RESULTS}/logs/{name}.log"


# every fxai command of a job ends its log with its CPU time and peak memory (fxai.cli's
# usage line: benchmarks.rule_cpu, docs/cluster.md); snakemake's benchmark: sampling of each
# job cost its own process more CPU (docs/benchmarks.md)
os.environ[USAGE_ENV] = "1"


def table_files(name, published=False):
    """Every file fxai.report.tables.write_table writes for table `name`: .csv/.md/.tex, and
    with a published reference its .fidelity.csv/.md and .missing.csv."""
    exts = ["csv", "md", "tex"] + (["fidelity.csv", "fidelity.md", "missing.csv"] if published else [])
    return [f"{RESULTS}/tables/{name}.{ext}" for ext in exts]


def data_mirror():
    """The mirror directory: FXAI_DATA_MIRROR wins over config data.mirror ("" when unset);
    an error naming the setting when it is set but is not a directory."""
    return str(mirror_dir(config["data"]["mirror"]) or "")


# the final outputs of each part (data, user, nbc, xpg, ffa, cross, audit, report), declared by
# its rule file; the Snakefile's rule all asks for them part by part, report.smk reads them here
TARGETS = {}


def declare_targets(part, files):
    """Add ``files`` to the final outputs of ``part``."""
    TARGETS.setdefault(part, []).extend(files)


def targets_of(part):
    """The final outputs ``part`` declared (none when it is off)."""
    return TARGETS.get(part, [])


# the meta JSON of every model the active parts train or check (the models table's input)
MODEL_METAS = []


def declare_models(folder, datasets):
    """Add the metas ``<RESULTS>/models/<folder>/<ds>.meta.json`` of ``datasets``."""
    MODEL_METAS.extend(f"{RESULTS}/models/{folder}/{ds}.meta.json" for ds in datasets)


# every run and check file, requested by rule all too: snakemake does not rebuild a lost
# intermediate file while the files made from it are newer, but it always builds a target
RUNS = []


# Cluster resources (docs/cluster.md). Every rule declares `runtime` (minutes) and `mem_mb`;
# explaining rules derive the runtime from their config (time limit x instances).
import math

RUNTIME_CAP_MIN = 240  # a longer worst case asks for 4 h, then 8 h, 16 h on retries


def runtime_min(seconds, attempt=1):
    """SLURM time limit (minutes) for work bounded by `seconds`: 1.5x plus 2 minutes of
    start-up, at most RUNTIME_CAP_MIN, doubled on each retry (an explaining job cut off by
    its limit resumes from its partial file)."""
    need = math.ceil(1.5 * seconds / 60) + 2
    return min(need, RUNTIME_CAP_MIN) * 2 ** (attempt - 1)


def table_rows(csv_path):
    """Data rows of a prepared table (a bound on the instances a rule explains)."""
    with open(csv_path, "rb") as fh:
        return max(0, sum(1 for _ in fh) - 1)


# ---- the datasets of this config (used by every part): the registry, the user's own tables,
# which are unavailable here (allowed missing), and where each one's prepared table is
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


USER_PREPARED = f"{RESULTS}/data/prepared/user"  # a user's tables: per profile, as its file


def table_ext(ds):
    """The prepared table's format: the registry entry's ``table`` (npz: sparse), else csv."""
    return "csv" if ds in USER_NAMES else REG.entry(ds).get("table", "csv")


def prepared_file(ds, ext=None):
    """data/prepared/<source>/<ds>.<ext> (ext: the table's, table_ext): tables built from
    different sources (e.g. iris embedded in the default profile, from the published file in
    the paper profile) never share a path, so a profile switch prepares its own copy. A
    user's dataset is prepared under its profile (USER_PREPARED): two configs may give one
    name to different files."""
    ext = ext or table_ext(ds)
    if data_source(ds) == "user":
        return f"{USER_PREPARED}/{ds}.{ext}"
    return f"data/prepared/{data_source(ds)}/{ds}.{ext}"


def prepared_input(ext=None):
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


# ---- the user's own datasets and models (user.smk), which the cross part explains too
USER_MODEL_EXT = {  # the families a user may bring a fitted model of (fxai.models.FAMILIES)
    fam: f.suffix.lstrip(".") for fam, f in FAMILIES.items() if f.user
}
USER_FAMILIES = {  # family -> user datasets it is trained on (cross.smk adds the runs)
    fam: [e["name"] for e in USER if fam in e.get("families", [])]
    for fam in ("nbc", "dt", "obdd", "bt", "rf", "mbt")
}
USER_MODELS = {  # family -> user datasets whose fitted model of that family is the user's
    fam: [e["name"] for e in USER if e.get("model", {}).get("family") == fam]
    for fam in USER_MODEL_EXT
}


def user_model_file(family, ds):
    """Where the workflow keeps the checked copy of a user's model."""
    return f"{RESULTS}/models/user/{ds}.{family}.{USER_MODEL_EXT[family]}"


USER_RUNS = [
    f"{RESULTS}/runs/cross/{fam}_{ds}.jsonl"
    for by_family in (USER_FAMILIES, USER_MODELS)
    for fam, names in by_family.items()
    for ds in names
]
declare_models("user", [f"{ds}.{fam}" for fam, names in USER_MODELS.items() for ds in names])
for _fam, _names in USER_FAMILIES.items():  # the families trained on user datasets
    declare_models(_fam, _names)
