"""Check every AXp and CXp of an ``fxai ffa-run`` run file with the model family's independent
checker (``fxai.verify``; for XGBoost the compiled leaf search, with a MILP fallback). The
check records, one per instance, go through :class:`fxai.runfile.RunWriter`: a killed job
keeps the instances it checked."""

from __future__ import annotations

import argparse
import itertools
import logging

from fxai.errors import DataError, ModelError
from fxai.experiments.ffa import check_record
from fxai.runfile import RunWriter, iter_run

LOG = logging.getLogger("fxai.ffa_verify")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", required=True, help="run file of fxai ffa-run (JSON Lines)")
    p.add_argument("--model", required=True, help="the model the run explained")
    p.add_argument("--out", required=True,
                   help="check records (JSON Lines, one per instance; <out>.partial until done)")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    head, records = iter_run(args.run, "ffa-run")  # a half-written run file is refused
    from fxai.data.fetch import sha256_of
    from fxai.models import load as load_model

    recorded = head.get("inputs", {}).get("model")
    if recorded is None:
        raise DataError(f"{args.run}: its header names no model file (not written by "
                        "fxai ffa-run?); rerun the rule that writes it (ffa_run)")
    if recorded["sha256"] != sha256_of(args.model):
        raise ModelError(f"model file {args.model} is not the model the run {args.run} "
                         f"explained ({recorded['file']}: another sha256).")
    # the model is loaded before anything is written (a bad model file leaves nothing)
    first = next(records, None)
    if first is None:
        raise DataError(f"{args.run}: a run file without records; rerun the rule that "
                        "writes it (ffa_run)")
    model = load_model(args.model, n_features=len(first["x"]))
    writer = RunWriter(args.out, "ffa-verify", {}, {"run": args.run, "model": args.model},
                       head["instances"], label=f"ffa-verify {args.run}", log=LOG)
    with writer:
        todo = set(writer.todo)
        for record in itertools.chain([first], records):
            if record.get("instance") not in todo:
                continue
            check = check_record(record, model)
            writer.write(check, explanations=check["n_checked"])
            LOG.info("%s %s k=%s: %s explanations checked, verified=%s (%s s CPU)",
                     check["dataset"], check["method"], check["k"], check["n_checked"],
                     check["verified"], check["check_time_s"])
            if check["verified"] is False:
                LOG.error("k=%s: %d explanations failed the check", check["k"],
                          check["n_failed"])
    return 0
