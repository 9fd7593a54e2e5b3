"""Every algorithm on one model: AXp, CXp, MARCO-A/-C/-S, FFA, ApproxPAXp, all verified.

Goes beyond the papers: the same generic algorithms run on any model family whose oracle
supplies the question they need (ApproxPAXp only where the oracle counts). One JSON line
per explained instance, through :class:`fxai.runfile.RunWriter`, so a killed run resumes.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive, positive_int, probability
from fxai.experiments.cross import (
    PIPELINE_NO_PAXP,
    REAL,
    REAL_NO_PAXP,
    TARGETS,
    explained,
    run_instance,
)
from fxai.experiments.inputs import prepared_and_model
from fxai.experiments.user import raw_frame
from fxai.models import FAMILIES
from fxai.runfile import RunWriter, load_input

if TYPE_CHECKING:
    pass

LOG = logging.getLogger("fxai.cross_run")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True)
    p.add_argument("--family", required=True,
                   choices=list(FAMILIES),
                   help="rf: random forest, soft vote (scikit-learn's predict); rfh: the same "
                        "forest file, hard vote (majority of the trees' votes); hgb, lgbm: "
                        "HistGradientBoosting, LightGBM over real features")
    p.add_argument("--model", required=True, help="model file the workflow saved")
    p.add_argument("--split", required=True, help="split JSON (test row ids)")
    p.add_argument("--prepared", required=True,
                   help="folder of the prepared table <ds>.csv (data/prepared/<source>)")
    # no defaults: the workflow passes config cross.* and seed, whose schema states them
    p.add_argument("--instances", type=positive_int, required=True,
                   help="test instances (seeded sample)")
    p.add_argument("--time-limit", type=positive, required=True, help="seconds per MARCO run")
    p.add_argument("--clock", choices=["cpu", "wall"], required=True,
                   help="the clock of the time limit and of every time recorded: process CPU "
                        "time or wall clock")
    p.add_argument("--delta", type=probability, required=True,
                   help="ApproxPAXp precision threshold")
    p.add_argument("--seed", type=count, required=True)
    p.add_argument("--out", required=True, help="JSON Lines run file")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import oracles
    from fxai.data.prepared import cleaning_note, finite_domains, load_split, shown
    from fxai.data.split import pick_instance
    from fxai.models import VOTES, n_classes
    from fxai.models.kinds import is_kind
    from fxai.values import plain

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    data, model = prepared_and_model(args.dataset, args.prepared, args.model, args.family)
    doms = finite_domains(data.domains)
    _, test = load_input(load_split, args.split, "split")
    rows = [pick_instance(test, k, args.seed) for k in range(min(args.instances, len(test)))]
    vote = VOTES.get(args.family)  # a forest's vote rule; None: not a forest
    pipeline = is_kind(model, "pipeline")
    frames = raw_frame(model, data, data.X[rows]) if pipeline else None  # (one reading)
    settings = {"dataset": args.dataset, "family": args.family, "time_limit": args.time_limit,
                "clock": args.clock, "delta": args.delta}
    inputs = {"data": Path(args.prepared) / f"{args.dataset}.csv", "model": args.model}
    note = cleaning_note(data.cleaning)
    if note:
        LOG.info("%s: preparation %s", args.dataset, note)
    with RunWriter(args.out, "cross-run", settings, inputs, rows,
                   f"cross {args.family} {args.dataset}", log=LOG,
                   about={"data_cleaning": data.cleaning} if data.cleaning else None) as run:
        for row in run.todo:
            x = [v.item() for v in data.X[row]]
            given, domains = x, None if args.family in REAL else doms
            if pipeline:  # the row as the file shows it, by column name
                frame = frames.iloc[[rows.index(row)]]
                x = [plain(v) for v in frame.iloc[0]]
                given, domains = dict(zip(data.feature_names, x, strict=True)), None
            rec = {"dataset": args.dataset, "model": args.family, "instance": row, "x": x,
                   "values": dict(zip(data.feature_names, shown(data, data.X[row])[0],
                                      strict=True)),
                   "n_classes": n_classes(model)}
            t0 = time.perf_counter()
            o = oracles.for_model(model, given, domains=domains, vote=vote)
            rec["prediction"] = (int(np.searchsorted(model.classes_, model.predict(frame)[0]))
                                 if pipeline else np.asarray(o.prediction).item())  # a code
            labels = data.class_labels
            rec["class"] = labels[rec["prediction"]] if labels else rec["prediction"]
            out = run_instance(
                o, model, given, domains, vote, args.time_limit, args.delta, args.clock,
                PIPELINE_NO_PAXP if pipeline else REAL_NO_PAXP if args.family in REAL else None)
            rec["results"], rec["verified"] = out.result, out.verdict
            for key in ("axp", "cxp"):  # the single explanations by name too
                feats = rec["results"][key]["features"]
                rec["results"][key]["names"] = (None if feats is None else
                                                [data.feature_names[f] for f in feats])
            complete = all(rec["results"][n]["complete"] for n in TARGETS)
            rec["status"] = "done" if complete else "timeout"
            rec["time_s"] = time.perf_counter() - t0
            run.write(rec, explanations=len(explained(rec["results"])[0]))
            LOG.info("%s/%s: row %d %s, verified=%s", args.family, args.dataset, row,
                     rec["status"], rec["verified"])
    return 0
