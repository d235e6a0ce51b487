"""Every chart shedsim draws, one module per analysis: :mod:`~shedsim.output.charts.tournament`,
:mod:`~shedsim.output.charts.compare` (``compare-rules``), :mod:`~shedsim.output.charts.swaps`,
:mod:`~shedsim.output.charts.sprt`, :mod:`~shedsim.output.charts.tips` and
:mod:`~shedsim.output.charts.tune`, on the shared conventions of
:mod:`~shedsim.output.charts.figure` (matplotlib is imported when a chart is drawn, not
when a module is imported).

Each module lists its charts once, in :data:`CHARTS` (a tuple of :class:`Chart`): the
analysis's ``write_outputs`` draws them with :func:`write`, its list of the files it may
write takes their names (:func:`names`), and the report (:mod:`shedsim.output.report`) puts
them in that order (:func:`report_order`).
"""

from __future__ import annotations

from shedsim.output.charts.figure import Chart, names, write

__all__ = ["Chart", "names", "write", "report_order"]


def report_order(command: str) -> list[str] | None:
    """The report's order of a run's files for ``command`` (``"tournament"``, ...): the
    tables its chart module puts first (``LEAD_TABLES``), then each chart followed by the
    table it shows; None for a command whose module keeps the default order (no
    ``LEAD_TABLES``: every chart before the table of the same name) or has no charts."""
    from shedsim.output.charts import compare, sprt, swaps, tips, tournament, tune

    m = {
        "tournament": tournament,
        "compare-rules": compare,
        "swaps": swaps,
        "sprt": sprt,
        "tips": tips,
        "tune": tune,
    }.get(command)
    if m is None:
        return None
    lead = getattr(m, "LEAD_TABLES", None)
    if lead is None:
        return None
    return list(dict.fromkeys([*lead, *(n for c in m.CHARTS for n in (c.name, c.table) if n)]))
