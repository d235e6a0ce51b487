"""One tiny real run of every command that writes tables and charts for ``shedsim report``,
with the options that make every optional table and column appear, for the tests that walk
all of them (``tests/test_report.py``: every column's kind and format, every specification;
``tests/test_charts.py``: every chart readable at the report's size).

:func:`build` runs the commands in-process (so the kernel loads once) at the example
report's chart settings (``SHEDSIM_PLOT_DPI=80``, palette PNGs: ``make report``) and records,
for every chart written, the facts the chart tests need (:func:`chart_facts`) in
``charts.json``. The ``every_run`` fixture of ``tests/conftest.py`` builds it once per test
session, shared by the pytest-xdist workers under a file lock.
"""

from __future__ import annotations

import json
from pathlib import Path

RUNS: dict[str, list[str]] = {
    # --rounds 2: matches.csv; stall:40: stalled games (summary's stalled/loops/capped columns)
    "tournament": [
        "tournament",
        "--rules",
        "nines",
        "--house",
        "stall:40",
        "--players",
        "4",
        "--strategies",
        "random,greedy",
        "--games",
        "480",
        "--rounds",
        "2",
        "--workers",
        "1",
    ],
    "compare-rules": [
        "compare-rules",
        "--rules",
        "shithead",
        "--rules",
        "nines",
        "--players",
        "3",
        "--strategies",
        "random,greedy",
        "--games",
        "300",
        "--workers",
        "1",
    ],
    # --min-games 5: face-up rows seen often enough to be in the table
    "swaps": [
        "swaps",
        "--players",
        "3",
        "--games",
        "300",
        "--deals",
        "2",
        "--rollouts",
        "2",
        "--min-games",
        "5",
        "--workers",
        "1",
    ],
    "sprt": ["sprt", "--a", "greedy", "--b", "random", "--max-games", "400"],
    "pairing": ["sprt", "--a", "greedy", "--b", "random", "--compare-pairing", "--games", "200"],
    "tips": [
        "tips",
        "--rules",
        "shithead",
        "--players",
        "2",
        "--games",
        "100",
        "--tip",
        "save_specials",
    ],
    "tune": [
        "tune",
        "--budget",
        "2",
        "--games",
        "100",
        "--confirm-games",
        "100",
        "--param",
        "track=0:50",
    ],
}
"""Output directory name -> the command line (without --quiet and --out)."""

REPORT_WIDTH_PX = 1124
"""The width of the report page's content in CSS pixels (``main``: at most 1180 px less 2 x 28 px
of padding, :data:`shedsim.output.report.CSS`): a wider chart is scaled down to it."""


def chart_facts(fig, dpi: int) -> dict:
    """What a reader of the drawn figure ``fig`` sees: its width in inches and in pixels at
    ``dpi``, and every visible text (tick labels, titles, axis labels, legends, colour-bar
    labels, annotations) with its font size in points, its axes' id (ticks) and its box in
    pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = (
        fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    )  # a closed figure
    fig.set_dpi(dpi)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = []
    ticks: dict[
        int, str | None
    ] = {}  # tick label -> "x3" (axis and axes), None when not drawn (off the view)
    for k, ax in enumerate(fig.axes):
        for name, a in (("x", ax.xaxis), ("y", ax.yaxis)):
            lo, hi = sorted(a.get_view_interval())
            tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
            locs = {
                **{id(t): loc for t, loc in zip(a.get_major_ticks(), a.get_majorticklocs())},
                **{id(t): loc for t, loc in zip(a.get_minor_ticks(), a.get_minorticklocs())},
            }
            for tick in a.majorTicks + a.minorTicks:
                loc = locs.get(id(tick))
                shown = (
                    ax.get_visible() and loc is not None and lo - tol <= loc <= hi + tol
                )  # drawn: in the view
                for x in (tick.label1, tick.label2):
                    ticks[id(x)] = f"{name}{k}" if shown else None
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        axis = ticks.get(id(t), "")
        if axis is None:
            continue
        box = t.get_window_extent(renderer)
        texts.append(
            {
                "text": t.get_text(),
                "size": float(t.get_fontsize()),
                "tick_axis": axis or None,
                "box": [float(box.x0), float(box.y0), float(box.x1), float(box.y1)],
            }
        )
    w, h = fig.get_size_inches()
    return {"width_in": float(w), "height_in": float(h), "dpi": dpi, "texts": texts}


def build(root: Path) -> None:
    """Run every command of :data:`RUNS` into ``root / NAME`` and write ``root / charts.json``
    (chart file path relative to ``root`` -> :func:`chart_facts`). Raises AssertionError
    naming the command that failed."""
    import pytest
    from typer.testing import CliRunner

    from shedsim.cli import app
    from shedsim.output.charts import figure as F

    facts: dict[str, dict] = {}
    real_save, real_atomic_png = F.save_figure, F.atomic_png

    def note(fig, path, layout: bool, rect=None) -> None:
        if layout:
            fig.tight_layout(rect=rect)
        facts[Path(path).relative_to(root).as_posix()] = chart_facts(fig, F.dpi())

    def save(fig, path, rect=None):
        note(fig, path, True, rect)
        return real_save(fig, path, rect)

    def atomic_png(fig, path):
        note(fig, path, False)
        return real_atomic_png(fig, path)

    runner = CliRunner()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHEDSIM_PLOT_DPI", "80")  # the example report's settings (make report)
        mp.setenv("SHEDSIM_PLOT_COMPACT", "1")
        mp.setattr(F, "save_figure", save)  # every chart module writes through it
        mp.setattr(F, "atomic_png", atomic_png)
        for name, args in RUNS.items():
            r = runner.invoke(app, [*args, "--quiet", "--out", str(root / name)])
            assert r.exit_code == 0, f"{' '.join(args)}: exit {r.exit_code}\n{r.output}"
    (root / "charts.json").write_text(json.dumps(facts, indent=1, sort_keys=True))
