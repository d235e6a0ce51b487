"""Every rule setting and house toggle, declared once (:data:`SETTINGS`).

A row (:class:`Setting`) is one setting of a :class:`shedsim.rules.RuleSet`: its name (the
``RuleSet`` field and the rules-file key), its type and range, a one-line help, each
preset's value, the rules array entry the kernel reads (a name in :mod:`shedsim.layout`)
and the house toggles (:class:`Toggle`) that change it. Everything else reads this table:
the ``RuleSet`` fields and their checks, the presets, the ``--house`` parser and its
messages, the rules-file loader and its messages, ``shedsim rules list`` and ``show``, the
``--each-toggle`` candidates of ``compare-rules`` and the tests' parametrisation (after
OpenSpiel's ``parameter_specification``: a game declares its parameters once).

Adding a house toggle means one :class:`Toggle` in its setting's row (a new setting: a
row, and its entry in :mod:`shedsim.layout` when the kernel reads it), its move logic in
the kernel and in the reference engine, and a scenario file in ``tests/scenarios/`` using
it (``tests/test_settings.py`` fails without one; the differential test plays every
toggle's first example).

The presets' values are those of the published rule sets, the toggles those of the
published house rules, plus shedsim's own: ``burn_run:N`` and, for games that cannot
end, ``stall:N`` and ``stalemate:MODE``.

This module imports only :mod:`shedsim.rules.cards`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from shedsim.rules.cards import CardError, parse_rank, rank_name
from shedsim.rules.setting_types import (  # noqa: F401 - re-exported: what a setting is
    KINDS,
    RulesError,
    Setting,
    Toggle,
    is_int,
    shown,
)

PRESETS: tuple[str, ...] = ("duel", "nines", "family", "palace", "shithead")
"""The five published rule sets (the CLI's ``--rules`` names)."""

PICKUP_MODES: tuple[str, ...] = ("never", "hand", "hand+faceup", "always")
"""Where voluntary pick-up is allowed; forced pick-up (no legal play) is always allowed."""

START_RULES: tuple[str, ...] = ("dealer_left", "lowest_hand", "lowest_faceup", "random")
"""Who starts: the seat after the dealer; the lowest ordinary hand card (ties by seat
order from the dealer's left); the lowest ordinary face-up card (ties and nobody settled
at random, nines); a random seat."""

STALEMATE_MODES: tuple[str, ...] = ("share", "most_cards")
"""How a stopped game (stalled, proven loop or move cap) is scored; index = ``layout.STALEMATE_*``.
``share``: the seats still in share the remaining places (nobody loses); ``most_cards``:
they are placed by cards held, fewest first, so the seat holding most is the loser (ties
in turn order from the seat to move). The published rules do not settle this; shedsim's choice."""

MAX_PLAYERS_ONE_DECK = 5
MAX_PLAYERS_TWO_DECKS = 10

STALL_DEFAULTS: tuple[tuple[int, int], ...] = ((MAX_PLAYERS_TWO_DECKS, 4000),)
"""Default of the no-progress rule (``stall:N``) by player count: ``(up to P players, N)``.
A game ends as stalled after N moves in a row in which no card leaves play (no burn),
nobody goes out and nobody draws from the stock (with the stock empty: no card leaves
play and nobody goes out). Chosen from data (docs/explanation/cannot-end.md#choosing-n,
``tools/stall_cut.py``): the smallest N tried at which no preset at any player count,
with the default field or with aggressive seated twice, cuts 1 in 1,000 of the games
that finish without the rule (stuck players whom a random player eventually frees can
go thousands of moves without progress, most of all at five players)."""


def default_stall(players: int) -> int:
    """The default ``stall:N`` for ``players`` seats (:data:`STALL_DEFAULTS`)."""
    for most, n in STALL_DEFAULTS:
        if players <= most:
            return n
    return STALL_DEFAULTS[-1][1]


def _ranks(*names: str | int) -> frozenset[int]:
    return frozenset(parse_rank(n) for n in names)


def _stall_default_text() -> str:
    ns = {n for _, n in STALL_DEFAULTS}
    if len(ns) == 1:
        return f"{ns.pop()} moves at every player count"
    return ", ".join(
        f"{n} moves up to {p} players" if p < MAX_PLAYERS_TWO_DECKS else f"{n} moves beyond"
        for p, n in STALL_DEFAULTS
    )


STALL_DEFAULT_TEXT = _stall_default_text()
"""The default of ``stall`` in words (from :data:`STALL_DEFAULTS`), as every help, table and
page states it: ``rules list``, the rules-file key, the ``stall:N`` toggle, the rules reference."""

_STALL_HELP = (
    "N moves in a row without a burn, anyone going out or a draw from the stock: the game is "
    f"stalled and ends (default {STALL_DEFAULT_TEXT}; 0 = off)"
)

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "name",
        "text",
        "the rule set's name, not empty (a file's default: its preset's, with * when the file "
        "sets any key besides preset and house)",
        default="",
        presets={p: p for p in PRESETS},
    ),
    Setting(
        "players",
        "players",
        "the player counts allowed, at most 5 with one deck and 10 with two",
        default=(2, MAX_PLAYERS_ONE_DECK),
        presets={"duel": (2, 2), "nines": (2, 4), "family": (2, 4)},
        slot="R_PLAYERS",
    ),
    Setting(
        "reset",
        "ranks",
        "goes on anything; anything may follow it",
        default=_ranks(2),
        slot="R_RESET_MASK",
        flag="F_RESET",
    ),
    Setting(
        "burn",
        "ranks",
        "goes on anything and burns the pile",
        default=_ranks(10),
        slot="R_BURN_MASK",
        flag="F_BURN",
    ),
    Setting(
        "invisible",
        "ranks",
        "goes on anything and is see-through: the card below stays the effective top",
        default=frozenset(),
        presets={"nines": _ranks(9)},
        slot="R_INVISIBLE_MASK",
        flag="F_INVISIBLE",
        toggles=(
            Toggle(
                "invisible:R",
                "R in {3, 8, 9} goes on anything and is see-through",
                ranks=(3, 8, 9),
                each=("3", "8", "9"),
            ),
        ),
    ),
    Setting(
        "magic",
        "ranks",
        "goes on anything (reset, burn and invisible ranks do too)",
        default=frozenset(),
        presets={"duel": _ranks(5), "nines": _ranks("A")},
        label="goes on anything",
    ),
    Setting(
        "low",
        "ranks",
        "once it is the effective top, the next play must be this rank or lower",
        default=frozenset(),
        presets={"duel": _ranks(5), "nines": _ranks(5)},
        flag="F_LOW",
        label="low (next play this or lower)",
        toggles=(
            Toggle(
                "low7",
                "7 is low: after a 7 the next play must be 7 or lower (on duel/nines the 7 "
                "takes the 5's role)",
                value=7,
            ),
            Toggle("low5", "5 is low: after a 5 the next play must be 5 or lower", value=5),
        ),
    ),
    Setting(
        "under",
        "ranks",
        "placed only on an effective top of its own rank or higher that is not magic",
        default=frozenset(),
        presets={"nines": _ranks(5)},
        label="under (goes on this rank or higher)",
    ),
    Setting(
        "skip",
        "ranks",
        "each card of the rank played skips the next player",
        default=frozenset(),
        slot="R_SKIP_MASK",
        flag="F_SKIP",
        toggles=(
            Toggle(
                "skip8", "each 8 played skips the next player (k eights skip k players)", value=8
            ),
        ),
    ),
    Setting(
        "reverse",
        "ranks",
        "each card of the rank played reverses the direction of play",
        default=frozenset(),
        slot="R_REVERSE_MASK",
        flag="F_REVERSE",
        toggles=(
            Toggle(
                "reverse:R",
                "each card of rank R played reverses the direction of play (with two "
                "players this changes nothing)",
                each=("K",),
                void_at=(2,),
                void_why=(
                    "with two players a reverse changes nothing (the next seat is the same "
                    "either way): only the bots' play would differ, as they treat the rank as "
                    "a special card"
                ),
                examples=("reverse:K", "reverse:3", "reverse:8", "reverse:A"),
            ),
        ),
    ),
    Setting(
        "pickup",
        "choice",
        "where voluntary pick-up is allowed (forced pick-up always is)",
        default="never",
        presets={"duel": "always", "family": "hand+faceup", "palace": "hand+faceup"},
        choices=PICKUP_MODES,
        noun="pick-up mode",
        slot="R_PICKUP",
        toggles=(Toggle("pickup:MODE", "voluntary pick-up: " + " | ".join(PICKUP_MODES)),),
    ),
    Setting(
        "deck_gamble",
        "bool",
        "the blind gamble on the stock's top card",
        default=False,
        presets={"duel": True},
        slot="R_GAMBLE",
        toggles=(
            Toggle(
                "deck_gamble",
                "the duel's blind gamble on the stock's top card, in any preset",
                value=True,
            ),
        ),
    ),
    Setting(
        "start",
        "choice",
        "who starts",
        default="dealer_left",
        presets={"nines": "lowest_faceup", "shithead": "lowest_hand"},
        choices=START_RULES,
        noun="start rule",
        slot="R_START",
        toggles=(
            Toggle(
                "lowest_starts",
                "the lowest ordinary hand card starts (ties by seat order from the dealer's left)",
                value="lowest_hand",
            ),
            Toggle("random_starts", "a random seat starts", value="random"),
            Toggle("dealer_left_starts", "the seat after the dealer starts", value="dealer_left"),
        ),
    ),
    Setting(
        "burn_passes",
        "bool",
        "after a burn the next player leads instead of the burner",
        default=False,
        slot="R_BURN_PASSES",
        toggles=(
            Toggle(
                "burn_passes",
                "after a burn the next player leads instead of the burner",
                value=True,
            ),
        ),
    ),
    Setting(
        "mix_last_hand",
        "bool",
        "with the last hand card face-up cards of its rank may join (stock empty)",
        default=False,
        slot="R_MIX_LAST",
        toggles=(
            Toggle(
                "mix_last_hand",
                "with the last hand card you may add face-up cards of its rank (stock empty)",
                value=True,
            ),
        ),
    ),
    Setting(
        "decks",
        "int",
        "52-card decks shuffled together",
        default=1,
        lo=1,
        hi=2,
        slot="R_DECKS",
        toggles=(
            Toggle(
                "two_decks",
                f"104 cards, up to {MAX_PLAYERS_TWO_DECKS} players",
                value=2,
                also=(("max_players", MAX_PLAYERS_TWO_DECKS),),
            ),
        ),
    ),
    Setting(
        "hand_size",
        "int",
        "hand cards dealt and refilled to",
        default=3,
        lo=1,
        hi=10,
        slot="R_HAND_SIZE",
        toggles=(
            Toggle(
                "hand_size:N",
                "hand cards dealt and refilled to (default 3)",
                examples=("hand_size:2", "hand_size:4", "hand_size:5"),
            ),
        ),
    ),
    Setting(
        "table_size",
        "int",
        "face-up and face-down cards each",
        default=3,
        lo=1,
        hi=6,
        slot="R_TABLE_SIZE",
        toggles=(
            Toggle(
                "table_size:N",
                "face-up and face-down cards each (default 3)",
                examples=("table_size:2", "table_size:4"),
            ),
        ),
    ),
    Setting(
        "burn_run",
        "int",
        "this many cards of one rank on top of the pile burn it",
        default=4,
        lo=2,
        hi=8,
        slot="R_BURN_RUN",
        toggles=(
            Toggle("burn_run:N", "N cards of one rank on top of the pile burn it (default 4)"),
        ),
    ),
    Setting(
        "max_moves",
        "int",
        "move cap after which a game is unfinished",
        default=5000,
        lo=10,
        hi=10_000_000,
        slot="R_MAX_MOVES",
        toggles=(
            Toggle(
                "max_moves:N",
                "move cap after which a game is unfinished (default 5000)",
                each=(),
                why="max_moves only moves the cap of unfinished games",
                examples=("max_moves:123",),
            ),
        ),
    ),
    Setting(
        "stall",
        "int",
        _STALL_HELP,
        default=None,
        lo=0,
        hi=10_000_000,
        optional=True,
        absent=STALL_DEFAULT_TEXT,
        slot="R_STALL",
        label="stall (no-progress moves)",
        toggles=(Toggle("stall:N", _STALL_HELP, each=("0",), examples=("stall:200", "stall:0")),),
    ),
    Setting(
        "stalemate",
        "choice",
        "scoring of a stopped game (stalled, proven loop, move cap)",
        default="share",
        choices=STALEMATE_MODES,
        noun="stalemate mode",
        slot="R_STALEMATE",
        label="stalemate (stopped games)",
        toggles=(
            Toggle(
                "stalemate:MODE",
                "scoring of a stopped game (stalled, proven loop, move cap): share "
                "(default: seats still in share the remaining places) | most_cards "
                "(placed by cards held, most = loser)",
            ),
        ),
    ),
    Setting(
        "scoring",
        "text",
        "how the preset's results are scored (a description)",
        default="places",
        presets={
            "duel": "loser is the idiot",
            "family": "idiot tally",
            "palace": "places summed over a match of 1-10 rounds",
            "shithead": "count of games not lost",
        },
    ),
)
"""Every rule setting, in ``RuleSet`` field order."""

BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}

TOGGLES: dict[str, Toggle] = {t.syntax: t for s in SETTINGS for t in s.toggles}
"""Every house toggle by its syntax, in table order."""

SETTING_OF: dict[str, Setting] = {t.syntax: s for s in SETTINGS for t in s.toggles}
"""The setting each toggle (by syntax) changes."""

FILE_KEYS: tuple[str, ...] = ("preset", "house", *(s.key for s in SETTINGS))
"""Every key a rules file may hold: ``preset`` (required), ``house`` (a list of toggles), the
settings."""


def find_toggle(text: str) -> Toggle:
    """The toggle ``text`` is written as (``pickup:always`` -> ``pickup:MODE``). Raises
    :class:`RulesError` (field: ``text``) for no known toggle, or an argument missing or
    given where none is taken."""
    name, colon, _ = text.partition(":")
    for t in TOGGLES.values():
        if t.name == name and t.takes_arg == bool(colon):
            return t
    raise RulesError(text, f"unknown house toggle; known toggles: {', '.join(TOGGLES)}")


def toggle_value(text: str) -> tuple[Toggle, Setting, Any]:
    """Parse one house toggle: ``(toggle, its setting, the value it gives)`` (a rank for a
    rank set). Raises :class:`RulesError` naming the toggle."""
    t = find_toggle(text)
    s = SETTING_OF[t.syntax]
    if not t.takes_arg:
        return t, s, t.value
    arg = text.partition(":")[2]
    if s.kind == "ranks":
        try:
            r = parse_rank(arg)
        except CardError:
            raise RulesError(text, f"unknown rank {shown(arg)}") from None
        if t.ranks and r not in t.ranks:
            raise RulesError(text, f"{s.key} ranks are {', '.join(rank_name(x) for x in t.ranks)}")
        return t, s, r
    if s.kind == "choice":
        if arg not in s.choices:
            raise RulesError(text, f"unknown {s.noun} {shown(arg)}; one of {', '.join(s.choices)}")
        return t, s, arg
    try:
        v = int(arg)
    except ValueError:
        raise RulesError(text, f"expects an integer after ':', got {shown(arg)}") from None
    if not s.lo <= v <= s.hi:
        raise RulesError(text, f"must be an integer from {s.lo} to {s.hi}, got {v}")
    return t, s, v


def toggle_examples(t: Toggle) -> tuple[str, ...]:
    """Concrete toggles the tests try for ``t``: its ``examples``, else the toggle itself,
    each allowed rank, each mode, or an integer one below and one above the default."""
    if t.examples is not None:
        return t.examples
    if not t.takes_arg:
        return (t.syntax,)
    s = SETTING_OF[t.syntax]
    if s.kind == "ranks":
        args = [rank_name(r) for r in t.ranks]
    elif s.kind == "choice":
        args = list(s.choices)
    else:
        args = [str(s.default + d) for d in (-1, 1) if s.lo <= s.default + d <= s.hi]
    return tuple(f"{t.name}:{a}" for a in args)


def toggle_groups(leave_out: Iterable[str] = ()) -> tuple[list[str], dict[str, list[str]]]:
    """Every toggle example (:func:`toggle_examples`) as the tests compose them: those that
    compose freely (a rank added to a set, a yes/no switched on), and per other setting
    the examples of which a rule set takes at most one (two that set it differently
    contradict). Settings named in ``leave_out`` are left out."""
    free: list[str] = []
    groups: dict[str, list[str]] = {}
    for syntax, t in TOGGLES.items():
        s = SETTING_OF[syntax]
        if s.key in leave_out:
            continue
        if s.kind in ("ranks", "bool"):
            free += toggle_examples(t)
        else:
            groups.setdefault(s.key, []).extend(toggle_examples(t))
    return free, groups


def each_toggle_candidates(
    base: Any, players: int | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """The toggles ``compare-rules --each-toggle`` tries on the rule set ``base`` (at
    ``players`` seats, when given), in table order, and those it does not ``(toggle, why)``.

    Tried: a toggle's ``each`` arguments when given; otherwise a flag toggle itself, each
    mode other than ``base``'s, and an integer one below and one above ``base``'s. Not
    tried, each with its reason: toggles declared never tried (``each=()``), those whose
    rule changes nothing at ``players`` (``void_at``), ``base``'s own mode and an integer
    outside the setting's range."""
    out: list[str] = []
    never: list[tuple[str, str]] = []
    for t in TOGGLES.values():
        s = SETTING_OF[t.syntax]
        if t.each == ():
            never.append((t.syntax, t.why))
            continue
        if t.each is not None:
            tried = [f"{t.name}:{a}" for a in t.each]
        elif not t.takes_arg:
            tried = [t.syntax]
        elif s.kind == "choice":
            tried = []
            for m in s.choices:
                if m == getattr(base, s.key):
                    never.append((f"{t.name}:{m}", f"no change: the base's {s.noun} is {m}"))
                else:
                    tried.append(f"{t.name}:{m}")
        else:
            v = getattr(base, s.key)
            tried = []
            for n in (v - 1, v + 1):
                if s.lo <= n <= s.hi:
                    tried.append(f"{t.name}:{n}")
                else:
                    why = f"out of range: {s.key} is from {s.lo} to {s.hi} (the base's is {v})"
                    never.append((f"{t.name}:{n}", why))
        if players in t.void_at:
            never += [(x, t.void_why) for x in tried]
        else:
            out += tried
    return out, never


def each_toggle_summary() -> str:
    """In words, what :func:`each_toggle_candidates` tries (for ``--each-toggle``'s help)."""
    fixed, others, near, never, void = [], [], [], [], []
    for t in TOGGLES.values():
        s = SETTING_OF[t.syntax]
        if t.void_at:
            void.append(f"{t.name} with {'/'.join(map(str, t.void_at))} players")
        if t.each == ():
            never.append(t.name)
        elif t.each is not None:
            fixed.append(f"{t.name}:{'/'.join(t.each)}")
        elif t.takes_arg and s.kind == "choice":
            others.append(t.name)
        elif t.takes_arg:
            near.append(t.name)
    return (
        f"every flag toggle; {', '.join(fixed)}; the {' and '.join(others)} modes other than X's; "
        f"{_and(near)} one below and above; {_and(never)} left out; "
        f"{_and(void)} skipped (it changes nothing there)"
    )


def _and(words: list[str]) -> str:
    return (
        ", ".join(words[:-1]) + (" and " if len(words) > 1 else "") + words[-1] if words else "none"
    )


def file_value_text(value: Any) -> str:
    """A setting's value as a rules file writes it (for documentation and tests)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, frozenset):
        return "[" + ", ".join(f'"{rank_name(r)}"' for r in sorted(value)) + "]"
    if isinstance(value, tuple):
        return f"[{value[0]}, {value[1]}]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


START_WORDS: dict[str, str] = {
    "dealer_left": "the seat after the dealer",
    "lowest_hand": "the lowest ordinary hand card, ties to the first after the dealer",
    "lowest_faceup": "the lowest ordinary face-up card, ties at random",
    "random": "a random seat",
}
"""Who starts under each ``start`` rule, in words (the engine's
:func:`shedsim.rules.engine.start_seat`)."""


def start_text(rule: str) -> str:
    """A ``start`` rule in words, with the name a rules file gives it: ``the seat after the
    dealer (dealer_left)``."""
    return f"{START_WORDS.get(rule, rule)} ({rule})"


def show_value(value: Any) -> str:
    """A setting's value as ``rules list`` and ``show`` print it: yes/no, rank names, a
    range as ``2-5``; ``None`` (``stall``'s default) as :data:`STALL_DEFAULT_TEXT`."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return f"{STALL_DEFAULT_TEXT} (stall:N)"
    if isinstance(value, (frozenset, set)):
        return names(value)
    if isinstance(value, tuple):
        return f"{value[0]}-{value[1]}"
    return str(value)


def names(ranks: Iterable[int]) -> str:
    """Rank names, lowest first, ``-`` for none."""
    return " ".join(rank_name(r) for r in sorted(ranks)) or "-"
