"""Writes the report: ``summary.json`` (every number a decimal string) and a self-contained ``index.html``.

No mathematics and no checks: it lays out the summary that :mod:`gdpproof.report.runner` collected.
Both files are written to a fresh temporary file beside them (a random name, created exclusively:
a planted file or symlink is never followed) and renamed, so a reader never sees half a report.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..reference.generate import write_atomic
from .figures import Figure

__all__ = ["render_html", "write_files"]


def _row(r: dict[str, Any]) -> str:
    cls = {"FAIL": "fail", "skipped": "skip"}.get(r["status"], "ok")
    return (f"<tr class={cls}><td>{html.escape(r['status'])}</td><td>{html.escape(r['check'])}</td>"
            f"<td>{html.escape(r['detail'])}</td><td>{r['seconds']}</td></tr>")


def _figures(figures: Sequence[Figure]) -> str:
    if not figures:
        return "<p>(install the plot extra for figures)</p>"
    return "\n".join(
        f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,{base64.b64encode(f.png).decode()}">'
        f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption></figure>"
        for f in figures)


def _notebooks(rows: Sequence[dict[str, str]]) -> str:
    if not rows:
        return ""
    items = "".join(
        "<li>" + (f'<a href="{html.escape(r["html"])}">{html.escape(r["name"])}</a>' if r["html"] else
                   html.escape(r["name"])) + f" ({html.escape(r['status'])}"
        + (f": {html.escape(r['detail'])}" if r["detail"] else "") + ")</li>" for r in rows)
    return f"<h2>Notebooks</h2><p>The example notebooks, executed for this report:</p><ul>{items}</ul>"


def _environment(summary: dict[str, Any]) -> str:
    env = summary.get("environment", {})
    deps = ", ".join(f"{k} {v}" for k, v in {**env.get("dependencies", {}), **env.get("peers", {})}.items())
    return (f"<p class=env>Run {html.escape(summary.get('date', ''))} in {html.escape(summary.get('seconds', '?'))} s; "
            f"Python {html.escape(env.get('python', '?'))} on {html.escape(env.get('platform', '?'))}; "
            f"{html.escape(deps)}.</p>")


def render_html(summary: dict[str, Any], figures: Sequence[Figure] = ()) -> str:
    """The HTML page of a summary: the counts (passed, skipped and failed apart), the skipped checks
    listed on their own, one figure per topic with its caption, and one table row per check by section."""
    rows = summary["checks"]
    parts = []
    for title in dict.fromkeys(r["section"] for r in rows):  # in the order the checks ran
        parts.append(f"<tr><th colspan=4 class=section>{html.escape(title)}</th></tr>")
        parts.extend(_row(r) for r in rows if r["section"] == title)
    body = "\n".join(parts)
    variant = (" <b>Quick run</b>: the derivations, the peer audits, the numerical-composition figures and the "
               "notebooks were skipped (<code>gdpproof report</code> without <code>--quick</code> runs them).") \
        if summary["quick"] else ""
    skipped = [r for r in rows if r["status"] == "skipped"]
    skipped_html = ("<h2>Skipped checks</h2><p>Not run, so neither passed nor failed:</p><ul>" +
                    "".join(f"<li><b>{html.escape(r['check'])}</b>: {html.escape(r['detail'])}</li>" for r in skipped)
                    + "</ul>") if skipped else ""
    version, digits = summary["gdpproof"], summary["digits"]
    passed, skip, failed, total = summary["passed"], summary["skipped"], summary["failed"], summary["total"]
    peers = summary.get("peer_audits", {})
    findings = ", ".join(f"{n} {s}" for s, n in sorted(peers.get("findings", {}).items()))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>gdpproof verification report</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}td{{padding:3px 8px;vertical-align:top}}
tr.ok td:first-child{{color:#070}}tr.fail td:first-child{{color:#b00;font-weight:bold}}
tr.skip td{{color:#777}}tr.skip td:first-child{{font-style:italic}}.counts b.skip{{color:#777}}
table{{border-collapse:collapse}}tr:nth-child(even){{background:#f4f4f4}}
th.section{{text-align:left;padding-top:1em;font-size:1.1em;background:#fff}}
figure{{margin:1.5em 0}}figure img{{max-width:100%}}figcaption{{max-width:900px}}.env{{color:#555;font-size:.9em}}
</style></head><body>
<h1>gdpproof verification report</h1>
<p class=counts>gdpproof {version}: <b>{passed} passed</b>, <b class=skip>{skip} skipped</b>, <b>{failed} failed</b>
of {total} of gdpproof's own checks. Values certified to {digits} digits
in ball arithmetic (python-flint arb), privacy losses rounded up and trade-off values down.{variant}
Peer audits are counted apart (their findings are results about those libraries, not checks of
gdpproof): <b>{peers.get("ran", 0)} ran</b> ({peers.get("with_material_unsafe", 0)} with material unsafe
findings{"; findings: " + html.escape(findings) if findings else ""}), {peers.get("skipped", 0)} skipped (the
library is not installed).</p>
{_environment(summary)}
{skipped_html}
<h2>Figures</h2>
{_figures(figures)}
{_notebooks(summary.get("notebooks", []))}
<h2>Checks</h2>
<table><tr><th>result</th><th>check</th><th>detail</th><th>seconds</th></tr>
{body}
</table></body></html>
"""


def write_files(folder: Path, summary: dict[str, Any], figures: Sequence[Figure] = ()) -> None:
    """Write ``folder/summary.json``, then ``folder/index.html``."""
    write_atomic(folder / "summary.json", json.dumps(summary, indent=2))
    write_atomic(folder / "index.html", render_html(summary, figures))
