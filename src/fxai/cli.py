"""Command line entry point: ``fxai <command> ...`` (the workflow's rules call these)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import fxai.commands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fxai", description="fxai: formal explanations harness")
    sub = parser.add_subparsers(dest="command", required=True)
    for info in sorted(pkgutil.iter_modules(fxai.commands.__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"fxai.commands.{info.name}")
        doc = (mod.__doc__ or "").strip().splitlines()
        p = sub.add_parser(info.name.replace("_", "-"), help=doc[0] if doc else None)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    args = parser.parse_args(argv)
    return args._run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
