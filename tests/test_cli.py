"""The ``fxai`` command line: help lists every command, --version, deprecated names, and
every numeric option range-checked (a bad value stops naming the option)."""

import argparse
import importlib
from pathlib import Path

import pytest

import fxai
from fxai.cli import ALIASES, command_names, main


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
