"""The example notebooks, executed and rendered as HTML into the report folder.

The notebooks are committed without outputs; the report runs each one (nbclient, in a fresh
kernel, the ``notebooks`` extra) and writes ``notebooks/NAME.html``: markdown cells as
preformatted text, code cells with their source, text outputs (stream, text/plain, errors)
escaped, and PNG outputs embedded as data URIs, so the plots are read without running anything.
No mathematics and no nbconvert: :func:`notebook_html` lays out the cells of an executed notebook.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["NOTEBOOKS", "REPORT_ENVIRONMENT", "execute_notebooks", "executed_copy", "notebook_html", "render_notebooks",
           "save_executed", "source_digest"]

#: The notebooks of a source checkout (absent from an installed wheel: then nothing is rendered).
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: Set for the kernels the report runs: notebooks that have a small configuration for the test
#: suite run their full one here (06_census_2020: every level's discrete Gaussians).
REPORT_ENVIRONMENT = {"GDPPROOF_CENSUS_FULL": "1"}


def _joined(value: Any) -> str:
    """A notebook field (a string, or a list of strings) as one string."""
    return "".join(value) if isinstance(value, (list, tuple)) else str(value)


def _output_html(output: Mapping[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        cls = "err" if output.get("name") == "stderr" else "out"
        return f"<pre class={cls}>{html.escape(_joined(output.get('text', '')))}</pre>"
    if kind == "error":
        trace = _ANSI.sub("", "\n".join(output.get("traceback", [])) or f"{output.get('ename')}: {output.get('evalue')}")
        return f"<pre class=err>{html.escape(trace)}</pre>"
    data = output.get("data", {})
    if "image/png" in data:
        png = _joined(data["image/png"]).replace("\n", "")
        return f'<img alt="figure output" src="data:image/png;base64,{png}">'
    if "text/plain" in data:
        return f"<pre class=out>{html.escape(_joined(data['text/plain']))}</pre>"
    return ""


def notebook_html(nb: Mapping[str, Any], title: str) -> str:
    """A self-contained HTML page of an executed notebook (nbformat 4, as a NotebookNode or a dict)."""
    parts = []
    for cell in nb.get("cells", []):
        source = html.escape(_joined(cell.get("source", "")))
        if cell.get("cell_type") == "markdown":
            parts.append(f"<pre class=md>{source}</pre>")
        elif cell.get("cell_type") == "code":
            count = cell.get("execution_count")
            parts.append(f"<div class=prompt>In [{'' if count is None else count}]:</div><pre class=code>{source}</pre>")
            parts.extend(_output_html(o) for o in cell.get("outputs", []))
    body = "\n".join(p for p in parts if p)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto}}pre{{white-space:pre-wrap;margin:.3em 0}}
pre.md{{font-family:sans-serif;font-size:1.02em}}pre.code{{background:#f4f4f4;padding:6px;border-left:3px solid #79a}}
pre.out{{padding:0 6px}}pre.err{{background:#fdd;padding:6px}}.prompt{{color:#79a;font-size:.8em;margin-top:1em}}
img{{max-width:100%}}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>Executed by <code>gdpproof report</code>; the notebook itself is committed without outputs.</p>
{body}
</body></html>
"""


#: The kernels start with their log at ERROR: their start-up warning (plain TCP on localhost,
#: one per notebook) says nothing about the report.
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=ERROR"]


def source_digest(path: Path) -> str:
    """The SHA-256 of a notebook file: an executed copy records its source's, so a copy made
    from an older version of the notebook is recognised as stale."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_executed(nb: Any, source: Path, folder: Path) -> Path:
    """Write the executed notebook ``nb`` of ``source`` as ``folder/NAME.ipynb``, stamped with
    :func:`source_digest` of ``source`` (in its metadata, under ``gdpproof``); the path written."""
    import nbformat

    from ..reference.generate import write_atomic

    nb.metadata["gdpproof"] = {"source": Path(source).name, "source_sha256": source_digest(source)}
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / Path(source).name
    write_atomic(target, nbformat.writes(nb))
    return target


def executed_copy(source: Path, folder: Path) -> Path:
    """``folder/NAME.ipynb``, the executed copy of ``source`` that :func:`save_executed` wrote.

    Raises:
        FileNotFoundError: there is no such copy.
        ValueError: the copy was executed from another version of ``source`` (stale).
    """
    target = folder / Path(source).name
    stamp = json.loads(target.read_text(encoding="utf-8")).get("metadata", {}).get("gdpproof", {})
    if stamp.get("source_sha256") != source_digest(source):
        raise ValueError(f"{target} was executed from another version of {source}: execute it again")
    return target


@contextmanager
def _kernel_environment() -> Iterator[None]:
    """The environment the report's kernels start in: this checkout's gdpproof first on
    PYTHONPATH (even where the package is not installed) and :data:`REPORT_ENVIRONMENT`."""
    root = str(Path(__file__).resolve().parents[2])
    saved = {name: os.environ.get(name) for name in ("PYTHONPATH", *REPORT_ENVIRONMENT)}
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [root, saved["PYTHONPATH"]]))
    os.environ.update(REPORT_ENVIRONMENT)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def execute_notebooks(paths: Sequence[Path], *, timeout: int = 600) -> Iterator[tuple[Path, Any, str, str]]:
    """Execute each notebook in a fresh kernel (the ``notebooks`` extra must be installed), one at
    a time: yields ``(path, executed notebook, status, detail)``, status "rendered" or "failed"
    (a notebook that raises keeps its outputs up to the error, which ``detail`` names)."""
    import nbclient
    import nbformat

    with _kernel_environment():
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            status, detail = "rendered", ""
            try:
                nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", extra_arguments=KERNEL_ARGUMENTS,
                                        resources={"metadata": {"path": str(path.parent)}}).execute()
            except Exception as exc:  # noqa: BLE001 - a failing notebook is shown with its error, not a crash
                status, detail = "failed", f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}" \
                    if str(exc).strip() else type(exc).__name__
            yield path, nb, status, detail


def render_notebooks(folder: Path, paths: Sequence[Path] | None = None, *, timeout: int = 600,
                     progress: Callable[[str], None] | None = None) -> list[dict[str, str]]:
    """Execute each notebook and write ``folder/notebooks/NAME.html``; one row per notebook
    (``name``, ``status`` "rendered", "failed" or "skipped", ``detail``, ``html``) for summary.json.

    Skipped, with the reason, when the ``notebooks`` extra is missing or there are no notebooks
    (an installed wheel has none).  A notebook that raises is rendered with its error and marked
    "failed"; the report's checks are unaffected (the test suite runs the notebooks as tests).
    ``progress`` is called with each notebook's name when it is done.
    """
    paths = sorted(NOTEBOOKS.glob("*.ipynb")) if paths is None else list(paths)
    if not paths:
        return [{"name": "notebooks", "status": "skipped", "detail": f"no notebooks in {NOTEBOOKS}", "html": ""}]
    try:
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
    except ImportError:
        return [{"name": p.stem, "status": "skipped", "html": "",
                 "detail": "not rendered: the notebooks extra (nbformat, nbclient, ipykernel) is not installed"}
                for p in paths]
    from ..reference.generate import write_atomic

    out = folder / "notebooks"
    out.mkdir(exist_ok=True)
    rows = []
    for path, nb, status, detail in execute_notebooks(paths, timeout=timeout):
        target = out / f"{path.stem}.html"
        write_atomic(target, notebook_html(nb, path.stem))
        rows.append({"name": path.stem, "status": status, "detail": detail, "html": f"notebooks/{target.name}"})
        if progress is not None:
            progress(path.stem)
    return rows
