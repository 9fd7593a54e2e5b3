"""``fxai ffa-screen`` (the instances that reach the exact FFA, in the seeded order) and
``fxai ffa-run --picks`` (explain the screen's picks), on the tiny model of test_ffa_cli."""

import json
import logging

import pytest
from test_ffa_cli import ffa_run, tiny  # noqa: F401 - the module's fixture

from fxai.cli import main
from fxai.experiments.ffa import SCREEN_COMMAND, screen_picks
from fxai.runfile import make_header, partial_path, read_run


def screen(tiny, out, n, limit="30", tries="100"):  # noqa: F811
    return main(["ffa-screen", "--model", str(tiny / "model.json"), "--data",
                 str(tiny / "toy.csv"), "--split", str(tiny / "split.json"), "--instances",
                 str(n), "--time-limit", limit, "--tries", tries, "--seed", "0", "--clock",
                 "cpu", "--out", str(out)])


def write_screen(path, statuses, n):
    """A complete screen file whose instance K (row 160 + K) has ``statuses[K]``."""
    head = make_header(SCREEN_COMMAND, {}, {}, about={"instances": n, "tries": 100})
    recs = [{"k": k, "instance": 160 + k, "status": s} for k, s in enumerate(statuses)]
    path.write_text("".join(json.dumps(x) + "\n" for x in [head, *recs]))
    return path


def test_screen_picks_the_first_exact_instances_and_resumes(tiny, caplog):  # noqa: F811
    out = tiny / "screen" / "s.jsonl"
    assert screen(tiny, out, 2) == 0
    head, recs = read_run(out)
    assert head["command"] == "ffa-screen" and head["about"] == {"instances": 2, "tries": 100}
    assert [r["k"] for r in recs] == [0, 1] and {r["status"] for r in recs} == {"done"}
    assert all(r["n_axps"] > 0 and 160 <= r["instance"] < 200 for r in recs)
    assert screen_picks(out) == [0, 1]
    first = out.read_text().splitlines()
    caplog.clear()
    caplog.set_level(logging.INFO, logger="fxai")
    assert screen(tiny, out, 3) == 0  # more instances: the two tried are kept, one more
    lines = out.read_text().splitlines()
    assert lines[1:3] == first[1:3] and len(lines) == 4
    assert "resuming after 2 instances tried" in caplog.text
    assert screen_picks(out) == [0, 1, 2]


def test_too_few_exact_instances_is_an_error_and_keeps_the_partial(tiny, fxai_cli):  # noqa: F811
    out = tiny / "few" / "s.jsonl"
    code, err = fxai_cli("ffa-screen", "--model", tiny / "model.json", "--data",
                         tiny / "toy.csv", "--split", tiny / "split.json", "--instances", "3",
                         "--time-limit", "1e-9", "--tries", "2", "--seed", "0", "--clock",
                         "cpu", "--out", out)
    assert code == 1 and "Traceback" not in err
    assert f"{out}: only 0 of the 2 instances tried reach the exact FFA within 1e-09 s" in err
    assert not out.exists() and len(partial_path(out).read_text().splitlines()) == 3


def test_run_explains_the_screens_picks(tiny):  # noqa: F811
    picks = write_screen(tiny / "picks.jsonl", ["timeout", "done", "timeout", "done"], 2)
    assert screen_picks(picks) == [1, 3]
    out = tiny / "picked" / "marco-a.jsonl"
    assert ffa_run(tiny, "marco-a", out, 1, 0, "--picks", str(picks)) == 0
    _, recs = read_run(out)
    assert [r["k"] for r in recs] == [3, 1]


def test_a_screen_short_of_its_instances_is_refused(tiny):  # noqa: F811
    picks = write_screen(tiny / "short.jsonl", ["timeout", "done"], 2)
    with pytest.raises(Exception, match="1 of 2 instances picked; rerun the rule"):
        screen_picks(picks)
