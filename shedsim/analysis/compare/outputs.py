"""What a comparison writes: the definitions of every column, the run's title, the files
(:data:`TABLES`, the charts of :mod:`shedsim.output.charts.compare`) and the run.json
contents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shedsim.analysis.compare.results import ComparisonResult
from shedsim.output import charts
from shedsim.output.charts import compare as compare_charts
from shedsim.output.charts.compare import subtitle
from shedsim.output.csvs import write_csv


DEFINITIONS: dict[str, str] = {
    "variant": (
        "the rule variant as given (--rules text, X+toggle with --each-toggle; a repeat gets #2)"
    ),
    "baseline": (
        "the first variant that allows the player count; every effect is variant minus baseline"
    ),
    "rules, toggles": (
        "the preset (or rules file) the variant starts from, and the house toggles applied to it"
    ),
    "games, deals": "games played per variant (rounded up to whole blocks of every table x every "
    "rotation) and "
    "deals (games / players)",
    "deal": "the unit of independence: the N games (rotations of the seating) that share one "
    "deal; every interval "
    "and test is computed over per-deal values",
    "paired": "the variant deals the same cards as the baseline (same decks, hand_size, "
    "table_size); seating and "
    "dealer are always the same, strategy randomness is independent (own stream)",
    "mean_moves": "mean game length in moves (one move = one turn: a play, pick-up or gamble); "
    "unfinished games "
    "count the moves made before they were stopped; t interval over per-deal means with the "
    "within-table (stratified) standard "
    "error",
    "mean_rounds": (
        "mean game length in rounds, a round being N moves (N = players): mean_moves / N"
    ),
    "median_moves": "median game length in moves (inverse-ECDF quantile); order-statistic interval "
    "(scipy.stats.binom ranks) with the effective sample size games / deff",
    "p95_moves": "95th percentile of game length in moves; interval as for the median",
    "median_deff": "design effect of the deals' clustering at the median: cluster-robust over "
    "binomial variance of "
    "the share of games at or below it (at least 1); p95_deff likewise",
    "unfinished_rate": "share of games stopped before one player was left (a proven loop, "
    "stalled by stall:N, or "
    "the move cap); cluster-robust interval over deals widened to contain the Wilson interval "
    "over games",
    "stalled": "games stopped by the no-progress rule stall:N; loops: proven loops (the whole "
    "position repeated, "
    "every seat still in deterministic); capped: games stopped at the move cap (these three "
    "columns "
    "appear when some game stalled or looped)",
    "strata": "the schedule's tables: deal b is played at table b % T, every table equally "
    "often; standard errors "
    "are within-table (stratified sampling, Cochran 1977 eq. 5.6), df = deals - tables",
    "pickups_per_game": (
        "pick-ups per game, summed over all seats; t interval over per-deal means (stratified)"
    ),
    "burns_per_game": (
        "burns per game, summed over all seats; t interval over per-deal means (stratified)"
    ),
    "starter_loss_rate": "share of games in which the seat that started finished last; a fair "
    "game gives "
    "starter_fair_rate. NaN (and the skill edges too) when fewer than 5 x N games have a loser "
    "(under 5 expected losses per seat)",
    "starter_loss_share": "the starting seat's share of the games with a loser (its losses / "
    "loser_games); fair: 1/N in every variant, however many games end unfinished, so this "
    "(not starter_loss_rate, whose fair share moves with the unfinished games) says whether a "
    "variant is fairer; ratio estimator linearised per deal, interval widened to contain the "
    "Wilson interval",
    "loser_games": "games with a loser (one seat finished last); under stalemate:share an "
    "unfinished game has none",
    "starter_fair_rate": "the starter's fair share of losses: games with a loser / N (1/N when "
    "every game "
    "finishes; less when unfinished games have no loser under stalemate:share)",
    "starter_loss_p_value": "two-sided p-value of starter_loss_rate = starter_fair_rate (t test "
    "over per-deal "
    "differences, stratified standard error); starter_loss_p_holm: Holm-corrected over the "
    "variants, a family of its own (each variant's fairness, not an effect against the "
    "baseline)",
    "starter_verdict": "favoured: the starter loses less often than its fair share "
    "(starter_loss_p_holm < 0.05); "
    "disfavoured: more often; fair within noise: otherwise; no games with a loser / too few "
    "games with a loser: fewer than 5 x N (not tested). A variant that moves "
    "starter_loss_share toward 1/N makes the game fairer",
    "loss_rate[S]": "share of strategy S's seat-games finished in last place (a strategy seated "
    "twice at a table "
    "plays two seat-games); ratio estimator linearised per deal, stratified t interval",
    "skill_edge[S]": "the reference strategy's loss rate (random, or the first entry without it) "
    "minus "
    "loss_rate[S]: positive = S loses less often than the reference (S does better than random); "
    "t interval from linearised per-deal contributions",
    "effect": "variant minus baseline, in the metric's unit (rates and skill edges as shares: "
    "x100 for percentage "
    "points); for a skill edge, positive = the variant widens S's edge over the reference "
    "(rewards skill "
    "more), negative = it narrows it (more luck)",
    "relative": "effect / |baseline value|",
    "std_effect": "effect / (sqrt(deals) x root mean square of the two standard errors): the "
    "effect in per-deal "
    "standard deviations (Cohen's d on the deal scale)",
    "test": "the test of the effect shown (it decides p_value, p_holm and significant): paired t "
    "on per-deal "
    "differences (paired), Welch t on per-deal values (unpaired), both with within-table "
    "variances; skill "
    "edges: z test of the difference of edges",
    "rank_test, p_rank": "lengths and counts only: Wilcoxon signed-rank on per-deal differences "
    "(paired) or Mann-Whitney U on per-deal means within each table combined over tables "
    "(van Elteren; statistic = combined z) (unpaired). It asks whether the typical deal "
    "shifts, which for skewed game lengths can differ from the mean (the typical game can "
    "get longer while the mean falls: fewer very long games)",
    "rank_direction": "which way the rank test points, an integer: +1 the variant's deals are "
    "typically higher "
    "(longer games, more pick-ups), -1 lower, 0 neither; the sign of W+ - n(n+1)/4 (Wilcoxon) or "
    "of the combined z",
    "p_rank_holm, significant_rank": "the rank test's p-value Holm-corrected in the same family "
    "as p_holm, and "
    "p_rank_holm < 0.05",
    "median_baseline, median_variant": "mean_moves rows: the median game length of the baseline "
    "and the variant "
    "(moves, inverse-ECDF as in variants.csv)",
    "median_shift, p_median": "mean_moves rows: does the typical game get longer (+1) or shorter "
    "(-1), an integer "
    "(0: the same share)? The median "
    "test: the share of each deal's games at or below the baseline's median, compared as a "
    "rate (paired t on per-deal differences, or Welch t); p_median_holm and "
    "significant_median: Holm-corrected in the same family as p_holm",
    "lo, hi": "95% interval; for effects: t interval of the mean per-deal difference (paired), "
    "Welch interval "
    "(unpaired), normal interval (skill edges); all with within-table standard errors; a rate "
    "effect's interval is clipped to [-1, 1] and a skill edge's to [-2, 2], the ranges of a "
    "difference of shares (only impossible values are cut off)",
    "p_holm": "Holm-corrected p-value of the effect's test; the family is every test of "
    "effects.csv: each variant x metric comparison's test of the effect, its rank test "
    "(lengths and counts) and the median test (game length); tests not made (NaN) are left "
    "out. The starter's fairness tests of variants.csv are a separate family",
    "significant": "p_holm < 0.05 (the effect's test)",
    "significant_any": "significant by any of its tests: significant, significant_rank or "
    "significant_median. This is what the console, the headline, run.json's "
    "significant_effects, the report and forest.png's colour count as significant",
    "headline": "the findings in words, one sentence per variant: every effect significant by "
    "any of its tests, as "
    "longer or shorter typical game (median, rank test) and mean, more skill or more luck (skill "
    "edges), fairer or less fair (starter_loss_share toward or away from 1/N), more or "
    "fewer unfinished games, pick-ups and burns",
    "games, share (lengths.csv)": (
        "games of the variant in the length bin, and their share of all its games"
    ),
}


TABLES = ("variants.csv", "effects.csv", "lengths.csv")
"""The comparison's tables, in the order :func:`write_outputs` writes them."""


def title(res: ComparisonResult) -> str:
    """The run's one-line title."""
    return (
        f"Rule variants compared with {res.info['baseline']} "
        f"({len(res.plan.variants)} variants, {res.info['players']} players)"
    )


def pvalue_columns(df) -> list[str]:
    """The columns of ``df`` written as p-values (e-notation): ``p_*``, ``*p_value``,
    ``*p_holm``."""
    return [c for c in df.columns if c.startswith("p_") or c.endswith(("p_value", "p_holm"))]


def write_outputs(res: ComparisonResult, out: Path, plots: bool = True) -> list[str]:
    """Write :data:`TABLES` (p-values in e-notation: :func:`pvalue_columns`) and, with
    ``plots``, the charts of :data:`shedsim.output.charts.compare.CHARTS` into ``out``;
    returns the file names, sorted. Each file is written atomically (raises
    :class:`shedsim.base.atomic.WriteError` naming the file)."""
    out = Path(out)
    files = []
    for name, df in zip(TABLES, (res.variants, res.effects, res.lengths)):
        write_csv(df, out / name, pvalue_columns(df))
        files.append(name)
    if plots:
        files += charts.write(compare_charts.CHARTS, out, res)
    return sorted(files)


def run_info(res: ComparisonResult, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run.json contents (without ``outputs``, which :func:`shedsim.runs.execute.write_run_json`
    adds)."""
    from shedsim.runs.execute import versions

    i = dict(res.info)
    info = {
        "command": "shedsim compare-rules",
        "title": title(res),
        "subtitle": subtitle(res),
        "spec": {
            "variants": i.pop("variants"),
            "baseline": i.pop("baseline"),
            "players": i.pop("players"),
            "strategies": i.pop("labels"),
            "entries": i.pop("entries"),
            "seed": i.get("seed"),
            "games_requested": i.get("games_requested"),
            "games": i.get("games"),
            "house": i.pop("house"),
            "skipped": i.pop("skipped"),
            "reference_strategy": i.pop("reference_strategy"),
        },
        "definitions": DEFINITIONS,
        "headline": res.headline(),
        "versions": versions(),
        **i,
    }
    if extra:
        info.update(extra)
    return info
