"""A game against the built-in bots, one input at a time (``shedsim play``).

:class:`Game` holds one game on the reference engine (:mod:`shedsim.rules.engine`) with a
person in one seat and strategy plugins in the others. It does no input or output: the
command (:mod:`shedsim.cli.play`) reads a line, hands it to :meth:`Game.handle` and prints
the lines it returns. A game is a function of its options and the person's inputs: the
deal and the bots' coin flips come from ``(seed, game)`` as in every run
(:func:`shedsim.seeding.game_keys`), and ``hint`` and ``why`` search on their own seeds, so
they never change the game. Bad input raises :class:`InputError` and changes nothing.

The person sees what their seat may see (docs/reference/rules.md#observation): their own hand, every
face-up row, hand sizes and face-down counts, the pile, the stock's size, the cards seen
picked up; never another hand, a face-down card before it is turned or the stock.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from shedsim.analysis.play_advice import (  # noqa: F401 - re-exported
    Advice,
    InputError,
    strategy_rule,
)
from shedsim.base.isolate import ChildTimeout, ProcessCrash, exception_text
from shedsim.rules.cards import CardError, format_cards, pack, parse_rank, unpack
from shedsim.rules.engine import (
    GameState,
    GameStreams,
    Move,
    MoveSyntaxError,
    Player,
    StrategyError,
    apply_move,
    check_observation,
    check_untouched,
    deal,
    legal_moves,
    public_array,
    start_seat,
)
from shedsim.rules.narrate import (
    STAGE_WORDS,
    cards_text,
    pile_text,
    seat_name,
    stop_reason,
    swap_changes,
    tell_move,
)
from shedsim.rules.ruleset import RuleSet, RulesError
from shedsim.seeding import game_keys

YOU = "you"
COMMANDS = (
    "a move's number, a move (play 7x1, pickup, flip 2, gamble), hint, search, why, table, "
    "help or quit"
)
HELP = [
    "commands:",
    "  1, 2, ...   play the move with that number in the list",
    "  play 7x2    play two 7s (play Rxk; play Rxk+j adds j face-up cards to your last hand cards)",
    "  pickup      pick up the pile;  flip 2: turn face-down card 2;  gamble: turn the stock's "
    "top card",
    "  hint        rank your moves by playouts (expected place, P(lose), P(first), 95% "
    "intervals; ranked by",
    "              what the rules score: P(lose) where only losing counts, expected place "
    "where places do)",
    "  search      rank your moves by the strongest player's own search from what you see "
    "(hint --search:",
    "              the move it would play first; its estimates, no interval)",
    "  why         why the last bot move was made: the bot's rule, and how playouts from what "
    "it saw rank it",
    "  table       show the table again;  help: this list;  quit: stop (prints how to go on later)",
    "swap phase: a choice's number (1 = keep the cards as dealt) or the cards to put face up, "
    "e.g. 'K A 10'",
]


class PlayError(ValueError):
    """An option ``shedsim play`` cannot use (players, opponents, seat); names the option."""


@dataclass
class BotMove:
    """A bot's move as the person saw it: ``before`` is the position it moved from (kept
    whole for ``why``'s search from the bot's own view, never shown)."""

    seat: int
    label: str
    player: Player
    before: GameState
    move: Move
    text: str


def swap_choices(visible: list[int], dealt_up: list[int], size: int) -> list[list[int]]:
    """Every distinct face-up row of ``size`` cards from ``visible`` (the dealt hand and
    face-up cards), sorted; the first is ``dealt_up`` (keep the cards as dealt), the rest in
    increasing order of rank."""
    rows = sorted({tuple(sorted(c)) for c in itertools.combinations(sorted(visible), size)})
    first = tuple(sorted(dealt_up))
    return [list(first)] + [list(r) for r in rows if r != first]


def default_opponents() -> list[str]:
    """The default bots: the strongest player, then the reference opponent, as the
    built-in strategies' traits select them (:func:`shedsim.plugins.select`, roles
    ``strongest`` and ``reference``: ``champion, greedy``). Raises :class:`PlayError`."""
    from shedsim.plugins import PluginError, choice

    try:
        return choice("strongest") + choice("reference")
    except PluginError as e:
        raise PlayError(f"--opponents: {e}") from None


class Game(Advice):
    """One game: the person in seat ``seat``, ``opponents`` (strategy specs, repeated in
    turn over the other seats) elsewhere; ``hint_policy`` answers hint and why (default:
    :func:`shedsim.analysis.hint.default_policy`). ``hint`` and ``why`` rank moves by
    ``hint_objective`` (``lose``, ``place`` or ``first``; default: what the rules' scoring
    rewards, :func:`shedsim.rules.scoring.objective_of`). Raises :class:`PlayError` for a
    player count the rules do not allow, an unknown strategy, a parameter outside its range,
    a bad seat or objective, or a ``hint_budget`` whose samples would not fit in memory.
    An opponent ``bot:COMMAND`` is a bot process (:func:`shedsim.bot.table.play_seats`),
    named by its label in ``labels`` (spec -> label); one that does not start or greet
    raises :class:`PlayError` naming it."""

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        opponents: list[str],
        seed: int = 0,
        game: int = 0,
        seat: int = 0,
        strategy_paths: tuple[str, ...] = (),
        hint_policy: str | None = None,
        hint_budget: int = 1000,
        hint_objective: str | None = None,
        labels: dict[str, str] | None = None,
    ) -> None:
        from shedsim.bot.protocol import is_bot
        from shedsim.plugins import PluginError, compiled_strategy, discover, parse_spec

        try:
            rules.check_players(players)
        except RulesError as e:
            raise PlayError(str(e)) from None
        if not 0 <= seat < players:
            raise PlayError(f"--seat: 0 to {players - 1} at {players} players; got {seat}")
        if not opponents:
            raise PlayError("--opponents: name at least one strategy")
        from shedsim.analysis.hint import budget_problem

        # a hint keeps every sample of every move; at most every rank at every count, pick up,
        # gamble, flip
        problem = budget_problem("--hint-budget", hint_budget, 13 * 4 * rules.decks + 3, up_to=True)
        if problem:
            raise PlayError(problem)
        self.rules, self.n, self.you, self.seed, self.game = rules, players, seat, seed, game
        self.hint_policy, self.hint_budget, self.strategy_paths = (
            hint_policy,
            hint_budget,
            strategy_paths,
        )
        self.hint_objective = hint_objective
        from shedsim.rules.scoring import ObjectiveError, resolve

        try:
            resolve(hint_objective, rules, "--hint-objective")  # checked now, not at the first hint
        except ObjectiveError as e:
            raise PlayError(str(e)) from None
        try:
            known = discover(list(strategy_paths))
            self.players: list[Player | None] = []
            self.names: list[str] = []
            bot_seats: dict[int, tuple[str, str]] = {}
            k = 0
            for i in range(players):
                if i == seat:
                    self.players.append(None)
                    self.names.append(YOU)
                    continue
                spec = opponents[k % len(opponents)]
                k += 1
                if is_bot(spec):  # started after the deal (it is told the game)
                    bot_seats[i] = ((labels or {}).get(spec, spec), spec)
                    self.players.append(None)
                    self.names.append(bot_seats[i][0])
                    continue
                name, overrides = parse_spec(spec)
                bot = known.require(name).player(spec, overrides)  # a broken file: says why
                bot.isolated = known[
                    name
                ].outside  # a crashing plugin is named, not fatal (base.isolate)
                self.players.append(bot)
                self.names.append(spec)
        except PluginError as e:
            raise PlayError(f"--opponents: {e}") from None
        if hint_policy is None:
            from shedsim.analysis.hint import HintError, default_policy

            try:
                self.hint_policy = default_policy()
            except HintError as e:
                raise PlayError(f"--hint-policy: {e}") from None
        try:  # its parameters are checked now; the rest (compiled, not broken) when a hint is asked
            name, overrides = parse_spec(self.hint_policy)
            known.require(name).params_array(overrides)  # an unknown name: refused now
            if known[name].traits.cheating:  # hint's playouts are the kernel's: refused
                compiled_strategy(known, self.hint_policy, "hint")
        except PluginError as e:
            raise PlayError(f"--hint-policy: {e}") from None
        dk, sk = game_keys(seed, np.array([game]))
        self.deal_key, self.dealer = int(dk[0]), game % players
        self.state, self.deal_rng = deal(rules, players, self.deal_key, self.dealer)
        self.bot_table = None
        if bot_seats:
            from shedsim.bot.process import BotStartError
            from shedsim.bot.table import play_seats

            try:
                seated, self.bot_table = play_seats(
                    bot_seats, rules, players, self.state.copy(), game, int(sk[0])
                )
            except BotStartError as e:
                raise PlayError(f"--bot: {e}") from None
            for i, b in seated.items():
                self.players[i] = b
        self.ra = rules.compile(players)
        self.streams = GameStreams(self.players, int(sk[0]), self.deal_rng)  # as the engine's
        self.srng = self.streams.shared
        for i, p in enumerate(
            self.players
        ):  # a plugin on the readable State sees the deal as a bot process
            if p is not None and getattr(p, "see_deal", None) is not None:
                p.see_deal(self.state, i, int(sk[0]))
        me = self.state.seats[seat]
        self.dealt_up = [list(s.face_up) for s in self.state.seats]
        self.choices = swap_choices(me.hand + me.face_up, me.face_up, rules.table_size)
        self.swapped = False
        self.inputs: list[str] = []
        self.last_bot: BotMove | None = None
        self.hints = 0

    # ------------------------------------------------------------------ views
    @property
    def over(self) -> bool:
        return self.state.finished or self.state.unfinished

    def who(self, i: int) -> str:
        return f"you (seat {i})" if i == self.you else seat_name(i, self.names)

    def swap_lines(self) -> list[str]:
        """The deal as the person sees it and the numbered face-up choices."""
        s = self.state
        lines = [
            "rules "
            f"{self.rules.name}{' + ' + ', '.join(self.rules.house) if self.rules.house else ''}; "
            f"{self.n} players; seed {self.seed} game {self.game}; dealer seat {self.dealer}; "
            "you are seat "
            f"{self.you}; "
            + ", ".join(f"seat {i} {self.names[i]}" for i in range(self.n) if i != self.you)
        ]
        for i, seat in enumerate(s.seats):
            if i == self.you:
                lines.append(
                    f"  {self.who(i)}: hand {cards_text(seat.hand)}; face-up "
                    f"{cards_text(seat.face_up)}; "
                    f"face-down {len(seat.face_down)}"
                )
            else:
                lines.append(
                    f"  {self.who(i)}: hand {len(seat.hand)} cards; face-up "
                    f"{cards_text(seat.face_up)}; "
                    f"face-down {len(seat.face_down)}"
                )
        lines.append(f"  stock {len(s.stock)}")
        me = s.seats[self.you]
        lines.append(
            f"swap: choose the {self.rules.table_size} cards to lie face up (the rest of "
            f"{cards_text(sorted(me.hand + me.face_up))} is your hand):"
        )
        for k, row in enumerate(self.choices, 1):
            hand = sorted((Counter(me.hand + me.face_up) - Counter(row)).elements())
            note = "  (keep as dealt)" if k == 1 else ""
            lines.append(f"  {k:2d}. face-up {cards_text(row)}, hand {cards_text(hand)}{note}")
        return lines

    def table_lines(self) -> list[str]:
        """The table from the person's seat and, on their turn, the numbered legal moves."""
        s = self.state
        lines = []
        for i, seat in enumerate(s.seats):
            if seat.out or s.place_of(i):
                lines.append(f"  {self.who(i)}: out, place {s.place_of(i)}")
                continue
            if i == self.you:
                hand = f"hand {cards_text(seat.hand)}"
            else:
                known = sorted(seat.known.elements())
                hand = f"hand {len(seat.hand)} card{'s' if len(seat.hand) != 1 else ''}" + (
                    f" (seen picked up: {cards_text(known)})" if known else ""
                )
            turn = " <- to move" if i == s.to_move and not self.over else ""
            lines.append(
                f"  {self.who(i)}: {hand}; face-up {cards_text(seat.face_up)}; "
                f"face-down {len(seat.face_down)}{turn}"
            )
        lines.append(
            f"  {pile_text(s)}; stock {len(s.stock)}; burned {s.burned}"
            + ("; direction reversed" if s.direction == -1 else "")
        )
        if not self.over and s.to_move == self.you:
            lines.append(
                f"your move {s.moves + 1} [{STAGE_WORDS[s.stage()]}]: "
                + "  ".join(f"{k}. {m}" for k, m in enumerate(legal_moves(s), 1))
            )
        return lines

    def prompt(self) -> str:
        """What the person is asked for now."""
        if not self.swapped:
            return f"swap (1-{len(self.choices)}, hint, help, quit)> "
        return f"move (1-{len(legal_moves(self.state))}, hint, search, why, table, help, quit)> "

    def result_line(self) -> str:
        """``result: 1. seat 2 (greedy), 2. you (seat 0), ...`` with every place; seats still
        in when a game was stopped share the places left."""
        s = self.state
        order = sorted((s.place_of(i), i) for i in range(self.n) if s.place_of(i))
        still = [i for i in range(self.n) if not s.place_of(i)]
        parts = [f"{p}. {self.who(i)}" for p, i in order]
        parts += [f"{self.who(i)} shares the places left" for i in still]
        how = "" if s.finished else f" ({stop_reason(s)})"
        return f"result: {', '.join(parts)}{how}"

    # ------------------------------------------------------------------ input
    def handle(self, line: str) -> list[str]:
        """Act on one input line; returns the lines to print. ``quit`` is the caller's.
        Raises :class:`InputError` (nothing changed) for anything that is not a legal move,
        a swap choice or a command here."""
        text = " ".join(line.strip().split())
        low = text.lower()
        if not text:
            raise InputError(f"empty line: type {COMMANDS}")
        if low == "help":
            return list(HELP)
        if self.over:
            raise InputError(f"the game is over: {self.result_line()}")
        if low == "hint":
            return self.hint_lines()
        if low == "search":
            if not self.swapped:
                raise InputError(
                    "search ranks moves; in the swap phase type hint for the face-up choice"
                )
            return self.hint_lines(search=True)
        if low == "why":
            return self.why_lines()
        if low == "table":
            return self.swap_lines() if not self.swapped else self.table_lines()
        if not self.swapped:
            return self.swap(text)
        return self.move(text)

    def swap(self, text: str) -> list[str]:
        """The person's swap (a choice's number or the face-up cards), then the bots' swaps
        (each strategy's own, in seat order, on the game's strategy stream as
        :func:`shedsim.rules.engine.new_game` does), the start, and the bots' moves up to the
        person's first turn."""
        row = self._swap_row(text)
        s = self.state
        me = s.seats[self.you]
        rest = Counter(me.hand + me.face_up) - Counter(row)
        me.face_up, me.hand = sorted(row), sorted(rest.elements())
        self.inputs.append(str(self.choices.index(sorted(row)) + 1))
        lines = [f"you: {swap_changes(self.dealt_up[self.you], row)}"]
        for i, p in enumerate(self.players):
            if p is None:
                continue
            seat = s.seats[i]
            visible = seat.hand + seat.face_up
            kept_rules = self.ra.copy()
            kept_params = (
                p.params.copy() if isinstance(getattr(p, "params", None), np.ndarray) else None
            )
            try:
                up = int(p.swap(pack(visible), i, self.n, self.ra, self.streams.lend(i)))
            except (ProcessCrash, ChildTimeout) as e:
                raise StrategyError(
                    f"strategy {p.name!r} at seat {i}, in the swap phase: {e} "
                    f"[seed {self.seed}, game {self.game}]"
                ) from None
            except StrategyError:  # a bot's fault (shedsim.bot.table), in its own words
                raise
            except Exception as e:  # noqa: BLE001 - a plugin may raise anything
                raise StrategyError(
                    f"strategy {p.name!r} raised in the swap phase at seat {i}: {exception_text(e)}"
                ) from e
            check_untouched(
                p, self.ra, kept_rules, kept_params, f"in the swap phase at seat {i}", self.deal_key
            )
            self.streams.give_back(i, p, f"in the swap phase at seat {i}", self.deal_key)
            chosen = unpack(up) if 0 <= up < (1 << 52) else None
            if (
                chosen is None
                or len(chosen) != self.rules.table_size
                or Counter(chosen) - Counter(visible)
            ):
                raise StrategyError(
                    f"strategy {p.name!r} chose an impossible face-up row at seat {i}"
                )
            seat.face_up, seat.hand = (
                sorted(chosen),
                sorted((Counter(visible) - Counter(chosen)).elements()),
            )
            lines.append(
                f"{self.who(i)}: {swap_changes(self.dealt_up[i], chosen)}"
                f" (face-up now {cards_text(seat.face_up)})"
            )
        s.start_seat = s.to_move = start_seat(s, self.deal_rng)
        s.deterministic = [False if p is None else bool(p.deterministic) for p in self.players]
        s.stream = self.srng
        self.swapped = True
        lines.append(f"{self.who(s.to_move)} starts")
        return lines + self.bots()

    def _swap_row(self, text: str) -> list[int]:
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(self.choices):
                raise InputError(
                    f"no swap choice {k}: choose 1 to {len(self.choices)} (1 keeps the cards "
                    "as dealt)"
                )
            return self.choices[k - 1]
        if text.lower() in ("keep", "keep as dealt"):
            return self.choices[0]
        me = self.state.seats[self.you]
        try:
            row = sorted(parse_rank(w) for w in text.replace(",", " ").split())
        except CardError:
            raise InputError(
                f"{text!r} is not a swap choice: type a choice's number (1-{len(self.choices)}; "
                f"1 keeps the cards as dealt) or the {self.rules.table_size} cards to put face up, "
                f"e.g. '{format_cards(self.choices[-1])}'"
            ) from None
        if row not in self.choices:
            raise InputError(
                f"cannot put {format_cards(row)} face up: choose {self.rules.table_size} of your "
                f"cards {cards_text(sorted(me.hand + me.face_up))}"
            )
        return row

    def move(self, text: str) -> list[str]:
        """The person's move (a number in the list or scenario notation), then the bots'
        moves up to the person's next turn or the end of the game."""
        s = self.state
        if s.to_move != self.you:  # the person is out; the bots finish the game
            raise InputError("you are out; the others finish the game")
        legal = legal_moves(s)
        listed = "  ".join(f"{k}. {m}" for k, m in enumerate(legal, 1))
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(legal):
                raise InputError(f"no move {k}: choose 1 to {len(legal)}: {listed}")
            mv = legal[k - 1]
        else:
            t = text.lower()
            if (
                t[:1].isalnum()
                and "x" in t
                and not t.startswith(("play", "flip", "pick", "gamble"))
            ):
                t = "play " + t  # "7x2" for "play 7x2"
            try:
                mv = Move.parse(t)
            except MoveSyntaxError:
                raise InputError(
                    f"{text!r} is neither a move nor a command: type {COMMANDS}"
                ) from None
            if mv not in legal:
                raise InputError(
                    f"{mv} is not legal here ({self._why_illegal(mv)}); your moves: {listed}"
                )
        before = s.copy()
        apply_move(s, mv)
        self.inputs.append(str(mv))
        return [
            f"{s.moves:4d}. " + tell_move(before, mv, s, self._labels(), viewer=self.you)
        ] + self.bots()

    def _why_illegal(self, mv: Move) -> str:
        s = self.state
        stage = s.stage()
        me = s.seats[self.you]
        if mv.kind == "play":
            src = me.hand if stage == 0 else me.face_up if stage == 1 else []
            have = src.count(mv.rank)
            if stage == 2:
                return "you are on your face-down cards: flip one"
            if have < mv.count:
                return f"your {STAGE_WORDS[stage]} cards hold {have} of that rank"
            if not self.rules.can_play(s.effective_top(), mv.rank):
                return f"it cannot go on the {format_cards([s.effective_top()])}"
            return "not with that many cards"
        if mv.kind == "pickup":
            return (
                "the pile is empty"
                if not s.pile
                else "these rules allow a pick-up only when nothing can be played"
            )
        if mv.kind == "flip":
            return (
                f"you have {len(me.face_down)} face-down cards"
                if stage == 2
                else "face-down cards come after your hand and face-up cards"
            )
        return (
            "these rules have no deck gamble"
            if not self.rules.deck_gamble
            else "the stock is empty"
        )

    def _labels(self) -> list[str]:
        return [YOU if i == self.you else n for i, n in enumerate(self.names)]

    def bots(self) -> list[str]:
        """Play the bots' moves until it is the person's turn or the game ends; each told
        as the person sees it. Raises :class:`StrategyError` when a bot fails."""
        s, lines = self.state, []
        while not self.over and s.to_move != self.you:
            i = s.to_move
            p = self.players[i]
            legal = legal_moves(s)
            obs = public_array(s)
            kept_obs, kept_rules = obs.copy(), self.ra.copy()
            kept_params = (
                p.params.copy() if isinstance(getattr(p, "params", None), np.ndarray) else None
            )
            try:
                mv = p.move(s, obs, self.ra, self.streams.lend(i), legal)
            except (ProcessCrash, ChildTimeout) as e:
                raise StrategyError(
                    f"strategy {p.name!r} at seat {i}, choosing move {s.moves + 1}: {e} "
                    f"[seed {self.seed}, game {self.game}]"
                ) from None
            except StrategyError:  # a bot's fault (shedsim.bot.table), in its own words
                raise
            except Exception as e:  # noqa: BLE001
                raise StrategyError(
                    f"strategy {p.name!r} raised at move {s.moves + 1}: {exception_text(e)}"
                ) from e
            # a bot must not change the game: the same checks as the engine's (rules.engine)
            when = f"at move {s.moves + 1}, seat {i}"
            check_untouched(p, self.ra, kept_rules, kept_params, when, self.deal_key)
            check_observation(p, obs, kept_obs, when, self.deal_key, s)
            self.streams.give_back(i, p, when, self.deal_key)
            if mv.kind == "invalid":
                raise StrategyError(
                    f"strategy {p.name!r} returned {mv.rank}, which is not a move, at move "
                    f"{s.moves + 1} [seed {self.seed}, game {self.game}]"
                )
            if mv not in legal:
                raise StrategyError(
                    f"strategy {p.name!r} chose the illegal move {mv} at move {s.moves + 1}"
                )
            before = s.copy()
            apply_move(s, mv)
            text = tell_move(before, mv, s, self._labels(), viewer=self.you)
            self.last_bot = BotMove(i, self.names[i], p, before, mv, text)
            lines.append(f"{s.moves:4d}. {text}")
        if self.over:
            lines.append(self.result_line())
        return lines

    # ------------------------------------------------------------------ advice
