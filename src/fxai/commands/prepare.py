"""Prepare a dataset: data/prepared/<ds>.csv (.npz: table npz) + <ds>.domains.json from its
registry entry."""

from __future__ import annotations

import argparse
import logging

from fxai.argtypes import count, fraction


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="registry name or alias")
    p.add_argument("--raw-root", default="data/raw")
    p.add_argument("--out-dir", default="data/prepared")
    # no defaults: the workflow passes config data.registry, data.source_order, seed and
    # data.test_size (the schema states them)
    p.add_argument("--registry", required=True, help="dataset registry YAML (data.registry)")
    p.add_argument("--source-order", required=True,
                   help="comma-separated preference among files, embedded, generated")
    p.add_argument("--seed", type=count, required=True, help="the split's seed (text vocabulary)")
    p.add_argument("--test-size", type=fraction, required=True,
                   help="the split's test share (text vocabulary)")


def run(args: argparse.Namespace) -> int:
    from fxai.data.prepare import prepare
    from fxai.data.registry import load_registry

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    prepare(args.dataset, load_registry(args.registry), args.raw_root, args.out_dir,
            source_order=args.source_order.split(","), seed=args.seed,
            test_size=args.test_size)
    return 0
