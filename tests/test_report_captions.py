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
