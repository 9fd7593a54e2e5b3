"""Audit attribution scores of one model against formal ground truth (relevancy, exact FFA).

Per instance: every AXp and CXp (:func:`fxai.attribution.relevant`), checked by the
family's independent checker; then each score (exact Shapley values, SHAP, LIME, the
formal power indices, user scores named ``module:function``) with its CPU time and the
measures of :func:`fxai.attribution.measures.disagreement`. An incomplete enumeration is
recorded (``status: timeout``) without measures: it is never ground truth.

Instances: with ``--points all``, every point of the feature space when it has at most
``--max-points`` points (``instance`` is then the point's index in the lexicographic order
of the domains, ``x`` its values); otherwise (or with ``--points test``) a seeded sample
of test rows (``instance``: the row id). The background of SHAP, LIME and interventional
Shapley values is a seeded sample of training rows. One JSON line per instance through
:class:`fxai.runfile.RunWriter`, so a killed run resumes.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from fxai.argtypes import count, positive, positive_int
from fxai.experiments.audit import (
    BUILTIN,
    FORMAL,
    audit_instance,
    background,
    plan,
    score_functions,
)
from fxai.experiments.inputs import prepared_and_model
from fxai.runfile import RunWriter

if TYPE_CHECKING:
    pass

LOG = logging.getLogger("fxai.audit_run")
def _scores(text: str) -> list[str]:
    names = [s for s in text.split(",") if s]
    bad = [s for s in names if s not in BUILTIN]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown score(s) {bad}; built-in: {list(BUILTIN)}")
    return names


def _user_score(spec: str) -> str:
    """An argparse type: the score must import (checked before any work)."""
    from fxai.attribution import heuristic

    try:
        heuristic.load_score(spec)
    except heuristic.ScoreError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return spec


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", required=True)
    p.add_argument("--family", required=True, help="model family (a folder of models/)")
    p.add_argument("--model", required=True, help="model file the workflow saved")
    p.add_argument("--split", required=True, help="split JSON (train and test row ids)")
    p.add_argument("--prepared", required=True,
                   help="folder of the prepared table <ds>.csv (data/prepared/<source>)")
    # no defaults: the workflow passes config audit.* and seed, whose schema states them
    p.add_argument("--points", choices=["all", "test"], required=True,
                   help="all: every point of the feature space if small enough; test: rows")
    p.add_argument("--max-points", type=positive_int, required=True,
                   help="largest feature space audited point by point")
    p.add_argument("--instances", type=positive_int, required=True,
                   help="seeded test instances otherwise")
    p.add_argument("--background", type=positive_int, required=True,
                   help="training rows for SHAP, LIME and interventional Shapley values")
    p.add_argument("--time-limit", type=positive, required=True,
                   help="CPU seconds per enumeration of all AXps and CXps")
    p.add_argument("--scores", type=_scores, required=True,
                   help=f"comma-separated built-in scores among {','.join(BUILTIN)}")
    p.add_argument("--user-score", action="append", default=[], metavar="MODULE:FUNCTION",
                   type=_user_score,
                   help="a user score (repeatable): f(model, background, x, feature_names)")
    p.add_argument("--lime-samples", type=positive_int, required=True)
    p.add_argument("--shapley-value", choices=["probability", "class"], required=True,
                   help="v(S) of the Shapley scores: probability of the predicted class, or "
                        "the expected numeric class")
    p.add_argument("--seed", type=count, required=True)
    p.add_argument("--out", required=True, help="JSON Lines run file")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from fxai import oracles
    from fxai.attribution import heuristic
    from fxai.data.prepared import finite_domains

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    data, model = prepared_and_model(args.dataset, args.prepared, args.model)
    doms = finite_domains(data.domains)
    names = [d["name"] for d in data.domains]
    space, ids, points = plan(args, data, doms)
    bg = background(args, data)
    predict = heuristic.predictor(model, doms)
    fns = score_functions(args, model, predict, doms, bg, names)
    formal = [n for n in args.scores if n in FORMAL]
    by_id = dict(zip(ids, points, strict=True))
    settings = {"dataset": args.dataset, "family": args.family, "points": space,
                "max_points": args.max_points, "background": args.background,
                "time_limit": args.time_limit, "scores": args.scores,
                "user_scores": args.user_score, "lime_samples": args.lime_samples,
                "shapley_value": args.shapley_value,
                "seed": args.seed}
    inputs = {"data": Path(args.prepared) / f"{args.dataset}.csv", "model": args.model,
              "split": args.split}
    with RunWriter(args.out, "audit-run", settings, inputs, ids,
                   f"audit {args.family} {args.dataset}", log=LOG) as run:
        for i in run.todo:
            x = by_id[i]
            t0 = time.perf_counter()
            o = oracles.for_model(model, x, domains=doms)
            rec = {"dataset": args.dataset, "model": args.family, "instance": i,
                   "points": space, "x": x, "prediction": np.asarray(o.prediction).item()}
            rec |= audit_instance(o, model, x, doms, fns, formal, args.time_limit)
            rec["status"] = "done" if rec["complete"] else "timeout"
            rec["time_s"] = time.perf_counter() - t0
            run.write(rec, explanations=len(rec["axps"]))
    LOG.info("audit %s/%s: %d instances (%s), %d scores", args.family, args.dataset,
             len(ids), space, len(fns) + len(formal))
    return 0

