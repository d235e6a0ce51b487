"""Look at a report page in a real browser: headless Chromium driven by Selenium.

Used by the tests (every image loaded, nothing logged as an error, nothing wider than the
window outside a scroll box) and by ``make report`` (a screenshot of the top of the page for
the README). The browser is Debian's ``chromium`` with its ``chromedriver`` (packages
``chromium`` and ``chromium-driver``; ``.ci/run`` installs them where missing), or any
Chromium/Chrome and matching ChromeDriver named by ``SHEDSIM_CHROMIUM`` and
``SHEDSIM_CHROMEDRIVER``. Selenium is a test dependency (``pip install -e '.[test]'``); it is
imported only when a browser is started, and never downloads a driver (the driver's path is
always given).

Run as ``python -m shedsim.output.browser PAGE.html [--screenshot OUT.png]``: prints the
problems found (exit 1 when there are any, 2 when no browser can be started).
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BrowserMissing", "PageCheck", "find_browser", "check_page", "check_pages", "screenshot"]

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
DRIVER_NAMES = ("chromedriver",)
DRIVER_PLACES = ("/usr/lib/chromium/chromedriver", "/usr/bin/chromedriver")

# Flags for a closed network and a root user: no sandbox (root), no GPU, and none of the
# background connections Chromium makes at start (they are refused here, many at a time).
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)


class BrowserMissing(RuntimeError):
    """No headless browser can be started: Chromium, ChromeDriver or Selenium is missing (the
    message says which, and how to install it)."""


@dataclass(frozen=True)
class PageCheck:
    """What the browser saw on one page at one window width (CSS pixels).

    ``broken_images``: the ``alt`` text (or the start of ``src``) of every ``<img>`` that did
    not load or has no pixels; ``console_errors``: messages the page logged at level SEVERE
    (errors, failed loads); ``too_wide``: a description (tag, id/class, text start, width) of
    every element whose right edge lies past the window while no ancestor scrolls or clips it
    horizontally; ``page_width``: the document's scroll width; ``url``: the page as opened;
    ``links``: the absolute URL of every ``<a href>``; ``ids``: every element ``id`` (the
    anchors a link may name); ``title`` and ``text``: the document's title and its body's text."""

    width: int
    broken_images: list[str]
    console_errors: list[str]
    too_wide: list[str]
    page_width: int
    url: str = ""
    links: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    title: str = ""
    text: str = ""

    @property
    def problems(self) -> list[str]:
        """Every problem as a sentence (empty when the page is clean)."""
        out = [f"image did not load: {s}" for s in self.broken_images]
        out += [f"console error: {s}" for s in self.console_errors]
        out += [
            f"wider than the {self.width}px window outside a scroll box: {s}" for s in self.too_wide
        ]
        if self.page_width > self.width + 1:
            out.append(
                f"the page scrolls sideways: {self.page_width}px wide in a {self.width}px window"
            )
        return out


def find_browser() -> tuple[str, str]:
    """The Chromium binary and its ChromeDriver, as paths: ``SHEDSIM_CHROMIUM`` /
    ``SHEDSIM_CHROMEDRIVER`` when set, else the first found on ``PATH`` (and Debian's places
    for the driver). Raises :class:`BrowserMissing` saying what to install."""
    browser = os.environ.get("SHEDSIM_CHROMIUM") or next(
        (p for p in (shutil.which(n) for n in CHROMIUM_NAMES) if p), None
    )
    driver = os.environ.get("SHEDSIM_CHROMEDRIVER") or next(
        (
            p
            for p in [*(shutil.which(n) for n in DRIVER_NAMES), *DRIVER_PLACES]
            if p and os.path.exists(p)
        ),
        None,
    )
    missing = [
        what
        for what, p in (("Chromium", browser), ("ChromeDriver", driver))
        if not p or not os.path.isfile(p)
    ]
    if missing:
        raise BrowserMissing(
            f"no headless browser: {' and '.join(missing)} not found. Install Debian's "
            "packages (apt-get install chromium chromium-driver; .ci/run does this) or "
            "set SHEDSIM_CHROMIUM and SHEDSIM_CHROMEDRIVER to the binaries"
        )
    return str(browser), str(driver)


def _driver(width: int, height: int):
    browser, driver_path = find_browser()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise BrowserMissing(
            "Selenium is not installed: pip install -e '.[test]' (or pip install selenium)"
        ) from None
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--window-size={width},{height}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    import tempfile

    profile = tempfile.mkdtemp(prefix="shedsim-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    try:
        d = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    except Exception as e:  # noqa: BLE001 - selenium raises WebDriverException and OSError subclasses
        shutil.rmtree(profile, ignore_errors=True)
        raise BrowserMissing(
            f"cannot start headless Chromium ({browser} with {driver_path}): "
            f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
        ) from None
    d.set_page_load_timeout(120)
    d._shedsim_profile = profile  # removed in _quit
    return d


def _quit(d) -> None:
    try:
        d.quit()
    finally:
        shutil.rmtree(getattr(d, "_shedsim_profile", ""), ignore_errors=True)


def _url(page: Path | str) -> str:
    """An ``http(s)://`` or ``file://`` URL as it is; a path as a ``file://`` URL."""
    text = str(page)
    return (
        text
        if text.split(":", 1)[0] in ("http", "https", "file")
        else Path(page).resolve().as_uri()
    )


def _open(d, page: Path | str, width: int, height: int) -> None:
    d.get(_url(page))
    # the window size includes the browser's frame in some versions: make the viewport exact
    inner = d.execute_script("return [window.innerWidth, window.innerHeight]")
    if inner and (inner[0] != width or inner[1] != height):
        d.set_window_size(width + (width - inner[0]), height + (height - inner[1]))
    d.execute_script("return document.fonts ? document.fonts.ready.then(() => true) : true")


_JS_IMAGES = """
return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)
  .map(i => i.alt || (i.getAttribute('src') || '').slice(0, 60));
"""

# An element is "too wide" when its right edge passes the viewport and no ancestor scrolls or
# clips it horizontally (overflow-x other than visible); only the outermost such element of a
# branch is reported.
_JS_WIDE = """
const vw = document.documentElement.clientWidth;
function clipped(el) {
  for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
    const o = getComputedStyle(a).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
  }
  return false;
}
const out = [];
const reported = [];
for (const el of document.body.querySelectorAll('*')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.right <= vw + 1) continue;
  if (clipped(el)) continue;
  if (reported.some(p => p.contains(el))) continue;
  reported.push(el);
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  out.push(name + ' "' + (el.textContent || '').trim().slice(0, 50) + '" ends at ' + Math.round(r.right) + 'px');
}
return [out, document.documentElement.scrollWidth];
"""  # noqa: E501 (a text kept as written)


def _severe(d) -> list[str]:
    try:
        logs = d.get_log("browser")
    except Exception:  # noqa: BLE001 - a driver without the log endpoint
        return []
    return [str(e.get("message", ""))[:300] for e in logs if e.get("level") == "SEVERE"]


_JS_LINKS = """
return [Array.from(document.links).map(a => a.href),
        Array.from(document.querySelectorAll('[id]')).map(e => e.id),
        document.title, document.body ? document.body.innerText : ''];
"""


def check_pages(
    pages: list[Path | str], widths: tuple[int, ...] = (1400,), height: int = 900
) -> list[PageCheck]:
    """Open every page of ``pages`` (HTML files, or ``http://`` URLs) in headless Chromium at
    each window width in ``widths`` (CSS pixels; one browser per width) and return a
    :class:`PageCheck` per page and width, pages first. Raises :class:`BrowserMissing` when no
    browser can be started."""
    out = []
    for w in widths:
        d = _driver(w, height)
        try:
            for page in pages:
                _open(d, page, w, height)
                broken = d.execute_script(_JS_IMAGES)
                wide, page_width = d.execute_script(_JS_WIDE)
                links, ids, title, text = d.execute_script(_JS_LINKS)
                out.append(
                    PageCheck(
                        w,
                        list(broken),
                        _severe(d),
                        list(wide),
                        int(page_width),
                        _url(page),
                        tuple(links),
                        tuple(ids),
                        str(title),
                        str(text),
                    )
                )
        finally:
            _quit(d)
    return out


def check_page(
    page: Path | str, widths: tuple[int, ...] = (1400, 800), height: int = 900
) -> list[PageCheck]:
    """Open ``page`` (an HTML file) in headless Chromium once per window width in ``widths``
    (CSS pixels) and return a :class:`PageCheck` for each. Raises :class:`BrowserMissing`
    when no browser can be started."""
    return check_pages([page], widths, height)


def screenshot(page: Path | str, out: Path | str, width: int = 1400, height: int = 1000) -> Path:
    """A PNG of the top ``height`` CSS pixels of ``page`` in a ``width``-pixel window, with
    shedsim's mark (:func:`shedsim.base.atomic.mark_png`), written atomically to ``out``
    (:mod:`shedsim.base.atomic`). Raises :class:`BrowserMissing`."""
    from shedsim.base import atomic

    d = _driver(width, height)
    try:
        _open(d, Path(page), width, height)
        data = d.get_screenshot_as_png()
    finally:
        _quit(d)
    atomic.write_bytes(Path(out), atomic.mark_png(data))
    return Path(out)


def main(argv: list[str] | None = None) -> int:
    """``python -m shedsim.output.browser PAGE [--screenshot PNG]``: check the page at 1400 and
    800 pixels, print each problem; 0 clean, 1 problems, 2 no browser or a bad argument (a
    missing page; a --screenshot file that exists and is not shedsim's, which is never replaced)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m shedsim.output.browser", description=main.__doc__)
    ap.add_argument("page", type=Path)
    ap.add_argument(
        "--screenshot", type=Path, help="also write a PNG of the top of the page (1400x1000)"
    )
    a = ap.parse_args(argv)
    if not a.page.is_file():
        print(f"error: {str(a.page)!r} is not a file", file=sys.stderr)
        return 2
    if a.screenshot:
        from shedsim.base.atomic import replace_problem

        problem = replace_problem(a.screenshot, "--screenshot")
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    try:
        checks = check_page(a.page)
        if a.screenshot:
            screenshot(a.page, a.screenshot)
    except BrowserMissing as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    problems = [p for c in checks for p in c.problems]
    for p in problems:
        print(p)
    print(
        f"{a.page}: {len(problems)} problem(s) at widths "
        f"{', '.join(str(c.width) for c in checks)}px"
        + (f"; screenshot {a.screenshot}" if a.screenshot else "")
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
