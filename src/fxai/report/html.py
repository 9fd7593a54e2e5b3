"""Self-contained HTML pages of result tables for ``snakemake --report`` (which shows HTML
inline but offers CSV only as a download)."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from fxai.errors import DataError
from fxai.report.tables import DIFF, MATCH, PUBLISHED, display_cells

CSS = """
body { font-family: system-ui, sans-serif; font-size: 13px; margin: 1em; }
h1 { font-size: 16px; } h2 { font-size: 14px; margin-top: 1.5em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; position: sticky; top: 0; }
td.key { text-align: left; font-weight: 600; }
.published { background: #eef4ff; color: #234; }
.diff { background: #fafafa; color: #666; font-size: 12px; }
tr.published-only td.ours { color: #b00; font-style: italic; }
p.note { color: #555; max-width: 60em; }
"""


def _cls(col: str, keys: set[str]) -> str:
    if col in keys:
        return "key"
    if col.endswith(PUBLISHED):
        return "published"
    if col.endswith(DIFF):
        return "diff"
    return "ours"


def frame_html(df: pd.DataFrame, keys: set[str] | None = None) -> str:
    """An HTML table; published columns shaded, our "missing" cells in red."""
    keys = keys or set()
    shown = display_cells(df)
    cls = [_cls(c, keys) for c in df.columns]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    rows = []
    for i, row in enumerate(shown.itertuples(index=False)):
        match = df[MATCH].iloc[i] if MATCH in df.columns else ""
        tr = ' class="published-only"' if match == "published only" else ""
        cells = "".join(
            f'<td class="{c}">{html.escape(v)}</td>' for c, v in zip(cls, row, strict=True)
        )
        rows.append(f"<tr{tr}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _caption(md_path: Path) -> str:
    """The caption ``write_table`` put above the Markdown table (empty when none)."""
    if not md_path.is_file():
        return ""
    head = md_path.read_text().split("\n|", 1)[0]
    return "" if head.startswith("|") else head.strip()


def table_page(csv_path: str | Path, out: str | Path) -> Path:
    """Write an HTML page of ``<name>.csv`` plus, when present beside it,
    ``<name>.fidelity.csv`` and ``<name>.missing.csv``."""
    csv_path = Path(csv_path)
    if csv_path.suffix != ".csv":  # a rule may list the .md or .tex twin of the table
        csv_path = csv_path.with_suffix(".csv")
    if not csv_path.is_file():
        raise DataError(f"table {csv_path} does not exist; run the rule that writes it")
    name = csv_path.stem
    try:
        df = pd.read_csv(csv_path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as e:
        raise DataError(f"table {csv_path} is not a CSV table ({e}); delete it and rerun the "
                        "rule that writes it") from None
    caption = _caption(csv_path.with_suffix(".md"))
    cols = list(df.columns)
    # key columns: those before the first of our columns that has a published twin
    first = next((i - 1 for i, c in enumerate(cols) if c.endswith(PUBLISHED)), 1)
    keys = set(cols[: max(1, first)])
    parts = [
        f"<p>{html.escape(caption)}</p>" if caption else "",
        f"<p class='note'>Source: <code>tables/{html.escape(name)}.csv</code> "
        "(also <code>.md</code>, <code>.tex</code>). Shaded columns are the published values "
        "typed in from the paper; <em>(diff)</em> is ours minus published; red "
        "<em>missing</em> cells are published rows this profile did not run.</p>"
        if MATCH in df.columns
        else f"<p class='note'>Source: <code>tables/{html.escape(name)}.csv</code>.</p>",
        frame_html(df, keys),
    ]
    fid = csv_path.with_name(f"{name}.fidelity.csv")
    if fid.is_file():
        parts += ["<h2>Fidelity to the published values</h2>", frame_html(pd.read_csv(fid))]
    miss = csv_path.with_name(f"{name}.missing.csv")
    if miss.is_file() and not (m := pd.read_csv(miss)).empty:
        parts += ["<h2>Published rows not reproduced, and why</h2>", frame_html(m)]
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page(name, "".join(parts)))
    return out
