"""What a tournament says and writes: its findings in words (:func:`headline`, run.json's
``headline``) and its files (:func:`write_outputs`: the CSV tables in fixed formats,
:mod:`shedsim.output.csvs`, and the charts, :mod:`shedsim.output.charts.tournament`).
"""

from __future__ import annotations

from pathlib import Path

from shedsim import stats
from shedsim.analysis.tournament.plan import TournamentSpec
from shedsim.analysis.tournament.results import Results
from shedsim.output import charts
from shedsim.output.charts import tournament as tournament_charts
from shedsim.output.csvs import write_csv
from shedsim.rules.ruleset import RuleSet

TABLES = ("summary.csv", "head_to_head.csv", "seats.csv", "lengths.csv", "matches.csv")
"""The tournament's tables (``matches.csv`` only with ``--rounds`` above 1)."""
OUTPUTS = TABLES + charts.names(tournament_charts.CHARTS) + ("run.json", "games")
"""Every name a tournament may write in its directory (besides the run store's own,
:data:`shedsim.runs.store.STORE_FILES`): what ``--out --force`` refuses to find there."""


def headline(spec: TournamentSpec, res: Results) -> list[str]:
    """The tournament's findings in words (run.json's ``headline``): the ranking (by rating),
    whether the leader is separated from the second (their head to head, Holm p < 0.05),
    the entries the data cannot tell apart from the best by what the rules score (the
    loss rate where only losing counts, the mean place where places do, the win rate for
    going out first; :func:`shedsim.stats.not_worse_than_best`, standard errors
    from the 95% intervals), saying so when that order differs from the rating's, and the
    share of unfinished games."""
    from shedsim.rules.scoring import objective_of

    s = res.summary
    if not len(s) or not s["games"].sum():
        return []
    out = [
        "Ranking by rating (Plackett-Luce strength of the finishing orders): "
        + ", ".join(f"{r.rank}. {r.strategy}" for r in s.itertuples())
    ]
    if len(s) >= 2:
        a, b = s["strategy"].iloc[0], s["strategy"].iloc[1]
        h = res.head_to_head
        row = h[(h["a"] == a) & (h["b"] == b)] if len(h) else h
        if len(row):
            r = row.iloc[0]
            share = f"{r['share_a_ahead']:.1%} [{r['share_lo']:.1%}, {r['share_hi']:.1%}]"
            if r["p_holm"] < 0.05 and r["share_a_ahead"] > 0.5:
                out.append(
                    f"{a} leads: it finishes ahead of {b}, the second, in {share} of their "
                    "comparisons "
                    f"(Holm p {r['p_holm']:.2g})"
                )
            else:
                out.append(
                    f"{a} and {b} are not separated: {a} finishes ahead of {b} in {share} of their "
                    f"comparisons (Holm p {r['p_holm']:.2g}); the rating's first place is "
                    "within noise"
                )
    obj = "place" if spec.rounds > 1 else objective_of(spec.rules)
    col, lo, hi, name, sign = {
        "lose": ("loss_rate", "loss_lo", "loss_hi", "loss rate", 1.0),
        "place": ("mean_place", "place_lo", "place_hi", "mean place", 1.0),
        "first": ("win_rate", "win_lo", "win_hi", "win rate", -1.0),
    }[obj]
    t = (
        s.assign(_k=sign * s[col])
        .sort_values(["_k", "strategy"], kind="mergesort")
        .reset_index(drop=True)
    )
    best = stats.not_worse_than_best(
        t["_k"].to_numpy(float), (t[hi] - t[lo]).to_numpy(float) / (2 * stats.Z95), dependent=True
    )  # the entries share games

    def fmt(r) -> str:
        if col == "mean_place":
            return f"{r['strategy']} ({r[col]:.3f} [{r[lo]:.3f}, {r[hi]:.3f}])"
        return f"{r['strategy']} ({r[col]:.2%} [{r[lo]:.2%}, {r[hi]:.2%}])"

    top = t.iloc[0]
    tied = [
        fmt(r)
        for (_, r), keep in zip(t.iterrows(), best)
        if keep and r["strategy"] != top["strategy"]
    ]
    scoring = "summed places over each match" if spec.rounds > 1 else spec.rules.scoring
    text = (
        f"by what {spec.rules.name} scores ({scoring}): the "
        f"{'highest' if sign < 0 else 'lowest'} {name} is "
        f"{fmt(top)}"
        + (f", not separated from {', '.join(tied)}" if tied else ", separated from every other")
        + " (subset selection, Bonferroni)"
    )
    if top["strategy"] != s["strategy"].iloc[0]:
        text += f"; the rating puts {s['strategy'].iloc[0]} first"
    out.append(text[:1].upper() + text[1:])
    share = res.info.get("unfinished_share")
    if isinstance(share, float) and share > 0:
        out.append(
            f"{share:.2%} of games unfinished ({describe_ends(res.info['ends'], spec.rules)})"
        )
    return out


def describe_ends(ends: dict[str, int], rules: RuleSet) -> str:
    """One phrase for how a run's games ended, e.g. ``"1,200 unfinished: 900 stalled, 300
    proven loops, 0 at the move cap of 5000 moves"`` (``ends``: ``run.json``'s ``ends``; a
    run with bots adds the games a bot forfeited, which are not unfinished:
    docs/reference/bots.md#faults)."""
    unf = ends.get("stalled", 0) + ends.get("loop", 0) + ends.get("cap", 0)
    return (
        f"{unf:,} unfinished: {ends.get('stalled', 0):,} stalled, {ends.get('loop', 0):,} "
        "proven loops, "
        f"{ends.get('cap', 0):,} at the move cap of {rules.max_moves} moves"
        + (f"; {ends['forfeit']:,} forfeited by a bot" if "forfeit" in ends else "")
    )


def write_outputs(spec: TournamentSpec, res: Results, out: Path, plots: bool = True) -> list[str]:
    """Write the CSVs and the charts (:data:`shedsim.output.charts.tournament.CHARTS`) into
    ``out``; returns the file names (``run.json`` is written by
    :func:`shedsim.runs.execute.write_run_json`). A run with no game (interrupted before its first
    chunk) gets its CSVs but no chart. Every file is written atomically (temp file in
    ``out``, fsync, :func:`os.replace`): a failure (disk full) raises
    :class:`shedsim.base.atomic.WriteError` naming the file and leaves no half-written file."""
    out = Path(out)
    files = []
    for name, df in (
        ("summary.csv", res.summary),
        ("head_to_head.csv", res.head_to_head),
        ("seats.csv", res.seats),
        ("lengths.csv", res.lengths),
    ):
        write_csv(df, out / name)
        files.append(name)
    if res.matches is not None:
        write_csv(res.matches, out / "matches.csv")
        files.append("matches.csv")
    else:
        (out / "matches.csv").unlink(missing_ok=True)
    chart_names = charts.names(tournament_charts.CHARTS)
    if plots and not res.info["games"]:
        for name in (
            chart_names
        ):  # a run with no game yet has nothing to draw; no chart of an older run stays
            (out / name).unlink(missing_ok=True)
    elif plots:
        files += charts.write(tournament_charts.CHARTS, out, spec, res)
    return sorted(files)
