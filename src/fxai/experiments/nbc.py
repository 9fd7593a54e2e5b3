"""The NBC paper's experiment (Table 7): reading the prepared tables, the choice of test
instances, the per-instance driver (an AXp by XLC, ApproxPAXps per δ and target, each checked
independently) and the summary of run records into Table 7's rows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fxai.errors import DataError
from fxai.experiments.driver import drive

if TYPE_CHECKING:
    import numpy as np

    from fxai.verify.nbc import PrecisionChecker


def read_prepared(csv: str | Path) -> tuple[np.ndarray, np.ndarray, list[int], str]:
    """``(X, y, domain sizes, dataset name)`` of ``data/prepared/<ds>.csv``.

    The NBC needs every feature categorical, binary or discretised, and two or more classes.
    """
    from fxai.data import prepared

    csv = Path(csv)
    p = prepared.load(csv.stem, csv.parent)
    numeric = [f["name"] for f in p.domains if f["type"] == "numeric"]
    if numeric:
        raise DataError(f"{csv}: the NBC needs categorical/discretised features; numeric: "
                         f"{numeric[:5]} (use a discretised variant of the dataset)")
    if len(p.classes) < 2:
        raise DataError(f"{csv}: the NBC needs two or more classes; {len(p.classes)} found")
    return p.X, p.y, [len(f["values"]) for f in p.domains], p.name


def read_split(path: str | Path, n_rows: int | None = None) -> tuple[list[int], list[int]]:
    """``(train, test)`` row ids of a split file (checked against ``n_rows`` when given)."""
    from fxai.data import prepared

    train, test = prepared.load_split(path, n_rows)
    return [int(i) for i in train], [int(i) for i in test]


def pick_instances(test_ids: list[int], n: int, seed: int) -> list[int]:
    """The first ``n`` test rows of a permutation seeded by ``seed`` (all when fewer); a
    larger ``n`` extends a smaller one's choice."""
    import numpy as np

    perm = np.random.default_rng(seed).permutation(len(test_ids))
    return [int(test_ids[i]) for i in perm[:n]]


def _combine(flags: list[bool | None]) -> bool | None:
    if any(f is False for f in flags):
        return False
    return None if any(f is None for f in flags) else True


def paxp_record(model, checker: PrecisionChecker, x, axp: list[int], delta: float,
                target: int, decimals: int) -> dict:
    """One ApproxPAXp setting: trimmed only when ``|AXp| > target`` (paper, Section 5.1).

    The paper's decision uses the scaled DP. The result is then checked independently on
    the real-valued model; if the scaled DP made it accept a set of true precision < δ
    (``dp_unsound``) or reject a removal that keeps precision ≥ δ (``dp_nonminimal``),
    the set is recomputed with the oracle's
    sound decision (error-bounded counting) and the DP's set is kept as ``features_dp``.
    ``precision`` is the real model's, counted by :mod:`fxai.verify.paxp` (exact, or the
    midpoint of a bracket of half-width ``precision_err``); an untrimmed AXp is verified by
    counting its precision 1.
    """
    from fxai.explain.paxp import approx_paxp
    from fxai.oracles.nbc import NBCOracle
    from fxai.verify.paxp import check_approx_paxp

    rec: dict = {"delta": delta, "target": target, "trimmed": len(axp) > target}
    if not rec["trimmed"]:
        o = NBCOracle(model, x, decimals)
        lo, hi = checker.interval(axp)  # an AXp: precision 1, counted independently
        rec.update(features=list(axp), precision=float((lo + hi) / 2),
                   precision_err=float((hi - lo) / 2), precision_dp=o.precision(axp),
                   time_s=0.0, cpu_s=0.0, verified=checker.at_least(axp, 1.0),
                   dp_unsound=False, dp_nonminimal=False, repaired=False)
        return rec

    def trim(sound: bool):  # the oracle's set, timed, then checked independently
        def run():
            o = NBCOracle(model, x, decimals)
            order = sorted(axp, key=lambda i: (o.deltas[i], i))
            return o, approx_paxp(o, delta, seed=axp, order=order, sound=sound)
        return drive(run, clock="wall",
                     check=lambda r: check_approx_paxp(checker, axp, r[1].features, delta))

    dp = trim(sound=False)
    (o, res), (ok, (lo, hi)) = dp.result, dp.verdict
    rec.update(features=res.features, precision=float((lo + hi) / 2),
               precision_err=float((hi - lo) / 2),
               precision_dp=res.precision, passes=res.passes, time_s=dp.explained.wall_s,
               cpu_s=dp.explained.cpu_s, dp_unsound=False, dp_nonminimal=False,
               repaired=False, verified=ok)
    if ok is False:  # the scaled DP decided wrongly somewhere (the set is a subset of the AXp)
        unsound = checker.at_least(res.features, delta) is False
        rec.update(dp_unsound=unsound, dp_nonminimal=not unsound)
        fix = trim(sound=True)
        (o, sound), (ok2, (lo2, hi2)) = fix.result, fix.verdict
        rec.update(features_dp=res.features, features=sound.features,
                   precision=float((lo2 + hi2) / 2), precision_err=float((hi2 - lo2) / 2),
                   precision_dp=o.precision(sound.features),
                   time_s=dp.explained.wall_s + fix.explained.wall_s,
                   cpu_s=dp.explained.cpu_s + fix.explained.cpu_s,
                   repaired=True, verified=ok2)
    return rec


def explain_instance(model, ds: str, row: int, x, deltas, targets, decimals: int) -> dict:
    from fxai.oracles.nbc import NBCOracle
    from fxai.verify.nbc import PrecisionChecker, check_axp

    def find():
        o = NBCOracle(model, x, decimals)
        return o, o.axp()

    out = drive(find, clock="wall", check=lambda r: check_axp(model, x, r[1]))
    (o, axp), axp_ok, t_axp = out.result, out.verdict, out.explained.seconds
    checker = PrecisionChecker(model, x)
    settings = [paxp_record(model, checker, x, axp, d, t, decimals)
                for d in deltas for t in targets]
    return {
        "dataset": ds, "model": "nbc", "classes": o.n_classes, "instance": int(row),
        "x": [int(v) for v in x], "prediction": int(model.classes_[o.prediction]),
        "status": "done",
        "time_s": t_axp + sum(s["time_s"] for s in settings), "axp_time_s": t_axp,
        "axps": [axp], "axp_verified": axp_ok, "approx_paxp": settings,
        "verified": _combine([axp_ok] + [s["verified"] for s in settings]),
    }


def _mean_sd(values) -> tuple[float, float]:
    import numpy as np

    v = np.asarray(values, dtype=float)
    return (float(v.mean()), float(v.std())) if v.size else (float("nan"), float("nan"))


def _verified_pct(flags) -> float:
    """Percentage of ``True`` among all flags (a record not checked counts as not verified)."""
    flags = list(flags)
    return 100.0 * sum(f is True for f in flags) / len(flags) if flags else float("nan")


def aggregate(ds: str, runs: list[dict], meta: dict) -> tuple[dict, list[dict]]:
    """``(dataset row, rows per (δ, target))`` with the paper's columns plus ours.

    Standard deviations are population ones (ddof = 0). ``time_mean_s`` is the mean over
    the instances whose AXp was longer than the target (the paper's convention; 0 when
    there is none). Precision is the real-valued model's, checked independently.
    """
    import numpy as np

    done = [r for r in runs if r.get("status") == "done"]
    axp_len = [len(r["axps"][0]) for r in done]
    lm, ls = _mean_sd(axp_len)
    t_axp = [r["axp_time_s"] for r in done]
    head = {
        "dataset": ds, "classes": meta.get("classes", 2),  # older models: binary only
        "n_features": meta["n_features"], "n_instances": len(done),
        "train_acc_pct": 100 * meta["accuracy_train"],
        "test_acc_pct": 100 * meta["accuracy_test"] if meta.get("accuracy_test") else None,
        "axp_len_mean": lm, "axp_len_sd": ls,
        "axp_time_mean_s": float(np.mean(t_axp)) if t_axp else float("nan"),
        "n_errors": len(runs) - len(done),
        "verified_pct": _verified_pct(r["verified"] for r in runs),
    }
    groups: dict[tuple[float, int], list[dict]] = {}
    for r in done:
        for s in r["approx_paxp"]:
            groups.setdefault((s["delta"], s["target"]), []).append(s)
    rows = []
    for (delta, target), ss in groups.items():
        lens = [len(s["features"]) for s in ss]
        prec = [100 * s["precision"] for s in ss if s["precision"] is not None]
        times = [s["time_s"] for s in ss if s["trimmed"]]
        cpu = [s["cpu_s"] for s in ss if s["trimmed"] and "cpu_s" in s]
        lm, ls = _mean_sd(lens)
        pm, ps = _mean_sd(prec)
        rows.append({
            "dataset": ds, "delta": delta, "target": target,
            "len_mean": lm, "len_sd": ls, "precision_pct_mean": pm, "precision_pct_sd": ps,
            "wins_pct": 100 * float(np.mean([n <= target for n in lens])),
            "time_mean_s": float(np.mean(times)) if times else 0.0,
            "time_max_s": float(np.max(times)) if times else 0.0,
            "cpu_mean_s": float(np.mean(cpu)) if cpu else 0.0,
            "n_trimmed": len(times),
            "precision_dp_pct_mean": 100 * float(np.mean([s["precision_dp"] for s in ss])),
            "dp_unsound": sum(bool(s.get("dp_unsound")) for s in ss),
            "dp_nonminimal": sum(bool(s.get("dp_nonminimal")) for s in ss),
            "repaired": sum(bool(s.get("repaired")) for s in ss),
            "verified_pct": _verified_pct(s["verified"] for s in ss),
        })
    rows.sort(key=lambda r: (-r["delta"], -r["target"]))
    return head, rows
