"""Head-to-head matches of two strategies, X (``a``) against Y (``b``), on the kernel: the
schedule of paired deals (each deal under every rotation of the seats, or one deal per game),
X's score per game and per unit, the loaded match (:func:`open_match`) that plays batch after
batch, and the option errors (:class:`SPRTError`). What the games and units are:
:mod:`shedsim.analysis.sprt` (which re-exports every name here); the tests that play these
matches: :mod:`shedsim.analysis.sprt`, :mod:`shedsim.analysis.pairing`, the gauntlet.
"""

from __future__ import annotations

from collections.abc import Sequence

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from shedsim.rules.ruleset import RuleSet


class SPRTError(ValueError):
    """An option that cannot be used; the message names the option (``--a``, ``--elo1``...)."""


def schedule(players: int, start: int, stop: int, paired: bool = True) -> dict[str, np.ndarray]:
    """Games ``start..stop-1`` of a head-to-head run: :func:`shedsim.runs.simulate.head_to_head`
    (X, entry 0, in seat ``(-(g % players)) % players``; ``paired``: each deal under every
    rotation, else a fresh deal for every game)."""
    from shedsim.runs.simulate import head_to_head

    return head_to_head(players, start, stop, paired)


def half_points(places: np.ndarray, x_seat: np.ndarray) -> np.ndarray:
    """X's score in each game in half points (int64[n], 0 .. 2 (P - 1)): per Y seat, 2 if X
    finished ahead, 1 if level (both still in at the move cap), 0 if behind. ``places``:
    the kernel's int8[n, P] (0 = still in), ``x_seat`` int64[n]."""
    from shedsim.rules.scoring import effective_places2

    eff = effective_places2(places)
    ex = eff[np.arange(len(eff)), x_seat][:, None]
    return 2 * (ex < eff).sum(axis=1) + (ex == eff).sum(axis=1) - 1


@dataclass
class Match:
    """X against Y on the kernel: the loaded kernel and strategies, reused batch after batch."""

    spec: Any
    known: dict
    kernel: Any
    ids: np.ndarray
    params: np.ndarray
    rules_array: np.ndarray

    def records(
        self, sched: dict[str, np.ndarray], dk: np.ndarray, sk: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Per-game records of ``sched``'s games (keys ``dk``, ``sk``): on the kernel, or with a
        bot (id -1) on the reference engine, with the spec's deal-set decks when it has one
        (:func:`shedsim.runs.simulate.play_schedule`).
        Raises :class:`shedsim.kernel.build.KernelError`,
        :class:`shedsim.runs.simulate.SimulationError`."""
        from shedsim.runs.simulate import play_schedule

        return play_schedule(
            self.spec,
            self.known,
            self.kernel,
            self.ids,
            self.params,
            self.rules_array,
            sched,
            dk,
            sk,
        )

    def play(self, start: int, stop: int, paired: bool) -> tuple[np.ndarray, np.ndarray]:
        """Half points of X in games ``start..stop-1`` (int64[n]) and which of them reached
        the move cap (bool[n]). Raises :class:`shedsim.runs.simulate.SimulationError`."""
        sched, rec = self.played(start, stop, paired)
        return half_points(rec["places"], sched["x_seat"]), rec["unfinished"].astype(bool)

    def played(
        self, start: int, stop: int, paired: bool
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """The schedule of games ``start..stop-1`` (:func:`schedule`) and their per-game
        records (:meth:`records`). Raises :class:`shedsim.runs.simulate.SimulationError`
        naming the game, the strategy and the command that replays it when a game fails or
        crashes the process."""
        from shedsim.kernel.build import KernelError
        from shedsim.seeding import game_keys
        from shedsim.runs.simulate import SimulationError, describe_failure

        sched = schedule(self.spec.players, start, stop, paired)
        dk, sk = game_keys(self.spec.seed, sched["index"], sched["deal"], self.spec.stream)
        try:
            rec = self.records(sched, dk, sk)
        except KernelError as e:
            # the trace command replays this schedule's games (trace --schedule head-to-head...)
            spec = dataclasses.replace(
                self.spec, schedule="head-to-head" if paired else "head-to-head-unpaired"
            )
            raise SimulationError(describe_failure(spec, self.known, sched, dk, sk, e)) from None
        return sched, rec


def as_rules(rules: RuleSet | str) -> RuleSet:
    if isinstance(rules, RuleSet):
        return rules
    from shedsim.rules.ruleset import build

    return build(str(rules), [], None)


def rules_name(rs: RuleSet) -> str:
    """The rule set as people name it: the preset plus its house toggles (``shithead+low5``)."""
    return rs.name + ("+" + "+".join(rs.house) if rs.house else "")


SLOW_BATCH = 32
"""Games per batch of ``sprt`` and ``gauntlet`` when ``--batch`` is not given and a strategy
is slow (``TRAITS`` cost ``slow``: a search per decision, a few games a second): small
batches let a sequential test stop soon after it decides and the progress move, where
thousands of games would keep a worker busy for minutes."""


def any_slow(specs: Sequence[str], strategy_paths: Sequence[str] = ()) -> bool:
    """Whether any of the strategy specs ``specs`` names a slow strategy (``TRAITS['cost']``:
    a search per decision). A spec that does not resolve (a bot, an unknown name: reported
    later, when the match opens) counts as not slow."""
    from shedsim.plugins import PluginError, discover, parse_spec

    try:
        known = discover(list(strategy_paths))
    except PluginError:
        return False
    for spec in specs:
        try:
            name, _ = parse_spec(spec)
            if known.require(name).traits.cost == "slow":
                return True
        except (PluginError, KeyError, ValueError):
            continue
    return False


def default_batch(specs: Sequence[str], default: int, strategy_paths: Sequence[str] = ()) -> int:
    """``--batch`` when not given: :data:`SLOW_BATCH` when any of the strategy specs
    ``specs`` names a slow strategy (:func:`any_slow`), else ``default``."""
    return SLOW_BATCH if any_slow(specs, strategy_paths) else default


def open_match(
    a: str,
    b: str,
    rules: RuleSet | str,
    players: int = 2,
    seed: int = 0,
    strategy_paths: tuple[str, ...] = (),
    bot_time: tuple[int, int | None] = (1000, None),
    command: str = "sprt",
) -> Match:
    """Check the options and load the kernel for X = ``a`` against Y = ``b`` (strategy specs
    ``NAME`` or ``NAME:param=v``); ``command`` names the command that plays the match (a
    strategy that sees the hidden cards is refused outside ``sprt``, and against a bot,
    whose games the reference engine plays). Raises :class:`SPRTError` naming ``--a``/``--b``,
    ``--players`` or ``--seed``, and :class:`shedsim.rules.RulesError` for bad rules. A bot
    (``bot:COMMAND``) is started and greeted first; ``bot_time``: its milliseconds per move
    and per game (None: no game budget)."""
    from shedsim.plugins import PluginError, compiled_strategy, discover
    from shedsim.rules.ruleset import RulesError
    from shedsim.runs.simulate import RunSpec, loaded_kernel

    rs = as_rules(rules)
    try:
        rs.check_players(players)
    except RulesError as e:
        msg = str(e)
        raise SPRTError(f"--players: {msg.removeprefix(e.field + ': ')}") from None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SPRTError(f"--seed: a non-negative integer, got {seed!r}")
    try:
        known = discover(list(strategy_paths))
    except PluginError as e:
        raise SPRTError(str(e)) from None
    from shedsim.bot.process import BotStartError, check_bots
    from shedsim.bot.protocol import BotSpecError, is_bot

    for opt, s in (("--a", a), ("--b", b)):
        try:
            if not is_bot(s):
                st = compiled_strategy(known, s, command)
                if st.traits.cheating and (is_bot(a) or is_bot(b)):
                    st.player()  # refused: a bot's games are played on the reference engine
        except PluginError as e:
            raise SPRTError(f"{opt}: {e}") from None
    try:  # a bot is started and greeted once before any game
        check_bots([("--a", a), ("--b", b)], *bot_time)
    except (BotSpecError, BotStartError) as e:
        raise SPRTError(str(e)) from None
    labels = (a, b if b != a else f"{b}#2")
    spec = RunSpec(
        rs,
        players,
        (a, b),
        labels,
        seed=int(seed),
        games=1,
        schedule="tournament",
        strategy_paths=tuple(str(p) for p in strategy_paths),
        bot_cwd=os.getcwd() if is_bot(a) or is_bot(b) else "",
        bot_move_ms=bot_time[0],
        bot_game_ms=bot_time[1],
    )
    known, k, ids, params = loaded_kernel(spec)
    return Match(spec, known, k, ids, params, rs.compile(players))


def degenerate_note(
    a: str, b: str, players: int, strategy_paths: tuple[str, ...] = (), paired: bool = True
) -> str | None:
    """A note when X = ``a`` and Y = ``b`` are the same deterministic strategy with the same
    parameters (:func:`shedsim.plugins.deterministic_identity`): every seat then plays
    alike, each rotation of a deal replays the same game, and every paired unit scores
    exactly 1/2, the SPRT accepts H0 after a few dozen units and the A/A test cannot fail.
    None otherwise, and for unpaired deals (each game's own cards decide it: a valid A/A test)."""
    from shedsim.plugins import deterministic_identity, discover

    try:
        known = discover(list(strategy_paths))
    except Exception:  # noqa: BLE001 - a note only; open_match reports plugin errors
        return None
    ia = deterministic_identity(known, a)
    if not paired or ia is None or ia != deterministic_identity(known, b):
        return None
    return (
        f"degenerate comparison: {a} and {b} are the same deterministic strategy and nobody "
        "else sits at the "
        "table, so every rotation of a deal replays the same game: every paired unit scores "
        "exactly 0.5 and "
        "this A/A test cannot fail. To check the test's error rate, use a strategy with "
        "randomness "
        f"(e.g. --a random --b random); to compare two strategies, name two different ones."
    )


def unit_codes(h: np.ndarray, unit_games: int) -> np.ndarray:
    return h if unit_games == 1 else h.reshape(-1, unit_games).sum(axis=1)


def interval(counts: np.ndarray) -> tuple[float, float, float]:
    """Mean unit score and its 95% t interval from category counts (``int64[K]``: units
    scoring ``k / (K - 1)``). Where X won every unit, or lost every unit, the t interval
    has no width (a sample variance of 0), which no finite sample supports: the Wilson
    score interval of the mean is given instead (a score in [0, 1] with mean m has a
    variance of at most m(1 - m); Wilson 1927, :func:`shedsim.stats.wilson`). Units all
    scoring 1/2 keep the point: that is what identical deterministic players give, every
    unit a draw by symmetry (:func:`degenerate_note`)."""
    from shedsim.stats import t_interval, wilson

    k = len(counts)
    a = np.arange(k, dtype=np.float64) / (k - 1)
    c = counts.astype(np.float64)
    m, lo, hi = t_interval(c.sum(), c @ a, c @ (a * a))
    if c.sum() > 0 and c.sum() in (c[0], c[-1]):  # every unit lost, or every unit won
        lo, hi = wilson(c @ a, c.sum())
    return float(m), float(np.clip(lo, 0, 1)), float(np.clip(hi, 0, 1))


LUCK_BATCH = 200
"""``--batch`` of a test with the control variate when not given (at most; a slow strategy's
is smaller): each game then costs its replay's rollouts, so a batch played past the decision
costs more."""


def luck_refusal(match: Match, paired: bool, deals: bool = False) -> str | None:
    """Why the control variate (``--control-variate``) cannot be used on this match, or None:
    it needs 2 players, compiled strategies that do not see the hidden cards (its rollouts
    assume that no decision depended on them) and shuffled deals (the replay re-deals them
    from their keys)."""
    from shedsim.bot.protocol import is_bot
    from shedsim.plugins import compiled_strategy

    if match.spec.players != 2:
        return f"it needs 2 players, not {match.spec.players}"
    if deals:
        return "it replays shuffled deals, not a deal set (--deals)"
    for s in match.spec.entries:
        if is_bot(s):
            return f"{s} is a bot: its games are not traced"
        if compiled_strategy(match.known, s, "sprt").traits.cheating:
            return f"{s} sees the hidden cards: the rollouts assume no decision depended on them"
    return None


def play_units_luck(
    match: Match, u0: int, u1: int, paired: bool, reps: int, max_stock: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_units` with the control variate: also each unit's luck of X (float64[n]:
    the mean over its games of X's chance-event terms, :func:`shedsim.kernel.luck.luck` with
    ``reps`` rollouts per value and stock draws from ``max_stock`` cards; X's corrected unit
    score is its score minus this). 2 players (:func:`luck_refusal`). Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.kernel.build import KernelError
    from shedsim.kernel.luck import ReplayMismatch, play_traced
    from shedsim.runs.simulate import SimulationError, describe_failure
    from shedsim.seeding import game_keys

    unit_games = 2 if paired else 1
    sched = schedule(2, u0 * unit_games, u1 * unit_games, paired)
    dk, sk = game_keys(match.spec.seed, sched["index"], sched["deal"], match.spec.stream)
    try:
        rec = play_traced(
            match.kernel, match.rules_array, match.ids, match.params, sched["seating"], dk, sk,
            sched["dealer"], reps, max_stock,
        )  # fmt: skip
    except KernelError as e:
        spec = dataclasses.replace(
            match.spec, schedule="head-to-head" if paired else "head-to-head-unpaired"
        )
        raise SimulationError(describe_failure(spec, match.known, sched, dk, sk, e)) from None
    except ReplayMismatch as e:
        raise SimulationError(f"games {u0 * unit_games}..: {e}") from None
    terms = rec["luck"]
    x_terms = np.where(sched["x_seat"] == 0, terms, -terms)  # at 2 players seat 1's is minus
    h = half_points(rec["places"], sched["x_seat"])
    unf = rec["unfinished"].astype(np.int64)
    return (
        unit_codes(h, unit_games).astype(np.int64),
        unf.reshape(-1, unit_games).sum(axis=1),
        x_terms.reshape(-1, unit_games).mean(axis=1),
    )


def play_units(match: Match, u0: int, u1: int, paired: bool) -> tuple[np.ndarray, np.ndarray]:
    """Play units ``u0..u1-1`` of ``match`` (:func:`schedule`): each unit's score code
    (int64[n]: the unit's half points summed over its games, category ``code / (K - 1)``) and
    its games that reached the move cap (int64[n]). Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    unit_games = match.spec.players if paired else 1
    h, unf = match.play(u0 * unit_games, u1 * unit_games, paired)
    return (
        unit_codes(h, unit_games).astype(np.int64),
        unf.reshape(-1, unit_games).sum(axis=1).astype(np.int64),
    )
