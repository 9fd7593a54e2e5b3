"""Cluster support. Settings the snakemake profiles (`profiles/*/config.yaml`, YTE
templates) compute when loaded, from `sys.argv` (the snakemake command line being parsed):
the job-status command of a SLURM cluster, how the run's config packs jobs into SLURM jobs
(`cluster.group_components`) and where the report of a run goes. And the check
of tools/slurm-test.sh: `python -m fxai.cluster compare-tables A B`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

DEFAULT_CONFIG = "config/config.yaml"  # the Snakefile's `configfile:`
STATUS_COMMANDS = ("sacct", "squeue")
GROUPS = ("prep", "explain", "ffa")  # the rules' `group:` names (ffa: one per dataset)


def ffa_group(ds: str) -> str:
    """The `group:` of a dataset's `ffa_run` and `ffa_verify` jobs. One group per dataset: a
    group job waits for the inputs of all its pieces, so a dataset's runs must not wait for
    another dataset's model or instance screen."""
    return f"ffa-{ds}"


def status_command() -> str:
    """`sacct` where SLURM accounting answers, else `squeue`.

    `FXAI_SLURM_STATUS` (sacct or squeue) overrides the test. Without slurmdbd, `sacct`
    exists but fails ("accounting storage is disabled"), and the executor plugin, which only
    checks that it exists, would then wait forever for jobs to finish.
    """
    forced = os.environ.get("FXAI_SLURM_STATUS")
    if forced:
        if forced not in STATUS_COMMANDS:
            raise ValueError(f"FXAI_SLURM_STATUS={forced!r}: use one of {STATUS_COMMANDS}")
        return forced
    if shutil.which("sacct") is None:
        return "squeue"
    try:
        probe = subprocess.run(["sacct", "-n", "-X", "-j", "1", "-o", "JobID"],
                               capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "squeue"
    if probe.returncode != 0:
        print(f"fxai: sacct fails ({probe.stderr.strip() or probe.returncode}); "
              "job status through squeue", file=sys.stderr)
        return "squeue"
    return "sacct"


def _snakemake_args(argv: list[str]) -> argparse.Namespace:
    """The few snakemake options that decide the results directory and the report."""
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("--configfile", "--configfiles", nargs="+", action="extend", default=[])
    p.add_argument("--config", "-C", nargs="*", action="extend", default=[])
    p.add_argument("--directory", "-d", default=".")
    p.add_argument("--dry-run", "--dryrun", "-n", action="store_true")
    p.add_argument("--report", nargs="?", const="report.html")
    return p.parse_known_args(argv)[0]


def run_config(argv: list[str]) -> dict:
    """The run's config as far as the profiles need it: `config/config.yaml`, then each
    --configfile in order, merged section by section, then --config KEY=VALUE (the order
    snakemake applies them)."""
    args = _snakemake_args(argv)
    workdir = Path(args.directory)
    config: dict = {}
    for f in [DEFAULT_CONFIG, *args.configfile]:
        path = workdir / f if not Path(f).is_absolute() else Path(f)
        if not path.is_file():
            if f == DEFAULT_CONFIG:
                continue
            raise FileNotFoundError(f"config file {path} (--configfile) does not exist")
        with path.open() as fh:
            _merge(config, yaml.safe_load(fh) or {})
    for item in args.config:
        key, _, value = item.partition("=")
        config[key] = yaml.safe_load(value)
    return config


def _merge(into: dict, new: dict) -> None:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def results_profile(argv: list[str]) -> str:
    """The `profile` key of the run's config (:func:`run_config`)."""
    name = run_config(argv).get("profile")
    if not name:
        raise ValueError(f"no `profile` key in {DEFAULT_CONFIG} or the --configfile files")
    return str(name)


def group_components(argv: list[str]) -> dict[str, int]:
    """`cluster.group_components` of the run's config: how many connected pieces of each rule
    group (prep, explain, ffa) one SLURM job runs (snakemake's --group-components; a group
    not named runs one piece per job). The ``ffa`` entry applies to each dataset's group
    ``ffa-<dataset>`` (:func:`ffa_group`) of the config's ``ffa.datasets``."""
    config = run_config(argv)
    found = dict((config.get("cluster") or {}).get("group_components") or {})
    bad = {k: v for k, v in found.items()
           if k not in GROUPS or not isinstance(v, int) or isinstance(v, bool) or v < 1}
    if bad:
        raise ValueError(f"cluster.group_components: {bad} (groups {list(GROUPS)}, each a "
                         "positive integer)")
    if "ffa" in found:  # the ffa group is one group per dataset (ffa_group)
        n = found.pop("ffa")
        found |= {ffa_group(ds): n for ds in (config.get("ffa") or {}).get("datasets") or []}
    return found


def report_path(argv: list[str]) -> str | None:
    """`results/<profile>/report.html`, which the profiles write after the run (snakemake's
    --report-after-run); None for a dry run or a command that asks for a report itself."""
    args = _snakemake_args(argv)
    if args.dry_run or args.report is not None:
        return None
    return f"results/{results_profile(argv)}/report.html"


# time columns end in _s or _ms (time_s, cpu_mean_s, marco-a_s, axp_ms), maybe followed by a
# qualifier such as " (diff)" beside a published value
TIME_COLUMN = re.compile(r"_m?s(?: \(.*\))?$")
# explanations found by runs of which some stopped at their time limit (<m>_complete_pct
# below 100 in either table) depend on the machine's speed, as times do
TIME_BOUND = re.compile(r"(.+)_(?:axps|cxps)")


def table_differences(dir_a: Path, dir_b: Path) -> list[str]:
    """How the CSV tables of two runs differ, apart from time columns (TIME_COLUMN, and the
    rows about them in a table with a `column` column, e.g. `<table>.fidelity.csv`) and the
    numbers of explanations of runs cut off by their time limit (TIME_BOUND) and the verdicts
    and numbers of rows marked ``timed`` (claims decided on times): files
    only in one run, different columns, rows or values (empty when they are equal)."""
    import pandas as pd  # here: the profiles import this module at every snakemake start

    a = {p.name: p for p in Path(dir_a).glob("*.csv")}
    b = {p.name: p for p in Path(dir_b).glob("*.csv")}
    if not a and not b:
        return [f"no tables in {dir_a} or {dir_b}"]
    out = [f"{name}: only in {dir_a}" for name in sorted(a.keys() - b.keys())]
    out += [f"{name}: only in {dir_b}" for name in sorted(b.keys() - a.keys())]
    for name in sorted(a.keys() & b.keys()):
        ta, tb = (pd.read_csv(t[name], dtype=str, keep_default_na=False) for t in (a, b))
        if list(ta.columns) != list(tb.columns):
            out.append(f"{name}: columns {list(ta.columns)} != {list(tb.columns)}")
            continue
        keep = [c for c in ta.columns if not TIME_COLUMN.search(c)]
        ta, tb = ta[keep], tb[keep]
        if "column" in keep:  # one row per column of another table
            ta = ta[~ta["column"].str.contains(TIME_COLUMN)].reset_index(drop=True)
            tb = tb[~tb["column"].str.contains(TIME_COLUMN)].reset_index(drop=True)
        if ta.shape != tb.shape:
            out.append(f"{name}: {ta.shape[0]} rows != {tb.shape[0]} rows")
            continue
        differ = (ta != tb).to_numpy()
        for c, col in enumerate(keep):  # counts of runs cut off by their time limit
            done = TIME_BOUND.fullmatch(col)
            if done and f"{done[1]}_complete_pct" in keep:
                pct = f"{done[1]}_complete_pct"
                cut = (pd.to_numeric(ta[pct], errors="coerce") < 100) | (
                    pd.to_numeric(tb[pct], errors="coerce") < 100)
                differ[cut.to_numpy(), c] = False
        if "timed" in keep:  # a verdict decided on measured times varies as times do
            timed = (ta["timed"] == "True").to_numpy()
            for col in ("verdict", "numbers"):
                if col in keep:
                    differ[timed, keep.index(col)] = False
        rows, cols = differ.nonzero()
        for r, c in list(zip(rows, cols, strict=True))[:5]:
            out.append(f"{name}: row {r} column {keep[c]}: {ta.iat[r, c]!r} != {tb.iat[r, c]!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m fxai.cluster", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare-tables", help="exit 1 unless two runs' tables are equal "
                       "apart from time columns")
    c.add_argument("dir_a", type=Path)
    c.add_argument("dir_b", type=Path)
    args = p.parse_args(argv)
    diffs = table_differences(args.dir_a, args.dir_b)
    for d in diffs:
        print(d, file=sys.stderr)
    if diffs:
        return 1
    n = len(list(args.dir_a.glob("*.csv")))
    print(f"{n} tables equal apart from time columns: {args.dir_a} {args.dir_b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
