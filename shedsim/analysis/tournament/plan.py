"""A tournament's plan: the defaults, the entries, the seating orders and the
:class:`TournamentSpec` (everything that decides the results), checked before any game.

The schedule itself is :func:`shedsim.runs.simulate.schedule_games` with
``schedule="tournament"``: every table of ``players`` seats drawn from the entries, every
rotation of each table, paired deals; :func:`arranged_tables` adds every cyclic seating order.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shedsim import entries
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.simulate import RunSpec, tournament_tables
from shedsim.runs.store import plan_size_problem

FORMAT = 2
"""Version of spec.json and the chunk tallies (2: per-deal cluster sums added)."""
DEFAULT_GAMES = 200_000
DEFAULT_PLAYERS = 4
DEFAULT_RULES = "shithead"
DEFAULT_OUT = "reports/latest"
TARGET_CHUNK = 20_000
"""The most games in one chunk (:func:`auto_chunk_size`)."""
END_LABELS = ("finished", "stalled", "loop", "cap")
"""How games ended, in ``layout.END_*`` order (``run.json``'s ``ends``)."""
BOT_END_LABELS = END_LABELS + ("forfeit",)
"""How the games of a run with bots ended: a bot's fault forfeits its game
(:data:`shedsim.bot.protocol.END_FORFEIT`)."""
MAX_LENGTH_BINS = 10_000
"""The most bins of the stored game-length histogram (:attr:`TournamentSpec.length_bin`)."""


class TournamentError(ValueError):
    """A tournament option that cannot be used; the message names the option."""


# ---------------------------------------------------------------------- entries
def parse_entries(text: str) -> list[tuple[str, str]]:
    """Read ``--strategies`` (:func:`shedsim.entries.parse_entries`: comma-separated ``SPEC`` or
    ``LABEL=SPEC`` items, ``@ROLE`` selections, ``#2`` for a repeated spec) into ``(label,
    spec)`` pairs. Raises :class:`TournamentError` naming ``--strategies``."""
    try:
        return entries.parse_entries(text)
    except entries.EntryError as e:
        raise TournamentError(str(e)) from None


def default_strategies(extra_paths: tuple[str, ...] = ()) -> list[str]:
    """The default field, by name (:func:`shedsim.entries.default_field`: every built-in
    compiled strategy that is neither slow nor a variant of another; plugins from
    ``extra_paths`` are never in it). Raises :class:`TournamentError` when no built-in
    strategy qualifies or a path is not a directory."""
    try:
        return entries.default_field(extra_paths)
    except entries.EntryError as e:
        raise TournamentError(str(e)) from None


# ---------------------------------------------------------------------- seating orders
SEAT_ORDERS = ("all", "sorted")
"""``--seat-orders``: every cyclic seating order of each table, or the tables as sorted."""
MAX_ARRANGED_TABLES = 20_000
"""Above this many tables ``--seat-orders all`` falls back to ``sorted`` (and says so)."""
MAX_STRATA = 500
"""Above this many table combinations the intervals use one stratum (the tally keeps a few
counters per entry and stratum)."""


def _necklaces(table: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct cyclic order of ``table`` (a multiset), up to rotation, each written
    from its smallest rotation, sorted."""
    import itertools

    out = set()
    for p in set(itertools.permutations(table)):
        out.add(min(p[i:] + p[:i] for i in range(len(p))))
    return sorted(out)


def arranged_count(n_entries: int, players: int) -> int:
    """How many tables ``--seat-orders all`` gives (computed without listing them when large)."""
    base = tournament_tables(n_entries, players)
    if n_entries >= players:
        return len(base) * math.factorial(players - 1)
    if len(base) * math.factorial(players - 1) <= 4 * MAX_ARRANGED_TABLES:
        return len(arranged_tables(n_entries, players))
    return len(base) * math.factorial(players - 1)


_ARRANGED: dict[tuple[int, int], list[tuple[int, ...]]] = {}


def arranged_tables(n_entries: int, players: int) -> list[tuple[int, ...]]:
    """The tables of :func:`shedsim.runs.simulate.tournament_tables`, each in every distinct
    cyclic seating order (who sits after whom). The plain tables are sorted, so each
    entry always has the same neighbours (at 4 players and 4 entries: random always
    plays just before greedy); turn order matters in this game, so a fair schedule must
    vary it. Rotations (already in the schedule) then move every order round the seats."""
    key = (n_entries, players)
    if key not in _ARRANGED:
        _ARRANGED[key] = [n for t in tournament_tables(n_entries, players) for n in _necklaces(t)]
    return _ARRANGED[key]


@dataclass(frozen=True)
class ArrangedRunSpec(RunSpec):
    """A :class:`shedsim.runs.simulate.RunSpec` whose tables are :func:`arranged_tables`
    (``schedule_games`` and ``play_chunk`` read ``spec.tables()``)."""

    def tables(self) -> list[tuple[int, ...]]:
        return arranged_tables(self.seated or len(self.entries), self.players)


# ---------------------------------------------------------------------- the plan
@dataclass
class TournamentSpec:
    """Everything that decides a tournament's results (stored as ``DIR/spec.json``).

    ``games`` is ``games_requested`` rounded up to whole match blocks (``rounds`` x
    ``players`` x number of tables); ``chunk_size`` is a whole number of match blocks, so
    no match and no deal's rotations are split between chunks.
    """

    rules: RuleSet
    rules_input: dict[str, Any]
    players: int
    entries: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int
    games_requested: int
    games: int
    rounds: int
    chunk_size: int
    strategy_paths: tuple[str, ...] = ()
    strategy_hashes: dict[str, str] = field(default_factory=dict)
    save_games: bool = False
    seat_orders: str = "all"
    swap_sources: tuple[str, ...] = ()
    """Strategy specs that never sit at a table but lend their swap functions (the swap
    study's head-to-head of swap policies, :mod:`shedsim.analysis.swaps`)."""
    swap_from: tuple[int, ...] | None = None
    """Per seated entry, the index (into ``entries + swap_sources``) of the entry whose swap
    decides its face-up cards, -1 = keep them as dealt; None = its own swap."""
    bot_move_ms: int = 1000
    bot_game_ms: int | None = None
    """The bots' time control (``--time-per-move``, ``--time-per-game``; :mod:`shedsim.bot`)."""
    deal_set: Any = None
    """The deal set played instead of shuffled deals (``--deals FILE``, a
    :class:`shedsim.rules.deals.DealSet`; its ``sha256`` is part of the identity), or None."""
    control_variate: bool = False
    """Measure each game's luck and report the head to head also corrected for it
    (``--control-variate``: 2 players; :mod:`shedsim.kernel.luck`)."""

    @property
    def has_bots(self) -> bool:
        """Whether an entry is a bot (``bot:COMMAND``, played on the reference engine)."""
        from shedsim.bot.protocol import is_bot

        return any(is_bot(e) for e in self.entries)

    @property
    def end_labels(self) -> tuple[str, ...]:
        """How this run's games can end (:data:`END_LABELS`, with ``forfeit`` when a bot plays)."""
        return BOT_END_LABELS if self.has_bots else END_LABELS

    @property
    def tables(self) -> list[tuple[int, ...]]:
        return self.run_spec().tables()

    @property
    def table_strata(self) -> np.ndarray:
        """int64[tables]: the stratum of each table for the intervals (its combination of
        entries: the seating orders of one combination share a stratum; every stratum is
        played equally often by design). One stratum for all when there would be more
        than :data:`MAX_STRATA`."""
        combos: dict[tuple[int, ...], int] = {}
        out = np.array(
            [combos.setdefault(tuple(sorted(t)), len(combos)) for t in self.tables], np.int64
        )
        return out if len(combos) <= MAX_STRATA else np.zeros(len(out), np.int64)

    @property
    def n_strata(self) -> int:
        return int(self.table_strata.max()) + 1

    @property
    def block(self) -> int:
        """Games per block: every table under every rotation."""
        return self.players * len(self.tables)

    @property
    def match_block(self) -> int:
        return self.rounds * self.block

    @property
    def n_chunks(self) -> int:
        return max(1, math.ceil(self.games / self.chunk_size))

    def chunk_bounds(self, i: int) -> tuple[int, int]:
        return i * self.chunk_size, min(self.games, (i + 1) * self.chunk_size)

    @property
    def length_bin(self) -> int:
        """Width (moves) of the stored game-length histogram bins (1 up to 10,000 moves)."""
        return max(1, math.ceil((self.rules.max_moves + 1) / MAX_LENGTH_BINS))

    def run_spec(self) -> RunSpec:
        cls = ArrangedRunSpec if self.seat_orders == "all" else RunSpec
        extra = tuple(self.swap_sources)
        return cls(
            self.rules,
            self.players,
            self.entries + extra,
            self.labels + extra,
            seed=self.seed,
            games=self.games,
            schedule="tournament",
            strategy_paths=self.strategy_paths,
            chunk_size=self.chunk_size,
            swap_from=None
            if self.swap_from is None
            else tuple(self.swap_from) + (-1,) * len(extra),
            seated=len(self.entries) if extra else 0,
            bot_move_ms=self.bot_move_ms,
            bot_game_ms=self.bot_game_ms,
            bot_cwd=os.getcwd() if self.has_bots else "",
            deals=self.deal_set.deals if self.deal_set is not None else (),
            deals_path=self.deal_set.path if self.deal_set is not None else "",
            luck=self.control_variate,
        )

    def identity(self) -> dict[str, Any]:
        """The fields that decide results (compared on resume; hashed into each chunk)."""
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "entries": list(self.entries),
            "labels": list(self.labels),
            "seed": self.seed,
            "games": self.games,
            "rounds": self.rounds,
            "chunk_size": self.chunk_size,
            "seat_orders": self.seat_orders,
            "strategy_hashes": dict(sorted(self.strategy_hashes.items())),
            **(
                {"swap_sources": list(self.swap_sources), "swap_from": list(self.swap_from)}
                if self.swap_from is not None
                else {}
            ),
            **({"bot_time": [self.bot_move_ms, self.bot_game_ms]} if self.has_bots else {}),
            **({"deals_sha256": self.deal_set.sha256} if self.deal_set is not None else {}),
            # only when on: the runs from before the option keep their keys
            **({"control_variate": True} if self.control_variate else {}),
        }

    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        d = self.identity()
        d.update(
            {
                "rules_input": self.rules_input,
                "games_requested": self.games_requested,
                "strategy_paths": list(self.strategy_paths),
                "save_games": self.save_games,
                "tables": [list(t) for t in self.tables],
                "block": self.block,
                "n_chunks": self.n_chunks,
                "key": self.key(),
            }
        )
        if self.deal_set is not None:
            d["deals"] = self.deal_set.path
        return d


def auto_chunk_size(games: int, match_block: int) -> int:
    """About ``games / 16`` games (at most :data:`TARGET_CHUNK`), rounded to whole match
    blocks: enough chunks to share between workers and show progress, few enough that
    per-chunk overhead stays small. Depends on the games only, never on the workers."""
    target = min(TARGET_CHUNK, max(1, math.ceil(games / 16)))
    return max(1, round(target / match_block)) * match_block


def plan(
    rules: RuleSet,
    players: int,
    strategies: list[tuple[str, str]],
    games: int,
    seed: int = 0,
    rounds: int = 1,
    chunk_size: int | None = None,
    strategy_paths: tuple[str, ...] = (),
    rules_input: dict[str, Any] | None = None,
    save_games: bool = False,
    seat_orders: str = "all",
    bot_time: tuple[int, int | None] = (1000, None),
    deals: str | None = None,
    control_variate: bool = False,
) -> TournamentSpec:
    """Check every option and build the spec, before any game is played.

    Raises :class:`TournamentError` (or :class:`shedsim.rules.RulesError`) naming the
    option: unknown strategy or parameter, plain-Python strategy, fewer than two entries,
    players outside the rule set's range, games < 1, rounds outside 1-10.

    ``seat_orders="all"`` plays every table in every cyclic seating order
    (:func:`arranged_tables`); when that would exceed :data:`MAX_ARRANGED_TABLES` tables
    it falls back to ``"sorted"`` (the plain tables); ``spec.seat_orders`` says which.

    A bot entry (``bot:COMMAND``, ``--bot LABEL=COMMAND``) is started once and greeted
    before anything else (:func:`shedsim.bot.process.check_bots`; ``bot_time``: the
    milliseconds per move and per game, None for no game budget); a bot that cannot start
    or greet raises :class:`TournamentError` naming it and what it printed.

    ``deals`` (a deal-set file, :mod:`shedsim.rules.deals`) plays its K deals instead of
    shuffled ones, each at every table under every rotation: ``games`` is then K x tables x
    players (``games`` is not read); K must be a multiple of ``rounds``. A bad file raises
    :class:`TournamentError` naming ``--deals``, the file and the line.

    ``control_variate`` (``--control-variate``) also measures each game's luck
    (:mod:`shedsim.kernel.luck`) for the corrected head to head; it needs 2 players,
    compiled strategies that do not see the hidden cards, and shuffled deals: otherwise
    :class:`TournamentError` names the option and why.
    """
    from shedsim.bot.process import BotStartError, check_bots
    from shedsim.bot.protocol import BotSpecError, is_bot
    from shedsim.plugins import PluginError, compiled_strategy, discover

    rules.check_players(players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TournamentError(f"--games: must be at least 1, got {games!r}")
    if not 1 <= rounds <= 10:
        raise TournamentError(f"--rounds: must be 1-10, got {rounds}")
    if seed < 0:
        raise TournamentError(f"--seed: must be non-negative, got {seed}")
    if len(strategies) < 2:
        raise TournamentError(
            "--strategies: a tournament needs at least two entries "
            "(enter one strategy twice, e.g. greedy,greedy, for an A/A test)"
        )
    try:
        known = discover(list(strategy_paths))
        hashes = {}
        for _label, spec in strategies:
            if is_bot(spec):
                continue
            s = compiled_strategy(known, spec, "a tournament")
            hashes[s.name] = s.source_hash
    except PluginError as e:
        raise TournamentError(f"--strategies: {e}") from None
    try:
        check_bots(strategies, *bot_time)
    except (BotSpecError, BotStartError) as e:
        raise TournamentError(str(e)) from None
    if seat_orders not in SEAT_ORDERS:
        raise TournamentError(
            f"--seat-orders: one of {', '.join(SEAT_ORDERS)}; got {seat_orders!r}"
        )
    if seat_orders == "all" and arranged_count(len(strategies), players) > MAX_ARRANGED_TABLES:
        seat_orders = "sorted"
    n_tables = (
        len(arranged_tables(len(strategies), players))
        if seat_orders == "all"
        else len(tournament_tables(len(strategies), players))
    )
    mblock = rounds * players * n_tables
    deal_set = _deal_set(deals, rules, players, rounds)
    if control_variate:
        why = _luck_refusal(strategies, players, deal_set is not None)
        if why:
            raise TournamentError(f"--control-variate: {why}")
    if deal_set is not None:
        games = len(deal_set.deals) * players * n_tables
    total = math.ceil(games / mblock) * mblock
    if chunk_size is None:
        chunk_size = auto_chunk_size(total, mblock)
    else:
        if chunk_size < 1:
            raise TournamentError(f"--chunk-size: must be at least 1, got {chunk_size}")
        chunk_size = math.ceil(chunk_size / mblock) * mblock
    too_big = plan_size_problem(math.ceil(total / chunk_size), total, chunk_size)
    if too_big:
        raise TournamentError(too_big)
    return TournamentSpec(
        rules=rules,
        rules_input=rules_input or {"rules": rules.name, "house": list(rules.house)},
        players=players,
        entries=tuple(s for _, s in strategies),
        labels=tuple(lab for lab, _ in strategies),
        seed=seed,
        games_requested=games,
        games=total,
        rounds=rounds,
        chunk_size=chunk_size,
        strategy_paths=tuple(strategy_paths),
        strategy_hashes=hashes,
        save_games=save_games,
        seat_orders=seat_orders,
        bot_move_ms=bot_time[0],
        bot_game_ms=bot_time[1],
        deal_set=deal_set,
        control_variate=control_variate,
    )


def _luck_refusal(strategies, players: int, deals: bool) -> str | None:
    """Why ``--control-variate`` cannot measure these games' luck, or None (the conditions
    of :func:`shedsim.kernel.luck.luck`: 2 seats, games the kernel traces, deals re-dealt
    from their keys; a strategy that sees the hidden cards, which would break the rollouts'
    assumption, never sits at a tournament's table)."""
    from shedsim.bot.protocol import is_bot

    if players != 2:
        return f"it needs 2 players, not {players}"
    if deals:
        return "it replays shuffled deals, not a deal set (--deals)"
    for label, spec in strategies:
        if is_bot(spec):
            return f"{label} is a bot: its games are not traced"
    return None


def _deal_set(path: str | None, rules: RuleSet, players: int, rounds: int):
    """``--deals``: the deal set read and checked (:func:`shedsim.rules.deals.read`), or None."""
    if path is None:
        return None
    from shedsim.rules.deals import DealsError, read

    try:
        ds = read(path, rules, players)
    except DealsError as e:
        raise TournamentError(f"--deals: {e}") from None
    if len(ds.deals) % rounds:
        raise TournamentError(
            f"--rounds: {rounds} rounds need a multiple of {rounds} deals; "
            f"--deals {path} holds {len(ds.deals)}"
        )
    return ds
