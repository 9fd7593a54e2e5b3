"""The ``fxai`` command line: help lists every command, --version, deprecated names, and
every numeric option range-checked (a bad value stops naming the option)."""

import argparse
import importlib
from pathlib import Path

import pytest

import fxai
from benchmarks import rule_cpu
from fxai.cli import ALIASES, USAGE_ENV, command_names, main


def run(capsys, *args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_help_lists_every_command_on_one_line(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    lines = out.splitlines()
    for name in command_names():
        line = next(ln for ln in lines if ln.split()[:1] == [name])
        assert len(line.split()) > 3, f"{name} has no one-line summary"
    assert "train-bt: deprecated" in out


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"fxai {fxai.__version__}"


def test_a_workflow_job_ends_its_log_with_its_usage(capsys, monkeypatch, tmp_path):
    """With FXAI_JOB_USAGE set (the workflow sets it), every command, even one that fails,
    ends with a usage line that benchmarks.rule_cpu reads from the job's log."""
    monkeypatch.delenv(USAGE_ENV, raising=False)
    assert "fxai usage:" not in run(capsys, "--version")[2]
    monkeypatch.setenv(USAGE_ENV, "1")
    logs = tmp_path / "results" / "logs" / "ffa"
    logs.mkdir(parents=True)
    for name, args in (("run_a_marco-a_0", ["--version"]), ("run_b_marco-c_0", ["split"])):
        code, _, err = run(capsys, *args)
        assert err.splitlines()[-1].startswith("fxai usage: cpu_s=")
        (logs / f"{name}.log").write_text(err)
    (logs / "train_bt_x.log").write_text("not an fxai command's log\n")  # left out
    rows = rule_cpu.read(tmp_path / "results")
    assert [r["job"] for r in rows] == ["ffa/run_a_marco-a_0", "ffa/run_b_marco-c_0"]
    assert all(r["cpu_s"] > 0 and r["max_rss_mb"] > 1 and r["wall_s"] >= 0 for r in rows)
    (total,) = [r for r in rule_cpu.table(rows) if r["kind"] == "all jobs"]
    assert total["jobs"] == 2 and total["cpu_s"] == round(sum(r["cpu_s"] for r in rows), 1)


def test_rule_cpu_per_dataset():
    """``--datasets``: a job is the dataset's that is a word of its name (``disaster`` is not
    ``disaster-full``'s), with a total per dataset; the rest under ``other``."""
    rows = [{"kind": kind, "job": job, "wall_s": 1.0, "cpu_s": cpu, "max_rss_mb": 10.0}
            for kind, job, cpu in (("ffa/run", "ffa/run_disaster-full_marco-a_0", 2.0),
                                   ("ffa/run", "ffa/run_disaster-full_marco-c_0", 3.0),
                                   ("data/prepare", "data/prepare_files_disaster-full", 1.0),
                                   ("ffa/run", "ffa/run_disaster_marco-a_0", 4.0),
                                   ("ffa/report", "ffa/report", 5.0))]
    out = {r["kind"]: r for r in rule_cpu.table(rows, ["disaster-full", "sarcasm-full"])}
    assert list(out) == ["disaster-full: ffa/run", "disaster-full: data/prepare",
                         "disaster-full: all", "other: ffa/report", "other: ffa/run",
                         "other: all", "all jobs"]
    assert out["disaster-full: all"]["cpu_s"] == 6.0 and out["disaster-full: ffa/run"]["jobs"] == 2
    assert out["other: all"]["cpu_s"] == 9.0 and out["all jobs"]["cpu_share_pct"] == 100.0


def test_old_name_still_works_and_says_it_is_deprecated(capsys):
    code, out, err = run(capsys, "train-bt", "--help")
    assert code == 0 and "--trees" in out
    assert "`train-bt` is deprecated; use `bt-train`" in err
    assert set(ALIASES.values()) <= set(command_names())


@pytest.mark.parametrize("args,message", [
    (["ffa-run", "--time-limit", "-5"], "argument --time-limit: -5 must be > 0"),
    (["ffa-run", "--instance", "-1"], "argument --instance: -1 must be >= 0"),
    (["nbc-explain", "--instances", "-3"], "argument --instances: -3 must be >= 1"),
    (["nbc-explain", "--deltas", "0.9", "1.7"], "argument --deltas: 1.7 must be <= 1"),
    (["xpg-explain", "--time-limit", "inf"], "argument --time-limit: 'inf' is not a finite"),
    (["xpg-explain", "--fraction", "0"], "argument --fraction: 0 must be > 0"),
    (["cross-run", "--delta", "nan"], "argument --delta: 'nan' is not a finite number"),
    (["bt-train", "--trees", "0"], "argument --trees: 0 must be >= 1"),
    (["nbc-train", "--alpha", "0"], "argument --alpha: 0 must be > 0"),
    (["prepare", "x", "--test-size", "1"], "argument --test-size: 1 must be < 1"),
    (["split", "x", "--seed", "-1"], "argument --seed: -1 must be >= 0"),
    (["xpg-train", "--depths", "3", "0"], "argument --depths: 0 must be >= 1"),
    (["xpg-table", "--max-instances", "2.5"], "argument --max-instances: '2.5' is not an int"),
])
def test_out_of_range_values_are_named(capsys, args, message):
    code, _, err = run(capsys, *args)
    assert code == 2 and message in err


def test_every_numeric_option_is_range_checked():
    """No command takes a bare int or float: each uses a type from fxai.cli (finite, bounded)."""
    for name in command_names():
        mod = importlib.import_module(f"fxai.commands.{name.replace('-', '_')}")
        parser = argparse.ArgumentParser()
        mod.add_arguments(parser)
        actions = list(parser._actions)
        for sub in (a for a in actions if isinstance(a, argparse._SubParsersAction)):
            actions += [x for p in sub.choices.values() for x in p._actions]
        bare = [a.dest for a in actions if a.type in (int, float)]
        assert not bare, f"fxai {name}: unchecked numeric options {bare}"


def test_docs_list_every_command():
    doc = (Path(__file__).resolve().parents[1] / "docs/cli.md").read_text()
    missing = [n for n in command_names() if f"\n  {n} " not in doc]
    assert not missing, f"docs/cli.md lacks {missing}: paste the output of `fxai --help`"


#: libraries a command may import only when it runs, never to parse its options or show --help
HEAVY = ("numpy", "pandas", "scipy", "sklearn", "xgboost", "matplotlib", "pysat", "dd",
         "snakemake", "joblib", "networkx", "jsonschema", "Orange", "highspy")
REPORT_ACTIONS = ("figure", "table-html", "index")


@pytest.mark.parametrize("argv", [[name, "--help"] for name in command_names()]
                         + [["report", action, "--help"] for action in REPORT_ACTIONS],
                         ids=" ".join)
def test_help_imports_no_heavy_library(argv):
    """``fxai CMD --help`` parses and prints before any heavy library is imported (the
    command's module imports them in the functions that use them)."""
    import subprocess
    import sys

    code = (f"import sys\nfrom fxai.cli import main\ntry:\n    main({argv!r})\n"
            "except SystemExit as e:\n    assert e.code == 0, e.code\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    src = str(Path(__file__).resolve().parents[1] / "src")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={"PYTHONPATH": src, "PATH": ""}, timeout=120)
    assert r.returncode == 0 and "usage: fxai" in r.stdout, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]", f"fxai {' '.join(argv)} imported them"


def test_report_figure_names_are_the_figures():
    """``fxai report figure`` lists the figures from the source of fxai.report.figures."""
    from fxai.report.figures import FIGURES
    from fxai.report.index import figure_names

    assert figure_names() == sorted(FIGURES)


@pytest.mark.parametrize("configs", [["config/config.yaml"],
                                     ["config/paper.yaml", "config/allow-missing.yaml"]],
                         ids=["default", "paper"])
def test_the_workflow_gives_every_option_a_command_requires(configs):
    """Every ``fxai`` command line of a dry run (all jobs of a fresh profile) parses with the
    command's own parser: options without a default (the config's settings) are all passed."""
    import os
    import re
    import shlex
    import subprocess

    import scratch

    work = scratch.fresh()  # as on a fresh clone, whatever this checkout has run
    r = subprocess.run([*scratch.snakemake(work), "-n", "-p", "--nolock", "--cores", "1",
                        "--configfile", *configs], cwd=work, capture_output=True, text=True,
                       timeout=600, env={**os.environ, "PYTHONPATH": str(scratch.ROOT / "src")})
    assert r.returncode == 0, r.stderr[-3000:]
    seen = set()
    for line in r.stdout.splitlines():
        m = re.search(r"-m fxai\.cli\s+(.*?)\s+>\s+\S+\s+2>&1", line)
        if not m:
            continue
        argv = shlex.split(m.group(1))
        mod = importlib.import_module(f"fxai.commands.{argv[0].replace('-', '_')}")
        parser = argparse.ArgumentParser(prog=f"fxai {argv[0]}", exit_on_error=False)
        mod.add_arguments(parser)
        try:
            args = parser.parse_args(argv[1:])
        except SystemExit:
            pytest.fail(f"the workflow runs `fxai {m.group(1)}` without a required option")
        if argv[0] == "xpg-train":
            mod.check_options(args)  # the options its family and learner need
        seen.add(argv[0])
    assert {"prepare", "split", "ffa-run", "ffa-report", "xpg-train", "xpg-table",
            "xpg-instances", "datasets-table", "report"} <= seen
