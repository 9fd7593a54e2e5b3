"""Fetch a dataset's raw files into data/raw/<ds>/ (mirror or URL, sha256-checked)."""

from __future__ import annotations

import argparse
import logging


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", help="registry name or alias")
    p.add_argument("--registry", required=True,
                   help="dataset registry YAML (config data.registry, e.g. config/datasets.yaml)")
    p.add_argument("--raw-root", default="data/raw")
    p.add_argument("--mirror", default=None, help="mirror directory ($FXAI_DATA_MIRROR wins)")


def run(args: argparse.Namespace) -> int:
    from fxai.data.fetch import fetch
    from fxai.data.registry import load_registry

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    reg = load_registry(args.registry)
    root = reg.root(args.dataset)
    manifest = fetch(root, reg.entry(root), args.raw_root, args.mirror or None)
    logging.getLogger("fxai.fetch").info("%s: fetched, manifest %s", root, manifest)
    return 0
