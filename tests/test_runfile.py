"""fxai.runfile: resumable run files (fingerprint, cut-off line, atomic completion, progress)
and fxai.files: files created with the process umask."""

from __future__ import annotations

import json
import logging
import os
import stat
import time

import pytest

from fxai.files import write_atomic
from fxai.runfile import (
    Progress,
    RunFileError,
    RunWriter,
    partial_path,
    read_run,
    run_records,
)

SETTINGS = {"time_limit": 5, "delta": 0.9}


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"model v1")
    return path


def record(i: int) -> dict:
    return {"dataset": "toy", "instance": i, "status": "done", "verified": True, "axps": [[i]]}


def write_some(out, model, plan, n, settings=SETTINGS):
    """Write the first ``n`` planned records, then stop as a kill would (an exception)."""
    with pytest.raises(KeyboardInterrupt), RunWriter(out, "test", settings, {"model": model},
                                                     plan) as run:
        for i in run.todo[:n]:
            run.write(record(i))
        raise KeyboardInterrupt


def test_completion_is_atomic_and_the_header_stays(tmp_path, model):
    out = tmp_path / "runs" / "r.jsonl"
    with RunWriter(out, "test", SETTINGS, {"model": model}, [4, 2, 9]) as run:
        assert run.todo == [4, 2, 9]
        for i in run.todo:
            run.write(record(i), explanations=1)
            assert not out.exists() and partial_path(out).exists()
    assert out.exists() and not partial_path(out).exists()
    head, recs = read_run(out)
    assert head["command"] == "test" and head["instances"] == [4, 2, 9]
    assert head["settings"] == SETTINGS and len(head["fingerprint"]) == 16
    assert head["inputs"]["model"]["file"] == str(model)
    assert recs == [record(4), record(2), record(9)] == run_records(out)


def test_an_interrupted_run_keeps_its_partial_and_writes_no_output(tmp_path, model):
    out = tmp_path / "r.jsonl"
    write_some(out, model, list(range(6)), 2)
    assert not out.exists()
    head, recs = read_run(partial_path(out), complete=False)
    assert [r["instance"] for r in recs] == [0, 1]
    with pytest.raises(RunFileError, match="incomplete run file, 2 of 6 instances"):
        read_run(partial_path(out))


def test_resume_drops_a_cut_off_line_and_keeps_finished_lines(tmp_path, model, caplog):
    out, plan = tmp_path / "r.jsonl", list(range(6))
    write_some(out, model, plan, 3)
    part = partial_path(out)
    kept = part.read_text().splitlines()[1:]
    with part.open("a") as fh:
        fh.write('{"dataset": "toy", "inst')  # the kill cut this line
    caplog.set_level(logging.INFO, logger="fxai.run")
    with RunWriter(out, "test", SETTINGS, {"model": model}, plan) as run:
        assert run.todo == [3, 4, 5]  # finished instances are not recomputed
        for i in run.todo:
            run.write(record(i))
    assert "cut off" in caplog.text and "3 of 6 instances already written" in caplog.text
    assert out.read_text().splitlines()[1:4] == kept  # byte for byte
    assert [r["instance"] for r in run_records(out)] == plan


@pytest.mark.parametrize("change", ["settings", "model file"])
def test_a_partial_of_other_settings_or_inputs_is_discarded(tmp_path, model, caplog, change):
    out, plan = tmp_path / "r.jsonl", list(range(4))
    write_some(out, model, plan, 2)
    settings = SETTINGS
    if change == "settings":
        settings = {**SETTINGS, "time_limit": 60}
    else:
        model.write_bytes(b"model v2 (retrained)")
    with RunWriter(out, "test", settings, {"model": model}, plan) as run:
        assert run.todo == plan
        for i in run.todo:
            run.write(record(i) | {"axps": [[i, 99]]})
    assert "other settings" in caplog.text
    assert all(r["axps"][0][1] == 99 for r in run_records(out))  # no record of the old run


def test_a_partial_of_another_code_version_restarts(tmp_path, model, caplog, monkeypatch):
    out, plan = tmp_path / "r.jsonl", list(range(4))
    monkeypatch.setenv("FXAI_CODE_VERSION", "0.1.0+gaaaaaaaaaaaa")
    write_some(out, model, plan, 2)
    assert read_run(partial_path(out), complete=False)[0]["code_version"] == "0.1.0+gaaaaaaaaaaaa"
    monkeypatch.setenv("FXAI_CODE_VERSION", "0.1.0+gbbbbbbbbbbbb")  # a fix, same settings
    with RunWriter(out, "test", SETTINGS, {"model": model}, plan) as run:
        assert run.todo == plan
        for i in run.todo:
            run.write(record(i) | {"axps": [[i, 99]]})
    assert "written by code version 0.1.0+gaaaaaaaaaaaa (now 0.1.0+gbbbbbbbbbbbb)" in caplog.text
    head, recs = read_run(out)
    assert head["code_version"] == "0.1.0+gbbbbbbbbbbbb"
    assert all(r["axps"][0][1] == 99 for r in recs)  # no record of the old code


def test_a_partial_of_the_same_code_version_resumes(tmp_path, model, monkeypatch):
    out, plan = tmp_path / "r.jsonl", list(range(4))
    monkeypatch.setenv("FXAI_CODE_VERSION", "0.1.0+gaaaaaaaaaaaa.dirty.12345678")
    write_some(out, model, plan, 2)
    with RunWriter(out, "test", SETTINGS, {"model": model}, plan) as run:
        assert run.todo == [2, 3]
        for i in run.todo:
            run.write(record(i))


def test_more_instances_keep_the_finished_ones(tmp_path, model):
    out = tmp_path / "r.jsonl"
    write_some(out, model, [0, 1, 2], 2)
    with RunWriter(out, "test", SETTINGS, {"model": model}, [0, 1, 2, 3, 4]) as run:
        assert run.todo == [2, 3, 4]
        for i in run.todo:
            run.write(record(i))
    assert read_run(out)[0]["instances"] == [0, 1, 2, 3, 4]
    with RunWriter(out, "test", SETTINGS, {"model": model}, [0, 1, 2, 3, 4, 5]) as run:
        assert run.todo == [5]  # a complete output is a starting point too
        run.write(record(5))
    assert len(run_records(out)) == 6


def test_writing_outside_the_plan_or_stopping_short_is_an_error(tmp_path, model):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ValueError, match="not left to write"), \
            RunWriter(out, "test", SETTINGS, {"model": model}, [1, 2]) as run:
        run.write(record(1))
        run.write(record(1))
    with pytest.raises(RuntimeError, match="1 planned instances were not written"), \
            RunWriter(out, "test", SETTINGS, {"model": model}, [1, 2]) as run:
        assert run.todo == [2]
    assert not out.exists()


def test_readers_refuse_broken_run_files(tmp_path, model):
    out = tmp_path / "r.jsonl"
    with RunWriter(out, "test", SETTINGS, {"model": model}, [1, 2]) as run:
        for i in run.todo:
            run.write(record(i))
    text = out.read_text()
    out.write_text(text + '{"instance": 3')
    with pytest.raises(RunFileError, match="r.jsonl: last line cut off"):
        run_records(out)
    lines = text.splitlines()
    out.write_text("\n".join([lines[0], lines[1], "{oops", lines[2]]) + "\n")
    with pytest.raises(RunFileError, match="r.jsonl:3: not a JSON object"):
        run_records(out)
    out.write_text("\n".join([lines[0], lines[1], lines[1]]) + "\n")  # a duplicate, not 2
    with pytest.raises(RunFileError, match="incomplete"):
        run_records(out)
    with pytest.raises(RunFileError, match="cannot read"):
        run_records(tmp_path / "absent.jsonl")


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_files_are_created_with_the_process_umask(tmp_path, model, umask, mode):
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "a.json", "{}")
        out = tmp_path / "r.jsonl"
        with RunWriter(out, "test", SETTINGS, {"model": model}, [1]) as run:
            assert stat.S_IMODE(partial_path(out).stat().st_mode) == mode
            run.write(record(1))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == mode
    assert stat.S_IMODE(out.stat().st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "model.bin", "r.jsonl"]


def test_progress_is_logged_at_a_steady_rate(caplog):
    caplog.set_level(logging.INFO, logger="fxai.run")
    with Progress("nbc toy", total=10, resumed=2, every=0.05) as p:
        p.done, p.explanations = 5, 40
        time.sleep(0.3)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) >= 3  # ticks while nothing else happens, and a last line
    head = "nbc toy: 5/10 instances (2 resumed), 40 explanations"
    assert all(ln.startswith(head) for ln in lines)
    assert "s left" in lines[0] and "s elapsed" in lines[-1]


def test_header_is_one_json_line(tmp_path, model):
    out = tmp_path / "r.jsonl"
    with RunWriter(out, "test", SETTINGS, {"model": model}, []):
        pass
    (head,) = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert head["fxai_run"] == 1 and head["instances"] == []


@pytest.mark.heavy
@pytest.mark.parametrize("command", ["nbc-table", "xpg-table", "cross-table"])
def test_tables_refuse_a_half_finished_run_file(tmp_path, model, fxai_cli, command):
    run = tmp_path / "runs" / "toy.jsonl"
    write_some(run, model, [1, 2, 3], 1)
    partial_path(run).replace(run)  # a half-finished file where a complete one should be
    meta = tmp_path / "toy.meta.json"
    meta.write_text(json.dumps({"dataset": "toy", "family": "dt", "n_features": 1,
                                "accuracy_train": 1.0,
                                "accuracy_test": 1.0, "n_nodes": 3, "depth": 1}))
    tables = tmp_path / "tables"
    args = {"nbc-table": ["--runs", run, "--models", meta, "--out-dir", tables],
            "xpg-table": ["--family", "dt", "--runs", run, "--metas", meta, "--out-dir", tables,
                          "--name", "t", "--clock", "cpu", "--missing-reason", "none"],
            "cross-table": [run, "--out-dir", tables]}[command]
    code, err = fxai_cli(command, *args)
    assert code != 0 and f"{run}: incomplete run file, 1 of 3 instances written" in err
    assert not tables.exists() or not any(tables.iterdir())


def test_a_full_disk_during_a_resume_leaves_no_temporary_file(tmp_path, model, monkeypatch):
    """The partial is rewritten through a temporary file when a run resumes: a write that
    fails (ENOSPC) removes it and keeps the partial to resume from."""
    import errno

    import fxai.files

    out = tmp_path / "run.jsonl"
    write_some(out, model, [0, 1, 2], 2)
    before = partial_path(out).read_text()
    real = fxai.files.temp_beside

    def full_disk(path, mode="w"):
        f, tmp = real(path, mode)

        class Full:
            def write(self, data):
                raise OSError(errno.ENOSPC, "No space left on device")

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                f.close()

        return Full(), tmp

    monkeypatch.setattr(fxai.files, "temp_beside", full_disk)
    with pytest.raises(OSError, match="No space"), RunWriter(out, "test", SETTINGS,
                                                            {"model": model}, [0, 1, 2]):
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", partial_path(out).name]
    assert partial_path(out).read_text() == before
    with pytest.raises(OSError, match="No space"):
        write_atomic(tmp_path / "table.csv", "a,b\n")
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
