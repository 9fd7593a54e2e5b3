"""Prepare a dataset: data/prepared/<ds>.csv + <ds>.domains.json from its registry entry."""

from __future__ import annotations

import argparse
import logging

from fxai.argtypes import count, fraction
from fxai.data.prepare import DEFAULT_ORDER, prepare
from fxai.data.registry import load_registry


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="registry name or alias")
    p.add_argument("--registry", default="config/datasets.yaml")
    p.add_argument("--raw-root", default="data/raw")
    p.add_argument("--out-dir", default="data/prepared")
    p.add_argument("--source-order", default=",".join(DEFAULT_ORDER),
                   help="comma-separated preference among files, embedded, generated")
    p.add_argument("--seed", type=count, default=0)
    p.add_argument("--test-size", type=fraction, default=0.2)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    prepare(args.dataset, load_registry(args.registry), args.raw_root, args.out_dir,
            source_order=args.source_order.split(","), seed=args.seed,
            test_size=args.test_size)
    return 0
