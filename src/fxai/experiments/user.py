"""The your-data part of the workflow: a user's fitted model checked against its prepared
table, the rows as a Pipeline reads them, and the model's own accuracy."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from fxai.errors import ModelError
from fxai.experiments.driver import drive
from fxai.models import n_classes


def recorded_names(model) -> list[str] | None:
    """The feature names a model records (None: it records none)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None and hasattr(model, "feature_names"):  # XGBoost Booster
        names = model.feature_names
    return None if names is None else [str(n) for n in names]


def n_inputs(model) -> int:
    if hasattr(model, "num_features"):
        return int(model.num_features())
    return int(model.n_features_in_)


def check(model, prep, path: str) -> None:
    """ModelError naming ``path`` when the model cannot read the prepared table as it is."""
    if n_inputs(model) != prep.n_features:
        raise ModelError(f"model file {path} takes {n_inputs(model)} features; the prepared "
                         f"table has {prep.n_features}: {prep.feature_names}.")
    names = recorded_names(model)
    if names is not None and names != prep.feature_names:
        raise ModelError(f"model file {path} was fitted on the features {names}; the prepared "
                         f"table has {prep.feature_names} (same names, same order).")
    from fxai.models.kinds import is_kind

    pipeline = is_kind(model, "pipeline")
    if pipeline:
        from fxai.oracles import check_model

        try:
            check_model(model)
        except TypeError as e:
            raise ModelError(f"model file {path}: {e}") from None
    for d in prep.domains:
        labels = d.get("labels")
        if not pipeline and d["type"] != "numeric" and labels != [str(v) for v in d["values"]]:
            raise ModelError(
                f"model file {path}: feature {d['name']!r} is {d['type']} with values {labels} "
                f"in the file, prepared as codes {d['values']}; a model of your own must see "
                "the values it was fitted on: code the column 0..k-1 in the file, or declare "
                "it numeric (no discretise).")
    classes = getattr(model, "classes_", None)
    labels = prep.class_labels or [str(c) for c in prep.classes]
    want = [str(c) for c in classes] if classes is not None else [str(i) for i in
                                                                    range(n_classes(model))]
    if want != labels:
        raise ModelError(f"model file {path} predicts the classes {want}; the target column "
                         f"holds {labels}.")


def raw_frame(pipe, prep, X):
    """The prepared rows ``X`` as the pipeline reads them: the file's values (text for a
    coded column, as :func:`fxai.data.prepared.shown` gives them), each of the type its
    column's step reads (a category of its encoder, a number)."""
    import pandas as pd

    from fxai.data.prepared import shown
    from fxai.oracles import prepare

    encoded = prepare(pipe)
    rows = [[encoded.read_value(i, v) for i, v in enumerate(r)] for r in shown(prep, X)]
    return pd.DataFrame(rows, columns=prep.feature_names)


def accuracy(model, X, y, prep=None) -> float:
    """The model's own prediction against the prepared class codes ``y`` (a Pipeline: on
    the rows as the file shows them, which needs ``prep``)."""
    import numpy as np

    from fxai.models.kinds import is_kind

    if len(y) == 0:
        return float("nan")
    if is_kind(model, "pipeline"):
        pred = model.predict(raw_frame(model, prep, X))
        return float(np.mean(np.searchsorted(model.classes_, pred) == y))
    if hasattr(model, "predict_proba"):  # scikit-learn: a class label, coded by its position
        if getattr(model, "feature_names_in_", None) is not None:
            import pandas as pd

            X = pd.DataFrame(X, columns=model.feature_names_in_)
        return float(np.mean(np.searchsorted(model.classes_, model.predict(X)) == y))
    import xgboost as xgb

    proba = model.predict(xgb.DMatrix(np.asarray(X, dtype=np.float32),
                                      feature_names=recorded_names(model)))
    pred = proba.argmax(axis=1) if proba.ndim == 2 else (proba > 0.5).astype(int)
    return float(np.mean(pred == y))


CHECK_BATCH = 100  # explanations per checker call (the time limit is checked between them)


def explain_row(model, x, domains, time_limit: float, clock: str, columns: list[str],
                vote: str | None = None, missing: bool = False,
                names: list[str] | None = None, stage=lambda name: None) -> dict:
    """One row's explanations (named), FFA and the independent checkers' verdict; the
    explainer and the checker read the row and the keywords the same way (``names``: the
    model's features in order, for a model fitted without; ``stage(name)`` is told when
    checking starts)."""
    from fxai import explain, oracles, verify

    options = {"domains": domains, "vote": vote, "missing": missing}

    def explain_() -> tuple:
        o = oracles.for_model(model, x, columns=names, **options)
        if o.feature_names is None:
            o.feature_names = columns
        return o, explain.all_xps(o, time_limit=time_limit, clock=clock)

    def check(found) -> tuple[bool | None, str | None]:
        stage("checking")
        _, r = found
        try:  # the check gets the explainer's time limit too (in CPU s), in small batches
            ok_a, ok_c = verify.check_all(model, x, r.axps, r.cxps, batch=CHECK_BATCH,
                                          time_limit=time_limit, columns=names, **options)
        except oracles.TimeLimitExceeded as e:
            return None, (f"time limit: the checker's {time_limit} s ran out"
                          if e.seconds is not None else
                          f"size: beyond the checker ({' '.join(str(e).split())})")
        return verify.verdict(ok_a, ok_c), None

    out = drive(explain_, clock=clock, check=check)
    (o, r), (verified, unchecked) = out.result, out.verdict
    notes = unseen(model, x, vote, missing, names)
    ffa = explain.ffa_from_axps(r.axps)
    return {
        "instance": dict(zip(o.feature_names, explain.values(o), strict=True)),  # as in the CSV
        "prediction": getattr(o.prediction, "item", lambda: o.prediction)(),
        "axps": [list(a) for a in explain.names(o, r.axps)],
        "cxps": [list(c) for c in explain.names(o, r.cxps)],
        "ffa": explain.names(o, ffa),
        "complete": r.complete,
        "verified": verified,
        "time_s": out.explained.seconds + out.checked.seconds,
        "explain_s": r.time_s,
        "check_s": out.checked.seconds,
        **({"notes": notes} if notes else {}),
        **({"not_checked": unchecked} if unchecked else {}),
    }


def unseen(model, x, vote, missing, columns=None) -> list[str]:
    """The row's categories its model reads as any other value (one note each)."""
    from fxai.models import convert as conversion

    conv = conversion.converter(model)
    if conv is None or not conv.codes(missing):
        return []
    return conversion.coded_schema(conv, model, vote, missing, columns).unseen(x)


def unnamed(conv, model) -> bool:
    """The model knows no feature names (a row is then read by position; a Pipeline fitted
    on an array too)."""
    from fxai.models.schema import model_names

    return model_names(model) is None


def model_columns(given: str | None, conv, model, columns: list[str], model_path,
                  rows_path) -> list[str] | None:
    """The comma-separated names ``given`` (``fxai explain --columns``) as a list, None when
    not given; a DataError when the model (file ``model_path``) knows its own names or the
    CSV ``rows_path`` lacks one of them."""
    from fxai.errors import DataError

    if given is None:
        return None
    names = [c.strip() for c in given.split(",")]
    if not unnamed(conv, model):
        raise DataError(f"{model_path}: --columns applies to a model fitted without feature "
                        "names; this one knows its own")
    absent = [n for n in names if n not in columns]
    if absent:
        raise DataError(f"{rows_path}: --columns names {absent}, which are not columns "
                        f"of the file ({columns})")
    return names


class Progress:
    """A line on stderr every 5 s (wall clock) once a row has taken more than 5 s: row k of
    n, its stage (explaining or checking) and the time it has taken on ``clock``, the clock
    of the time limit (``"cpu"``: process CPU seconds, said as "CPU s")."""

    EVERY = 5.0

    def __init__(self, n: int, clock: str = "cpu"):
        import threading

        from fxai import clocks

        self.n, self.k, self.line, self.name = n, 0, 0, "explaining"
        self.clock, self.unit = clocks.clock(clock), "CPU s" if clock == "cpu" else "s"
        self.t0: float | None = None
        self.started = 0.0  # the row's start on self.clock
        self._lock = threading.Lock()
        threading.Thread(target=self._watch, daemon=True).start()

    def row(self, k: int, line: int) -> None:
        with self._lock:
            self.k, self.line, self.name, self.t0 = k, line, "explaining", time.monotonic()
            self.started = self.clock()

    def stage(self, name: str) -> None:
        self.name = name

    def done(self) -> None:
        self.t0 = None

    def _watch(self) -> None:
        shown = 0.0
        while True:
            time.sleep(0.5)
            with self._lock:
                t0, k, line, name, started = self.t0, self.k, self.line, self.name, self.started
            now = time.monotonic()
            if t0 is None or now - t0 < self.EVERY or now - shown < self.EVERY:
                continue
            shown = now
            print(f"fxai explain: row {k} of {self.n} (CSV row {line}): {name}, "
                  f"{self.clock() - started:.1f} {self.unit}", file=sys.stderr, flush=True)


def feature_rows(names: list[str], records: list[dict], family: str, ds: str) -> list[dict]:
    """One row per feature from one run file's records (the table ``cross_user_features``):
    the share of instances whose AXp holds it, its mean exact FFA, the verified share."""
    import numpy as np

    ok = [r for r in records if r.get("status") != "error"]
    ffas = [r["results"]["ffa"]["exact"] for r in ok if "ffa" in r["results"]]
    verified = 100 * float(np.mean([bool(r.get("verified")) for r in records]))
    rows = []
    for i, name in enumerate(names):
        in_axp = [i in r["results"]["axp"]["features"] for r in ok]
        rows.append({"family": family, "dataset": ds, "feature": name,
                     "in_axp_pct": 100 * float(np.mean(in_axp)) if in_axp else float("nan"),
                     "ffa_mean": float(np.mean([f.get(str(i), 0.0) for f in ffas]))
                     if ffas else float("nan"),
                     "instances": len(records), "verified_pct": verified})
    return rows


def output_clash(out: str, figures: str | None, inputs: dict[str, str | None]) -> str | None:
    """What is wrong with the outputs of ``fxai explain`` (``--out`` a file, ``--figures`` a
    folder), found before any row is read: one of them is an input (``inputs``: option ->
    path), they are the same path, ``--out`` is a folder or ``--figures`` a file."""
    outputs = {"--out": out, "--figures": figures}
    for o, given in outputs.items():
        for i, path in inputs.items():
            if given is not None and path is not None and (
                    Path(given).resolve() == Path(path).resolve()):
                return f"{o} {given} is the {i} file: it would be overwritten; choose another"
    if figures is not None and Path(figures).resolve() == Path(out).resolve():
        return (f"--out and --figures are both {out}: --out is a file, --figures a folder "
                "of pictures; choose two paths")
    if Path(out).is_dir():
        return f"--out {out} is a folder: name the JSON file to write"
    if figures is not None and Path(figures).exists() and not Path(figures).is_dir():
        return f"--figures {figures} is a file: name a folder for the pictures"
    return None
