"""shedsim never replaces a file it did not write, on every option that names a file or a
directory to write: ``report --out`` and ``--md`` (also the default --md derived from
--out), ``python -m shedsim.output.browser --screenshot``, ``tips --out`` and ``tune --out``
(which had no check of the directory at all); a run command's ``--out --force`` may replace a
file that carries shedsim's mark. Every refusal is exit 2 naming the option, with the user's
file unchanged and nothing written beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import app
from shedsim.base import atomic
from shedsim.runs.store import RunStore, StoreError

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A tiny real run to report on (an SPRT: one table, one chart)."""
    d = tmp_path_factory.mktemp("runs") / "sprt"
    r = runner.invoke(
        app,
        [
            "sprt",
            "--a",
            "greedy",
            "--b",
            "random",
            "--max-games",
            "400",
            "--quiet",
            "--out",
            str(d),
        ],
    )
    assert r.exit_code == 0, r.output
    return d


def _report(run_dir: Path, *args: str):
    return runner.invoke(app, ["report", str(run_dir), "--quiet", *args])


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


@pytest.mark.parametrize(
    "mine, args, option",
    [
        ("notes.txt", ["--out", "{d}/notes.txt"], "--out"),
        (
            "README.md",
            ["--out", "{d}/README.html"],
            "--md",
        ),  # the default --md: --out with the suffix .md
        ("summary.md", ["--out", "{d}/r.html", "--md", "{d}/summary.md"], "--md"),
    ],
)
def test_report_never_replaces_a_file_of_yours(run_dir, tmp_path, mine, args, option):
    (tmp_path / mine).write_text("my own words\n")
    before = _files(tmp_path)
    r = _report(run_dir, *[a.format(d=tmp_path) for a in args])
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit) and "Traceback" not in r.output
    assert (
        f"{option}: {str(tmp_path / mine)!r}" in r.output and "not written by shedsim" in r.output
    ), r.output
    assert _files(tmp_path) == before  # unchanged, and nothing written beside it
    if option == "--md" and "--md" not in args:
        assert "(the default, from --out)" in r.output and "--no-md" in r.output


def test_report_replaces_its_own_earlier_report(run_dir, tmp_path):
    out = tmp_path / "r.html"
    assert _report(run_dir, "--out", str(out)).exit_code == 0
    assert atomic.written_by_shedsim(out) and atomic.written_by_shedsim(out.with_suffix(".md"))
    for p in (out, out.with_suffix(".md")):  # changed by hand: still shedsim's, replaced
        p.write_text(p.read_text() + "\nan edit\n")
    r = _report(run_dir, "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "an edit" not in out.read_text() and "an edit" not in out.with_suffix(".md").read_text()


def test_a_report_written_before_the_marks_is_still_replaced(run_dir, tmp_path):
    out = tmp_path / "r.html"
    assert _report(run_dir, "--out", str(out)).exit_code == 0
    page, md = out.read_text(), out.with_suffix(".md").read_text()
    out.write_text(page.replace(atomic.MARK_HTML, ""))  # as the reports of earlier versions read
    out.with_suffix(".md").write_text(md.replace(atomic.MARK_MD + "\n", ""))
    assert _report(run_dir, "--out", str(out)).exit_code == 0
    assert out.read_text() == page and out.with_suffix(".md").read_text() == md


def test_screenshot_never_replaces_a_file_of_yours(tmp_path, monkeypatch):
    from shedsim.output import browser

    page = tmp_path / "page.html"
    page.write_text("<!DOCTYPE html><title>x</title>")
    png = tmp_path / "shot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n not mine to replace")
    before = png.read_bytes()
    # a browser that finds no problem and takes a picture (none is needed for this test)
    monkeypatch.setattr(browser, "check_page", lambda page, widths=(1400, 800): [])
    monkeypatch.setattr(
        browser, "screenshot", lambda page, out: atomic.write_bytes(out, b"a new picture")
    )
    assert browser.main([str(page), "--screenshot", str(png)]) == 2
    assert png.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        "page.html",
        "shot.png",
    ]


def test_every_png_shedsim_writes_carries_its_mark(tmp_path, monkeypatch):
    from shedsim.output.charts import figure as plots

    for compact in ("", "1"):
        monkeypatch.setenv("SHEDSIM_PLOT_COMPACT", compact)
        fig, ax = plots.pyplot().subplots(figsize=(2, 1))
        path = plots.save_figure(fig, tmp_path / f"c{compact}.png")
        assert atomic.written_by_shedsim(path)
    marked = atomic.mark_png((tmp_path / "c.png").read_bytes())  # the screenshot's path
    from PIL import Image
    import io
    import numpy as np

    assert np.array_equal(
        np.asarray(Image.open(io.BytesIO(marked))), np.asarray(Image.open(tmp_path / "c.png"))
    )
    (tmp_path / "m.png").write_bytes(marked)
    assert atomic.written_by_shedsim(tmp_path / "m.png")


@pytest.mark.parametrize(
    "command, args, name",
    [
        (
            "tips",
            ["--rules", "shithead", "--players", "2", "--games", "100", "--tip", "save_specials"],
            "tips.csv",
        ),
        (
            "tips",
            ["--rules", "shithead", "--players", "2", "--games", "100", "--tip", "save_specials"],
            "run.json",
        ),
        (
            "tune",
            ["--budget", "1", "--games", "100", "--confirm-games", "0", "--param", "track=0:50"],
            "trials.csv",
        ),
    ],
)
def test_tips_and_tune_never_replace_a_file_of_yours(tmp_path, command, args, name):
    d = tmp_path / "out"
    d.mkdir()
    (d / name).write_text('{"mine": true}\n' if name.endswith(".json") else "mine\n")
    before = _files(d)
    r = runner.invoke(app, [command, *args, "--quiet", "--out", str(d)])
    assert r.exit_code == 2, r.output
    assert (
        f"already holds {name}, which this run would write" in r.output
        and "never replaces" in r.output
    )
    assert _files(d) == before


def test_tips_writes_beside_other_files(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    (d / "notes.txt").write_text("mine\n")
    r = runner.invoke(
        app,
        [
            "tips",
            "--rules",
            "shithead",
            "--players",
            "2",
            "--games",
            "100",
            "--tip",
            "save_specials",
            "--quiet",
            "--out",
            str(d),
        ],
    )
    assert r.exit_code == 0, r.output
    assert (d / "notes.txt").read_text() == "mine\n" and (d / "tips.csv").is_file()
    assert json.loads((d / "run.json").read_text())["command"] == "shedsim tips"


def test_force_replaces_only_files_with_shedsims_mark(tmp_path):
    from shedsim.output.charts import figure as plots

    d = tmp_path / "out"
    d.mkdir()
    (d / "notes.txt").write_text("mine\n")
    fig, _ = plots.pyplot().subplots(figsize=(2, 1))
    plots.save_figure(fig, d / "rates.png")  # a chart shedsim wrote, copied here
    RunStore.check_out(d, ("rates.png", "summary.csv"), force=True)
    (d / "summary.csv").write_text("mine\n")
    with pytest.raises(StoreError, match=r"already holds summary\.csv.*--force never replaces"):
        RunStore.check_out(d, ("rates.png", "summary.csv"), force=True)
