"""Check every AXp and CXp of one ``fxai ffa-run`` record with the model family's independent
checker (``fxai.verify``; for XGBoost the compiled leaf search, with a MILP fallback)."""

from __future__ import annotations

import argparse
import json
import logging
import time

from fxai.errors import DataError, ModelError
from fxai.files import read_json, write_atomic

LOG = logging.getLogger("fxai.ffa_verify")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", required=True, help="run record of fxai ffa-run (JSON)")
    p.add_argument("--model", required=True, help="the model the run explained")
    p.add_argument("--out", required=True, help="check record (JSON)")


def check_record(record: dict, model) -> dict:
    """The check fields of one run record: verified (None when there was nothing to check),
    counts, time."""
    from fxai import verify

    out = {k: record.get(k) for k in ("dataset", "method", "instance", "k")}
    axps, cxps = record["axps"], record["cxps"]
    start, start_wall = time.process_time(), time.perf_counter()
    ok_a, ok_c = verify.check_all(model, record["x"], axps, cxps)
    bad_a = [a for a, ok in zip(axps, ok_a, strict=True) if not ok]
    bad_c = [c for c, ok in zip(cxps, ok_c, strict=True) if not ok]
    return out | {
        "verified": not bad_a and not bad_c if axps or cxps else None,
        "n_checked": len(axps) + len(cxps),
        "failed_axps": bad_a[:20],
        "failed_cxps": bad_c[:20],
        "n_failed": len(bad_a) + len(bad_c),
        "check_time_s": round(time.process_time() - start, 3),
        "check_wall_s": round(time.perf_counter() - start_wall, 3),
    }


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    record = read_json(args.run, "run record")
    if not isinstance(record, dict) or record.get("status") not in ("done", "timeout"):
        status = record.get("status") if isinstance(record, dict) else None
        raise DataError(f"{args.run}: status {status!r} is not a finished run (not a run "
                        "record of ffa-run, or of an older fxai?); delete it and rerun ffa-run")
    from fxai.data.fetch import sha256_of
    from fxai.models import load as load_model

    model = load_model(args.model, n_features=len(record["x"]))
    if record.get("model_sha256") not in (None, sha256_of(args.model)):
        raise ModelError(f"model file {args.model} is not the model the run {args.run} "
                         f"explained ({record['model']}: another sha256).")
    check = check_record(record, model)
    write_atomic(args.out, json.dumps(check) + "\n")
    LOG.info("%s %s k=%s: %s explanations checked, verified=%s (%s s CPU)", check["dataset"],
             check["method"], check["k"], check["n_checked"], check["verified"],
             check.get("check_time_s"))
    if check["verified"] is False:
        LOG.error("%d explanations failed the check", check["n_failed"])
    return 0
