"""What the charts show: each chart function is called with small hand-made or
tiny real data and the figure is inspected before it is written (``save`` is intercepted).

* seats.png: the reference line is the fair share the data can reach (the seats' mean loss
  rate: unfinished games have no loser) and the loss-rate axis starts at 0;
* compare-rules lengths.png: no colour repeated within the chart, and small multiples (one
  panel per variant against the baseline) for many variants;
* forest.png: the legend keeps significance (colour swatches) and design (markers) apart;
* the swap heatmap: every face-up triple in its own cell (one panel per middle card);
* a tournament with no game: no chart and no warning.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba

from shedsim.analysis import compare as C
from shedsim.analysis import tournament as T
from shedsim.layout import END_CAP, END_FINISHED, END_LOOP, END_STALLED
from shedsim.output.charts import tournament as P
from shedsim.output.charts import figure as F
from shedsim.output.charts import swaps as PS
from shedsim.rules.ruleset import preset
from suite import some


@pytest.fixture
def figures(monkeypatch):
    """Every figure a chart function saves, kept open for inspection (nothing is written)."""
    seen = []

    def keep(fig, path, rect=None):
        seen.append(fig)
        return Path(path)

    monkeypatch.setattr(F, "save_figure", keep)  # every chart module writes through it
    monkeypatch.setattr(F, "atomic_png", lambda fig, path: seen.append(fig))
    yield seen
    F.pyplot().close("all")


def test_seats_reference_is_the_reachable_fair_share_on_an_axis_from_zero(figures):
    # 4 seats, 10% of games unfinished: the seats' loss rates add up to 90%, not 100%
    rates = np.array([0.25, 0.22, 0.22, 0.21])
    table = pd.DataFrame(
        {
            "kind": "from_starter",
            "seat": range(4),
            "loss_rate": rates,
            "loss_lo": rates - 0.01,
            "loss_hi": rates + 0.01,
        }
    )
    P.seats(table, Path("seats.png"))
    ax = figures[0].axes[0]
    refs = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(refs) == 1
    assert refs[0].get_ydata()[0] == pytest.approx(100 * rates.mean())  # 22.5%, not 1/4 = 25%
    assert ax.get_ylim()[0] == 0
    assert "unfinished games have no loser" in refs[0].get_label()


def _fake_comparison(n_variants: int) -> SimpleNamespace:
    rng = np.random.default_rng(5)
    variants, tallies = [], []
    rules = preset("shithead")
    for k in range(n_variants):
        variants.append(
            SimpleNamespace(label="shithead" if k == 0 else f"shithead+toggle{k}", rules=rules)
        )
        lengths = rng.lognormal(5 + 0.02 * k, 0.5, 400).astype(np.int64) + 10
        ends = np.where(rng.random(400) < 0.01, END_CAP, END_FINISHED)
        tallies.append(
            SimpleNamespace(lengths=lengths, ends=ends, unfinished=(ends != END_FINISHED))
        )
    info = {
        "players": 4,
        "labels": ["random", "greedy"],
        "games": 400,
        "seed": 0,
        "baseline": "shithead",
    }
    return SimpleNamespace(plan=SimpleNamespace(variants=variants), tallies=tallies, info=info)


def _colours(ax) -> list[tuple]:
    return [to_rgba(line.get_color()) for line in ax.get_lines() if line.get_linestyle() == "-"]


@pytest.mark.parametrize("n", [5, C.OVERLAY_MAX])
def test_compare_lengths_overlay_never_repeats_a_colour(figures, n):
    C.plot_lengths(_fake_comparison(n), Path("lengths.png"))
    ecdf = figures[0].axes[1]
    colours = _colours(ecdf)
    assert len(colours) == n and len(set(colours)) == n


def test_compare_lengths_many_variants_are_small_multiples(figures):
    C.plot_lengths(_fake_comparison(22), Path("lengths.png"))
    panels = [ax for ax in figures[0].axes if ax.get_visible()]
    assert len(panels) == 21  # one per variant, each against the baseline
    for k, ax in enumerate(panels):
        colours = _colours(ax)
        assert (
            len(colours) == 2 and len(set(colours)) == 2
        )  # baseline and the variant, never the same
        assert ax.get_title().startswith(f"shithead+toggle{k + 1}\n")


def test_swap_heatmap_shows_every_card_of_the_triple(figures):
    rows = pd.DataFrame(
        {
            "face_up": ["A 5 2", "A 7 2", "K K 3", "5 4 3"],
            "seat_games": [300, 300, 300, 300],
            "losses": [30, 60, 90, 120],
        }
    )
    PS.value_heatmap(rows, 200, Path("heat.png"))
    panels = {
        ax.get_title(): ax for ax in figures[0].axes if ax.get_title().startswith("middle card")
    }
    assert len(panels) == 13

    def cell(
        mid, low, high
    ):  # panel of the middle card: rows lowest 2..mid, columns highest mid..A
        data = panels[f"middle card {mid}"].get_images()[0].get_array()
        ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        m = ranks.index(mid)
        return data[ranks.index(low), ranks.index(high) - m]

    # A 5 2 and A 7 2 share their lowest and highest card but not the middle: two cells, two rates
    assert cell("5", "2", "A") == pytest.approx(10) and cell("7", "2", "A") == pytest.approx(20)
    assert cell("K", "3", "K") == pytest.approx(30) and cell("4", "3", "5") == pytest.approx(40)


def _forest(significant: list[bool], paired: list[bool]) -> SimpleNamespace:
    """A comparison of two variants (low7, two_decks) against shithead on the mean game length."""
    return SimpleNamespace(
        plan=SimpleNamespace(
            variants=[SimpleNamespace(label=x) for x in ("shithead", "low7", "two_decks")]
        ),
        info={"baseline": "shithead", "players": 4, "labels": ["greedy"], "games": 100, "seed": 0},
        effects=pd.DataFrame(
            {
                "variant": ["low7", "two_decks"],
                "metric": ["mean_moves"] * 2,
                "effect": [-5.0, 3.0],
                "lo": [-7.0, 1.0],
                "hi": [-3.0, 5.0],
                "significant": significant,
                "paired": paired,
            }
        ),
    )


def test_forest_legend_keeps_significance_and_design_apart(figures, tmp_path):
    C.plot_forest(_forest([True, False], [True, False]), tmp_path / "forest.png")
    legend = figures[0].legends[0]
    handles = dict(zip([t.get_text() for t in legend.get_texts()], legend.legend_handles))
    markers = {name: getattr(h, "get_marker", lambda: None)() for name, h in handles.items()}
    sig = [n for n in handles if "significant" in n]
    design = [n for n in handles if "deals" in n]
    assert len(sig) == 2 and all(markers[n] is None for n in sig)  # colour swatches, no marker
    assert {markers[n] for n in design} == {"o", "s"}
    colours = [to_rgba(handles[n].get_facecolor()) for n in sig]
    assert colours[0] != colours[1]


def test_a_tournament_with_no_game_writes_no_chart_and_no_warning(tmp_path):
    spec = T.plan(preset("shithead"), 3, T.parse_entries("random,greedy"), 600, seed=1)
    store = T.Store(tmp_path)
    outcome = T.run(spec, store, workers=1, stop_after=0)
    assert not outcome.complete and not outcome.done
    for name in ("rates.png", "seats.png"):  # charts of an earlier run in the same directory
        (tmp_path / name).write_bytes(b"old")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = T.analyse(spec, store.load_total(spec, outcome.done))
        files = T.write_outputs(spec, res, tmp_path, plots=True)
    assert not [f for f in files if f.endswith(".png")] and not list(tmp_path.glob("*.png"))
    assert "summary.csv" in files


def _legend_texts(fig) -> list[str]:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(
        fig.legends
    )
    return [t.get_text() for lg in legends for t in lg.get_texts()]


def _titled(figures, start: str):
    found = [
        f
        for f in figures
        if any((ax.get_title() or "").startswith(start) for ax in f.axes)
        or (f._suptitle is not None and f._suptitle.get_text().startswith(start))
    ]
    assert len(found) == 1, [ax.get_title() for f in figures for ax in f.axes]
    return found[0]


def test_places_legend_names_only_what_happened(figures, tmp_path):
    """A tournament whose unfinished games all stalled (nines with stall:40, no game near the
    move cap): the places chart's grey segment is "still in when stopped: stalled", never "at
    cap"; a place no strategy took has no legend entry."""
    from shedsim.rules.ruleset import build

    spec = T.plan(build("nines", ["stall:40"]), 4, T.parse_entries("random,greedy"), 96, seed=0)
    store = T.Store(tmp_path)
    outcome = T.run(spec, store, workers=1)
    res = T.analyse(spec, store.load_total(spec, outcome.done))
    assert (
        res.info["ends"]["stalled"] > 0 and res.info["ends"]["cap"] == 0 == res.info["ends"]["loop"]
    )
    T.write_outputs(spec, res, tmp_path, plots=True)
    names = _legend_texts(_titled(figures, "Finishing place distribution"))
    assert "still in when stopped:\nstalled" in names, names
    assert not [n for n in names if "cap" in n or "loop" in n]
    placed = [
        c for c in res.place_shares.columns if c != "unfinished" and res.place_shares[c].sum() > 0
    ]
    assert [n for n in names if n.startswith("place ")] == [f"place {c}" for c in placed]


def test_places_legend_leaves_out_what_is_not_in_the_data(figures):
    shares = pd.DataFrame(
        {"1": [0.6, 0.4], "2": [0.4, 0.6], "3": [0.0, 0.0], "unfinished": [0.0, 0.0]},
        index=["greedy", "random"],
    )
    P.place_distribution(
        shares, Path("places.png"), ends={"finished": 10, "stalled": 0, "loop": 0, "cap": 0}
    )
    assert _legend_texts(figures[0]) == ["place 1", "place 2"]
    assert P.stopped_words({"stalled": 0, "loop": 3, "cap": 1}) == "a proven loop or the move cap"


def test_seats_legend_speaks_of_games_without_a_loser_only_when_there_are_some(figures):
    rates = np.array([0.26, 0.25, 0.25, 0.24])  # every game had a loser
    table = pd.DataFrame(
        {
            "kind": "from_starter",
            "seat": range(4),
            "loss_rate": rates,
            "loss_lo": rates - 0.01,
            "loss_hi": rates + 0.01,
        }
    )
    P.seats(table, Path("seats.png"))
    names = _legend_texts(figures[0])
    assert "fair share 25.00% (1/4: every seat losing equally often)" in names, names
    assert not [n for n in names if "no loser" in n]


def test_forest_legends_hold_only_what_the_chart_holds(figures, tmp_path):
    C.plot_forest(_forest([True, True], [True, True]), tmp_path / "forest.png")
    assert _legend_texts(figures[0]) == [
        "colour: significant by any of its tests (Holm 5%)",
        "filled circle: paired deals",
    ]
    from shedsim.analysis import tips as TP

    table = pd.DataFrame(
        {
            "tip": ["save_specials"],
            "rules": ["shithead"],
            "players": [2],
            "loss_effect": [0.01],
            "loss_lo": [-0.02],
            "loss_hi": [0.04],
            "loss_p_holm": [0.6],
            "place_effect": [0.01],
            "place_lo": [-0.02],
            "place_hi": [0.04],
            "place_p_holm": [0.6],
        }
    )
    TP.plot_forest(table, tmp_path / "tips.png")
    # the grey band is the practical threshold of the tips' verdict, drawn on every tips forest
    assert _legend_texts(figures[1]) == ["not significant", "no practical effect (within +-0.02)"]


def test_compare_lengths_legend_names_only_the_ways_games_ended(figures):
    res = _fake_comparison(3)
    for t in res.tallies:  # unfinished games: stalled and proven loops, none at the cap
        k = np.arange(t.ends.size)
        t.ends = np.where(k % 50 == 0, END_STALLED, np.where(k % 70 == 1, END_LOOP, END_FINISHED))
        t.unfinished = t.ends != END_FINISHED
    C.plot_lengths(res, Path("lengths.png"))
    names = _legend_texts(figures[0])
    assert names and all("stalled" in n and "loops" in n and "cap" not in n for n in names), names


def test_tune_history_draws_no_start_line_when_the_start_was_not_a_trial(figures):
    from shedsim.analysis import tune as TU

    table = pd.DataFrame(
        {"trial": [0, 1, 2], "state": ["complete"] * 3, "score": [0.5, 0.55, 0.52]}
    )
    TU.plot_history(table, float("nan"), Path("history.png"))
    assert _legend_texts(figures[0]) == ["trial", "best so far"]


# ------------------------------------------------------------------ readable at the report's size
MIN_TEXT_PX = 9.0
"""The smallest text a chart may show, in CSS pixels of the report page in a 1400-pixel window."""


def unreadable(name: str, facts: dict) -> list[str]:
    """Why the chart ``name`` (:func:`every_command.chart_facts`) is hard to read on the report
    page: a text smaller than :data:`MIN_TEXT_PX` once the chart is shown at most
    :data:`every_command.REPORT_WIDTH_PX` wide, tick labels of one axis that overlap, or a
    text cut off at the figure's edge."""
    from every_command import REPORT_WIDTH_PX

    width, height = facts["width_in"] * facts["dpi"], facts["height_in"] * facts["dpi"]
    scale = min(1.0, REPORT_WIDTH_PX / width)
    out = []
    small = sorted(
        {
            (round(t["size"] * facts["dpi"] / 72 * scale, 1), t["text"][:40])
            for t in facts["texts"]
            if t["size"] * facts["dpi"] / 72 * scale < MIN_TEXT_PX
        }
    )
    if small:
        out.append(f"{name}: text below {MIN_TEXT_PX} px on the page: {small[:4]}")
    ticks: dict[str, list] = {}
    for t in facts["texts"]:
        x0, y0, x1, y1 = t["box"]
        if x0 < -1 or y0 < -1 or x1 > width + 1 or y1 > height + 1:
            out.append(f"{name}: {t['text'][:40]!r} is cut off at the edge")
        if t["tick_axis"]:
            ticks.setdefault(t["tick_axis"], []).append(t)
    for _axis, ts in ticks.items():
        for i, a in enumerate(ts):
            for b in ts[i + 1 :]:
                (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a["box"], b["box"]
                if ax0 < bx1 - 0.5 and bx0 < ax1 - 0.5 and ay0 < by1 - 0.5 and by0 < ay1 - 0.5:
                    out.append(f"{name}: tick labels {a['text']!r} and {b['text']!r} overlap")
    return out


def test_every_chart_is_readable_at_the_reports_size(every_run):
    """Every chart of a tiny run of every command, at the example report's settings (80 dots
    per inch): every text at least 9 CSS pixels high on the page in a 1400-pixel window (a
    chart wider than the page's content is shown scaled down), no overlapping tick labels,
    nothing cut off."""
    import json

    facts = json.loads((every_run / "charts.json").read_text())
    assert len(facts) >= 18 and "swaps/face_up_heatmap.png" in facts
    problems = [p for name, f in sorted(facts.items()) for p in unreadable(name, f)]
    assert not problems, "\n".join(problems)


def _facts(fig, dpi: int = 80) -> dict:
    from every_command import chart_facts

    return chart_facts(fig, dpi)


@pytest.mark.parametrize("dpi", some([80, 110], [80]))
def test_big_charts_are_readable_at_the_reports_size(figures, tmp_path, dpi):
    """The charts that grow with their data, at their size in the example report: compare-rules
    over every house toggle (22 variants: the forest plot and the small multiples of game
    lengths) and the swap heat map with every face-up triple, at 80 dots per inch (make report)
    and at the default 110."""
    n = 23
    res = _fake_comparison(n)
    C.plot_lengths(res, tmp_path / "lengths.png")
    variants = [v.label for v in res.plan.variants]
    metrics = [
        "mean_moves",
        "unfinished_rate",
        "pickups_per_game",
        "burns_per_game",
        "starter_loss_rate",
        "skill_edge[greedy]",
        "skill_edge[expert]",
    ]
    rng = np.random.default_rng(1)
    rows = [
        {
            "variant": v,
            "metric": m,
            "effect": e,
            "lo": e - 1,
            "hi": e + 1,
            "significant": e > 0,
            "paired": True,
        }
        for v in variants[1:]
        for m in metrics
        for e in [float(rng.normal())]
    ]
    forest = SimpleNamespace(
        plan=res.plan,
        info={**res.info, "labels": ["random", "greedy", "expert"]},
        effects=pd.DataFrame(rows),
    )
    C.plot_forest(forest, tmp_path / "forest.png")
    from itertools import combinations_with_replacement

    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    triples = [" ".join(reversed(t)) for t in combinations_with_replacement(ranks, 3)]
    heat = pd.DataFrame(
        {"face_up": triples, "seat_games": 300, "losses": rng.integers(20, 200, len(triples))}
    )
    PS.value_heatmap(
        heat, 200, tmp_path / "heat.png", "shithead, 3 players, play policy greedy, 200,000 games"
    )
    problems = []
    for name, fig in zip(("compare lengths", "compare forest", "swap heat map"), figures):
        fig.tight_layout() if name != "swap heat map" else None
        problems += unreadable(name, _facts(fig, dpi))
    assert not problems, "\n".join(problems)


def test_forest_colours_a_comparison_significant_by_its_rank_test_alone(figures, tmp_path):
    """The colour counts what the console counts: significant by any of its tests."""
    res = _forest([False, False], [True, True])
    res.effects["significant_any"] = [True, False]
    C.plot_forest(res, tmp_path / "forest.png")
    ax = figures[0].axes[0]
    colours = [to_rgba(line.get_color()) for line in ax.lines if line.get_marker() == "o"]
    assert colours == [to_rgba("tab:red"), to_rgba("0.45")]
    assert "colour: significant by any of its tests (Holm 5%)" in _legend_texts(figures[0])
