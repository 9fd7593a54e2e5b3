"""Summarise the every-algorithm-on-every-model runs: the full table ``cross_algorithms``
(csv/md/tex), a narrow one ``cross_summary`` and the figure ``cross_times`` (a heat map of
time per model x algorithm with completion and agreement marked).

Run files are read line by line and each record is reduced to the numbers the tables need
before the next is read, so memory does not grow with the explanations a run found.

Times are on the clock of the runs (``cross.clock``, from the run headers). A MARCO run
stopped by the time limit is censored: ``<method>_timeouts`` counts them, and a mean time
over runs of which some timed out (each counted at its time, at least the limit) is a lower
bound, marked ``≥`` in the narrow table.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.errors import DataError
from fxai.experiments.cross import narrow, slim, summarise
from fxai.runfile import iter_run
from fxai.version import stamped

if TYPE_CHECKING:
    pass


CLOCK_NAMES = {"cpu": "CPU", "wall": "wall-clock"}
CAPTION = ("Every algorithm on every model family (beyond the papers), one row per (model "
           "family, dataset) with the model's number of classes: mean times in {clock} "
           "ms/s per instance, explanation counts, "
           "completion and verification rates; ApproxPAXp only where the oracle counts. "
           "MARCO runs stopped by the time limit ({limit}) are counted in <method>_timeouts; "
           "a mean time over such runs (each at its time, at least the limit) is a lower "
           "bound. No column is published.")
SUMMARY_CAPTION = ("Every algorithm on every model family, narrow: one row per (model family, "
                   "dataset) with the model's number of classes; mean {clock} time per "
                   "instance (ms) of one AXp, one CXp and each "
                   "MARCO enumeration, the latter with the share of complete enumerations in "
                   "brackets (≥: some runs hit the time limit of {limit}, so the mean is a lower "
                   "bound), the share of instances whose complete runs agree on the exact "
                   "FFA, and the verified share. No column is published.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="cross-run JSON Lines files")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--figures-dir", help="also draw the heat map cross_times.png/.pdf here")


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from fxai.report.tables import write_table

    rows, versions, clocks, limits = [], [], set(), set()
    for path in args.runs:
        head, records = iter_run(path, "cross-run")
        records = [slim(r) for r in records]
        if records:
            rows.append(summarise(records))
            versions.append({stamped(head)})
            settings = head.get("settings", {})
            clocks.add(settings.get("clock", "cpu"))  # before cross.clock: always CPU time
            limits.add(settings.get("time_limit"))
    if len(clocks) > 1:
        raise DataError(f"cross-run files of different clocks {sorted(clocks)}: rerun "
                        "cross_run under one cross.clock")
    clock = CLOCK_NAMES[clocks.pop() if clocks else "cpu"]
    limit = ", ".join(f"{v:g} s" for v in sorted(v for v in limits if v is not None)) or "?"
    table = pd.DataFrame(rows)  # unrounded for the narrow table (3 significant digits), figure
    write_table(table.round(3), "cross_algorithms", args.out_dir, key=("family", "dataset"),
                caption=CAPTION.format(clock=clock, limit=limit), code_versions=versions)
    write_table(narrow(table), "cross_summary", args.out_dir,
                caption=SUMMARY_CAPTION.format(clock=clock, limit=limit),
                code_versions=versions)
    if args.figures_dir:
        from fxai.report.figures import cross_algorithms

        cross_algorithms(table, Path(args.figures_dir) / "cross_times")
    return 0
