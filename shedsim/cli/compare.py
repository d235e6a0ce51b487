"""``shedsim compare-rules``: the typer command (registered in :mod:`shedsim.cli`): options ->
:func:`shedsim.api.compare_rules` -> the tables printed.

Only typer and the standard library are imported at module level, so ``shedsim --help``
stays fast; the simulation, statistics and plotting libraries are imported inside the
command. The work is done by :mod:`shedsim.analysis.compare`.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

import shedsim.cli.options as O
from shedsim.cli.common import choice_help

_P_RUN = O.P_RUN
OutOpt = O.out_option("reports/compare")


def compare_rules(
    rules: Annotated[
        Optional[list[str]],
        typer.Option(
            "--rules",
            "-r",
            rich_help_panel=_P_RUN,
            help=(
                "Rule variant, repeatable: a preset (duel, nines, family, palace, shithead) or "
                "a rules .toml file, optionally with +toggle parts (shithead+skip8, "
                "palace+pickup:never). The first variant that allows --players is the "
                "baseline; a variant given twice gets #2 (an A/A comparison)."
            ),
        ),
    ] = None,
    house: Annotated[
        Optional[list[str]],
        typer.Option(
            "--house",
            "-H",
            rich_help_panel=_P_RUN,
            help="House toggle applied to every variant, repeatable (`shedsim rules list`).",
        ),
    ] = None,
    each_toggle: Annotated[
        bool,
        typer.Option(
            "--each-toggle",
            rich_help_panel=_P_RUN,
            help=(
                "With one --rules X: compare X with X+T for every house toggle T that changes "
                "X's rules at --players (every flag toggle; invisible:3/8/9, reverse:K and "
                "stall:0; the pick-up and stalemate modes other than X's; the integer toggles "
                "such as hand_size one below and above: `shedsim rules list` lists them all). "
                "Skipped, each listed with the reason: max_moves, a toggle that changes nothing "
                "(X's own mode or value; reverse:K with 2 players, where a reverse changes "
                "nothing), an integer out of range and a toggle X cannot take."
            ),
        ),
    ] = False,
    players: Annotated[
        Optional[int],
        typer.Option(
            "--players",
            "-p",
            rich_help_panel=_P_RUN,
            help=(
                "Seats per table; variants that do not allow it are skipped with a note "
                "(default: 4)."
            ),
        ),
    ] = None,
    strategies: Annotated[
        Optional[str],
        typer.Option(
            "--strategies",
            "-S",
            rich_help_panel=_P_RUN,
            help=(
                "Comma-separated entries seated at every variant's tables: NAME, NAME:param=v, "
                "LABEL=SPEC or @ROLE (as the tournament's --strategies) (default: "
            )
            + choice_help("compare")
            + ").",
        ),
    ] = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-g",
            min=1,
            rich_help_panel=_P_RUN,
            help=(
                "Games per variant, rounded up to whole blocks (every table x every rotation) "
                "(default: 100000)."
            ),
        ),
    ] = None,
    seed: Annotated[
        Optional[int],
        typer.Option(
            "--seed",
            "-s",
            min=0,
            rich_help_panel=_P_RUN,
            help="Run seed: the same seed gives the same deals in every variant (default: 0).",
        ),
    ] = None,
    strategy_path: O.StrategyPathOpt = None,
    bot: O.BotOpt = None,
    out: OutOpt = None,
    resume: O.ResumeOpt = None,
    force: O.ForceOpt = False,
    workers: O.WorkersOpt = None,
    backend: O.BackendOpt = "loky",
    scheduler: O.SchedulerOpt = None,
    no_plots: O.NoPlotsOpt = False,
    quiet: O.QuietOpt = False,
    stop_after: O.StopAfterOpt = None,
) -> None:
    """Compare rule variants: game length, unfinished games, pick-ups, burns, the starting player's fairness and each strategy's skill edge over random (random's loss rate minus the strategy's: positive = better than random), each variant against the first (the baseline).

    Every variant plays the same strategies on the same schedule and seed: game g has the same seating and dealer in every variant and, when the variants deal alike (same decks, hand_size, table_size), the same cards, with independent strategy randomness ("paired" variants). Statistics use the deal (its N rotations) as the unit: intervals are 95%, tests are Wilcoxon / paired t on per-deal differences (paired) or Mann-Whitney within tables / Welch t on per-deal values (unpaired), with the schedule's tables as strata; every test of the effects is Holm-corrected together, the starter's fairness over the variants apart.

    Writes variants.csv, effects.csv, lengths.csv, forest.png, lengths.png and run.json into --out and prints the variants and the significant effects.

    Examples: shedsim compare-rules -r shithead -r shithead+pickup:always -r shithead+skip8 --games 50000; shedsim compare-rules -r duel -r shithead -r palace -p 2; shedsim compare-rules -r shithead --each-toggle -o reports/toggles.

    Ctrl-C (or SIGTERM) keeps every finished chunk and writes the results of the deals finished in every variant; --resume DIR continues (also after a killed run) to the same files as an uninterrupted run. --out must be a new or empty directory or one holding an earlier compare-rules run (replaced); another command's run is refused.

    Exit codes: 0 done; 1 a strategy or worker failed; 2 bad options or input, or a directory in use or holding other files (nothing is written); 3 a file could not be written (finished chunks are kept); 130 interrupted (Ctrl-C); 143 terminated (SIGTERM).
    """  # noqa: E501 (typer shows each paragraph as one line)
    from shedsim import api

    if bot:  # --strategies with the bots (the @compare field when not given)
        from shedsim.plugins import choice

        strategies = O.bot_entry_specs(strategies, bot, list(choice("compare")), strategy_path)
    r = O.call(
        api.compare_rules,
        rules=rules,
        house=house,
        each_toggle=each_toggle,
        players=players,
        strategies=strategies,
        games=games,
        seed=seed,
        strategy_path=O.paths_of(strategy_path),
        options=O.run_options(
            out,
            resume,
            force,
            workers,
            backend,
            scheduler,
            quiet,
            no_plots,
            stop_after,
            default_out="reports/compare",
        ),
    )
    if not quiet:
        _print_tables(r.run.res, complete=r.complete)
        from shedsim.output.spec import PARTIAL_MARK
        from shedsim.runs.progress import rate_text

        spec, info = r.run.job.spec, r.run.res.info
        partial = "" if r.complete else PARTIAL_MARK
        typer.echo(
            f"{info['games']:,} games per variant x {len(spec.plan.variants)} variants{partial} in "
            f"{info['play_s']:.1f} s "
            f"({rate_text(info['games_per_s'])}); wrote {', '.join(r.files + ['run.json'])} "
            f"to {str(r.out)}"
        )
    O.finish(r)


def _variant_name(r) -> str:
    return r["variant"] + (" (baseline)" if r["baseline"] else "" if r["paired"] else " (unpaired)")


def _length_table(res, complete: bool = True):
    """The game length of every variant (a rich table); not ``complete``: its title says the
    results are partial."""
    from rich.table import Table

    from shedsim.analysis import compare as C
    from shedsim.output.console import pct
    from shedsim.output.spec import PARTIAL_MARK

    v = res.variants
    rows = v.to_dict("records")
    n = res.info["players"]
    each = (
        len(rows) > 0 and v["deals"].nunique() == 1
    )  # the same deals in every variant: said once, in the title
    t = Table(
        title=f"Game length: {C.title(res)}"
        + (f", {rows[0]['deals']:,} deals per variant" if each else "")
        + ("" if complete else PARTIAL_MARK)
        + f"\n{C.subtitle(res)}",
        caption=(
            f"\\[lo, hi] = 95% intervals over deals; a round is {n} moves; unfinished = "
            "stopped: stalled, proven loop or move cap"
        ),
    )
    ends = "stalled" in v.columns
    for col in (
        "variant",
        *(() if each else ("deals",)),
        "mean moves",
        "mean rounds",
        "median moves",
        "95th pct moves",
        "unfinished",
        *(("stalled / loops / cap",) if ends else ()),
    ):
        t.add_column(col, justify="left" if col == "variant" else "right")
    for r in rows:
        t.add_row(
            _variant_name(r),
            *(() if each else (f"{r['deals']:,}",)),
            f"{r['mean_moves']:.1f} [{r['mean_moves_lo']:.1f}, {r['mean_moves_hi']:.1f}]",
            f"{r['mean_rounds']:.1f} [{r['mean_rounds_lo']:.1f}, {r['mean_rounds_hi']:.1f}]",
            f"{r['median_moves']:.0f} [{r['median_moves_lo']:.0f}, {r['median_moves_hi']:.0f}]",
            f"{r['p95_moves']:.0f} [{r['p95_moves_lo']:.0f}, {r['p95_moves_hi']:.0f}]",
            pct(r["unfinished_rate"], r["unfinished_lo"], r["unfinished_hi"]),
            *((f"{r['stalled']:,} / {r['loops']:,} / {r['capped']:,}",) if ends else ()),
        )
    return t


def _play_table(res):
    """Pick-ups, burns, the starting seat's loss and the skill edges of every variant (a rich
    table).
    """
    from rich.table import Table

    from shedsim.analysis import compare as C
    from shedsim.output.console import pct

    n = res.info["players"]
    ref = res.info["reference_strategy"]
    edges = [lab for lab in res.info["labels"] if lab != ref]
    t = Table(
        title="Play and fairness",
        caption=f"starter loss: the starting seat's loss rate, against its fair share (1/{n} of "
        "the games with a "
        "loser), Holm p over the variants (a family of its own); favoured = loses less often "
        "than that; "
        f"edge: skill edge over {ref}, {ref}'s loss rate minus the strategy's, percentage points "
        f"(positive = the strategy does better than {ref})",
    )
    for col in (
        "variant",
        "pick-ups/game",
        "burns/game",
        "starter loss",
        "fair share",
        "starter",
        "p (Holm)",
        *[f"edge {g}" for g in edges],
    ):
        t.add_column(col, justify="left" if col == "variant" else "right")
    for r in res.variants.to_dict("records"):
        t.add_row(
            _variant_name(r),
            f"{r['pickups_per_game']:.2f} [{r['pickups_per_game_lo']:.2f}, "
            f"{r['pickups_per_game_hi']:.2f}]",
            f"{r['burns_per_game']:.2f} [{r['burns_per_game_lo']:.2f}, "
            f"{r['burns_per_game_hi']:.2f}]",
            pct(r["starter_loss_rate"], r["starter_loss_lo"], r["starter_loss_hi"]),
            f"{100 * r['starter_fair_rate']:.2f}%",
            r["starter_verdict"],
            C.format_p(r["starter_loss_p_holm"]),
            *[_edge_cell(r, g) for g in edges],
        )
    return t


def _edge_cell(r, g) -> str:
    """A skill edge with its interval in percentage points; ``-`` where it is not measured."""
    x = r[f"skill_edge[{g}]"]
    if x != x:
        return "-"
    return (
        f"{100 * x:+.1f} [{100 * r[f'skill_edge_lo[{g}]']:+.1f}, "
        f"{100 * r[f'skill_edge_hi[{g}]']:+.1f}]"
    )


def _value(metric, x) -> str:
    if metric == "mean_moves":
        return f"{x:.1f}"
    from shedsim.output.kinds import rate_like

    if rate_like(metric):
        return f"{100 * x:.2f}%"
    return f"{x:.3f}"


def _typical(r) -> str:
    """The effects table's "typical" cell: the median's shift and the rank test's direction,
    each with its Holm p-value; a direction only where the test is significant (Holm p
    below ``ALPHA``), else "no clear shift" (a direction the test does not support would
    read as a finding)."""
    from shedsim.analysis import compare as C

    up, down = ("longer", "shorter") if r["metric"] == "mean_moves" else ("higher", "lower")

    def way(shift, p) -> str:
        if not p < C.ALPHA:
            return "no clear shift"
        return up if shift > 0 else down if shift < 0 else "same"

    out = []
    if r["p_median"] == r["p_median"]:
        out.append(
            f"median {r['median_baseline']:.0f} -> {r['median_variant']:.0f}: "
            f"{way(r['median_shift'], r['p_median_holm'])} (p {C.format_p(r['p_median_holm'])})"
        )
    if r["p_rank"] == r["p_rank"]:
        out.append(
            f"rank test: {way(r['rank_direction'], r['p_rank_holm'])} "
            f"(p {C.format_p(r['p_rank_holm'])})"
        )
    return "; ".join(out) or "-"


def _print_tables(res, complete: bool = True) -> None:
    """The variants and the significant effects as rich tables on stdout; an interrupted
    run's (not ``complete``) are marked partial."""
    from rich.table import Table

    from shedsim.analysis import compare as C
    from shedsim.output.console import out_console

    console = out_console()
    console.print(_length_table(res, complete))
    console.print(_play_table(res))
    e = res.effects
    sig = e[e["significant_any"]]
    if sig.empty:
        console.print(
            f"No significant difference from the baseline {res.info['baseline']} "
            f"({len(e)} comparisons, Holm-corrected 5%)."
        )
        for line in res.headline():
            console.print(f"- {line}", highlight=False)
        return
    s = Table(
        title=f"Significant effects vs {res.info['baseline']} ({len(sig)} of {len(e)} comparisons "
        "significant by any of their tests: the effect's, rank or median test, Holm-corrected "
        "5% over every test of the effects)",
        caption="p (Holm): the effect's test; typical: the median test (game length) and the "
        "rank test, "
        "each with its direction and Holm p",
    )
    for col in (
        "variant",
        "metric",
        "baseline",
        "variant value",
        "effect [95% interval]",
        "test",
        "p (Holm)",
        "typical",
    ):
        s.add_column(
            col, justify="left" if col in ("variant", "metric", "test", "typical") else "right"
        )
    for r in sig.to_dict("records"):
        s.add_row(
            r["variant"],
            C.metric_title(r["metric"]),
            _value(r["metric"], r["baseline_value"]),
            _value(r["metric"], r["variant_value"]),
            C.format_effect(r["metric"], r["effect"], r["lo"], r["hi"]),
            r["test"].split(" (")[0],
            C.format_p(r["p_holm"]),
            _typical(r),
        )
    console.print(s)
    console.print("Findings:")
    for line in res.headline():
        console.print(f"- {line}", highlight=False)
