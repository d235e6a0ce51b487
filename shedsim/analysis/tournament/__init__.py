"""Tournaments: planning, streaming aggregation, the run store, resume, analysis.

The package's modules, in the order a run uses them: :mod:`~shedsim.analysis.tournament.plan`
(the defaults, the entries, the seating orders, :class:`TournamentSpec`),
:mod:`~shedsim.analysis.tournament.tally` (a chunk's records to counters, and their sum),
:mod:`~shedsim.analysis.tournament.store` (the run directory, ``--resume``, the job the run
machinery plays), :mod:`~shedsim.analysis.tournament.results` (the statistics) and
:mod:`~shedsim.analysis.tournament.outputs` (the findings in words, the files). Every public
name is importable from the package itself.

Flow (DESIGN.md): a :class:`TournamentSpec` says what to play; the schedule is
:func:`shedsim.runs.simulate.schedule_games` with ``schedule="tournament"`` (every table of
``players`` seats drawn from the entries, every rotation of each table, paired deals);
chunks of consecutive games are played by the run machinery (:mod:`shedsim.runs.execute`:
workers, run store, resume, signals); each finished chunk is reduced at once by
:func:`aggregate_chunk` to a few small integer
arrays (counters), written to ``DIR/chunks/NNNNN.npz`` (atomically) and its records are
dropped, so memory does not grow with ``--games``. The final results are the sum of the
chunk files (integer addition: the same whatever the order, the number of workers, or how
many sessions a resumed run took), analysed by :func:`analyse` with :mod:`shedsim.stats`.

Definitions used in every output (see docs/explanation/statistics.md#intervals):

* A strategy's **games** count seat-games: a strategy seated twice at a table (possible
  when there are fewer entries than seats) plays two seat-games in that game.
* **Win** = place 1 (first out). **Loss** = last place (the Idiot / Shithead).
* **Unfinished** games (stopped before one player was left: a proven loop, stalled by
  the no-progress rule ``stall:N``, or the move cap; :mod:`shedsim.rules.engine`) are counted,
  never dropped, and how each ended is counted too (``stalled``, ``loops``, ``capped``):
  a seat that went out before the stop keeps its place (so a win can happen in an
  unfinished game); under ``stalemate:share`` (the default) the seats still in share the
  remaining places, each getting their mean, for mean place and for head-to-head (two
  seats still in are a tie), and **nobody lost** an unfinished game; under
  ``stalemate:most_cards`` the kernel has placed them by cards held, and the last is
  the loser.
* **Matches** (``rounds`` > 1): the K games of one table and one rotation with K
  consecutive deals of that table (game g and g + j * block for j < K); a seat's match
  score is its summed places (as palace scores), lowest total wins; tied totals share the
  mean of their ranks.
"""

from __future__ import annotations

from shedsim.analysis.tournament.outputs import (
    OUTPUTS,
    TABLES,
    describe_ends,
    headline,
    write_outputs,
)
from shedsim.analysis.tournament.plan import (
    DEFAULT_GAMES,
    DEFAULT_OUT,
    DEFAULT_PLAYERS,
    DEFAULT_RULES,
    FORMAT,
    MAX_ARRANGED_TABLES,
    MAX_LENGTH_BINS,
    MAX_STRATA,
    SEAT_ORDERS,
    TARGET_CHUNK,
    ArrangedRunSpec,
    TournamentError,
    TournamentSpec,
    arranged_count,
    arranged_tables,
    auto_chunk_size,
    default_strategies,
    parse_entries,
    plan,
)
from shedsim.analysis.tournament.results import (
    END_LABELS,
    Results,
    analyse,
    degenerate_note,
    degenerate_pairs,
    seat_table,
)
from shedsim.analysis.tournament.store import RunOutcome, Store, TournamentJob, run, spec_from_store
from shedsim.analysis.tournament.tally import (
    CLUSTER_ENTRY_KEYS,
    CLUSTER_MATCH_KEYS,
    CLUSTER_SEAT_KEYS,
    RAGGED,
    CV_KEYS,
    LUCK_KEEP,
    RECORD_KEEP,
    SAVE_KEEP,
    SPARSE_KEYS,
    aggregate_chunk,
    empty_tally,
    luck_fit_shortfall,
    merge,
    play_total,
    record_keep,
    sparse_problem,
)

# defined elsewhere, importable from here as before
from shedsim.base.atomic import write_text as atomic_write_text
from shedsim.output.csvs import FLOAT_FORMATS, PVALUE_COLUMNS, format_frame, write_csv
from shedsim.rules.ruleset import RuleSet
from shedsim.rules.scoring import effective_places2
from shedsim.runs.execute import Job, Outcome, play, versions, write_run_json
from shedsim.runs.simulate import RunSpec, schedule_games, tournament_tables

__all__ = [
    "OUTPUTS",
    "TABLES",
    "describe_ends",
    "headline",
    "write_outputs",
    "DEFAULT_GAMES",
    "DEFAULT_OUT",
    "DEFAULT_PLAYERS",
    "DEFAULT_RULES",
    "FORMAT",
    "MAX_ARRANGED_TABLES",
    "MAX_LENGTH_BINS",
    "MAX_STRATA",
    "SEAT_ORDERS",
    "TARGET_CHUNK",
    "ArrangedRunSpec",
    "TournamentError",
    "TournamentSpec",
    "arranged_count",
    "arranged_tables",
    "auto_chunk_size",
    "default_strategies",
    "parse_entries",
    "plan",
    "END_LABELS",
    "Results",
    "analyse",
    "degenerate_note",
    "degenerate_pairs",
    "seat_table",
    "RunOutcome",
    "Store",
    "TournamentJob",
    "run",
    "spec_from_store",
    "CLUSTER_ENTRY_KEYS",
    "CLUSTER_MATCH_KEYS",
    "CLUSTER_SEAT_KEYS",
    "RAGGED",
    "CV_KEYS",
    "LUCK_KEEP",
    "RECORD_KEEP",
    "SAVE_KEEP",
    "SPARSE_KEYS",
    "aggregate_chunk",
    "empty_tally",
    "luck_fit_shortfall",
    "merge",
    "play_total",
    "record_keep",
    "sparse_problem",
    "atomic_write_text",
    "FLOAT_FORMATS",
    "PVALUE_COLUMNS",
    "format_frame",
    "write_csv",
    "RuleSet",
    "effective_places2",
    "Job",
    "Outcome",
    "play",
    "versions",
    "write_run_json",
    "RunSpec",
    "schedule_games",
    "tournament_tables",
]
