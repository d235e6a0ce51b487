"""The old place of the swap study's charts (:mod:`shedsim.output.charts.swaps`), kept while
code written against it is merged: the same functions, re-exported. New code imports
:mod:`shedsim.output.charts.swaps`."""

from shedsim.output.charts.figure import atomic_png, bars, save_figure  # noqa: F401 - re-exported
from shedsim.output.charts.swaps import (  # noqa: F401 - re-exported
    HEATMAP_COLUMNS,
    by_rank,
    regret,
    value_extremes,
    value_heatmap,
)
