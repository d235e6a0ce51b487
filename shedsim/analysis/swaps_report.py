"""The swap study's reports (``shedsim swaps``): its CSVs and charts written into a directory
(:func:`write_files`, :func:`write_outputs`) and its findings in words (:func:`headline`).
The study itself is :mod:`shedsim.analysis.swaps`'.
"""

from __future__ import annotations

from typing import Any

from shedsim.analysis.swaps import OUTPUTS, TABLES, StudyResult, StudySpec, value_figure
from shedsim.output import charts
from shedsim.output.charts import swaps as swap_charts


def write_outputs(
    spec: StudySpec, res: StudyResult, out, plots: bool = True, info: dict[str, Any] | None = None
) -> list[str]:
    """Write the CSVs, the PNG charts (:func:`write_files`) and (with ``info``) ``run.json``
    into ``out`` as one set (:func:`shedsim.base.atomic.batch`): on any failure (disk full,
    Ctrl-C) no file of the set changes. Files of an earlier study in ``out`` that this one
    does not write (charts after ``--no-plots``, ``regret.csv`` after ``--deals 0``) are
    removed, so the directory never mixes two runs. Returns the file names written
    (``run.json`` included). Raises :class:`shedsim.base.atomic.WriteError` naming the file."""
    from pathlib import Path

    from shedsim.base import atomic
    from shedsim.runs.execute import write_run_json

    out = Path(out)
    with atomic.batch():
        files = write_files(spec, res, out, plots)
        if info is not None:
            write_run_json(out, info, files)
            files.append("run.json")
    for name in OUTPUTS:
        if name not in files:
            (out / name).unlink(missing_ok=True)
    return sorted(files)


def write_files(spec: StudySpec, res: StudyResult, out, plots: bool = True) -> list[str]:
    """Write :data:`TABLES` (``regret.csv`` only with a regret study) and, with ``plots``, the
    charts of :data:`shedsim.output.charts.swaps.CHARTS` into ``out``, each atomically;
    returns their names. Raises :class:`shedsim.base.atomic.WriteError` naming the file."""
    from pathlib import Path

    from shedsim.output.csvs import write_csv

    out = Path(out)
    files = []
    policies = res.policies
    tables = [res.by_rank, res.values, policies.summary, policies.head_to_head, res.regret]
    for name, df in zip(TABLES, tables):
        if df is not None:
            write_csv(df, out / name)
            files.append(name)
    if plots:
        files += charts.write(swap_charts.CHARTS, out, spec, res)
    return files


def _rows_text(rows, figure: str, most: int = 8) -> str:
    """``10 10 3 (22.1% [20.9, 23.4]), 10 10 6 (...), and 4 more``."""

    def one(r) -> str:
        if figure == "loss_rate":
            return f"{r['face_up']} ({r['loss_rate']:.1%} [{r['loss_lo']:.1%}, {r['loss_hi']:.1%}])"
        return f"{r['face_up']} ({r['mean_place']:.3f} [{r['place_lo']:.3f}, {r['place_hi']:.3f}])"

    items = [one(r) for _, r in rows.head(most).iterrows()]
    more = len(rows) - most
    return ", ".join(items) + (f" and {more} more" if more > 0 else "")


def _set_sentence(v, flag: str, figure: str, name: str, word: str, what: str) -> str:
    """The face-up rows of one end of the table that the data cannot tell apart from the
    best (or worst) one, in words."""
    rows = v[v[flag]] if flag == "in_best_set" else v[v[flag]].iloc[::-1]
    k = len(v)
    top = rows.iloc[0]
    if len(rows) == 1:
        return (
            f"{word} face-up {what} by {name}: {_rows_text(rows, figure)}, significantly "
            f"{'better' if flag == 'in_best_set' else 'worse'} than each of the other {k - 1} "
            f"(subset selection, Bonferroni over {k - 1} comparisons)"
        )
    return (
        f"{word} face-up {what} by {name}: {len(rows)} of {k} cannot be told apart from the "
        f"{word} (no other {what} is significantly "
        f"{'better' if flag == 'in_best_set' else 'worse'} than any "
        f"of them; "
        f"subset selection, Bonferroni over {k - 1} comparisons, holds the {word} with 95% "
        "confidence): "
        f"{_rows_text(rows, figure)}; the {'lowest' if flag == 'in_best_set' else 'highest'} "
        "alone, "
        f"{top['face_up']}, is the {'minimum' if flag == 'in_best_set' else 'maximum'} of {k} "
        "noisy rows"
    )


def headline(spec: StudySpec, res: StudyResult) -> list[str]:
    """Short findings with intervals (for run.json and the report): the face-up rows that
    the data cannot tell apart from the best and from the worst (by what the rules score,
    :func:`value_figure`), the swap policies likewise, and the regret study."""
    from shedsim.stats import Z95, not_worse_than_best

    out = []
    v = res.values
    figure, name = value_figure(spec)
    what = "triple" if spec.rules.table_size == 3 else "row"
    if len(v) and "in_best_set" in v:
        out.append(
            f"no swap, {spec.strategy} play: "
            + _set_sentence(v, "in_best_set", figure, name, "best", what)
        )
        out.append(_set_sentence(v, "in_worst_set", figure, name, "worst", what))
    else:
        out.append(
            f"no face-up multiset was seen in {spec.min_games} seat-games: raise --games or "
            "lower --min-games"
        )
    s = res.policies.summary
    col, lo, hi = (
        ("loss_rate", "loss_lo", "loss_hi")
        if figure == "loss_rate"
        else ("mean_place", "place_lo", "place_hi")
    )
    s = s.sort_values([col, "strategy"], kind="stable").reset_index(drop=True)
    se = (s[hi] - s[lo]).to_numpy(float) / (2 * Z95)  # the intervals' standard errors
    best = not_worse_than_best(
        s[col].to_numpy(float), se, dependent=True
    )  # the policies share games
    worst = not_worse_than_best(-s[col].to_numpy(float), se, dependent=True)

    def fmt(r) -> str:
        if col == "loss_rate":
            return (
                f"{r['strategy']} ({r['loss_rate']:.1%} [{r['loss_lo']:.1%}, {r['loss_hi']:.1%}])"
            )
        return f"{r['strategy']} ({r['mean_place']:.3f} [{r['place_lo']:.3f}, {r['place_hi']:.3f}])"

    top, low = s.iloc[0], s.iloc[-1]

    def others(flags, one) -> str:
        tied = [
            fmt(r)
            for (_, r), b in zip(s.iterrows(), flags)
            if b and r["strategy"] != one["strategy"]
        ]
        return f", not separated from {', '.join(tied)}" if tied else ", separated from every other"

    out.append(
        f"swap policies by {name} (subset selection, Bonferroni): best "
        f"{fmt(top)}{others(best, top)}; "
        f"worst {fmt(low)}{others(worst, low)}"
    )
    r = res.regret_summary
    if r.get("deals"):
        out.append(
            f"{spec.strategy}'s face-up choice was the best of {_options(r['mean_choices'])} in "
            f"{r['best_share']:.0%} [{r['best_lo']:.0%}, {r['best_hi']:.0%}] of {r['deals']} "
            "deals; "
            f"mean regret {r['mean_regret']:.3f} [{r['regret_lo']:.3f}, {r['regret_hi']:.3f}] "
            "places"
        )
    return out


def _options(mean: float) -> str:
    """The mean number of face-up choices a deal offered, in words: ``12 options`` where every
    deal offered the same number, ``12.4 options on average`` where they differed."""
    if float(mean).is_integer():
        return f"{int(mean)} options"
    return f"{mean:.1f} options on average"
