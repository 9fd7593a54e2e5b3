"""How results were made: library versions, git commit, platform and the run's config."""

from __future__ import annotations

import html
import json
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import yaml

from fxai.report.html import page

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


def provenance(config: dict) -> dict:
    """Everything needed to say how a results folder was made."""
    return {
        "profile": config.get("profile"),
        "seed": config.get("seed"),
        "commit": git_commit(),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cpu_count": os.cpu_count(),
        "versions": versions(),
        "config": config,
    }


def write(config: dict, out_json: str | Path, out_html: str | Path) -> dict:
    """Write the provenance as JSON and as an HTML page for the report."""
    prov = provenance(config)
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
        f"<table>{facts}</table><h2>Versions</h2><table>{rows}</table>"
        "<h2>Configuration</h2><pre>"
        + html.escape(yaml.safe_dump(config, sort_keys=False, default_flow_style=None))
        + "</pre>"
    )
    Path(out_html).write_text(page("Provenance", body))
    return prov
