"""Rule variants against each other: same strategies, same deals, per-deal statistics.

The package's modules, in the order a run uses them: :mod:`~shedsim.analysis.compare.plan`
(the defaults, the variants, the entries), :mod:`~shedsim.analysis.compare.tally` (per-deal
aggregates), :mod:`~shedsim.analysis.compare.statistics` (estimates and tests),
:mod:`~shedsim.analysis.compare.results` (the run and its tables),
:mod:`~shedsim.analysis.compare.words` (the findings in words) and
:mod:`~shedsim.analysis.compare.outputs` (the files); the charts are
:mod:`shedsim.output.charts.compare`. Every public name is importable from the package itself.

``shedsim compare-rules`` plays every rule variant with the same entries, the same seed and
the tournament schedule (:class:`shedsim.runs.simulate.RunSpec`), variant i on strategy stream
i. Game g then has the same seating and dealer in every variant and, when two rule sets
deal alike (same ``decks``, ``hand_size`` and ``table_size``), the same cards; only the
strategies' coin flips are independent. Such variants are **paired** with the baseline
(the first usable variant); the others are **unpaired**.

The unit of independence is the **deal**: the N rotations of one deal (games
``b*N .. b*N+N-1``, N = players) share their cards and are correlated, different deals are
independent. Every interval and test below is computed from per-deal aggregates (a
deal's mean over its N games), never from games as if they were independent.

Memory: per variant and deal the module keeps the N game lengths (int16, int32 when the
move cap exceeds 32767), N unfinished flags (bool) and end codes (int8), the pick-up and
burn totals (int32), the starting player's losses (int8) and each entry's losses (int8[E]): about 4
bytes per
game plus 9 + E bytes per deal, so a few million games per variant fit in tens of MB.
Full per-game records are dropped as soon as each chunk is aggregated. The game lengths
are kept per game (2 bytes) because the cluster-robust quantile intervals need each
deal's count of games at or below the estimated quantile.

Design: game g = deal b = g // N under rotation g % N; deal b is played at table
``b % T`` of the schedule (:func:`shedsim.runs.simulate.tournament_tables`, T tables), and the
number of games is rounded up to whole blocks, so every table is played equally often.
The table is a fixed, balanced factor of the design, not sampling noise: the standard
errors are the stratified-sampling ones with the tables as strata (within-table
variance; :func:`stratified_mean`). Treating the table mix as random makes intervals too
wide and unpaired tests almost never reject (measured: 0% false positives at 5%).

Statistics (all 95%; library functions named):

* Means (moves, rounds, pick-ups and burns per game) and rates (unfinished, starter's
  loss): mean of the per-deal values, stratified standard error (Cochran, *Sampling
  Techniques*, 1977, eqs. 5.6-5.7), t interval with D - T df (``scipy.stats.t``). Rates'
  intervals are widened to contain the Wilson interval over games
  (:func:`shedsim.stats.wilson`), so that a rate of 0 still gets a width.
* Median and 95th percentile of game length: the distribution-free order-statistic
  interval (Conover, *Practical Nonparametric Statistics*, 1999, sec. 3.2: ranks
  ``scipy.stats.binom.ppf(0.025, n, q)`` and ``binom.ppf(0.975, n, q) + 1``) for the
  effective sample size ``n / deff``, the design effect ``deff`` (at least 1) measured at
  the estimate (Woodruff, JASA 47, 1952; Kish, *Survey Sampling*, 1965).
* Per-strategy loss rate over seat-games: a ratio estimator, linearised per deal
  (Cochran 1977 sec. 6.9; :func:`ratio_values`), stratified standard error. **Skill edge** = the
  reference's loss rate (``random``, or the first entry without it) minus the strategy's:
  positive = the strategy loses less often than the reference (does better than random),
  from the difference of the linearised values.

Each variant against the baseline (per-deal values x_b of both; :func:`effect_test`):

* paired, lengths and counts: ``scipy.stats.wilcoxon`` on the per-deal differences;
  effect = mean difference, interval from the differences' stratified standard error.
* paired, rates: paired t test on the per-deal rate differences (stratified standard error).
* unpaired, lengths and counts: Mann-Whitney U (``scipy.stats.mannwhitneyu``) on the
  per-deal means within each table, combined over tables (van Elteren's stratified
  test, :func:`stratified_mannwhitney`); effect interval: Welch (two stratified
  standard errors, Welch-Satterthwaite df).
* unpaired, rates: Welch t test on the per-deal rates (two stratified standard errors).
* skill edges: difference of the edges, normal (z) interval and test; standard error from
  the two edges' standard errors (unpaired) or from the per-deal differences of the
  linearised values (paired: the shared deals' covariance is kept). A positive effect:
  the variant widens the strategy's edge over random (rewards skill more).
* Rate effects' intervals are clipped to [-1, 1] and skill-edge effects' to [-2, 2], the
  ranges of a difference of shares: the cut-off part holds only impossible values, so the
  coverage is unchanged.
* Two Holm families. The effects' family (effects.csv) holds every test of every effect
  against the baseline together: each variant x metric
  comparison's test of the effect, for lengths and counts its rank test, and for game
  length a median test (:func:`median_test`: the share of each deal's games at or below
  the baseline's median; Mood 1950, counted by deal) (:func:`shedsim.stats.holm`,
  ``statsmodels.stats.multitest.multipletests``). A finding is an effect significant by
  any of its tests; the rank test's direction (the sign of ``W+ - E[W+]`` for Wilcoxon,
  of the combined z for Mann-Whitney) and the median's are reported with it, since with
  skewed game lengths the typical game can get longer while the mean falls (fewer very
  long games), and a rank test of per-deal means, which weighs how much each deal
  changes, can point with the mean. A comparison is significant when any of its tests is
  (``significant_any``); the console, the headline, run.json's ``significant_effects``,
  the report and the forest plot all count that.
* The starting player's fairness: the starter's loss rate against its fair share, the
  share of games with a loser divided by N (1/N when every game finishes; less when
  unfinished games have no loser under stalemate:share), t test over per-deal
  differences, Holm-corrected over the variants (the second family: each variant's own
  fairness, not an effect against the baseline); below the fair share the starter is
  favoured. Between variants fairness is compared by the starter's share of the games with a
  loser (``starter_loss_share``, fair 1/N in every variant), not by its loss rate over all
  games, whose fair share moves with the unfinished games.
* Games with a loser: the starter's loss rate and share and the skill edges need them; a
  variant with fewer than :data:`MIN_LOSER_GAMES_PER_SEAT` x N (5 expected losses per seat)
  has none of them (NaN, verdict "no games with a loser" or "too few games with a loser"),
  and its effects on them are not tested and left out of the families.

:func:`findings` says each finding in words: longer or shorter typical game (median) and
mean, more skill or more luck (skill edges), fairer or less fair (the starter's share of the
games with a loser moving toward or away from 1/N), more or fewer unfinished games, pick-ups
and burns.

Calibration (tests/test_compare.py): A/A comparisons (one rule set under two names) over
200 seeds reject mean length at p < 0.05 in 2-8% of repeats. Rank tests and mean
intervals answer different questions: with game lengths this skewed a rank test can
flag a shift of the typical deal while the mean's interval still includes 0.

Unpaired variants still share the deal keys (the same shuffle, dealt into other shapes),
so their deals are not strictly independent; positive dependence makes the unpaired
tests conservative.
"""

from __future__ import annotations

from shedsim.analysis.compare.outputs import (
    DEFINITIONS,
    TABLES,
    pvalue_columns,
    run_info,
    title,
    write_outputs,
)
from shedsim.analysis.compare.plan import (
    ALPHA,
    DEFAULT_GAMES,
    DEFAULT_OUT,
    DEFAULT_PLAYERS,
    KEEP,
    TARGET_CHUNK,
    CompareError,
    Plan,
    Variant,
    check_entries,
    deal_alike,
    default_strategies,
    each_toggle_variants,
    normal_entries,
    parse_variant,
    plan_variants,
    reference_entry,
    split_variant,
    toggle_candidates,
)
from shedsim.analysis.compare.results import (
    ComparisonResult,
    analyse,
    chunk_size_for,
    compare,
    length_table,
    round_games,
)
from shedsim.analysis.compare.statistics import (
    LOSER_METRICS,
    METRICS,
    MIN_LOSER_GAMES_PER_SEAT,
    VariantStats,
    deal_values,
    edge_effect,
    effect_test,
    has_losers,
    loser_games,
    median_test,
    not_tested,
    starter_verdict,
    table_strata,
    variant_stats,
)
from shedsim.analysis.compare.tally import Tally, seat_games
from shedsim.analysis.compare.words import (
    findings,
    format_effect,
    format_p,
    headline,
    starter_sentence,
)

# defined elsewhere, importable from here as before
from shedsim.output.charts.compare import (
    METRIC_NAMES,
    OVERLAY_MAX,
    metric_title,
    plot_forest,
    plot_lengths,
    subtitle,
)
from shedsim.stats.stratified import (
    Estimate,
    quantile_interval,
    ratio_values,
    stratified_mannwhitney,
    stratified_mean,
    welch,
)

__all__ = [
    "DEFINITIONS",
    "TABLES",
    "pvalue_columns",
    "run_info",
    "title",
    "write_outputs",
    "ALPHA",
    "DEFAULT_GAMES",
    "DEFAULT_OUT",
    "DEFAULT_PLAYERS",
    "KEEP",
    "TARGET_CHUNK",
    "CompareError",
    "Plan",
    "Variant",
    "check_entries",
    "deal_alike",
    "default_strategies",
    "each_toggle_variants",
    "normal_entries",
    "parse_variant",
    "plan_variants",
    "reference_entry",
    "split_variant",
    "toggle_candidates",
    "ComparisonResult",
    "analyse",
    "chunk_size_for",
    "compare",
    "length_table",
    "round_games",
    "LOSER_METRICS",
    "METRICS",
    "MIN_LOSER_GAMES_PER_SEAT",
    "VariantStats",
    "deal_values",
    "edge_effect",
    "effect_test",
    "has_losers",
    "loser_games",
    "median_test",
    "not_tested",
    "starter_verdict",
    "table_strata",
    "variant_stats",
    "Tally",
    "seat_games",
    "findings",
    "format_effect",
    "format_p",
    "headline",
    "starter_sentence",
    "METRIC_NAMES",
    "OVERLAY_MAX",
    "metric_title",
    "plot_forest",
    "plot_lengths",
    "subtitle",
    "Estimate",
    "quantile_interval",
    "ratio_values",
    "stratified_mannwhitney",
    "stratified_mean",
    "welch",
]
