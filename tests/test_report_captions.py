"""Every table of the report has a caption that says what a row is and which columns are
published; every figure the report registers has a caption file."""

import re

from test_workflow import ROOT, dry_run

CAPTIONS = ROOT / "workflow" / "report"


def test_every_report_table_caption_says_rows_and_published_columns():
    r = dry_run("--forceall")  # every job of the default profile, whatever exists
    assert r.returncode == 0, r.stderr[-2000:]
    tables = set(re.findall(r"report/tables/([\w.-]+)\.html", r.stdout))
    assert {"datasets", "nbc_table7", "ffa_summary", "cross_algorithms", "cross_summary"} <= tables
    for name in tables:
        text = (CAPTIONS / f"{name}.rst").read_text()
        assert "One row per" in text, name
        assert "Published columns" in text or "No column is published" in text, name
    figures = set(re.findall(r"figures/(ffa_pictures|cross_times)\.png", r.stdout))
    assert figures == {"ffa_pictures", "cross_times"}
    assert all((CAPTIONS / f"{f}.rst").is_file() for f in figures)


def test_every_caption_renders_without_a_docutils_message():
    """Each caption as snakemake renders it (Jinja with the job's ``snakemake`` object, then
    docutils to HTML): no docutils error or warning (issue 35: ``|score|`` was read as a
    substitution reference, printing ``(ERROR/3)`` lines in the report build)."""
    import io
    from types import SimpleNamespace

    import yaml
    from docutils.core import publish_parts
    from jinja2 import ChainableUndefined, Environment

    config = {**yaml.safe_load((ROOT / "config" / "config.yaml").read_text()),
              "user": yaml.safe_load((ROOT / "config" / "your-data.yaml").read_text())["user"]}
    snakemake = SimpleNamespace(config=config, params=SimpleNamespace(
        commit="0123456789ab", versions={"fxai": "0.1.0", "numpy": "2.3.0"}))
    env = Environment(undefined=ChainableUndefined)
    captions = sorted(CAPTIONS.glob("*.rst"))
    assert len(captions) > 20
    for path in captions:
        text = env.from_string(path.read_text()).render(snakemake=snakemake)
        stream = io.StringIO()
        publish_parts(text, writer="html",
                      settings_overrides={"warning_stream": stream, "report_level": 2})
        assert stream.getvalue() == "", f"{path.name}: {stream.getvalue()}"
