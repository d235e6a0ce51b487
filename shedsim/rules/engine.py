"""The reference engine: plain Python that follows docs/reference/rules.md line by line.

This is the executable specification: the legal moves, applying a move, the stops, the
deal and the start, and a whole game with its players; the position it works on
(:class:`Move`, :class:`GameState`, the observation) is :mod:`shedsim.rules.state`'s.
Scenario files, ``shedsim trace`` and plain-Python strategies run on it; the compiled
kernel (:mod:`shedsim.kernel`) must agree with it move for move
(tests/test_differential.py). Speed does not matter here; clarity does.

Conventions (all from docs/reference/rules.md unless noted):

* A card is its rank, an int 2..14. The pile is a list, bottom first; the stock a list,
  top first; ``face_down`` a list in slot order (a flip removes the slot, the rest close up).
* Deal (docs/reference/rules.md#deal): the deck (ranks in order, 4 of each per deck) is shuffled
  with the
  game's deal stream (:func:`shedsim.seeding.shuffle`); cards go one at a time round the
  table from the dealer's left: ``table_size`` rounds face down, ``table_size`` rounds
  face up, ``hand_size`` rounds to the hands; the rest is the stock, its top the next card.
* Swap phase: each seat's strategy picks which of its visible cards lie face up.
* Start (docs/reference/rules.md#start), then moves until one player is left or the game is
  stopped (:func:`apply_move`): a proven loop, the no-progress rule (``stall:N``) or the
  move cap (``max_moves``). shedsim's rules for games that cannot end
  (docs/reference/rules.md#cannot-end), the same in the kernel (:mod:`shedsim.kernel._loop`):

  - ``quiet`` counts the moves since a card last left play (a burn), a seat went out or
    a card was drawn from the stock (with the stock empty: since a card left play or a
    seat went out; while it lasts, players holding four or more cards can go round
    without drawing, and such games loop too).
  - Proven loop: from ``quiet`` = ``layout.LOOP_FROM`` (F) on, when every seat still in
    plays a deterministic strategy (:attr:`GameState.deterministic`; its move depends
    only on the position and the strategy stream), each position is compared exactly
    (:func:`position_key`) with one saved at ``quiet`` = F, F+1, F+3, F+7, F+15, ...
    (Brent's cycle search, R. P. Brent, BIT 20, 1980); a repeat proves the game would go
    round forever, and it ends there.
  - Stalled: ``quiet`` reaching ``rules.stall_moves(players)`` (0 = off) ends the game.
  - A stopped game's seats still in share the remaining places (``stalemate:share``,
    place 0 in the records) or are placed by cards held, fewest first, ties in turn
    order from the seat to move (``stalemate:most_cards``, :func:`place_stopped`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from shedsim import layout as L
from shedsim.rules.cards import RANKS, format_cards, pack, unpack
from shedsim.rules.ruleset import RuleSet
from shedsim.rules.state import (  # noqa: F401 - re-exported: the engine's names, where they always were
    GameState,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    Seat,
    public_array,
)
from shedsim.rules.moves import (  # noqa: F401 - re-exported: the rules of play, where they always were
    apply_move,
    legal_moves,
    place_stopped,
    position_key,
)
from shedsim.seeding import SplitMix64, seat_key, shuffle


class StrategyError(RuntimeError):
    """A strategy returned an illegal decision or raised; names strategy, seed and position."""


class PluginReturnError(TypeError):
    """A plain-Python plugin returned a value of the wrong kind; the message says what the
    function had to return (raised by :class:`shedsim.plugins.EnginePlayer`, reported by the
    engine as a :class:`StrategyError` naming the strategy and the position)."""


# --------------------------------------------------------------------------- players
class Player(Protocol):
    """What the engine needs of a strategy (see :mod:`shedsim.strategy` for plugins)."""

    name: str

    def swap(
        self, visible: int, seat: int, players: int, rules_array: np.ndarray, rng: np.ndarray
    ) -> int:
        """Packed face-up multiset chosen from the packed ``visible`` cards."""

    def move(
        self,
        state: GameState,
        obs: np.ndarray,
        rules_array: np.ndarray,
        rng: np.ndarray,
        legal: list[Move],
    ) -> Move:
        """A move from ``legal`` given the observation ``obs``."""


# --------------------------------------------------------------------------- deal & start
def deal(
    rules: RuleSet, players: int, deal_key: int, dealer: int = 0, deck: Sequence[int] | None = None
) -> tuple[GameState, SplitMix64]:
    """Shuffle and deal (before the swap). Returns the state and the deal stream, which
    the start rule goes on drawing from. ``deck`` (ranks in dealing order,
    :func:`shedsim.rules.deals.deck_order`) is dealt as it stands instead of a shuffle;
    the deal stream then starts at ``deal_key``, as in the kernel. Raises ``RulesError``
    for a bad player count."""
    rules.check_players(players)
    rng = SplitMix64(deal_key)
    if deck is None:
        deck = [r for r in RANKS for _ in range(4 * rules.decks)]
        shuffle(deck, rng)
    else:
        deck = [int(c) for c in deck]
    seats = [Seat() for _ in range(players)]
    order = [(dealer + 1 + i) % players for i in range(players)]
    pos = 0
    for layer in ("face_down", "face_up", "hand"):
        rounds = rules.hand_size if layer == "hand" else rules.table_size
        for _ in range(rounds):
            for s in order:
                getattr(seats[s], layer).append(deck[pos])
                pos += 1
    for s in seats:
        s.hand.sort()
        s.face_up.sort()
    state = GameState(rules=rules, seats=seats, stock=deck[pos:], dealer=dealer)
    return state, rng


def start_candidates(state: GameState) -> list[int]:
    """The seats that may move first in ``state`` as dealt and swapped, ascending: one, or
    several that the start rule settles at random (``random``; ``lowest_faceup`` ties, nobody)."""
    rules, n = state.rules, state.players
    order = [(state.dealer + 1 + i) % n for i in range(n)]
    if rules.start in ("dealer_left", "random"):
        return [order[0]] if rules.start == "dealer_left" else list(range(n))

    def lowest(cards: list[int]) -> int:
        ordinary = [c for c in cards if rules.ordinary(c)]
        return min(ordinary) if ordinary else 99

    if rules.start == "lowest_hand":  # nobody: the dealer's left
        best = min(lowest(state.seats[s].hand) for s in order)
        return [
            next((s for s in order if best < 99 and lowest(state.seats[s].hand) == best), order[0])
        ]
    best = min(lowest(state.seats[s].face_up) for s in range(n))  # lowest_faceup (nines)
    return [s for s in range(n) if best == 99 or lowest(state.seats[s].face_up) == best]


def start_seat(state: GameState, rng: SplitMix64) -> int:
    """The first seat to move, after the swap (docs/reference/rules.md#start): the one of
    :func:`start_candidates`, or one drawn among several with ``rng.below`` (as the kernel)."""
    seats = start_candidates(state)
    return seats[0] if len(seats) == 1 else seats[rng.below(len(seats))]


def _exception_text(e: BaseException) -> str:
    """:func:`shedsim.base.isolate.exception_text` (imported when needed)."""
    from shedsim.base.isolate import exception_text

    return exception_text(e)


def _is_crash(e: BaseException) -> bool:
    """Whether ``e`` says that a plugin's compiled decision, run in a forked child, killed
    that child (:class:`shedsim.base.isolate.ProcessCrash`) or was killed for taking
    too long (:class:`~shedsim.base.isolate.ChildTimeout`); the message then names the
    decision, not a Python exception."""
    from shedsim.base.isolate import ChildTimeout, ProcessCrash

    return isinstance(e, (ProcessCrash, ChildTimeout))


class GameStreams:
    """A game's random streams as its strategies get them, laid out as the kernel's
    (``layout.S_*``: one ``uint64[S_SIZE]`` array, :attr:`array`). The seats of shedsim's own
    strategies share the game's strategy stream (:attr:`shared`, ``uint64[1]``). A plugin from
    outside ``strategies/`` (``player.outside``) draws from its seat's own stream
    (:func:`shedsim.seeding.seat_key`): :meth:`lend` gives it as ``array[S_LENT:S_LENT + 1]``,
    and :meth:`give_back` raises :class:`StrategyError` when the decision wrote into a stream
    after it, which the plugin does not own (the strategy stream, or the deal stream, which
    ``deal_rng`` holds). A ``DETERMINISTIC`` plugin's stream is lent afresh, from the seat's
    key, for every decision; another plugin's draws carry on from one decision to the next.
    The same as the kernel's :func:`shedsim.kernel.core.lend_stream` and its neighbours, so a
    game replays here as it played there."""

    def __init__(self, players: Sequence, strategy_key: int, deal_rng: SplitMix64 | None) -> None:
        self.array = np.zeros(L.S_SIZE, np.uint64)
        self.array[L.S_STRATEGY] = np.uint64(strategy_key)
        self.shared = self.array[L.S_STRATEGY : L.S_STRATEGY + 1]
        self.deal_rng = deal_rng
        self.outside = [bool(getattr(p, "outside", False)) for p in players]
        self.keep = [not bool(getattr(p, "deterministic", False)) for p in players]
        self.own = [seat_key(strategy_key, s) for s in range(len(players))]
        self._before = self.array.copy()

    def lend(self, seat: int) -> np.ndarray:
        """The ``rng`` (``uint64[1]``) for a decision of ``seat``'s strategy."""
        if not self.outside[seat]:
            return self.shared
        if self.deal_rng is not None:
            self.array[L.S_DEAL] = np.uint64(self.deal_rng.state)
        self.array[L.S_LENT] = np.uint64(self.own[seat])
        self._before = self.array.copy()
        return self.array[L.S_LENT : L.S_LENT + 1]

    def give_back(self, seat: int, player, when: str, deal_key: int) -> None:
        """After the decision :meth:`lend` lent for: raise :class:`StrategyError` naming
        ``player`` when it wrote into a stream it does not own; else keep its draws (not for
        a ``DETERMINISTIC`` plugin)."""
        if not self.outside[seat]:
            return
        for k in (L.S_STRATEGY, L.S_DEAL):
            if self.array[k] != self._before[k]:
                raise StrategyError(
                    f"strategy {player.name!r} wrote into {L.STREAM_NAMES[k]} {when} (deal key "
                    f"{deal_key}): "
                    f"rng[{k - L.S_LENT}], past its own stream rng[0], changed from "
                    f"{int(self._before[k])} to "
                    f"{int(self.array[k])}. A strategy owns only rng[0] (draw with "
                    "rng_below(rng, n)); the "
                    f"streams after it are the game's"
                )
        if self.keep[seat]:
            self.own[seat] = int(self.array[L.S_LENT])


def new_game(
    rules: RuleSet,
    players: Sequence[Player],
    deal_key: int,
    strategy_key: int,
    dealer: int = 0,
    rules_array: np.ndarray | None = None,
    deck: Sequence[int] | None = None,
) -> tuple[GameState, np.ndarray]:
    """Deal (``deck``: see :func:`deal`), let each player swap, choose the starting seat.
    Returns (state, strategy rng).

    The strategy stream is a ``uint64[1]`` array shared by the players of the game that
    come with shedsim; a plugin from outside ``strategies/`` draws from its seat's own
    (``state.streams``, a :class:`GameStreams`). Raises :class:`StrategyError` for an
    invalid swap or a write into a stream the swap does not own.
    """
    n = len(players)
    state, rng = deal(rules, n, deal_key, dealer, deck)
    ra = rules.compile(n) if rules_array is None else rules_array
    streams = GameStreams(players, strategy_key, rng)
    srng = streams.shared
    kept_rules = ra.copy()
    kept_params = [_params_of(p) for p in players]
    for i, p in enumerate(
        players
    ):  # a plugin that decides on the readable State sees the deal as a bot process
        if getattr(p, "see_deal", None) is not None:
            p.see_deal(state, i, strategy_key)
    for i in range(n):
        s = state.seats[i]
        visible = s.hand + s.face_up
        packed = pack(visible)
        try:
            up = int(players[i].swap(packed, i, n, ra, streams.lend(i)))
        except PluginReturnError as e:
            raise StrategyError(
                f"strategy {players[i].name!r} at seat {i} (deal key {deal_key}): {e}"
            ) from e
        except Exception as e:  # noqa: BLE001 - a plugin may raise anything
            check_untouched(
                players[i],
                ra,
                kept_rules,
                kept_params[i],
                f"in the swap phase at seat {i}",
                deal_key,
            )
            if _is_crash(e):
                raise StrategyError(
                    f"strategy {players[i].name!r} at seat {i}, in the swap phase (deal key "
                    f"{deal_key}): {e}"
                ) from e
            raise StrategyError(
                f"strategy {players[i].name!r} raised in the swap phase at seat {i} "
                f"(deal key {deal_key}): {_exception_text(e)}"
            ) from e
        check_untouched(
            players[i], ra, kept_rules, kept_params[i], f"in the swap phase at seat {i}", deal_key
        )
        streams.give_back(i, players[i], f"in the swap phase at seat {i}", deal_key)
        chosen = unpack(up) if 0 <= up < (1 << 52) else None
        if (
            chosen is None
            or len(chosen) != rules.table_size
            or (Counter(chosen) - Counter(visible))
        ):
            raise StrategyError(
                f"strategy {players[i].name!r} chose an impossible face-up row "
                f"{format_cards(chosen) if chosen else up} from [{format_cards(sorted(visible))}] "
                f"at seat {i} (deal key {deal_key})"
            )
        rest = Counter(visible) - Counter(chosen)
        s.face_up = sorted(chosen)
        s.hand = sorted(rest.elements())
    state.start_seat = state.to_move = start_seat(state, rng)
    state.deterministic = [bool(getattr(p, "deterministic", False)) for p in players]
    state.stream = srng
    state.streams = streams
    state.kept_rules, state.kept_params = kept_rules, kept_params
    return state, srng


def _params_of(player) -> np.ndarray | None:
    p = getattr(player, "params", None)
    return p.copy() if isinstance(p, np.ndarray) else None


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one dtype hold the same values (``np.array_equal``, without its
    overhead: the engine compares after every decision)."""
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def check_untouched(
    player,
    rules_array: np.ndarray,
    kept_rules: np.ndarray,
    kept_params: np.ndarray | None,
    when: str,
    deal_key: int,
) -> None:
    """Raise :class:`StrategyError` naming ``player`` when its decision wrote into the rules
    array (``rules_array`` int64[R_SIZE] no longer equals ``kept_rules``) or into its
    parameters (``player.params`` against ``kept_params``). The engine checks after every
    decision, so the strategy named is the one that wrote (a plugin must not change
    the game)."""
    if not _same(rules_array, kept_rules):
        i = int(np.flatnonzero(rules_array != kept_rules)[0])
        raise StrategyError(
            f"strategy {player.name!r} wrote into the rules array {when} (deal key "
            f"{deal_key}): entry {i} "
            f"({L.entry_name('R_', i)}) changed from {int(kept_rules[i])} to "
            f"{int(rules_array[i])}. A strategy "
            "must not change the rules of the game; decide on a copy (rules.copy()) if it "
            "needs one"
        )
    params = getattr(player, "params", None)
    if (
        kept_params is not None
        and isinstance(params, np.ndarray)
        and not _same(params, kept_params)
    ):
        i = int(np.flatnonzero(params != kept_params)[0])
        raise StrategyError(
            f"strategy {player.name!r} wrote into its parameters array {when} (deal key "
            f"{deal_key}): parameter "
            f"{i} changed from {int(kept_params[i])} to {int(params[i])}. Parameters are "
            "read-only: results "
            f"would depend on how games are cut into chunks"
        )


def check_observation(
    player, obs: np.ndarray, kept: np.ndarray, when: str, deal_key: int, state: GameState
) -> None:
    """Raise :class:`StrategyError` naming ``player`` when its decision wrote into the
    observation it was given (``obs`` int64[O_SIZE] no longer equals ``kept``). Here the
    observation is a copy, but in the kernel it is the game's own state, where the same
    write changes the game (the kernel's plugin guard stops it:
    :func:`shedsim.kernel.core.obs_unchanged`); checking it here too makes ``trace``
    reproduce that failure, with the position."""
    if not _same(obs, kept):
        i = int(np.flatnonzero(obs != kept)[0])
        raise StrategyError(
            f"strategy {player.name!r} wrote into the observation array {when} (deal key "
            f"{deal_key}): entry {i} "
            f"({L.entry_name('O_', i)}) changed from {int(kept[i])} to {int(obs[i])}. The "
            "observation is the "
            "game's own state in the kernel; decide on a copy (obs.copy()) if it needs "
            "one\nthe position:\n"
            f"{state.describe()}"
        )


def visible_dealt(state: GameState) -> list[int]:
    """Packed visible cards per seat (for records), valid right after :func:`deal`."""
    return [pack(s.hand + s.face_up) for s in state.seats]


@dataclass
class GameResult:
    """What one game produced. ``places[s]`` is seat s's place (0 = still in when the game
    was stopped, under ``stalemate:share``); ``end`` how it ended (``layout.END_NAMES``)."""

    places: list[int]
    start_seat: int
    moves: int
    pickups: list[int]
    burns: list[int]
    unfinished: bool
    dealt_visible: list[int]
    face_up: list[int]
    trace: list[str]
    move_codes: list[int]
    end: str = "finished"


def decide(
    state: GameState, player: Player, ra: np.ndarray, legal: list[Move], deal_key: int
) -> Move:
    """The move ``player``, the strategy of the seat to move, chooses among ``legal``
    (:func:`legal_moves` of ``state``; ``ra`` the compiled rules, ``deal_key`` names the
    game in messages), with every check :func:`play_game` makes after a decision: no
    write into the rules, its parameters, the observation or a random stream it does not
    own. Raises :class:`StrategyError` naming the strategy, the move and the position when
    it raises, writes, or chooses something that is not a legal move."""
    obs = public_array(state)
    seat = state.to_move
    when = f"at move {state.moves + 1}, seat {seat}"
    obs_kept = obs.copy()
    try:
        move = player.move(state, obs, ra, state.streams.lend(seat), legal)
    except StrategyError:
        raise
    except PluginReturnError as e:
        check_untouched(player, ra, state.kept_rules, state.kept_params[seat], when, deal_key)
        raise StrategyError(
            f"strategy {player.name!r} at move {state.moves + 1} (deal key {deal_key}): "
            f"{e}\n{state.describe()}"
        ) from e
    except Exception as e:  # noqa: BLE001
        # a write into the rules comes first: it may be why the decision failed
        check_untouched(player, ra, state.kept_rules, state.kept_params[seat], when, deal_key)
        if _is_crash(e):  # a plugin's decision in a forked child killed it (kernel.isolate)
            raise StrategyError(
                f"strategy {player.name!r} at seat {seat}, choosing move {state.moves + 1} "
                f"(deal key {deal_key}): {e}\nthe position:\n{state.describe()}"
            ) from e
        raise StrategyError(
            f"strategy {player.name!r} raised at move {state.moves + 1} "
            f"(deal key {deal_key}): {_exception_text(e)}\n"
            f"{state.describe()}"
        ) from e
    check_untouched(player, ra, state.kept_rules, state.kept_params[seat], when, deal_key)
    check_observation(player, obs, obs_kept, when, deal_key, state)
    state.streams.give_back(seat, player, when, deal_key)
    if move.kind == "invalid":
        raise StrategyError(
            f"strategy {player.name!r} returned {move.rank}, which is not a move, at move "
            f"{state.moves + 1} (deal key {deal_key}); legal: "
            f"{', '.join(map(str, legal))}\n{state.describe()}"
        )
    if move not in legal:
        raise StrategyError(
            f"strategy {player.name!r} chose the illegal move {move} at move "
            f"{state.moves + 1} (deal key {deal_key}); legal: "
            f"{', '.join(map(str, legal))}\n{state.describe()}"
        )
    return move


def play_game(
    rules: RuleSet,
    players: Sequence[Player],
    deal_key: int,
    strategy_key: int,
    dealer: int = 0,
    trace: bool = False,
    deck: Sequence[int] | None = None,
) -> GameResult:
    """Play one whole game on the reference engine (``deck``: a given deal, see :func:`deal`).

    Raises :class:`StrategyError` naming the strategy, the deal key and the position when
    a strategy raises or returns a move outside the legal set.
    """
    n = len(players)
    ra = rules.compile(n)
    dealt_state, _ = deal(rules, n, deal_key, dealer, deck)
    dealt = visible_dealt(dealt_state)
    state, _ = new_game(rules, players, deal_key, strategy_key, dealer, ra, deck)
    chosen = [pack(s.face_up) for s in state.seats]
    lines: list[str] = []
    codes: list[int] = []
    if trace:
        lines.append(f"deal key {deal_key}, dealer seat {dealer}, seat {state.to_move} starts")
        for i, s in enumerate(state.seats):
            lines.append(
                f"  seat {i} ({players[i].name}): hand [{format_cards(s.hand)}] face-up "
                f"[{format_cards(s.face_up)}] face-down [{format_cards(s.face_down)}]"
            )
    while not (state.finished or state.unfinished):
        legal = legal_moves(state)
        move = decide(state, players[state.to_move], ra, legal, deal_key)
        codes.append(move.code)
        line = apply_move(state, move, legal)
        if trace:
            lines.append(f"{state.moves:4d}. {line}")
    places = [state.place_of(i) for i in range(n)]
    if trace:
        stopped = {"cap": "move cap", "stalled": "stalled", "loop": "proven loop"}.get(
            state.end, ""
        )
        lines.append(
            f"unfinished ({stopped})"
            + (
                "; placed by cards held: " + ", ".join(f"seat {s}" for s in state.places)
                if state.rules.stalemate == "most_cards"
                else ""
            )
            if state.unfinished
            else "places: " + ", ".join(f"seat {s}" for s in state.places)
        )
    return GameResult(
        places=places,
        start_seat=state.start_seat,
        moves=state.moves,
        pickups=[s.pickups for s in state.seats],
        burns=[s.burns for s in state.seats],
        unfinished=state.unfinished,
        dealt_visible=dealt,
        face_up=chosen,
        trace=lines,
        move_codes=codes,
        end=state.end,
    )
