"""The your-data feature table's rows (fxai.experiments.user.feature_rows) from cross-run
records: AXp share, mean exact FFA and verified share per feature."""

import math

import pytest

from fxai.experiments.user import feature_rows


def record(axp, ffa=None, verified=True, status="done"):
    results = {"axp": {"features": axp}}
    if ffa is not None:
        results["ffa"] = {"exact": {str(f): v for f, v in ffa.items()}}
    return {"status": status, "verified": verified, "results": results}


def test_feature_rows_share_of_axps_ffa_and_verified():
    recs = [record([0], {0: 1.0}), record([0, 1], {0: 0.5, 1: 0.5}, verified=False),
            record([1], None), {"status": "error", "verified": None, "results": {}}]
    rows = feature_rows(["a", "b", "c"], recs, "dt", "mine")
    assert [r["feature"] for r in rows] == ["a", "b", "c"]
    assert [r["in_axp_pct"] for r in rows] == pytest.approx([200 / 3, 200 / 3, 0.0])
    assert [r["ffa_mean"] for r in rows] == [0.75, 0.25, 0.0]
    assert {r["instances"] for r in rows} == {4} and {r["verified_pct"] for r in rows} == {50.0}


def test_feature_rows_without_finished_records_are_nan():
    rows = feature_rows(["a"], [{"status": "error", "verified": None, "results": {}}], "dt", "d")
    assert math.isnan(rows[0]["in_axp_pct"]) and math.isnan(rows[0]["ffa_mean"])
