"""Writes the report: ``summary.json`` (every number a decimal string) and a self-contained ``index.html``.

No mathematics and no checks: it lays out the summary that :mod:`gdpproof.report.runner` collected.
Both files are written to a temporary name and renamed, so a reader never sees half a report.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

__all__ = ["render_html", "write_files"]


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def render_html(summary: dict[str, Any], figure: bytes | None) -> str:
    """The HTML page of a summary: a header, the figure (PNG, inlined) and one table row per check by section."""
    rows = summary["checks"]
    parts = []
    for title in dict.fromkeys(r["section"] for r in rows):  # in the order the checks ran
        parts.append(f"<tr><th colspan=4 class=section>{html.escape(title)}</th></tr>")
        parts.extend(
            f"<tr class={'ok' if r['passed'] else 'fail'}><td>{r['status']}</td>"
            f"<td>{html.escape(r['check'])}</td><td>{html.escape(r['detail'])}</td><td>{r['seconds']}</td></tr>"
            for r in rows if r["section"] == title)
    body = "\n".join(parts)
    variant = (" <b>Quick run</b>: the derivations, the peer audits and the numerical-composition figures "
               "were skipped (<code>gdpproof report</code> without <code>--quick</code> runs them).") \
        if summary["quick"] else ""
    img = (f'<img alt="trade-off functions and delta curves" '
           f'src="data:image/png;base64,{base64.b64encode(figure).decode("ascii")}">') if figure else \
        "<p>(install the plot extra for figures)</p>"
    version, passed, total, digits = summary["gdpproof"], summary["passed"], summary["total"], summary["digits"]
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>gdpproof verification report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}td{{padding:3px 8px;vertical-align:top}}
tr.ok td:first-child{{color:#070}}tr.fail td:first-child{{color:#b00;font-weight:bold}}
table{{border-collapse:collapse}}tr:nth-child(even){{background:#f4f4f4}}
th.section{{text-align:left;padding-top:1em;font-size:1.1em;background:#fff}}</style></head><body>
<h1>gdpproof verification report</h1>
<p>gdpproof {version}; {passed} of {total} checks passed; values certified to {digits} digits
in ball arithmetic (python-flint arb), privacy losses rounded up and trade-off values down.{variant}
Peer audits show <i>ran</i> (or <i>skipped</i> when the library is not installed): their unsafe findings
are results about those libraries, not failures of gdpproof.</p>
{img}
<table><tr><th>result</th><th>check</th><th>detail</th><th>seconds</th></tr>
{body}
</table></body></html>
"""


def write_files(folder: Path, summary: dict[str, Any], figure: bytes | None) -> None:
    """Write ``folder/summary.json``, then ``folder/index.html``."""
    _atomic_write(folder / "summary.json", json.dumps(summary, indent=2))
    _atomic_write(folder / "index.html", render_html(summary, figure))
