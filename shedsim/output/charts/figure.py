"""What every chart shares: matplotlib on the Agg backend (imported when the first chart is
drawn, so that importing a chart module costs nothing), the widest figure, error bars that
are never negative, the resolution and palette of the PNGs, and the atomic write.

Each chart is written with :func:`save_figure` (``tight_layout``, then the PNG bytes of
:func:`png_bytes` through :func:`shedsim.base.atomic.write_bytes`: a full disk leaves no
half-written chart) or, for a figure ``tight_layout`` cannot arrange (a colour bar shared
by several panels), :func:`atomic_png`. :class:`Chart` names one chart of an analysis and
the function that draws it; :func:`write` draws a tuple of them.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterator

import numpy as np

from shedsim.base import atomic

WIDEST = 14.0
"""The widest chart, in inches: the report page's content (1124 CSS pixels in a 1400-pixel
window) holds it unscaled at 80 dots per inch (``make report``), so a 9-point label reads 10
pixels high; every chart's labels are 9 points or more (matplotlib's ``small``, 8.3 points, at
the least)."""

_META = {"Software": atomic.PNG_SOFTWARE}  # shedsim's mark, no version: same input, same bytes


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (no display needed), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def bars(value, lo, hi) -> list:
    """Error-bar lengths ``[value - lo, hi - value]`` for matplotlib (float arrays, never
    negative: an interval bound equal to the estimate can come out a rounding error past it,
    e.g. a Wilson upper bound of 0.9999999999999998 for a rate of 1, which matplotlib refuses;
    NaN bounds give no bar)."""
    v, a, b = (np.asarray(x, dtype=float) for x in (value, lo, hi))
    return [np.nan_to_num(np.maximum(v - a, 0.0)), np.nan_to_num(np.maximum(b - v, 0.0))]


def dpi() -> int:
    """Resolution of every chart: 110 dots per inch, or ``SHEDSIM_PLOT_DPI`` (50-600) if
    set (``make report`` uses 72 to keep the committed example small). Raises ValueError
    naming the variable for anything else."""
    text = os.environ.get("SHEDSIM_PLOT_DPI", "").strip()
    if not text:
        return 110
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 50 <= value <= 600:
        raise ValueError(f"SHEDSIM_PLOT_DPI: a whole number of dots per inch, 50-600; got {text!r}")
    return value


def compact() -> bool:
    """Whether charts are written as 256-colour palette PNGs (``SHEDSIM_PLOT_COMPACT=1``;
    about a third of the bytes, no visible change for these charts; ``make report`` uses it)."""
    return os.environ.get("SHEDSIM_PLOT_COMPACT", "").strip() not in ("", "0")


def png_bytes(fig) -> bytes:
    """The figure's PNG bytes at :func:`dpi` (a palette PNG with :func:`compact`), with
    shedsim's ``Software`` text (:data:`shedsim.base.atomic.PNG_SOFTWARE`)."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi(), metadata=_META)
    if not compact():
        return buf.getvalue()
    from PIL import Image  # matplotlib's own dependency

    buf.seek(0)
    from PIL import PngImagePlugin

    img = (
        Image.open(buf)
        .convert("RGB")
        .quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    )
    out = io.BytesIO()
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", atomic.PNG_SOFTWARE)
    img.save(out, format="PNG", optimize=True, pnginfo=info)
    return out.getvalue()


_KEPT: list[dict] = []
"""The open :func:`kept_figures` collections (innermost last)."""


@contextlib.contextmanager
def kept_figures() -> Iterator[dict]:
    """Inside, a chart that would be written is kept instead: the dict yielded maps its file
    name (``rates.png``) to the drawn :class:`matplotlib.figure.Figure` (closed to pyplot, so
    it is not shown twice in a notebook; ``fig.savefig`` still works). For the Python API's
    chart methods (:mod:`shedsim.api`)."""
    keep: dict = {}
    _KEPT.append(keep)
    try:
        yield keep
    finally:
        _KEPT.remove(keep)


def write_png(fig, path: Path) -> None:
    """Write ``fig`` as a PNG atomically (:func:`shedsim.base.atomic.write_bytes`), or keep it
    inside :func:`kept_figures`. Raises :class:`shedsim.base.atomic.WriteError` naming the file."""
    if _KEPT:
        _KEPT[-1][Path(path).name] = fig
        return
    atomic.write_bytes(path, png_bytes(fig))


def save_figure(fig, path: Path, rect: tuple[float, float, float, float] | None = None) -> Path:
    """Write the figure as a PNG atomically (:func:`shedsim.base.atomic.write_bytes`: a full disk
    leaves no half-written chart) and close it. ``rect``: the area ``tight_layout`` may use
    (leave room for a figure legend). Resolution: :func:`dpi`; palette PNG: :func:`compact`.
    Raises :class:`shedsim.base.atomic.WriteError` naming the file."""
    try:
        fig.tight_layout(rect=rect)
        write_png(fig, path)
    finally:
        pyplot().close(fig)
    return path


def atomic_png(fig, path: Path) -> None:
    """Write ``fig`` as every chart is written but without ``tight_layout`` (it does not
    handle a colour bar shared by several panels); the caller closes the figure."""
    write_png(fig, path)


@dataclass(frozen=True)
class Chart:
    """One chart: ``name``, the file it is written to in the run's directory; ``draw``, the
    function that draws it, called as ``draw(*inputs, path)`` with the same inputs for every
    chart of one analysis (it returns the path written, or None when there is nothing to
    draw); ``table``, the CSV whose figures it shows (the report puts it right after the
    chart), or None."""

    name: str
    draw: Callable[..., Path | None]
    table: str | None = None


def names(charts: tuple[Chart, ...]) -> tuple[str, ...]:
    """The file names of ``charts``, in order."""
    return tuple(c.name for c in charts)


def write(charts: tuple[Chart, ...], out: Path, *inputs) -> list[str]:
    """Draw every chart of ``charts`` into the directory ``out`` (``chart.draw(*inputs,
    out / chart.name)``); returns the names of the charts written (a chart with nothing to
    draw writes no file). Raises :class:`shedsim.base.atomic.WriteError` naming the file."""
    out = Path(out)
    return [c.name for c in charts if c.draw(*inputs, out / c.name) is not None]
