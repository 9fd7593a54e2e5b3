"""Seeded (stratified when possible) train/test split of a prepared dataset."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from fxai.argtypes import count, fraction
from fxai.errors import DataError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset")
    p.add_argument("--prepared", default="data/prepared", help="prepared tables directory")
    p.add_argument("--out", required=True, help="split JSON path")
    # no defaults: the workflow passes config data.test_size and seed (the schema states them)
    p.add_argument("--test-size", type=fraction, required=True)
    p.add_argument("--seed", type=count, required=True)


def run(args: argparse.Namespace) -> int:
    from fxai.data.prepared import load
    from fxai.data.split import write_split

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    p = load(args.dataset, args.prepared)  # checked against its recorded rows and sha256
    doc = json.loads((Path(args.prepared) / f"{args.dataset}.domains.json").read_text())
    vocab = doc.get("vocabulary") or {}
    if vocab and (vocab.get("seed"), vocab.get("test_size")) != (args.seed, args.test_size):
        raise DataError(
            f"{args.dataset}: the text vocabulary was fitted on the split seed={vocab.get('seed')}"
            f" test_size={vocab.get('test_size')}, not seed={args.seed} "
            f"test_size={args.test_size}; prepare it again."
        )
    out = write_split(args.dataset, p.y, args.out, args.test_size, args.seed)
    logging.getLogger("fxai.split").info("%s: %d rows -> %s", args.dataset, len(p.y), out)
    return 0
