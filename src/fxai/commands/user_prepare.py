"""Prepare a user's own dataset (an entry of config user.datasets, as JSON) into
<out-dir>/<name>.csv + <name>.domains.json, keeping the user's column names.

The file's checksum (when the entry gives one), target column and feature lists are
checked first; any mismatch is an error naming the file and the config key.
"""

from __future__ import annotations

import argparse
import json
import logging

from fxai.errors import DataError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--spec", required=True,
                   help="the user.datasets entry as JSON (name, path, target, ...)")
    p.add_argument("--out-dir", default="data/prepared/user")


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        spec = json.loads(args.spec)
    except ValueError as e:
        raise DataError(f"--spec is not JSON: {e}") from e
    from fxai.data.user import prepare_user

    out = prepare_user(spec, args.out_dir)
    logging.getLogger("fxai.user_prepare").info("%s: %s -> %s", spec["name"], spec["path"], out)
    return 0
