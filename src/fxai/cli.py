"""Command line entry point: ``fxai <command> ...`` (the workflow's rules call these).

Only the module of the command being run is imported, so each rule starts fast; ``fxai --help``
lists every command with the first sentence of its module docstring (read, not imported).
The commands' argparse value types are in :mod:`fxai.argtypes`.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import logging
import os
import pkgutil
import sys
import time
from pathlib import Path

import fxai
import fxai.commands
from fxai import forkclient
from fxai.errors import DataError, FetchError, ModelError, ModelKindError, NearTieError, ScoreError

#: errors of the input (files, values), printed on one line without a traceback; so is an
#: OSError naming a file (missing, unreadable, a folder)
INPUT_ERRORS = (DataError, FetchError, ModelError, NearTieError, ScoreError, FileNotFoundError)

#: set (to anything) by the workflow for its jobs: a command's last line on stderr is then its
#: resource usage (:func:`usage_line`), which ``benchmarks.rule_cpu`` reads from the job logs
USAGE_ENV = "FXAI_JOB_USAGE"

#: deprecated name -> current name (the old names work for one more release)
ALIASES = {"train-bt": "bt-train"}


def command_names() -> list[str]:
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(fxai.commands.__path__))


def summary(name: str) -> str:
    """First sentence of a command module's docstring, read without importing the module."""
    spec = importlib.util.find_spec(f"fxai.commands.{name.replace('-', '_')}")
    doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text())) if spec else None
    para = " ".join((doc or "").split("\n\n")[0].split()).replace("``", "")
    return para.split(". ")[0].rstrip(".")


def command_list(names: list[str]) -> str:
    """One line per command: its name and summary (old names marked deprecated)."""
    lines = []
    for name in names:
        old = [a for a, new in ALIASES.items() if new == name]
        note = f" (old name {', '.join(old)}: deprecated)" if old else ""
        lines.append(f"  {name:<16}{summary(name)}{note}")
    return "\n".join(lines)


def usage_line(wall_s: float) -> str:
    """``fxai usage: cpu_s=.. user_s=.. system_s=.. max_rss_mb=.. wall_s=..``: CPU seconds of
    this process and of its children waited for (an FFA job's forked instances), the larger
    peak resident memory of the two, and ``wall_s`` since the command started."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = me.ru_utime + kids.ru_utime, me.ru_stime + kids.ru_stime
    per_mb = 2**20 if sys.platform == "darwin" else 2**10  # ru_maxrss: bytes there, else KiB
    rss = max(me.ru_maxrss, kids.ru_maxrss) / per_mb
    return (f"fxai usage: cpu_s={user + system:.3f} user_s={user:.3f} system_s={system:.3f} "
            f"max_rss_mb={rss:.1f} wall_s={wall_s:.3f}")


def plain_text(doc: str) -> str:
    """A docstring as ``--help`` shows it: reST roles and literals as plain text
    (``:mod:`~a.b``` -> b, ````x```` -> x).

    Examples
    --------
    >>> plain_text("see :func:`~fxai.explain.ffa` and ``--out`` (:mod:`fxai.models.convert`)")
    'see ffa and --out (fxai.models.convert)'
    """
    import re

    doc = re.sub(r":[a-z]+:`~[\w.]*?\.?(\w+)`", r"\1", doc)
    doc = re.sub(r":[a-z]+:`([^`]+)`", r"\1", doc)
    return re.sub(r"``([^`]+)``", r"\1", doc)


def main(argv: list[str] | None = None) -> int:
    """Entry point: the command run by the fork server when ``FXAI_FORKSERVER`` names one
    (:mod:`fxai.forkserver`, ``make run``), else in this process."""
    argv = sys.argv[1:] if argv is None else list(argv)
    server = os.environ.get(forkclient.ENV)
    if server:
        code = forkclient.run(server, argv)
        if code is not None:
            return code
    return main_here(argv)


def main_here(argv: list[str]) -> int:
    """The command run in this process (with the usage line when ``FXAI_JOB_USAGE`` is set)."""
    if not os.environ.get(USAGE_ENV):
        return run(argv)
    start = time.monotonic()
    try:
        return run(argv)
    finally:
        print(usage_line(time.monotonic() - start), file=sys.stderr)


def run(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run its command (:func:`main` without the usage line)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    names = command_names()
    chosen = ALIASES.get(argv[0], argv[0]) if argv and not argv[0].startswith("-") else None
    listing = "" if chosen in names else "\n\ncommands:\n" + command_list(names)
    parser = argparse.ArgumentParser(
        prog="fxai", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="fxai: formal explanations harness (the workflow's steps)" + listing,
        epilog="`fxai COMMAND --help` shows a command's options.")
    parser.add_argument("--version", action="version", version=f"fxai {fxai.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                help="one of the commands above")
    if argv and argv[0] in ALIASES:
        print(f"fxai: `{argv[0]}` is deprecated; use `{chosen}`", file=sys.stderr)
    for name in names:
        if name != chosen:  # listed in the description, not imported
            sub.add_parser(name)
            continue
        mod = importlib.import_module(f"fxai.commands.{name.replace('-', '_')}")
        p = sub.add_parser(name, aliases=[a for a, new in ALIASES.items() if new == name],
                           description=plain_text(mod.__doc__ or ""),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    args = parser.parse_args(argv)
    if not hasattr(args, "_run"):
        parser.error(f"unknown command {args.command!r}")
    # numexpr (pandas imports it when installed) logs its thread count at INFO, which the
    # commands' logs show: keep it to warnings
    logging.getLogger("numexpr").setLevel(logging.WARNING)
    try:
        return args._run(args) or 0
    except KeyboardInterrupt:  # Ctrl-C: one line (outputs are written atomically, or not)
        print(f"fxai {chosen}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if not isinstance(e, INPUT_ERRORS) and not (isinstance(e, OSError) and e.filename):
            raise  # a bug: the traceback is what to report
        print(f"fxai {chosen}: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2 if isinstance(e, ModelKindError) else 1  # a model of another kind: usage


if __name__ == "__main__":
    sys.exit(main())
