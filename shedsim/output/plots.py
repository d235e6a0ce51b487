"""The old place of the tournament's charts (:mod:`shedsim.output.charts.tournament`) and of
what every chart shares (:mod:`shedsim.output.charts.figure`), kept while code written against
it is merged: the same functions, re-exported. New code imports :mod:`shedsim.output.charts`."""

from shedsim.output.charts.figure import (  # noqa: F401 - re-exported
    WIDEST,
    atomic_png,
    bars,
    compact,
    dpi,
    kept_figures,
    png_bytes,
    save_figure,
    write_png,
)
from shedsim.output.charts.tournament import (  # noqa: F401 - re-exported
    END_WORDS,
    game_lengths,
    head_to_head,
    place_distribution,
    rates,
    seats,
    stopped_words,
)


def __getattr__(name: str):
    """``plt``: ``matplotlib.pyplot`` on the Agg backend
    (:func:`shedsim.output.charts.figure.pyplot`)."""
    if name == "plt":
        from shedsim.output.charts.figure import pyplot

        return pyplot()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
