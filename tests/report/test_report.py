"""The verification report: the full report once (through the command line), the quick one, and its parts.

The full report runs once in the suite (the session fixture ``full_report`` of tests/conftest.py,
which the headless-browser test opens too); the derivations and the quick report reuse its check
results through tests/report/once.py, so no check is computed twice.
"""

from __future__ import annotations

import ast
import html
import io
import json
from pathlib import Path

import pytest

from gdpproof.errors import PrecisionError
from gdpproof.report import checks, render, runner
from gdpproof.report.checks import Check, CheckResult, Outcome, report_checks

from .once import DIGITS, run_report as _report

REPORT = Path(checks.__file__).resolve().parent


def test_full_report_passes_every_check(full_report):
    code, stdout, summary, out = full_report
    failed = [(c["check"], c["detail"]) for c in summary["checks"] if not c["passed"]]
    assert failed == [] and code == 0 and summary["failed"] == 0
    own = [c for c in summary["checks"] if c["section"] != checks.PEER_AUDITS]
    skipped = [c["check"] for c in own if c["status"] == "skipped"]
    assert summary["skipped"] == len(skipped) and summary["passed"] == summary["total"] - len(skipped) > 20
    assert summary["total"] == len(own)  # issue 32: the peer audits are counted apart
    assert summary["quick"] is False and summary["digits"] == DIGITS and summary["certified"] == "arb"
    n, peers = summary["total"], summary["peer_audits"]
    assert peers["ran"] + peers["skipped"] == len(summary["checks"]) - n
    assert stdout.strip() == (f"report written to {out / 'index.html'} ({summary['passed']} passed, {len(skipped)} "
                              f"skipped, 0 failed of {n} checks; peer audits apart: {peers['ran']} ran, "
                              f"{peers['with_material_unsafe']} with material unsafe findings, {peers['skipped']} "
                              f"skipped; {summary['seconds']} s)")
    assert [c["check"] for c in summary["checks"]] == [c.name for c in report_checks(DIGITS)]
    page = (out / "index.html").read_text()
    assert page.startswith("<!doctype html>") and "Quick run" not in page
    assert all(f"<td>{html.escape(c['check'])}</td>" in page for c in summary["checks"])
    # issue 18: the environment and one captioned figure per topic, DP-SGD included in the full run
    env = summary["environment"]
    assert set(env["dependencies"]) == set(runner.CORE) and env["python"] and env["platform"]
    ran = {c["check"].split(": ", 1)[1]: c for c in summary["checks"] if c["status"] == "ran"}
    assert set(env["peers"]) == set(ran) and all(env["peers"][p] for p in ran)
    assert summary["date"].endswith("+00:00") and float(summary["seconds"]) > 0
    titles = [f["title"] for f in summary["figures"]]
    assert len(titles) == 5 and titles[-1].startswith("DP-SGD") and all("look" in f["caption"].lower()
                                                                        for f in summary["figures"])
    assert page.count("<figcaption>") == 5 and summary["notebooks"] == []


def test_full_report_content(full_report):
    _, _, summary, _ = full_report
    rows = {c["check"]: c for c in summary["checks"]}
    assert list(dict.fromkeys(c["section"] for c in summary["checks"])) == list(checks.SECTIONS)
    assert rows["headline values at 40 digits"]["data"]["delta_1(1)"] == "0.1269367375066439458008296247577668804151"
    assert rows["composition: G_1 (x) G_2 = G_sqrt(5) (exact)"]["status"] == "pass"
    dpsgd = rows["DP-SGD: the CLT (an approximation, labelled as one) beside the proven bracket"]
    assert dpsgd["data"]["approximation"] is True and "CLT APPROXIMATION" in dpsgd["detail"]
    derivations = [c for c in summary["checks"] if c["section"] == checks.DERIVATIONS]
    assert [c["check"] for c in derivations] == [f"derivation {p.stem}" for p in checks.derivation_files()]
    assert len(derivations) >= 4 and all("verified" in c["detail"] for c in derivations)
    properties = [c for c in summary["checks"] if c["section"] == checks.PROPERTIES]
    assert len(properties) == 4 and all(c["data"] == {"examples": "25"} for c in properties)
    audits = [c for c in summary["checks"] if c["section"] == checks.PEER_AUDITS]
    assert audits and all(c["status"] in ("ran", "skipped") and c["passed"] for c in audits)


def test_quick_report(tmp_path, full_report):
    # after the full report (fixture) its checks are not computed again: the quick report reuses them
    code, stdout, summary = _report(tmp_path, "--quick")
    assert code == 0 and summary["quick"] is True and summary["passed"] == summary["total"]
    names = [c["check"] for c in summary["checks"]]
    assert names == [c.name for c in report_checks(DIGITS, quick=True)]
    quick = {c.name for c in report_checks(DIGITS) if c.quick}
    assert names == [c["check"] for c in full_report[2]["checks"] if c["check"] in quick]
    assert all(c.section not in (checks.DERIVATIONS, checks.PEER_AUDITS) for c in report_checks(DIGITS) if c.quick)
    assert "Quick run" in (tmp_path / "index.html").read_text()


# --- the parts, on stand-in checks --------------------------------------------------------------


def test_a_failing_property_reports_its_counterexample():
    from hypothesis import given, strategies as st

    @given(st.integers(min_value=0, max_value=100))
    def test(n: int) -> None:
        if n >= 7:
            raise checks._Counterexample(("too big", n))

    r = checks._property(test, "small")
    assert r.outcome is Outcome.FAILED and r.detail == "counterexample: ('too big', 7)" and not r.passed

    @given(st.integers(min_value=0, max_value=100))
    def raises(n: int) -> None:
        if n >= 3:
            raise ValueError("not comparable")

    r = checks._property(raises, "small")
    assert r.outcome is Outcome.FAILED and r.detail.startswith("raised ValueError: not comparable (")
    assert r.detail.endswith("raises( n=3, ))")  # hypothesis's shrunk example


def test_runner_fails_a_check_on_a_gdpproof_error_and_lets_bugs_through():
    def uncertifiable() -> CheckResult:
        raise PrecisionError("not settled")

    def bug() -> CheckResult:
        raise ZeroDivisionError

    run = runner.run_one(Check("u", checks.VALUES, uncertifiable))
    assert run.result.outcome is Outcome.FAILED and run.result.detail == "PrecisionError: not settled"
    assert run.row()["status"] == "FAIL" and run.row()["passed"] is False
    with pytest.raises(ZeroDivisionError):
        runner.run_one(Check("b", checks.VALUES, bug))


def test_runner_progress_lines_and_summary(tmp_path):
    stand_ins = [Check("a <b>", checks.VALUES, lambda: CheckResult.judged(True, "fine & dandy", {"x": "1"})),
                 Check("peer", checks.PEER_AUDITS, lambda: CheckResult(Outcome.SKIPPED, "not installed")),
                 Check("c", checks.TABLES, lambda: CheckResult.judged(False, "wrong"))]
    log = io.StringIO()
    runs = runner.run_checks(stand_ins, stream=log)
    lines = log.getvalue().splitlines()
    assert len(lines) == 3 and lines[0].startswith("[ 1/3] ok   a <b>") and lines[2].startswith("[ 3/3] FAIL c")
    assert lines[1].startswith("[ 2/3] skip peer") and "left" not in log.getvalue()  # nothing measured: no estimate
    summary = runner.summarize(runs, digits=7, quick=True, index=tmp_path / "index.html")
    # the peer audit is counted apart from gdpproof's own checks (issue 32)
    assert [summary[k] for k in ("passed", "skipped", "failed", "total")] == [1, 0, 1, 2]
    assert summary["peer_audits"] == {"ran": 0, "skipped": 1, "failed": 0, "with_material_unsafe": 0, "findings": {}}
    assert [r["status"] for r in summary["checks"]] == ["pass", "skipped", "FAIL"]
    render.write_files(tmp_path, summary, [])
    page = (tmp_path / "index.html").read_text()
    assert "a &lt;b&gt;" in page and "fine &amp; dandy" in page
    assert "<b>1 passed</b>, <b class=skip>0 skipped</b>, <b>1 failed</b>\nof 2 of gdpproof's own checks" in page
    assert "Peer audits are counted apart" in page and "<b>0 ran</b>" in page and "1 skipped (the" in page
    assert page.index(checks.VALUES) < page.index(checks.PEER_AUDITS) < page.index(checks.TABLES)
    assert "install the plot extra" in page and "<tr class=fail><td>FAIL</td><td>c</td>" in page
    # a skipped check is shown apart from the passes: grey, not green, and listed on its own
    assert "<tr class=skip><td>skipped</td><td>peer</td>" in page
    assert "<h2>Skipped checks</h2>" in page and "<li><b>peer</b>: not installed</li>" in page
    # the time left comes from measured durations, or is not shown
    log = io.StringIO()
    runner.run_checks(stand_ins, stream=log, measured={"a <b>": 1.0, "peer": 20.0, "c": 300.0})
    lines = log.getvalue().splitlines()
    assert "~320 s left by the last report's timings" in lines[0] and "~300 s left" in lines[1]
    log = io.StringIO()
    runner.run_checks(stand_ins, stream=log, measured={"a <b>": 1.0, "peer": 20.0})  # "c" never measured
    assert "left" not in log.getvalue()
    # (the durations read back are the ones written, whatever this machine took)
    written = {r["check"]: float(r["seconds"]) for r in summary["checks"]}
    assert list(written) == ["a <b>", "peer", "c"] and all(v >= 0 for v in written.values())
    assert runner.measured_durations(tmp_path / "summary.json") == written
    assert runner.measured_durations(tmp_path / "missing.json") is None
    assert json.loads((tmp_path / "summary.json").read_text()) == json.loads(json.dumps(summary))
    assert not list(tmp_path.glob("*.tmp"))


def test_report_imports_modules_not_the_package_and_has_no_assert():
    # the layers of docs/architecture.md: report uses the modules it needs, never gdpproof/__init__.py;
    # and no assert (python -O strips it, turning a failed check into a pass)
    for path in sorted(REPORT.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            assert not isinstance(node, ast.Assert), f"{path.name}:{node.lineno} uses assert"
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "gdpproof" for a in node.names), f"{path.name}:{node.lineno}"
            if isinstance(node, ast.ImportFrom):
                target = node.module or ""
                assert not (node.level == 0 and target.split(".")[0] == "gdpproof"), f"{path.name}:{node.lineno}"
                assert not (node.level == 2 and not target), f"{path.name}:{node.lineno} imports the package"


def test_a_derivation_is_skipped_not_passed_when_assertions_are_stripped(monkeypatch):
    monkeypatch.setattr(checks, "_assertions_stripped", lambda: True)
    r = checks.derivation(checks.derivation_files()[0])
    assert r.outcome is Outcome.SKIPPED and "python -O" in r.detail


def test_an_executed_notebook_is_rendered_with_its_text_and_png_outputs(tmp_path):
    # the renderer on a stand-in executed notebook (the real ones run in tests/test_notebooks.py)
    from gdpproof.report.notebooks import notebook_html, render_notebooks

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["# Title <b>\n", "text"]},
        {"cell_type": "code", "execution_count": 3, "source": "print(1 < 2)", "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["True\n"]},
            {"output_type": "display_data", "data": {"image/png": png + "\n", "text/plain": ["<Figure>"]}},
            {"output_type": "execute_result", "data": {"text/plain": "0.5 & 1"}},
            {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["\x1b[31mE\x1b[0m: v"]}]}]}
    page = notebook_html(nb, "01_demo")
    assert page.startswith("<!doctype html>") and "<title>01_demo</title>" in page
    assert "<pre class=md># Title &lt;b&gt;\ntext</pre>" in page and "print(1 &lt; 2)" in page and "In [3]:" in page
    assert "<pre class=out>True\n</pre>" in page and f'src="data:image/png;base64,{png}"' in page
    assert "&lt;Figure&gt;" not in page and "0.5 &amp; 1" in page and "<pre class=err>E: v</pre>" in page
    assert render_notebooks(tmp_path, []) [0]["status"] == "skipped"

def test_notebook_kernels_start_quietly_and_report_progress(tmp_path, capfd):
    """Issue 32: the kernels' start-up warning (plain TCP) is not printed, and each notebook done
    is reported (the report draws its progress from it)."""
    pytest.importorskip("nbclient")
    import nbformat

    from gdpproof.report.notebooks import render_notebooks

    path = tmp_path / "01_tiny.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), path)
    done: list[str] = []
    rows = render_notebooks(tmp_path, [path], progress=done.append)
    assert rows[0]["status"] == "rendered" and done == ["01_tiny"]
    assert "IPKernelApp" not in capfd.readouterr().err


def test_the_report_files_are_written_through_fresh_temporary_files_not_planted_ones(tmp_path):
    # issue 33: index.html.tmp and summary.json.tmp had fixed names, and a symlink planted there
    # was followed (the report written into its target)
    import os

    outside = tmp_path / "outside"
    outside.write_text("keep me\n")
    folder = tmp_path / "report"
    folder.mkdir()
    for name in ("index.html.tmp", "summary.json.tmp", "index.html"):
        (folder / name).symlink_to(outside)
    summary = runner.summarize([], digits=7, quick=True, index=folder / "index.html")
    render.write_files(folder, summary, [])
    assert outside.read_text() == "keep me\n"
    assert not (folder / "index.html").is_symlink() and "<html" in (folder / "index.html").read_text()
    assert json.loads((folder / "summary.json").read_text())["total"] == 0
    mask = os.umask(0)
    os.umask(mask)
    assert (folder / "index.html").stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's private mode
    assert sorted(p.name for p in folder.iterdir()) == ["index.html", "index.html.tmp", "summary.json",
                                                        "summary.json.tmp"]  # the planted links left alone
