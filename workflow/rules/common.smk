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
