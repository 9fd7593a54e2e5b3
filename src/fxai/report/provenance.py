"""How results were made: library versions, git commit, platform, the run's config and the
fxai code versions (:mod:`fxai.version`) stamped into the results it aggregates."""

from __future__ import annotations

import html
import json
import os
import platform
import subprocess
from collections import Counter
from importlib import metadata
from pathlib import Path

import yaml

from fxai.report.html import page
from fxai.version import stamped

PACKAGES = (
    "fxai",
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "xgboost",
    "python-sat",
    "dd",
    "matplotlib",
    "snakemake",
    "Orange3",
)


def versions() -> dict[str, str]:
    """Python and the installed versions of the packages the results depend on."""
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def git_commit(repo: str | Path = ".") -> str:
    """The checkout's commit (with ``-dirty`` when it has uncommitted changes), or "unknown"."""
    try:
        desc = subprocess.run(
            ["git", "-C", str(repo), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return desc.stdout.strip() or "unknown"


KINDS = ("run files", "model metas")


def code_versions(results: str | Path) -> dict[str, dict[str, int]]:
    """``{code version: {kind: number of files}}`` of a results folder: the header of every
    run file (``runs/*/*.jsonl`` and the FFA runs' ``runs/ffa/<ds>/<method>/<part>.jsonl``) and
    every model's ``.meta.json``."""
    found: dict[str, Counter] = {}

    def add(version: str, kind: str) -> None:
        found.setdefault(version, Counter())[kind] += 1

    root = Path(results)
    for path in sorted([*root.glob("runs/*/*.jsonl"), *root.glob("runs/ffa/*/*/*.jsonl")]):
        with path.open() as fh:
            head = _json_or_none(fh.readline())
        add(stamped(head), "run files")
    for path in sorted(root.glob("models/*/*.meta.json")):
        meta = _json_or_none(path.read_text())
        add(stamped(meta), "model metas")
    return {v: {k: c[k] for k in KINDS} for v, c in sorted(found.items())}


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


def provenance(config: dict, results: str | Path | None = None) -> dict:
    """Everything needed to say how a results folder was made (``results``: the folder whose
    code versions are listed; none when not given)."""
    return {
        "profile": config.get("profile"),
        "seed": config.get("seed"),
        "commit": git_commit(),
        "code_versions": code_versions(results) if results is not None else {},
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cpu_count": os.cpu_count(),
        "versions": versions(),
        "config": config,
    }


def write(config: dict, out_json: str | Path, out_html: str | Path,
          results: str | Path | None = None) -> dict:
    """Write the provenance as JSON and as an HTML page for the report."""
    prov = provenance(config, results)
    Path(out_json).parent.mkdir(parents=True, exist_ok=True)
    Path(out_json).write_text(json.dumps(prov, indent=2, default=str) + "\n")
    rows = "".join(
        f"<tr><td class='key'>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>"
        for k, v in prov["versions"].items()
    )
    facts = "".join(
        f"<tr><td class='key'>{k}</td><td>{html.escape(str(prov[k]))}</td></tr>"
        for k in ("profile", "seed", "commit", "platform", "cpu_count")
    )
    body = (
        f"<table>{facts}</table>{_versions_html(prov['code_versions'])}"
        f"<h2>Versions</h2><table>{rows}</table>"
        "<h2>Configuration</h2><pre>"
        + html.escape(yaml.safe_dump(config, sort_keys=False, default_flow_style=None))
        + "</pre>"
    )
    Path(out_html).write_text(page("Provenance", body))
    return prov


def _versions_html(found: dict[str, dict[str, int]]) -> str:
    """The section listing the code versions behind the results (a warning when mixed)."""
    head = "".join(f"<th>{k}</th>" for k in ("fxai code version", *KINDS))
    rows = "".join(f"<tr><td class='key'>{html.escape(v)}</td>"
                   + "".join(f"<td>{n[k]}</td>" for k in KINDS) + "</tr>"
                   for v, n in found.items())
    note = (f"<p><strong>The results were made by {len(found)} code versions</strong>; a "
            "table built from more than one says so in a note line.</p>"
            if len(found) > 1 else "")
    return (f"<h2>Code versions in the results</h2>{note}"
            f"<table><tr>{head}</tr>{rows}</table>")
