"""fxai.report.results on a small results folder built here (no workflow run needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fxai.report.results import Results, read_records
from fxai.version import UNKNOWN, code_version


def make_results(root: Path, seed: int = 0) -> Path:
    """A small ``results/<profile>`` folder with NBC, XpG and FFA runs and one table."""
    rng = np.random.default_rng(seed)
    runs = root / "runs"
    (runs / "nbc").mkdir(parents=True)
    (runs / "xpg" / "dt").mkdir(parents=True)
    (runs / "ffa").mkdir(parents=True)
    with open(runs / "nbc" / "toy.jsonl", "w") as fh:
        for i in range(6):
            axp = sorted(rng.choice(12, size=int(rng.integers(5, 11)), replace=False).tolist())
            paxp = []
            for delta in (0.9, 0.95):
                for target in (9, 4):
                    k = min(len(axp), max(1, target - int(rng.integers(0, 2))))
                    prec = 1.0 if len(axp) <= target else float(rng.uniform(delta, 1.0))
                    paxp.append(
                        {
                            "delta": delta,
                            "target": target,
                            "features": axp[:k],
                            "precision": prec,
                            "time_s": 0.01,
                        }
                    )
            rec = {
                "dataset": "toy",
                "model": "nbc",
                "instance": i,
                "x": [0] * 12,
                "prediction": 1,
                "status": "done",
                "time_s": 0.02,
                "verified": True,
                "axps": [axp],
                "approx_paxp": paxp,
            }
            fh.write(json.dumps(rec) + "\n")
        fh.write('{"dataset": "toy", "trunc')  # a killed run's last line
    with open(runs / "xpg" / "dt" / "toy.jsonl", "w") as fh:
        for i in range(5):
            rec = {
                "dataset": "toy",
                "model": "dt",
                "instance": 10 + i,
                "x": [1, 0, 1],
                "prediction": 0,
                "status": "done" if i < 4 else "timeout",
                "time_s": float(rng.uniform(1e-3, 1e-2)),
                "verified": i < 4 or None,
                "axps": [[0], [1, 2]][: 1 + i % 2],
                "cxps": [[0, 1], [0, 2]],
            }
            fh.write(json.dumps(rec) + "\n")
    events = [[0.1 * k, "cxp" if k % 2 else "axp", [k % 3]] for k in range(1, 7)]
    ffa = {
        "code_version": "0.1.0+gffffffffffff",
        "dataset": "toy",
        "model": "bt",
        "instance": 3,
        "method": "marco-s",
        "x": [0, 1, 2],
        "prediction": 1,
        "status": "done",
        "time_s": 0.7,
        "verified": True,
        "axps": [[0], [1], [2]],
        "cxps": [[0, 1, 2]],
        "events": events,
    }
    (runs / "ffa" / "toy.marco-s.3.json").write_text(json.dumps(ffa))
    (root / "tables").mkdir()
    pd.DataFrame({"dataset": ["toy"], "xps_avg": [3.2]}).to_csv(
        root / "tables" / "xpg_toy.csv", index=False
    )
    pd.DataFrame({"column": ["xps_avg"], "compared": [1], "within": [0]}).to_csv(
        root / "tables" / "xpg_toy.fidelity.csv", index=False
    )
    return root


@pytest.fixture()
def res(tmp_path: Path) -> Results:
    return Results(make_results(tmp_path / "results" / "toy"))


def test_read_records_skips_only_a_truncated_last_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n{"a": ')
    assert read_records(path) == [{"a": 1}, {"a": 2}]
    path.write_text('{"a": 1}\n{"a": \n{"a": 2}\n')
    with pytest.raises(ValueError, match="r.jsonl:2"):
        read_records(path)


def test_runs_summary(res: Results) -> None:
    runs = res.runs().set_index("section")
    assert sorted(runs.index) == ["ffa", "nbc", "xpg"]
    assert runs.loc["nbc", "records"] == 6 and runs.loc["nbc", "verified"] == 6
    assert runs.loc["xpg", "done"] == 4 and runs.loc["xpg", "timeout"] == 1
    assert runs.loc["xpg", "file"] == "runs/xpg/dt/toy.jsonl"
    assert runs.loc["ffa", "code_version"] == "0.1.0+gffffffffffff"  # the record's own
    assert runs.loc["xpg", "code_version"] == UNKNOWN  # no header: written before stamping


def test_instance_lookup(res: Results) -> None:
    rec = res.instance("xpg", "toy", 12)
    assert rec["model"] == "dt" and rec["instance"] == 12
    assert res.instance("ffa", "toy", 3, method="marco-s")["events"][0][1] == "cxp"
    with pytest.raises(KeyError, match="instance 99"):
        res.instance("nbc", "toy", 99)


def test_tables_and_missing_folder(res: Results, tmp_path: Path) -> None:
    assert res.tables() == ["xpg_toy"]
    assert res.table("xpg_toy")["xps_avg"].tolist() == [3.2]
    assert res.fidelity("xpg_toy")["within"].tolist() == [0]
    assert res.fidelity("nope") is None
    with pytest.raises(FileNotFoundError, match="available"):
        res.table("nope")
    with pytest.raises(FileNotFoundError):
        Results(tmp_path / "absent")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert Results(empty).runs().empty and Results(empty).records("nbc") == []


def test_run_files_with_header_and_partials_of_running_jobs(tmp_path: Path) -> None:
    from fxai.runfile import RunWriter, partial_path

    root = tmp_path / "results" / "p"
    model = tmp_path / "model.bin"
    model.write_bytes(b"m")
    out = root / "runs" / "xpg" / "dt_toy.jsonl"
    rec = {"dataset": "toy", "model": "dt", "status": "done", "verified": True}
    with RunWriter(out, "test", {}, {"model": model}, [1, 2]) as run:
        for i in run.todo:
            run.write(rec | {"instance": i})
    running = root / "runs" / "xpg" / "dt_big.jsonl"
    with pytest.raises(KeyboardInterrupt), RunWriter(running, "test", {}, {"model": model},
                                                     [1, 2, 3]) as run:
        run.write(rec | {"instance": 1})
        raise KeyboardInterrupt
    assert [r["instance"] for r in read_records(out)] == [1, 2]  # header skipped
    res = Results(root)
    runs = res.runs()
    complete = dict(zip(runs["file"], runs["complete"].tolist(), strict=True))
    part = str(partial_path(running).relative_to(root))
    assert complete == {"runs/xpg/dt_toy.jsonl": True, part: False}
    assert runs.set_index("file").loc[part, "records"] == 1
    assert set(runs["code_version"]) == {code_version()}  # from the headers
    assert [r["instance"] for r in res.records("xpg")] == [1, 2]  # finished files only
    out.write_text("\n".join(out.read_text().splitlines()[:2]) + "\n")  # one record lost
    runs = Results(root).runs()
    assert runs.set_index("file")["complete"].tolist() == [False, False]


def test_iter_records_streams_lines_and_skips_only_a_cut_last_line(tmp_path: Path, caplog):
    runs = tmp_path / "runs" / "xpg"
    runs.mkdir(parents=True)
    head = json.dumps({"fxai_run": 1, "instances": [0, 1]})
    recs = [json.dumps({"instance": i, "status": "done"}) for i in range(2)]
    (runs / "a.jsonl").write_text("\n".join([head, *recs]) + '\n{"instance": 2, "sta')
    res = Results(tmp_path)
    assert [r["instance"] for r in res.iter_records("xpg")] == [0, 1]
    assert "skipping a truncated last line" in caplog.text
    (runs / "a.jsonl").write_text("\n".join([head, recs[0], "{oops", recs[1]]) + "\n")
    with pytest.raises(ValueError, match="a.jsonl:3: not a JSON object"):
        list(res.iter_records("xpg"))
