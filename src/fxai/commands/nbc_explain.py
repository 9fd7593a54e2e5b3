"""Explain test instances of an NBC: AXp (XLC per class pair), ApproxPAXp per δ and target,
verified."""

from __future__ import annotations

import argparse
import logging

from fxai.argtypes import count, positive_int, probability
from fxai.experiments.nbc import explain_instance, pick_instances, read_prepared, read_split
from fxai.runfile import RunWriter, load_input

log = logging.getLogger("fxai.nbc")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True, help="prepared table data/prepared/<ds>.csv")
    p.add_argument("--split", required=True, help="split file")
    p.add_argument("--model", required=True, help="NBC <ds>.joblib")
    p.add_argument("--out", required=True,
                   help="run file runs/nbc/<ds>.jsonl (written via <out>.partial)")
    # no defaults: the workflow passes config nbc.* and seed, whose schema states them
    p.add_argument("--deltas", type=probability, nargs="+", required=True)
    p.add_argument("--targets", type=positive_int, nargs="+", required=True)
    p.add_argument("--decimals", type=count, required=True)
    p.add_argument("--instances", type=positive_int, required=True,
                   help="test instances (all if fewer)")
    p.add_argument("--seed", type=count, required=True)


def run(args: argparse.Namespace) -> int:
    from fxai.models import nbc

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    X, _, _, name = load_input(read_prepared, args.data, "prepared table")
    _, test_ids = load_input(lambda p: read_split(p, len(X)), args.split, "split")
    model = load_input(nbc.load, args.model, "NBC model")
    rows = pick_instances(test_ids, args.instances, args.seed)
    settings = {"deltas": args.deltas, "targets": args.targets, "decimals": args.decimals}
    inputs = {"data": args.data, "model": args.model}
    with RunWriter(args.out, "nbc-explain", settings, inputs, rows, f"nbc {name}") as run:
        for row in run.todo:
            rec = explain_instance(model, name, row, X[row], args.deltas, args.targets,
                                   args.decimals)
            run.write(rec, explanations=1 + len(rec["approx_paxp"]))
    return 0
