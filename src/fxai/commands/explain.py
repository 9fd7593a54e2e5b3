"""Explain your own model on a CSV of instances: every AXp and CXp, the FFA, verified, named.

One model file (scikit-learn DecisionTreeClassifier, RandomForestClassifier,
HistGradientBoostingClassifier, CategoricalNB, LightGBM's LGBMClassifier or a Pipeline of
encoders and scalers in joblib, XGBoost JSON or UBJ) and a CSV whose header names
the features (a ``--target`` column is dropped where present). A Pipeline reads the CSV's
raw values (text as text) and is explained over its columns; ``--domains`` does not apply to
it (its encoders give the categories). With
``--domains TRAIN.csv`` the integer, boolean and text columns of that table give finite
domains (text columns: their sorted values, which the model must see as codes 0..k-1, as
``fxai.oracles.instance.encode`` makes them); without, every feature is real (for a
CategoricalNB: its categories). The model comes in as the library's ``for_model`` takes it
(:mod:`fxai.models.convert`): a model fitted without feature names reads the CSV's columns
by position, which the command says (stderr, ``columns_read_by_position``), unless
``--columns`` names the model's features in order. Writes ``--out`` (JSON: one entry per
row, with the features' names) atomically and, with ``--figures``, one FFA bar chart per
row (``row_<i>.png``). A row the model cannot take (wrong columns, a value outside its
domain, a missing value) stops the command with a message naming the file and row; nothing
is written then.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

from fxai.argtypes import positive, positive_int
from fxai.experiments.user import Progress, explain_row, model_columns, output_clash, unnamed


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True,
                   help="model file: .joblib (tree, forest, CategoricalNB, "
                        "HistGradientBoosting, LightGBM or Pipeline), .json/.ubj (XGBoost)")
    p.add_argument("--instances", required=True, help="CSV of instances, header = feature names")
    p.add_argument("--target", default=None, help="a column of the CSVs to drop (the label)")
    p.add_argument("--domains", default=None,
                   help="CSV (e.g. the training data) whose integer, boolean and text columns "
                        "give finite domains")
    p.add_argument("--time-limit", type=positive, default=60.0,
                   help="seconds per instance (all AXps and CXps; trees are exact at once)")
    p.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    p.add_argument("--vote", choices=["soft", "hard"], default=None,
                   help="a random forest's vote rule: soft (scikit-learn's predict, the "
                        "default) or hard (the majority of the trees' votes)")
    p.add_argument("--missing", action="store_true",
                   help="HistGradientBoosting, LightGBM, random forests: an empty cell "
                        "(NaN) is a value of its own, routed as the model routes it, and "
                        "every feature may take it (default: an empty cell is refused)")
    p.add_argument("--columns", default=None,
                   help="a model fitted without feature names: its features in order, as "
                        "column names of the CSV (a,b,c); default: the CSV's columns are "
                        "read by position, and the command says so")
    p.add_argument("--row", type=positive_int, action="append", default=None,
                   help="explain only this data row of the CSV (1: the first after the "
                        "header; several --row: each, in order); default: every row")
    p.add_argument("--out", required=True, help="explanations (JSON)")
    p.add_argument("--figures", default=None, help="folder for one FFA bar chart per row")


def run(args: argparse.Namespace) -> int:
    from fxai.data.user import read_rows
    from fxai.errors import DataError
    from fxai.files import write_atomic
    from fxai.models import convert as conversion
    from fxai.models import load as load_model

    clash = output_clash(args.out, args.figures, {"--instances": args.instances,
                                                  "--model": args.model,
                                                  "--domains": args.domains})
    if clash:
        print(f"fxai explain: error: {clash}", file=sys.stderr)
        return 2
    rows = read_rows(args.instances, args.target, must=False)
    if rows.empty:
        raise DataError(f"{args.instances}: no data rows (only a header): nothing to explain")
    domains = None if args.domains is None else read_rows(args.domains, args.target, must=True)
    model = load_model(args.model, n_features=rows.shape[1])
    conv = conversion.converter(model)  # the model's way in, as the library's
    options = {"domains": domains, "vote": args.vote, "missing": args.missing}
    for k in conversion.refused(conv, model, options):
        raise DataError(f"{args.model}: --{k} does not apply to a {type(model).__name__}: "
                        f"{conversion.WHY[k]}")
    from fxai.oracles import check_model

    try:
        check_model(model, args.vote)
    except (TypeError, ValueError) as e:  # the model's problem, before any row: a model or
        # step fxai cannot read, an unsupported objective (a usage error, as argparse's)
        print(f"fxai explain: error: {args.model}: {' '.join(str(e).split())}",
              file=sys.stderr)
        return 2
    columns = [str(c) for c in rows.columns]
    names = model_columns(args.columns, conv, model, columns, args.model, args.instances)
    beyond = [r for r in args.row or () if r > len(rows)]
    if beyond:
        raise DataError(f"{args.instances}: --row {beyond[0]}, but the file has {len(rows)} "
                        "data rows")
    by_position = names is None and domains is None and unnamed(conv, model)
    if by_position:
        shown = ", ".join(f"{c} -> feature {i}" for i, c in enumerate(columns))
        print(f"fxai explain: {args.model} was fitted without feature names: the columns of "
              f"{args.instances} are read by position ({shown}); --columns names the "
              "model's features in order", file=sys.stderr)
    out = []
    todo = range(len(rows)) if args.row is None else [r - 1 for r in dict.fromkeys(args.row)]
    progress = Progress(len(todo), args.clock)
    for k, i in enumerate(todo):
        progress.row(k + 1, i + 1)
        x = rows.iloc[i].tolist() if by_position else rows.iloc[i].to_dict()
        with warnings.catch_warnings():  # the checkers pass arrays in the model's own column
            # order (the instance was matched by name): scikit-learn's name warning is noise
            warnings.filterwarnings("ignore", "X does not have valid feature names")
            try:
                rec = explain_row(model, x, domains, args.time_limit, args.clock, columns,
                                  args.vote, args.missing, names, progress.stage)
            except ValueError as e:
                raise DataError(f"{args.instances}: row {i + 1}: {e}") from None
            finally:
                progress.done()
        for note in rec.get("notes", []):
            print(f"fxai explain: {args.instances}: row {i + 1}: {note}", file=sys.stderr)
        out.append({"row": i + 1, **rec})
    if args.figures is not None:
        from fxai.report.figures import ffa_bars

        ffa_bars(out, args.figures)
    head = {"model": str(args.model), "instances": str(args.instances)}
    if by_position:
        head["columns_read_by_position"] = columns
    write_atomic(args.out, json.dumps({**head, "rows": out}, indent=1, default=float) + "\n")
    reasons = [r["not_checked"].split(":")[0] for r in out if r["verified"] is None]
    unchecked = "".join(f", {reasons.count(why)} not checked ({why})"
                        for why in dict.fromkeys(reasons))
    print(f"{len(out)} rows explained: {sum(r['verified'] is True for r in out)} verified, "
          f"{sum(r['complete'] for r in out)} complete{unchecked} -> {args.out}")
    return 0
