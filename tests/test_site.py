"""The docs site builds (``mkdocs build --strict``) and every page renders in a real browser.

The site is built into a temporary directory and served on the loopback interface; headless
Chromium (the setup of ``tests/test_browser.py``: :mod:`shedsim.output.browser`) opens every
page and finds, on each, no image that failed to load, no console error, no Jinja macro left
unrendered, a title and text; every link to the site itself must reach a page or file of the
site, and a link's ``#anchor`` an element of the page it names. The checker is shown to
catch a broken link, a broken anchor and a broken image on a small site of its own.

Needs the ``docs`` extra (``pip install -e '.[docs]'``) and the browser: without them these
tests fail in CI (``CI`` set; ``.ci/run`` installs both) and are skipped, saying why, elsewhere.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urldefrag, urlparse

import pytest

from shedsim.output.browser import BrowserMissing, check_pages, find_browser

ROOT = Path(__file__).resolve().parents[1]


def _missing(msg: str):
    if os.environ.get("CI"):
        pytest.fail(msg + " (CI must install it: see .ci/run)")
    pytest.skip(msg)


@pytest.fixture(scope="module")
def browser():
    try:
        find_browser()
        import selenium  # noqa: F401
    except (BrowserMissing, ImportError) as e:
        _missing(f"the site test cannot run: {e}")
    return True


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        _missing("the site test needs the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, f"mkdocs build --strict failed:\n{p.stderr[-5000:]}"
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D102 - no request log in the test output
        pass


@pytest.fixture(scope="module")
def serve():
    """A function that serves a directory on 127.0.0.1 and returns its base URL (stopped at
    the end of the module)."""
    servers = []

    def start(directory: Path) -> str:
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory))
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def page_urls(root: Path, base: str) -> list[str]:
    """The URL of every HTML page of a built site (``404.html`` aside)."""
    return [
        base + str(p.relative_to(root)).removesuffix("index.html")
        for p in sorted(root.rglob("*.html"))
        if p.name != "404.html"
    ]


def site_problems(root: Path, base: str) -> list[str]:
    """Every problem the browser finds on the pages of the site in ``root`` served at ``base``."""
    checks = check_pages(page_urls(root, base), widths=(1200,))
    ids = {urldefrag(c.url)[0]: set(c.ids) for c in checks}
    problems = []
    for c in checks:
        where = c.url.removeprefix(base) or "index"
        problems += [f"{where}: {p}" for p in c.problems if not p.startswith("wider than")]
        if "{{" in c.text or "}}" in c.text:
            problems.append(f"{where}: a macro was left unrendered")
        if not c.title.strip() or not c.text.strip():
            problems.append(f"{where}: empty page")
        for link in c.links:
            url, anchor = urldefrag(link)
            if not url.startswith(base):
                continue  # another site: not checked (the machines here reach no network)
            path = root / urlparse(url).path.lstrip("/")
            target = path / "index.html" if path.is_dir() else path
            if not target.is_file():
                problems.append(f"{where}: broken link {link}")
            elif anchor and target.suffix == ".html" and anchor not in ids.get(url, set()):
                problems.append(f"{where}: link {link}: no element with id {anchor!r}")
    return problems


def test_every_page_of_the_site_renders_with_no_broken_link_or_image(browser, site, serve):
    base = serve(site)
    assert len(page_urls(site, base)) >= 20
    problems = site_problems(site, base)
    assert not problems, "\n".join(problems)


NO_ICON = '<link rel="icon" href="data:,">'
"""A page without a favicon makes the browser ask for /favicon.ico (a console error)."""


def test_the_check_catches_a_broken_link_anchor_and_image(browser, serve, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        "<html><head><title>t</title>" + NO_ICON + '</head><body><h1 id="top">T</h1>'
        '<a href="a/">ok</a> <a href="#top">ok</a> <a href="gone/">broken</a> <a '
        'href="a/#nowhere">anchor</a>'
        '<img src="missing.png" alt="lost"></body></html>'
    )
    (tmp_path / "a" / "index.html").write_text(
        "<html><head><title>a</title>" + NO_ICON + '</head><body><p id="x">a</p></body></html>'
    )
    problems = site_problems(tmp_path, serve(tmp_path))
    assert any("broken link" in p and "gone/" in p for p in problems), problems
    assert any("no element with id 'nowhere'" in p for p in problems), problems
    assert any("image did not load: lost" in p for p in problems), problems
    assert not any(p.startswith("a/:") for p in problems), problems
