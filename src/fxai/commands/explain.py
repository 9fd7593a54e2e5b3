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
import os
import sys
import time
import warnings
from pathlib import Path

from fxai.argtypes import positive, positive_int


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
                   help="HistGradientBoosting, LightGBM: an empty cell (NaN) is a value of "
                        "its own, routed as the model routes it, and every feature may take "
                        "it (default: an empty cell is refused)")
    p.add_argument("--columns", default=None,
                   help="a model fitted without feature names: its features in order, as "
                        "column names of the CSV (a,b,c); default: the CSV's columns are "
                        "read by position, and the command says so")
    p.add_argument("--row", type=positive_int, default=None,
                   help="explain only this data row of the CSV (1: the first after the "
                        "header); default: every row")
    p.add_argument("--out", required=True, help="explanations (JSON)")
    p.add_argument("--figures", default=None, help="folder for one FFA bar chart per row")


def _table(path: str, target: str | None, must: bool):
    """The CSV as a DataFrame (text columns categorical), ``target`` dropped (it ``must``
    be there, or may)."""
    import pandas as pd

    from fxai.data.user import check_header
    from fxai.errors import DataError

    try:
        check_header(path, "the CSV")
        df = pd.read_csv(path)
    except DataError:
        raise
    except (OSError, ValueError) as e:
        raise DataError(f"cannot read the CSV {path}: {e}") from None
    if target is not None and (must or target in df.columns):
        if target not in df.columns:
            raise DataError(f"{path}: no column {target!r} (columns: {list(df.columns)})")
        df = df.drop(columns=[target])
    for col in df.columns:
        if df[col].dtype == object:
            _mostly_numbers(df[col], path)
            df[col] = df[col].astype("category")
    return df


def _mostly_numbers(s, path: str) -> None:
    """DataError at the first cell that is not a number in a column whose cells are mostly
    numbers (a typo in a numeric column, which would otherwise make it text)."""
    import pandas as pd

    from fxai.errors import DataError

    given = s.notna()
    numbers = pd.to_numeric(s, errors="coerce").notna()
    bad = given & ~numbers
    if bad.any() and numbers.sum() > bad.sum():
        i = int(bad.to_numpy().argmax())
        raise DataError(f"{path}: row {i + 1}, column {s.name!r}: {s.iloc[i]!r} is not a number, "
                        f"as {int(numbers.sum())} of the column's {int(given.sum())} values are")


CHECK_BATCH = 100  # explanations per checker call (the time limit is checked between them)


def explain_row(model, x, domains, time_limit: float, clock: str, columns: list[str],
                vote: str | None = None, missing: bool = False,
                names: list[str] | None = None, stage=lambda name: None) -> dict:
    """One row's explanations (named), FFA and the independent checkers' verdict; the
    explainer and the checker read the row and the keywords the same way (``names``: the
    model's features in order, for a model fitted without; ``stage(name)`` is told when
    checking starts)."""
    from fxai import explain, oracles, verify
    from fxai.explain.marco import CLOCKS

    now = CLOCKS[clock]
    t0 = now()
    options = {"domains": domains, "vote": vote, "missing": missing}
    o = oracles.for_model(model, x, columns=names, **options)
    if o.feature_names is None:
        o.feature_names = columns
    r = explain.all_xps(o, time_limit=time_limit, clock=clock)
    notes = _unseen(model, x, vote, missing)
    t1 = now()
    stage("checking")
    unchecked = None
    try:  # the check gets the explainer's time limit too (in CPU s), in small batches
        ok_a, ok_c = verify.check_all(model, x, r.axps, r.cxps, batch=CHECK_BATCH,
                                      time_limit=time_limit, columns=names, **options)
        verified: bool | None = all(ok_a) and all(ok_c)
    except oracles.TimeLimitExceeded as e:
        verified = None
        unchecked = (f"time limit: the checker's {time_limit} s ran out"
                     if e.seconds is not None else
                     f"size: beyond the checker ({' '.join(str(e).split())})")
    t2 = now()
    ffa = explain.ffa_from_axps(r.axps)
    return {
        "instance": dict(zip(o.feature_names, explain.values(o), strict=True)),  # as in the CSV
        "prediction": getattr(o.prediction, "item", lambda: o.prediction)(),
        "axps": [list(a) for a in explain.names(o, r.axps)],
        "cxps": [list(c) for c in explain.names(o, r.cxps)],
        "ffa": explain.names(o, ffa),
        "complete": r.complete,
        "verified": verified,
        "time_s": t2 - t0,
        "explain_s": r.time_s,
        "check_s": t2 - t1,
        **({"notes": notes} if notes else {}),
        **({"not_checked": unchecked} if unchecked else {}),
    }


def bar_chart(rec: dict, title: str, path: Path) -> None:
    """Horizontal bars of the FFA (features by decreasing attribution), written atomically."""
    from matplotlib.figure import Figure

    items = sorted(rec["ffa"].items(), key=lambda kv: (-kv[1], kv[0]))
    names = [k for k, _ in items] or ["(no feature)"]
    values = [v for _, v in items] or [0.0]
    fig = Figure(figsize=(5, 0.4 * len(names) + 1.2))
    ax = fig.add_subplot()
    ax.barh(names[::-1], values[::-1], color="#4c72b0")
    ax.set_xlim(0, 1)
    ax.set_xlabel("FFA: share of the AXps containing the feature"
                  + ("" if rec["complete"] else " (incomplete)"))
    ax.set_title(title)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=100)
    os.replace(tmp, path)


def run(args: argparse.Namespace) -> int:
    from fxai.errors import DataError
    from fxai.files import write_atomic
    from fxai.models import convert as conversion
    from fxai.models import load as load_model

    clash = _output_clash(args)
    if clash:
        print(f"fxai explain: error: {clash}", file=sys.stderr)
        return 2
    rows = _table(args.instances, args.target, must=False)
    if rows.empty:
        raise DataError(f"{args.instances}: no data rows (only a header): nothing to explain")
    domains = None if args.domains is None else _table(args.domains, args.target, must=True)
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
    names = _model_columns(args, conv, model, columns)
    if args.row is not None and args.row > len(rows):
        raise DataError(f"{args.instances}: --row {args.row}, but the file has {len(rows)} "
                        "data rows")
    by_position = names is None and domains is None and _unnamed(conv, model)
    if by_position:
        shown = ", ".join(f"{c} -> feature {i}" for i, c in enumerate(columns))
        print(f"fxai explain: {args.model} was fitted without feature names: the columns of "
              f"{args.instances} are read by position ({shown}); --columns names the "
              "model's features in order", file=sys.stderr)
    out = []
    todo = range(len(rows)) if args.row is None else [args.row - 1]
    progress = Progress(len(todo))
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
        folder = Path(args.figures)
        folder.mkdir(parents=True, exist_ok=True)
        for rec in out:
            bar_chart(rec, f"row {rec['row']}: predicted {rec['prediction']}",
                      folder / f"row_{rec['row']}.png")
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


class Progress:
    """A line on stderr every 5 s once a row has taken more than 5 s (wall clock): row k of
    n, its stage (explaining or checking), the time it has taken."""

    EVERY = 5.0

    def __init__(self, n: int):
        import threading

        self.n, self.k, self.line, self.name = n, 0, 0, "explaining"
        self.t0: float | None = None
        self._lock = threading.Lock()
        threading.Thread(target=self._watch, daemon=True).start()

    def row(self, k: int, line: int) -> None:
        with self._lock:
            self.k, self.line, self.name, self.t0 = k, line, "explaining", time.monotonic()

    def stage(self, name: str) -> None:
        self.name = name

    def done(self) -> None:
        self.t0 = None

    def _watch(self) -> None:
        shown = 0.0
        while True:
            time.sleep(0.5)
            with self._lock:
                t0, k, line, name = self.t0, self.k, self.line, self.name
            now = time.monotonic()
            if t0 is None or now - t0 < self.EVERY or now - shown < self.EVERY:
                continue
            shown = now
            print(f"fxai explain: row {k} of {self.n} (CSV row {line}): {name}, "
                  f"{now - t0:.0f} s", file=sys.stderr, flush=True)


def _unseen(model, x, vote, missing) -> list[str]:
    """The row's categories its model reads as any other value (one note each)."""
    from fxai.models import convert as conversion

    conv = conversion.converter(model)
    if conv is None or not conv.coded:
        return []
    return conversion.convert(conv, model, None, vote, missing).unseen(x)


def _output_clash(args) -> str | None:
    """What is wrong when an output (``--out``, ``--figures``) is one of the inputs."""
    inputs = {"--instances": args.instances, "--model": args.model, "--domains": args.domains}
    outputs = {"--out": args.out, "--figures": args.figures}
    for o, out in outputs.items():
        for i, path in inputs.items():
            if out is not None and path is not None and (
                    Path(out).resolve() == Path(path).resolve()):
                return f"{o} {out} is the {i} file: it would be overwritten; choose another"
    return None


def _unnamed(conv, model) -> bool:
    """The model knows no feature names (a row is then read by position)."""
    from fxai.models.schema import model_names

    return not (conv is not None and conv.coded) and model_names(model) is None


def _model_columns(args, conv, model, columns: list[str]) -> list[str] | None:
    """``--columns`` as a list (None when not given); a DataError when the model knows its
    own names or the CSV lacks one of them."""
    from fxai.errors import DataError

    if args.columns is None:
        return None
    names = [c.strip() for c in args.columns.split(",")]
    if not _unnamed(conv, model):
        raise DataError(f"{args.model}: --columns applies to a model fitted without feature "
                        "names; this one knows its own")
    absent = [n for n in names if n not in columns]
    if absent:
        raise DataError(f"{args.instances}: --columns names {absent}, which are not columns "
                        f"of the file ({columns})")
    return names
