"""Benchmark: random forests at the size people train them, fxai beside RFxpl and PyXAI on
the same models and instances.

    .venv/bin/python -m benchmarks.forests [--vote hard|soft] [--instances 10] [--models ...]
        [--time-limit S] [--warm-only] [--rfxpl CHECKOUT] [--pyxai VENV]

Models (scikit-learn's own datasets, ``train_test_split(test_size=0.25, random_state=0)``):
``bc-default`` ``RandomForestClassifier(random_state=0)`` on breast_cancer (100 full-depth
trees, 2 classes), ``bc-depth6`` the same with ``max_depth=6``, ``bc-entropy6`` with
``max_depth=6, criterion="entropy"``, ``bc-leaf5`` with ``min_samples_leaf=5`` (both with
impure leaves), ``digits-default`` on digits (10 classes), ``bc-extra``
``ExtraTreesClassifier(random_state=0)``; ``digits-entropy6``, ``pendigits-entropy6`` and
``spambase-entropy6``: 100 trees of ``max_depth=6, criterion="entropy"`` on digits and on
PMLB's pendigits (10 classes) and spambase (2 classes), read from the data mirror
(``FXAI_DATA_MIRROR``); ``xd6-depth6``: 100 trees of ``max_depth=6`` on PMLB's xd6 (9
Boolean features, 2 classes; the mirror too). Explained: the first ``--instances`` test rows,
under ``--vote``: ``hard`` (default; the majority of the trees' votes, first class of most
votes) or ``soft`` (scikit-learn's ``predict``).

* fxai, in this process after one conversion (``oracles.prepare``) and the load of the
  compiled search (``oracles.warm_up``): CPU s of one AXp (``explain.find_axp``, deletion,
  under ``--time-limit`` CPU s if given; the first instance of each predicted class also
  builds its class-pair constraints) cold (a fresh copy of the model: its conversion and
  encodings inside the clock; not with ``--warm-only``) and warm (the model converted
  once), then CPU s of the warm AXp's check by the independent checker
  (``verify.check_all``: sufficient and subset-minimal).
* RFxpl (``--rfxpl``: a checkout of github.com/izzayacine/RFxpl; run in
  ``<out folder>/rfxpl-venv``, made with its imports when absent): ``XRF.explain(x, "abd",
  "sat")`` per instance for the hard vote, its MaxSAT route ``"maxsat"`` for the soft vote
  (its per-instance encoding included, the forest's conversion not).
* PyXAI (``--pyxai VENV``: made there with ``pip install pyxai==2.0.1`` when absent): its
  ``sufficient_reason`` per instance, the model's import not included (hard vote only:
  PyXAI explains the majority vote).

Peers run in their own processes on the same pickled model and rows (their virtual
environments get this scikit-learn and numpy). Every tool's clock of a row starts after a
full garbage collection (``gc.collect()``), so a collection of what the rows before left
is not charged to this one; every explanation is checked by fxai's
independent checker (sufficient; subset-minimal over features).

Writes ``<out>.csv`` (one row per tool, model and instance; ``--out`` defaults to
``results/bench/forests`` for the hard vote, ``results/bench/forests-soft`` for the soft
one) and ``<out>.md`` (per tool
and model: mean, max and total CPU s, the explanations checked valid and minimal, and those
equal to fxai's).
"""

from __future__ import annotations

import argparse
import gc
import json
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYXAI = ["pyxai==2.0.1"]
RFXPL = ["anytree", "namedlist", "python-sat[pb]", "pandas"]  # what its xrf package imports


def models(names: list[str]) -> dict:
    """name -> (fitted forest, test rows)."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.model_selection import train_test_split

    deep6 = {"n_estimators": 100, "max_depth": 6, "criterion": "entropy"}
    specs = {
        "bc-default": (load_breast_cancer, RandomForestClassifier, {}),
        "bc-depth6": (load_breast_cancer, RandomForestClassifier, {"max_depth": 6}),
        "bc-entropy6": (load_breast_cancer, RandomForestClassifier,
                        {"max_depth": 6, "criterion": "entropy"}),
        "bc-leaf5": (load_breast_cancer, RandomForestClassifier, {"min_samples_leaf": 5}),
        "digits-default": (load_digits, RandomForestClassifier, {}),
        "bc-extra": (load_breast_cancer, ExtraTreesClassifier, {}),
        "digits-entropy6": (load_digits, RandomForestClassifier, deep6),
        "pendigits-entropy6": (_mirrored("pendigits"), RandomForestClassifier, deep6),
        "spambase-entropy6": (_mirrored("spambase"), RandomForestClassifier, deep6),
        "xd6-depth6": (_mirrored("xd6"), RandomForestClassifier, {"max_depth": 6}),
    }
    out = {}
    for name in names:
        load, cls, kw = specs[name]
        X, y = load(return_X_y=True)
        Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0)
        out[name] = (cls(random_state=0, n_jobs=1, **kw).fit(Xtr, ytr), Xte)
    return out


def _mirrored(name: str):
    """A loader of PMLB dataset ``name`` from the data mirror (``FXAI_DATA_MIRROR``)."""

    def load(return_X_y: bool = True):
        import pandas as pd

        from fxai.data.fetch import mirror_dir

        mirror = mirror_dir()
        if mirror is None:
            raise SystemExit(f"{name} is read from the data mirror: set FXAI_DATA_MIRROR")
        df = pd.read_csv(mirror / name / f"{name}.tsv.gz", sep="\t")
        return df.drop(columns="target").to_numpy(float), df["target"].to_numpy()

    return load


def _axp(model, x, vote: str, time_limit: float | None):
    """One AXp of ``model`` at ``x`` (deletion) and its CPU s; None at the time limit."""
    from fxai import explain, oracles

    gc.collect()  # a collection of what earlier rows left falls outside this row's clock
    t0 = time.process_time()
    try:
        axp = explain.find_axp(oracles.for_model(model, x, vote=vote), time_limit=time_limit)
    except oracles.TimeLimitExceeded:
        axp = None
    return axp, time.process_time() - t0


def run_fxai(model, rows, vote: str, time_limit: float | None = None,
             cold: bool = True) -> list[dict]:
    """fxai per row: warm (this model, converted once) and, with ``cold``, cold (a fresh
    copy of the model, its conversion and encoding inside the clock)."""
    from fxai import oracles, verify

    oracles.warm_up()  # the compiled search, loaded once per process
    oracles.prepare(model, vote=vote)
    out = []
    for i, x in enumerate(rows):
        cold_s = None
        if cold:
            fresh = pickle.loads(pickle.dumps(model))
            cold_s = _axp(fresh, x, vote, time_limit)[1]
        axp, cpu = _axp(model, x, vote, time_limit)
        rec = {"tool": "fxai", "instance": i, "cpu_s": cpu, "cold_s": cold_s}
        if axp is None:
            rec["note"] = "time limit"
        else:
            t0 = time.process_time()
            ok = verify.check_all(model, x, [axp], [], vote=vote)[0][0]
            rec.update(check_s=time.process_time() - t0, size=len(axp), valid=ok, minimal=ok,
                       features=axp)
        out.append(rec)
        print(rec, flush=True)
    return out


def venv_python(venv: Path, packages: list[str]) -> Path:
    """The Python of ``venv``, made there with ``packages`` and this scikit-learn and numpy
    (the pickled model must load) when it does not exist."""
    py = venv / "bin" / "python"
    if not py.exists():
        import numpy
        import sklearn

        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", *packages,
                        f"scikit-learn=={sklearn.__version__}", f"numpy=={numpy.__version__}"],
                       check=True)
    return py


def pyxai_worker(model_file: str, rows_file: str, out_file: str) -> None:
    """In PyXAI's environment: its sufficient reason of each row, features and CPU s."""
    sys.argv = sys.argv[:1]  # PyXAI reads the command line when imported
    import numpy as np
    from pyxai import Explaining, Learning, Tools

    Tools.set_verbose(0)
    rows = np.load(rows_file)
    with open(model_file, "rb") as f:
        model = pickle.load(f)
    try:
        _, converted = Learning.ModelIO.import_models(model, instances_type="tabular")
    except ValueError as e:  # a model type PyXAI does not read
        Path(out_file).write_text(json.dumps({"unsupported": str(e)}))
        return
    out = []
    for x in rows:
        gc.collect()
        t0 = time.process_time()
        explainer = Explaining.initialize(converted, instance=x)
        try:
            reason = explainer.sufficient_reason()
        except IndexError as e:  # PyXAI 2.0.1 on digits: its own to_features fails
            out.append({"error": f"{type(e).__name__}: {e}"})
            continue
        cpu = time.process_time() - t0
        # the 1-based feature of each literal (``to_features`` fails on digits' unused
        # pixels: it indexes a list of the used features' names by column)
        mapping = explainer._random_forest.map_id_binaries_to_features
        out.append({"cpu_s": cpu, "features": sorted({mapping[abs(lit)][0] - 1
                                                      for lit in reason})})
    Path(out_file).write_text(json.dumps(out))


def rfxpl_worker(checkout: str, etype: str, model_file: str, rows_file: str,
                 out_file: str) -> None:
    """With an RFxpl checkout on the path: its AXp of each row (``etype`` "sat": majority
    vote, "maxsat": soft vote), CPU s of the explanation (its per-instance encoding
    included; the forest's conversion, once per model, is not)."""
    import collections
    import collections.abc

    import numpy as np

    for name in ("Mapping", "Sequence"):  # namedlist (RFxpl's) predates Python 3.10
        setattr(collections, name, getattr(collections.abc, name))
    sys.path.insert(0, checkout)
    from xrf import XRF, RFSklearn

    rf = RFSklearn(from_file=model_file)
    xrf = XRF(rf, rf.feature_names, rf.targets)
    out = []
    for x in np.load(rows_file):
        gc.collect()
        t0 = time.process_time()
        expl = xrf.explain(x, "abd", etype)
        out.append({"cpu_s": time.process_time() - t0, "features": sorted(map(int, expl))})
        del xrf.enc  # the next instance is encoded anew, as RFxp.py does
    Path(out_file).write_text(json.dumps(out))


def first_call_worker(tool: str, model_file: str, rows_file: str, out_file: str, vote: str,
                      checkout: str = "") -> None:
    """In a fresh process of the tool's environment, after the model and its first row are
    loaded (scikit-learn imported): CPU s to import the tool, read the model and explain
    the row (an AXp; PyXAI: its sufficient reason), and the explanation's features."""
    import numpy as np

    sys.argv = sys.argv[:1]  # PyXAI reads the command line when imported
    with open(model_file, "rb") as f:
        model = pickle.load(f)
    x = np.load(rows_file)[0]
    t0 = time.process_time()
    if tool == "fxai":
        from fxai import explain, oracles

        features = explain.find_axp(oracles.for_model(model, x, vote=vote))
    elif tool == "PyXAI":
        from pyxai import Explaining, Learning, Tools

        Tools.set_verbose(0)
        _, converted = Learning.ModelIO.import_models(model, instances_type="tabular")
        explainer = Explaining.initialize(converted, instance=x)
        mapping = explainer._random_forest.map_id_binaries_to_features
        features = {mapping[abs(lit)][0] - 1 for lit in explainer.sufficient_reason()}
    else:  # RFxpl
        import collections
        import collections.abc

        for name in ("Mapping", "Sequence"):  # namedlist (RFxpl's) predates Python 3.10
            setattr(collections, name, getattr(collections.abc, name))
        sys.path.insert(0, checkout)
        from xrf import XRF, RFSklearn

        rf = RFSklearn(from_file=model_file)
        features = XRF(rf, rf.feature_names, rf.targets).explain(
            x, "abd", "sat" if vote == "hard" else "maxsat")
    cpu = time.process_time() - t0
    Path(out_file).write_text(json.dumps({"first_s": cpu,
                                          "features": sorted(map(int, features))}))


def first_calls(tools: dict[str, list[str]], model, rows, vote: str) -> list[dict]:
    """Each tool's :func:`first_call_worker` in a fresh process (``tools``: name -> the
    command that runs this file in its environment), on the first row."""
    import numpy as np

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / name for name in ("model.pkl", "rows.npy", "out.json")]
        files[0].write_bytes(pickle.dumps(model))
        np.save(files[1], rows[:1])
        for tool, argv in tools.items():
            files[2].unlink(missing_ok=True)
            done = subprocess.run([*argv[:2], "--first-call-worker", tool, *map(str, files),
                                   vote, *argv[2:]]).returncode == 0
            # (PyXAI 2.0.1 fails on digits: an IndexError in its own to_features)
            got = json.loads(files[2].read_text()) if done else {"note": "failed"}
            out.append({"tool": tool, **got})
            print(out[-1], flush=True)
    return out


def run_peer(tool: str, argv: list[str], model, rows, vote: str) -> list[dict]:
    """Run a peer's worker process on ``model`` and ``rows``; check its explanations."""
    import numpy as np

    from fxai import verify

    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / name for name in ("model.pkl", "rows.npy", "out.json")]
        files[0].write_bytes(pickle.dumps(model))
        np.save(files[1], rows)
        subprocess.run([*argv, *map(str, files)], check=True)
        got = json.loads(files[2].read_text())
    if "unsupported" in got:
        print(f"{tool}: {got['unsupported']}", flush=True)
        return [{"tool": tool, "instance": i, "note": "unsupported"} for i in range(len(rows))]
    out = []
    for i, (x, rec) in enumerate(zip(rows, got, strict=True)):
        if "error" in rec:
            print(f"{tool} instance {i}: {rec['error']}", flush=True)
            out.append({"tool": tool, "instance": i, "note": "failed"})
            continue
        feats = set(rec["features"])
        weak = verify.weak_axp_fn(model, x, vote=vote)[0]([feats, *(feats - {f}
                                                                      for f in feats)])
        out.append({"tool": tool, "instance": i, "cpu_s": rec["cpu_s"], "size": len(feats),
                    "valid": weak[0], "minimal": weak[0] and not any(weak[1:]),
                    "features": sorted(feats)})
        print(out[-1], flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vote", choices=["hard", "soft"], default="hard")
    p.add_argument("--instances", type=int, default=10)
    p.add_argument("--models", nargs="+", default=["bc-default", "digits-default"],
                   choices=["bc-default", "bc-depth6", "bc-entropy6", "bc-leaf5",
                            "digits-default", "bc-extra", "digits-entropy6",
                            "pendigits-entropy6", "spambase-entropy6", "xd6-depth6"])
    p.add_argument("--time-limit", type=float, help="fxai's CPU s per AXp (default: none)")
    p.add_argument("--warm-only", action="store_true",
                   help="skip fxai's cold run (a fresh model copy per row)")
    p.add_argument("--pyxai", type=Path, help="virtual environment with PyXAI (made if absent)")
    p.add_argument("--out", help="output path without suffix (see the module)")
    p.add_argument("--rfxpl", type=Path,
                   help="a checkout of RFxpl (run in <out folder>/rfxpl-venv, made if absent)")
    p.add_argument("--first-call", action="store_true",
                   help="instead: per tool, a fresh process's CPU s to import it, read the "
                        "model and explain the first row (see first_call_worker)")
    p.add_argument("--first-call-worker", nargs="+", help=argparse.SUPPRESS)
    p.add_argument("--pyxai-worker", nargs=3, help=argparse.SUPPRESS)
    p.add_argument("--rfxpl-worker", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.pyxai_worker:
        pyxai_worker(*args.pyxai_worker)
        return 0
    if args.rfxpl_worker:
        rfxpl_worker(*args.rfxpl_worker)
        return 0
    if args.first_call_worker:
        first_call_worker(*args.first_call_worker)
        return 0
    import pandas as pd

    vote = args.vote
    out = Path(args.out or ("results/bench/forests" + ("-soft" if vote == "soft" else "")))
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.first_call:
        tools = {"fxai": [sys.executable, __file__]}
        if args.rfxpl:
            tools["RFxpl"] = [str(venv_python(out.parent / "rfxpl-venv", RFXPL)), __file__,
                              str(args.rfxpl.resolve())]
        if args.pyxai and vote == "hard":
            tools["PyXAI"] = [str(venv_python(args.pyxai.resolve(), PYXAI)), __file__]
        found = [{"model": name, **r} for name, (model, test) in models(args.models).items()
                 for r in first_calls(tools, model, test, vote)]
        table = pd.DataFrame(found).reindex(columns=["model", "tool", "first_s", "features",
                                                     "note"])
        table["note"] = table["note"].fillna("")
        table["features"] = table["features"].map(
            lambda f: " ".join(map(str, f)) if isinstance(f, list) else "")
        out = out.with_name(out.name + "-first")
        table.to_csv(out.with_suffix(".csv"), index=False, float_format="%.4f")
        out.with_suffix(".md").write_text(
            f"{vote.capitalize()} vote, the first test row, each tool in a fresh process "
            "(process CPU s to import the tool, read the model and explain the row; the "
            "model's unpickling, with scikit-learn's import, before the clock).\n\n"
            + table.to_markdown(index=False, floatfmt=".3g") + "\n")
        print(f"wrote {out}.csv and {out}.md")
        return 0
    rows = []
    for name, (model, test) in models(args.models).items():
        xs = test[:args.instances]
        found = run_fxai(model, xs, vote, args.time_limit, not args.warm_only)
        if args.rfxpl:
            py = venv_python(out.parent / "rfxpl-venv", RFXPL)
            etype = "sat" if vote == "hard" else "maxsat"
            found += run_peer("RFxpl", [str(py), __file__, "--rfxpl-worker",
                                        str(args.rfxpl.resolve()), etype], model, xs, vote)
        if args.pyxai and vote == "hard":
            py = venv_python(args.pyxai.resolve(), PYXAI)
            found += run_peer("PyXAI", [str(py), __file__, "--pyxai-worker"], model, xs, vote)
        rows += [{"model": name, **r} for r in found]
    df = pd.DataFrame(rows).reindex(columns=["model", "tool", "instance", "cpu_s", "cold_s",
                                             "check_s",
                                             "size", "valid", "minimal", "features", "note"])
    df["features"] = df["features"].map(lambda f: " ".join(map(str, f)) if isinstance(
        f, list) else "")
    ours = df[df["tool"] == "fxai"].set_index(["model", "instance"])["features"]
    df["same_as_fxai"] = [f != "" and ours.get((m, i)) == f for m, i, f in zip(
        df["model"], df["instance"], df["features"], strict=True)]
    df.to_csv(out.with_suffix(".csv"), index=False, float_format="%.4f")
    agg = df.groupby(["model", "tool"], sort=False).agg(
        instances=("instance", "size"), mean_cpu_s=("cpu_s", "mean"),
        max_cpu_s=("cpu_s", "max"), total_cpu_s=("cpu_s", "sum"),
        mean_cold_s=("cold_s", "mean"), time_limit=("note", lambda n: (n == "time limit").sum()),
        mean_check_s=("check_s", "mean"), mean_size=("size", "mean"),
        valid=("valid", "sum"), minimal=("minimal", "sum"),
        same_as_fxai=("same_as_fxai", "sum"), note=("note", "first")).reset_index()
    agg["note"] = agg["note"].fillna("")
    out.with_suffix(".md").write_text(
        f"{vote.capitalize()} vote, the first {args.instances} test rows (process CPU s per "
        "explanation; `check`: fxai's independent check of its AXp; `valid`/`minimal`: "
        "explanations sufficient / subset-minimal over features by fxai's checker; "
        "`same_as_fxai`: the same feature set as fxai's AXp).\n\n"
        + agg.to_markdown(index=False, floatfmt=".3g", missingval="") + "\n")
    print(f"wrote {out}.csv and {out}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
