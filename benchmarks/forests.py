"""Benchmark: hard-vote random forests at the size people train them, fxai beside PyXAI.

    .venv/bin/python -m benchmarks.forests [--instances 10] [--pyxai VENV] [--models ...]

Models (seeded, scikit-learn's own datasets, ``train_test_split(test_size=0.25,
random_state=0)``): ``bc-default`` ``RandomForestClassifier(random_state=0)`` on
breast_cancer (100 full-depth trees, 2 classes), ``bc-depth6`` the same with
``max_depth=6``, ``digits-default`` on digits (10 classes), ``bc-extra``
``ExtraTreesClassifier(random_state=0)``. Explained: the first ``--instances`` test rows,
under the hard vote (the majority of the trees' votes, first class of most votes).

* fxai, in this process after one conversion (``oracles.prepare``): CPU s of one AXp
  (``explain.find_axp``, deletion; the first instance of each predicted class also builds
  its class-pair constraints), then CPU s of its check by the independent checker
  (``verify.check_all``: sufficient and subset-minimal).
* PyXAI (``--pyxai VENV``: a virtual environment holding ``pyxai``; created there with
  ``pip install pyxai==2.0.1`` and this scikit-learn and numpy when it does not exist):
  its ``sufficient_reason`` per instance in a separate process on the same pickled model
  and rows, CPU s; the features of each reason are checked by fxai's checker (sufficient;
  subset-minimal over features).

Writes ``<out>.csv`` (one row per tool, model and instance) and ``<out>.md`` (per tool
and model: mean and max CPU s, the explanations checked valid and minimal).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

PYXAI = "pyxai==2.0.1"


def models(names: list[str]) -> dict:
    """name -> (fitted forest, test rows)."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
    from sklearn.model_selection import train_test_split

    specs = {
        "bc-default": (load_breast_cancer, RandomForestClassifier, {}),
        "bc-depth6": (load_breast_cancer, RandomForestClassifier, {"max_depth": 6}),
        "digits-default": (load_digits, RandomForestClassifier, {}),
        "bc-extra": (load_breast_cancer, ExtraTreesClassifier, {}),
    }
    out = {}
    for name in names:
        load, cls, kw = specs[name]
        X, y = load(return_X_y=True)
        Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=0)
        out[name] = (cls(random_state=0, n_jobs=1, **kw).fit(Xtr, ytr), Xte)
    return out


def run_fxai(model, rows) -> list[dict]:
    from fxai import explain, oracles, verify

    oracles.prepare(model, vote="hard")
    out = []
    for i, x in enumerate(rows):
        t0 = time.process_time()
        axp = explain.find_axp(oracles.for_model(model, x, vote="hard"))
        t1 = time.process_time()
        ok = verify.check_all(model, x, [axp], [], vote="hard")[0][0]
        t2 = time.process_time()
        out.append({"tool": "fxai", "instance": i, "cpu_s": t1 - t0, "check_s": t2 - t1,
                    "size": len(axp), "valid": ok, "minimal": ok})
        print(out[-1], flush=True)
    return out


def pyxai_python(venv: Path) -> Path:
    """The Python of ``venv``, with PyXAI installed there first if it is not."""
    py = venv / "bin" / "python"
    if not py.exists():
        import numpy
        import sklearn

        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", PYXAI, "joblib",
                        f"scikit-learn=={sklearn.__version__}", f"numpy=={numpy.__version__}"],
                       check=True)
    return py


def pyxai_worker(model_file: str, rows_file: str, out_file: str) -> None:
    """In PyXAI's environment: its sufficient reason of each row, features and CPU s."""
    sys.argv = sys.argv[:1]  # PyXAI reads the command line when imported
    import joblib
    import numpy as np
    from pyxai import Explaining, Learning, Tools

    Tools.set_verbose(0)
    rows = np.load(rows_file)
    try:
        _, converted = Learning.ModelIO.import_models(joblib.load(model_file),
                                                      instances_type="tabular")
    except ValueError as e:  # a model type PyXAI does not read
        Path(out_file).write_text(json.dumps({"unsupported": str(e)}))
        return
    out = []
    for x in rows:
        t0 = time.process_time()
        explainer = Explaining.initialize(converted, instance=x)
        reason = explainer.sufficient_reason()
        cpu = time.process_time() - t0
        conditions = explainer.to_features(reason, details=True).values() if reason else []
        # a condition's "id" is its feature's 1-based column
        out.append({"cpu_s": cpu, "features": sorted({c["id"] - 1 for cs in conditions
                                                      for c in cs})})
    Path(out_file).write_text(json.dumps(out))


def run_pyxai(model, rows, venv: Path, tmp: Path) -> list[dict]:
    import joblib
    import numpy as np

    from fxai import verify

    py = pyxai_python(venv)
    joblib.dump(model, tmp / "model.joblib")
    np.save(tmp / "rows.npy", rows)
    subprocess.run([str(py), __file__, "--pyxai-worker", str(tmp / "model.joblib"),
                    str(tmp / "rows.npy"), str(tmp / "pyxai.json")], check=True)
    got = json.loads((tmp / "pyxai.json").read_text())
    if "unsupported" in got:
        print(f"PyXAI: {got['unsupported']}", flush=True)
        return [{"tool": "PyXAI", "instance": i, "note": "unsupported"} for i in range(len(rows))]
    out = []
    for i, (x, rec) in enumerate(zip(rows, got, strict=True)):
        feats = set(rec["features"])
        weak = verify.weak_axp_fn(model, x, vote="hard")[0]([feats, *(feats - {f}
                                                                      for f in feats)])
        out.append({"tool": "PyXAI", "instance": i, "cpu_s": rec["cpu_s"], "check_s": None,
                    "size": len(feats), "valid": weak[0],
                    "minimal": weak[0] and not any(weak[1:])})
        print(out[-1], flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=10)
    p.add_argument("--models", nargs="+", default=["bc-default", "digits-default"],
                   choices=["bc-default", "bc-depth6", "digits-default", "bc-extra"])
    p.add_argument("--pyxai", type=Path, help="virtual environment with PyXAI (made if absent)")
    p.add_argument("--out", default="results/bench/forests")
    p.add_argument("--pyxai-worker", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.pyxai_worker:
        pyxai_worker(*args.pyxai_worker)
        return 0
    import pandas as pd

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, (model, test) in models(args.models).items():
        xs = test[:args.instances]
        for r in run_fxai(model, xs) + (run_pyxai(model, xs, args.pyxai.resolve(), out.parent)
                                        if args.pyxai else []):
            rows.append({"model": name, **r})
    df = pd.DataFrame(rows).reindex(columns=["model", "tool", "instance", "cpu_s", "check_s",
                                             "size", "valid", "minimal", "note"])
    df.to_csv(out.with_suffix(".csv"), index=False, float_format="%.4f")
    agg = df.groupby(["model", "tool"], sort=False).agg(
        instances=("instance", "size"), mean_cpu_s=("cpu_s", "mean"),
        max_cpu_s=("cpu_s", "max"), total_cpu_s=("cpu_s", "sum"),
        mean_check_s=("check_s", "mean"), mean_size=("size", "mean"),
        valid=("valid", "sum"), minimal=("minimal", "sum"),
        note=("note", "first")).reset_index()
    out.with_suffix(".md").write_text(
        f"Hard vote, the first {args.instances} test rows (process CPU s per explanation; "
        "`check`: fxai's independent check of its AXp; `valid`/`minimal`: explanations "
        "sufficient / subset-minimal over features by fxai's checker).\n\n"
        + agg.to_markdown(index=False, floatfmt=".3g", missingval="") + "\n")
    print(f"wrote {out}.csv and {out}.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
