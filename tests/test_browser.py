"""The report page in a real browser (headless Chromium from Debian's packages, driven by
Selenium; see :mod:`shedsim.output.browser`): the committed example report renders with every
image loaded, no console error and nothing wider than the window outside a scroll box, at
1400 and 800 pixels; and the check itself fails on a page with a broken image and on one with
an overflowing table.

Without a browser these tests fail in CI (``CI`` set; ``.ci/run`` installs Chromium) with a
message saying what is missing, and are skipped, with that message, elsewhere.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from shedsim.output import report as R
from shedsim.output.browser import BrowserMissing, check_page, find_browser

EXAMPLE = Path(__file__).resolve().parent.parent / "reports" / "example" / "index.html"


@pytest.fixture(scope="module")
def browser():
    try:
        find_browser()
        import selenium  # noqa: F401
    except (BrowserMissing, ImportError) as e:
        msg = f"the browser test cannot run: {e}"
        if os.environ.get("CI"):
            pytest.fail(msg + " (CI must install it: see .ci/run)")
        pytest.skip(msg)
    return True


def _problems(page: Path, widths=(1400,)) -> list[str]:
    return [p for c in check_page(page, widths) for p in c.problems]


def test_the_example_report_renders_cleanly(browser):
    assert EXAMPLE.is_file()
    checks = check_page(EXAMPLE, (1400, 800))
    assert [c.problems for c in checks] == [[], []]
    assert all(c.page_width <= c.width for c in checks)


def test_a_broken_image_is_caught(browser, tmp_path):
    text = EXAMPLE.read_text()
    m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert m
    bad = tmp_path / "broken.html"
    bad.write_text(
        text[: m.start(1)] + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" + text[m.end(1) :]
    )  # a PNG cut short
    problems = _problems(bad)
    assert any(p.startswith("image did not load:") for p in problems), problems


def _wide_run(root: Path) -> Path:
    root.mkdir()
    header = [f"column_{k:02d}_with_a_long_name" for k in range(40)]
    (root / "wide.csv").write_text(
        ",".join(header) + "\n" + ",".join("text-cell" for _ in header) + "\n"
    )
    (root / "run.json").write_text(
        json.dumps({"command": "shedsim swaps", "title": "wide", "outputs": ["wide.csv"]})
    )
    return root


def test_an_overflowing_table_is_caught_and_the_report_scrolls_it(browser, tmp_path):
    run = R.load_run(_wide_run(tmp_path / "wide"))
    good = tmp_path / "good.html"
    good.write_text(R.render_html([run], "wide", good))
    assert _problems(good, (800,)) == []  # the report puts the 40 columns in a scroll box
    bad = tmp_path / "bad.html"
    text = good.read_text()
    assert text.count('class="tablewrap"') >= 1
    bad.write_text(text.replace('class="tablewrap"', 'class="plain"'))
    problems = _problems(bad, (800,))
    assert any(
        "wider than the 800px window outside a scroll box: table.data" in p for p in problems
    ), problems
    assert any(p.startswith("the page scrolls sideways") for p in problems), problems
