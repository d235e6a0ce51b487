"""Chart writing options: resolution and palette PNGs (used by make report)."""

import io

import pytest
from PIL import Image

from shedsim.output.charts import figure as plots


def _chart(tmp_path, name):
    fig, ax = plots.pyplot().subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [0, 1, 4], label="a line")
    ax.legend()
    return plots.save_figure(fig, tmp_path / name)


def test_default_chart_is_rgba_at_110_dpi(tmp_path, monkeypatch):
    monkeypatch.delenv("SHEDSIM_PLOT_DPI", raising=False)
    monkeypatch.delenv("SHEDSIM_PLOT_COMPACT", raising=False)
    img = Image.open(_chart(tmp_path, "a.png"))
    assert img.size == (440, 330) and img.mode == "RGBA"


def test_compact_chart_is_a_smaller_palette_png(tmp_path, monkeypatch):
    monkeypatch.setenv("SHEDSIM_PLOT_DPI", "80")
    full = _chart(tmp_path, "full.png").read_bytes()
    monkeypatch.setenv("SHEDSIM_PLOT_COMPACT", "1")
    small = _chart(tmp_path, "small.png").read_bytes()
    img = Image.open(io.BytesIO(small))
    assert img.mode == "P" and img.size == (320, 240)
    assert len(small) < len(full)
    # the same picture: every pixel within a few levels of the full-colour chart
    import numpy as np

    a = np.asarray(Image.open(io.BytesIO(full)).convert("RGB"), dtype=int)
    b = np.asarray(img.convert("RGB"), dtype=int)
    assert np.abs(a - b).max() < 40


@pytest.mark.parametrize("value", ["abc", "10", "9000"])
def test_bad_dpi_names_the_variable(tmp_path, monkeypatch, value):
    monkeypatch.setenv("SHEDSIM_PLOT_DPI", value)
    with pytest.raises(ValueError, match="SHEDSIM_PLOT_DPI"):
        _chart(tmp_path, "x.png")
    assert not (tmp_path / "x.png").exists()
