"""A real browser looks at what users open: the report's index.html and the site's front page.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver`` packages, which .ci/run installs;
driven by selenium through /usr/bin/chromedriver, so nothing is downloaded) opens each page and
checks that every image loaded (``naturalWidth > 0``), that every link inside resolves (the file
or page exists, and so does the element a ``#fragment`` names), and that the browser logged no
error.  The screenshots are kept in the report's output folder, ``screenshots/``.  Skipped, with
the reason, where Chromium or selenium is not installed (a user's run); CI has both, and sets
``GDPPROOF_REQUIRE_BROWSER=1`` so that their absence fails instead.

The report is the suite's one full report (the ``full_report`` fixture); the site is the
``built_site`` fixture's build, served over HTTP from 127.0.0.1 (as a site is: the search index
is fetched, which a file:// page may not do).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1600")


# session-scoped, so that where it skips it does so before the session fixtures (the full report) run
@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    missing = [f"{p} is not installed (Debian: apt-get install chromium chromium-driver)"
               for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
    try:
        from selenium import webdriver
    except ImportError:
        missing.append("selenium (the docs extra) is not installed")
    if missing:
        # CI (.ci/run) installs them and says so: there, a missing browser fails instead of skipping
        (pytest.fail if os.environ.get("GDPPROOF_REQUIRE_BROWSER") else pytest.skip)("; ".join(missing))
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SE_OFFLINE", "true")  # selenium must not look for a driver on the network
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def served_site(built_site):
    """The built site on http://127.0.0.1:PORT/ (a thread of this process)."""
    site = built_site[0]
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


def _look(driver, url: str) -> dict:
    """Open ``url``, wait until its images are loaded (or failed), and read what the page holds."""
    driver.get(url)
    driver.execute_script("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    deadline = time.monotonic() + 30
    while not driver.execute_script("return document.readyState === 'complete' && "
                                    "[...document.images].every(i => i.complete)"):
        assert time.monotonic() < deadline, f"{url}: the images did not finish loading in 30 s"
        time.sleep(0.1)
    return driver.execute_script("""return {
        images: [...document.images].map(i => [i.currentSrc || i.src, i.naturalWidth]),
        links: [...document.querySelectorAll('a[href]')].map(a => a.href),
        ids: [...document.querySelectorAll('[id], a[name]')].map(e => e.id || e.name),
        height: document.documentElement.scrollHeight};""")


def _errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _fetch(url: str) -> bytes:
    """The bytes at ``url`` (http:// or file://); raises when it is not there."""
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - our own local URLs
        return response.read()


def _broken_links(page_url: str, links: list[str], ids: list[str]) -> list[str]:
    """The links of a page that lead inside it (same origin, or file:// under its folder) and do
    not resolve: a target that is not there, or a #fragment with no element of that id."""
    base = urllib.parse.urlsplit(page_url)
    inside = base.scheme == "file" and str(Path(urllib.parse.unquote(base.path)).parent) or f"{base.scheme}://{base.netloc}"
    broken, targets = [], {}
    for link in sorted(set(links)):
        parts = urllib.parse.urlsplit(link)
        where = urllib.parse.unquote(parts.path) if parts.scheme == "file" else f"{parts.scheme}://{parts.netloc}"
        if not where.startswith(inside):
            continue  # another site: not ours to check offline
        target = urllib.parse.urlunsplit(parts._replace(fragment=""))
        if target not in targets:
            try:
                if parts.scheme == "file" and target.endswith("/"):
                    target += "index.html"
                targets[target] = _fetch(target).decode("utf-8", "replace")
            except (urllib.error.URLError, OSError) as exc:
                targets[target] = None
                broken.append(f"{link}: {exc}")
                continue
        fragment = urllib.parse.unquote(parts.fragment)
        if fragment and targets[target] is not None:
            same = urllib.parse.urlunsplit(base._replace(fragment="")) == target
            found = fragment in ids if same else re.search(
                rf'\b(?:id|name)="{re.escape(html_escape(fragment))}"', targets[target])
            if not found:
                broken.append(f"{link}: no element with id {fragment!r}")
    return broken


def html_escape(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def _check(driver, url: str, screenshot: Path) -> dict:
    driver.get_log("browser")  # drop what an earlier page logged
    seen = _look(driver, url)
    driver.set_window_size(1280, min(max(seen["height"], 800), 8000))
    screenshot.parent.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 1000
    errors = _errors(driver)
    failed = [src[:120] for src, width in seen["images"] if not width]
    broken = _broken_links(url, seen["links"], seen["ids"])
    assert not errors and not failed and not broken, {"console errors": errors, "images that did not load": failed,
                                                      "broken links": broken, "page": url}
    return seen


def test_the_report_in_a_browser(browser, full_report):
    out = full_report[3]
    seen = _check(browser, (out / "index.html").as_uri(), out / "screenshots" / "report.png")
    assert len(seen["images"]) == len(full_report[2]["figures"]) > 0  # the figures, each loaded


def test_the_sites_front_page_in_a_browser(browser, served_site, full_report):
    seen = _check(browser, served_site, full_report[3] / "screenshots" / "site.png")
    # the front page links every page of the nav (material's sidebar), so each must be there
    assert sum(link.startswith(served_site) for link in seen["links"]) > 40
