"""Table ``models``: one row per trained model of a profile, from the models' meta JSON.

Columns: the model folder (``nbc``, ``dt``, ``dt-sized``, ``obdd``, ``bt``, ``rf``, ``mbt``),
dataset, learner, number of classes, #features, features used (tested in some split; for an
NBC, features with more than one value), distinct (feature, threshold) splits (trees,
ensembles), depth, node and leaf counts, trees (ensembles), rules (decision lists) and
training/test accuracy (%). A value a model family does not have is empty. Models trained
by several code versions add a ``code_version`` column (docs/results.md).
"""

from __future__ import annotations

import argparse

from fxai.experiments.models import build


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metas", nargs="+", required=True,
                   help="model meta files results/<profile>/models/<model>/<ds>.meta.json")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--name", default="models")


def run(args: argparse.Namespace) -> int:
    from fxai.report.tables import write_table

    df = build(args.metas)
    versions = [{v} for v in df.pop("code_version")]
    df = write_table(df, args.name, args.out_dir, code_versions=versions,
                     caption="Trained models: size, features and thresholds used, accuracy (%).")
    print(df.to_string(index=False))
    return 0
