"""Command line entry point: ``fxai <command> ...`` (the workflow's rules call these).

Only the module of the command being run is imported, so each rule starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import fxai.commands


def command_names() -> list[str]:
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(fxai.commands.__path__))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    names = command_names()
    parser = argparse.ArgumentParser(prog="fxai", description="fxai: formal explanations harness")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = argv[0] if argv and argv[0] in names else None
    for name in names:
        if name != chosen:  # listed in --help, not imported
            sub.add_parser(name)
            continue
        mod = importlib.import_module(f"fxai.commands.{name.replace('-', '_')}")
        doc = (mod.__doc__ or "").strip().splitlines()
        p = sub.add_parser(name, help=doc[0] if doc else None, description=mod.__doc__)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    args = parser.parse_args(argv)
    if not hasattr(args, "_run"):
        parser.error(f"unknown command {args.command!r}")
    return args._run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
