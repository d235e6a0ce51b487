"""Rules as data: the five presets, the house toggles, TOML rules files, compiled arrays.

A :class:`RuleSet` is a frozen description of one variant (docs/reference/rules.md). The
engines never branch on a preset's name: they read the per-rank sets and scalars here,
or the arrays :meth:`RuleSet.compile` builds from them (the ``can_play`` table, per-rank
flags and scalars, laid out as in :mod:`shedsim.layout`).

Card roles, per rank (docs/reference/rules.md#roles):

* ``reset``: goes on anything; anything may follow it (2).
* ``burn``: goes on anything and burns the pile (10).
* ``invisible``: goes on anything and is see-through (nines' 9, ``invisible:R``).
* ``magic``: goes on anything (duel's 5, nines' A). Reset, burn and invisible ranks are
  magic too.
* ``low``: once it is the effective top, the next non-magic play must be this rank or
  lower (duel's 5, nines' 5, ``low7``, ``low5``).
* ``under``: placed only on an effective top of its own rank or higher that is not magic
  (nines' 5: "on 5..K, not on 3, 4 or A").
* ``skip`` (``skip8``) and ``reverse`` (``reverse:R``): turn-order effects.

``can_play(t, r)`` then reads, first rule that applies wins::

    t empty or reset          -> yes
    r goes on anything        -> yes
    t low                     -> r <= t
    r under                   -> r <= t and t is not magic
    otherwise                 -> r >= t

shedsim's own rulings (docs/reference/rules.md#rulings; each is tested in tests/scenarios/):

* ``low7`` / ``low5`` move the preset's low-card role: on a preset with a low card (duel's
  5, nines' 5) the 7 takes that card's whole role and the old card becomes ordinary unless
  ``low5`` is also set (docs/reference/rules.md#ruling-low7-duel,
  docs/reference/rules.md#ruling-low7-nines); on a preset without one the rank becomes low
  with ordinary placement (palace's "7 is low": the 7 itself goes on a 7 or lower, like
  any ordinary card, and then limits the next play).
* ``lowest_starts`` means the lowest *hand* card after the swap (palace's option,
  shithead's rule); ties go by seat order from the dealer's left.
* "Ordinary" ranks for the start rule are those with no role at all
  (docs/reference/rules.md#ruling-lowest-card-start, extended to the house roles: a skip or
  reverse rank is not ordinary).
* ``mix_last_hand`` applies only once the stock is empty (face-up cards are never played
  while the stock lasts).
* Games that cannot end (docs/reference/rules.md#cannot-end): a proven loop ends the game; so does
  ``stall`` moves without a burn, a seat going out or a draw (default: see
  :data:`STALL_DEFAULTS`); a stopped game is scored by ``stalemate`` (:data:`STALEMATE_MODES`).
  The rules are spelled out in :mod:`shedsim.rules.engine`.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from shedsim import layout as L
from shedsim.rules.cards import RANKS, CardError, parse_rank, rank_mask, rank_name

PICKUP_MODES: tuple[str, ...] = ("never", "hand", "hand+faceup", "always")
"""Where voluntary pick-up is allowed; forced pick-up (no legal play) is always allowed."""

START_RULES: tuple[str, ...] = ("dealer_left", "lowest_hand", "lowest_faceup", "random")
"""Who starts: the seat after the dealer; the lowest ordinary hand card (ties by seat
order from the dealer's left); the lowest ordinary face-up card (ties and nobody settled
at random, nines); a random seat."""

PRESETS: tuple[str, ...] = ("duel", "nines", "family", "palace", "shithead")

MAX_PLAYERS_TWO_DECKS = 10

STALEMATE_MODES: tuple[str, ...] = ("share", "most_cards")
"""How a stopped game (stalled, proven loop or move cap) is scored; index = ``layout.STALEMATE_*``.
``share``: the seats still in share the remaining places (nobody loses); ``most_cards``:
they are placed by cards held, fewest first, so the seat holding most is the loser (ties
in turn order from the seat to move). shedsim's choice: docs/reference/rules.md#stalemate."""

STALL_DEFAULTS: tuple[tuple[int, int], ...] = ((MAX_PLAYERS_TWO_DECKS, 4000),)
"""Default of the no-progress rule (``stall:N``) by player count: ``(up to P players, N)``.
A game ends as stalled after N moves in a row in which no card leaves play (no burn),
nobody goes out and nobody draws from the stock (with the stock empty: no card leaves
play and nobody goes out). Chosen from data (README, "Games that cannot end",
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



class RulesError(ValueError):
    """Invalid rules input. ``field`` names the offending field, toggle or key."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class RuleSet:
    """One variant of the game, as data (docs/reference/rules.md).

    Rank sets hold ints 2..14. ``players`` is the allowed range (inclusive). Build one with
    :func:`preset`, :func:`build` or :func:`load_rules_file`; invalid combinations raise
    :class:`RulesError` from :meth:`validate`.
    """

    name: str
    min_players: int
    max_players: int
    reset: frozenset[int]
    burn: frozenset[int]
    invisible: frozenset[int] = frozenset()
    magic: frozenset[int] = frozenset()
    low: frozenset[int] = frozenset()
    under: frozenset[int] = frozenset()
    skip: frozenset[int] = frozenset()
    reverse: frozenset[int] = frozenset()
    pickup: str = "never"
    deck_gamble: bool = False
    start: str = "dealer_left"
    burn_passes: bool = False
    mix_last_hand: bool = False
    decks: int = 1
    hand_size: int = 3
    table_size: int = 3
    burn_run: int = 4
    max_moves: int = 5000
    stall: int | None = None
    stalemate: str = "share"
    scoring: str = "places"
    house: tuple[str, ...] = field(default=())

    # ------------------------------------------------------------------ roles
    def goes_on_anything(self, r: int) -> bool:
        """Whether rank ``r`` may be played on any effective top."""
        return r in self.magic or r in self.reset or r in self.burn or r in self.invisible

    def can_play(self, top: int, r: int) -> bool:
        """Whether rank ``r`` may be played on effective top ``top`` (0 = empty pile)."""
        if top == 0 or top in self.reset:
            return True
        if self.goes_on_anything(r):
            return True
        if top in self.low:
            return r <= top
        if r in self.under:
            return r <= top and not self.goes_on_anything(top)
        return r >= top

    def can_play_table(self) -> np.ndarray:
        """``bool[15, 15]``: ``[top, rank]``, top 0 = empty, 2..14; rows/cols 1 unused."""
        table = np.zeros((15, 15), dtype=np.bool_)
        for t in (0, *RANKS):
            for r in RANKS:
                table[t, r] = self.can_play(t, r)
        return table

    def ordinary(self, r: int) -> bool:
        """Whether ``r`` counts for lowest-card start rules (docs/reference/rules.md#ruling-lowest-card-start)."""
        roles = (self.reset | self.burn | self.invisible | self.magic | self.low | self.under
                 | self.skip | self.reverse)
        return r not in roles

    @property
    def deck_size(self) -> int:
        """Cards in the deck: 52 per deck."""
        return 52 * self.decks

    def describe_roles(self) -> dict[str, str]:
        """Readable per-role rank lists, for ``shedsim rules show``."""
        def names(s: Iterable[int]) -> str:
            return " ".join(rank_name(r) for r in sorted(s)) or "-"
        return {
            "reset": names(self.reset), "burn": names(self.burn),
            "invisible": names(self.invisible), "goes on anything": names(
                r for r in RANKS if self.goes_on_anything(r)),
            "low (next play this or lower)": names(self.low),
            "under (goes on this rank or higher)": names(self.under),
            "skip": names(self.skip), "reverse": names(self.reverse),
        }

    # ------------------------------------------------------------ validation
    def validate(self) -> RuleSet:
        """Check the rule set is playable; returns ``self``. Raises :class:`RulesError`."""
        for fname in ("reset", "burn", "invisible", "magic", "low", "under", "skip", "reverse"):
            for r in getattr(self, fname):
                if not isinstance(r, int) or r not in RANKS:
                    raise RulesError(fname, f"unknown rank {r!r}")
        if self.pickup not in PICKUP_MODES:
            raise RulesError("pickup", f"unknown mode {self.pickup!r}; one of {', '.join(PICKUP_MODES)}")
        if self.start not in START_RULES:
            raise RulesError("start", f"unknown rule {self.start!r}; one of {', '.join(START_RULES)}")
        if self.stalemate not in STALEMATE_MODES:
            raise RulesError("stalemate", f"unknown mode {self.stalemate!r}; one of {', '.join(STALEMATE_MODES)}")
        if self.stall is not None and (not isinstance(self.stall, int) or isinstance(self.stall, bool)
                                       or not 0 <= self.stall <= 10_000_000):
            raise RulesError("stall", f"must be an integer from 0 (off) to 10000000, got {self.stall!r}")
        if self.decks not in (1, 2):
            raise RulesError("decks", f"must be 1 or 2, got {self.decks!r}")
        for fname, lo, hi in (("hand_size", 1, 10), ("table_size", 1, 6), ("burn_run", 2, 8),
                              ("max_moves", 10, 10_000_000)):
            v = getattr(self, fname)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                raise RulesError(fname, f"must be an integer from {lo} to {hi}, got {v!r}")
        cap = MAX_PLAYERS_TWO_DECKS if self.decks == 2 else 5
        if not (isinstance(self.min_players, int) and isinstance(self.max_players, int)
                and 2 <= self.min_players <= self.max_players):
            raise RulesError("players", f"range must be 2 <= min <= max, got "
                             f"{self.min_players!r}..{self.max_players!r}")
        if self.max_players > cap:
            raise RulesError("players", f"at most {cap} players with {self.decks} deck(s), "
                             f"got {self.max_players}")
        if self.deal_size(self.min_players) > self.deck_size:
            raise RulesError("table_size" if self.table_size != 3 else "hand_size",
                             f"too few cards for the deal: {self.min_players} players x "
                             f"({self.hand_size} hand + 2 x {self.table_size} table) = "
                             f"{self.deal_size(self.min_players)} > {self.deck_size} cards")
        both = self.low & self.under
        if both and not all(r <= 7 for r in both):
            raise RulesError("under", "an under rank above 7 contradicts its low role")
        self._check_role_conflicts()
        return self

    ROLE_EFFECTS = {
        "reset": "anything may follow it",
        "burn": "it burns the pile, so nothing is left on top",
        "invisible": "the card below it stays the effective top",
        "low": "the next play must be its rank or lower",
    }
    """The roles that decide what the next play must beat: a rank holds at most one."""

    def _check_role_conflicts(self) -> None:
        """Refuse a rank with two roles that contradict (docs/reference/rules.md#role-conflicts):
        two of :attr:`ROLE_EFFECTS` (what the next play must
        beat), or ``under`` (placed only on its own rank or higher) with a role that goes
        on anything (reset, burn, invisible, magic). Raises :class:`RulesError` naming the
        rank and both roles."""
        roles = list(self.ROLE_EFFECTS)
        for i, a in enumerate(roles):
            for b in roles[i + 1:]:
                for r in sorted(getattr(self, a) & getattr(self, b)):
                    raise RulesError(b, f"rank {rank_name(r)} is both {a} and {b}, which contradict: as {a} "
                                        f"{self.ROLE_EFFECTS[a]}; as {b} {self.ROLE_EFFECTS[b]}. Give the rank "
                                        f"one of the two roles")
        for a in ("reset", "burn", "invisible", "magic"):
            for r in sorted(getattr(self, a) & self.under):
                raise RulesError("under", f"rank {rank_name(r)} is both {a} and under, which contradict: as {a} "
                                          f"it goes on anything; as under only on its own rank or higher. Give "
                                          f"the rank one of the two roles")

    def check_players(self, players: int) -> None:
        """Raise :class:`RulesError` (field ``players``) if ``players`` is outside the range."""
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise RulesError("players", f"must be an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            rng = (f"exactly {self.min_players}" if self.min_players == self.max_players
                   else f"{self.min_players}-{self.max_players}")
            raise RulesError("players", f"{self.name} is for {rng} players, got {players}")
        if self.deal_size(players) > self.deck_size:
            raise RulesError("players", f"too few cards for the deal: {players} players x "
                             f"({self.hand_size} hand + 2 x {self.table_size} table) = "
                             f"{self.deal_size(players)} > {self.deck_size} cards")

    def stall_moves(self, players: int) -> int:
        """The no-progress limit in moves at ``players`` seats: ``stall`` if set (0 = off),
        else :func:`default_stall`."""
        return default_stall(players) if self.stall is None else self.stall

    def deal_size(self, players: int) -> int:
        """Cards dealt to ``players`` seats: hand plus face-up plus face-down."""
        return players * (self.hand_size + 2 * self.table_size)

    # ------------------------------------------------------------- compiling
    def compile(self, players: int) -> np.ndarray:
        """The ``int64[L.R_SIZE]`` array the kernel reads (layout in :mod:`shedsim.layout`).

        Raises :class:`RulesError` if ``players`` is outside the rule set's range.
        """
        self.check_players(players)
        a = np.zeros(L.R_SIZE, dtype=np.int64)
        for t in (0, *RANKS):
            a[L.R_PLAYABLE + t] = rank_mask(r for r in RANKS if self.can_play(t, r))
        for r in RANKS:
            f = 0
            f |= L.F_BURN if r in self.burn else 0
            f |= L.F_RESET if r in self.reset else 0
            f |= L.F_INVISIBLE if r in self.invisible else 0
            f |= L.F_SKIP if r in self.skip else 0
            f |= L.F_REVERSE if r in self.reverse else 0
            f |= L.F_MAGIC if self.goes_on_anything(r) else 0
            f |= L.F_LOW if r in self.low else 0
            f |= L.F_ORDINARY if self.ordinary(r) else 0
            a[L.R_FLAGS + r] = f
        a[L.R_BURN_MASK] = rank_mask(self.burn)
        a[L.R_INVISIBLE_MASK] = rank_mask(self.invisible)
        a[L.R_RESET_MASK] = rank_mask(self.reset)
        a[L.R_SKIP_MASK] = rank_mask(self.skip)
        a[L.R_REVERSE_MASK] = rank_mask(self.reverse)
        a[L.R_SPECIAL_MASK] = rank_mask(r for r in RANKS if not self.ordinary(r))
        a[L.R_ORDINARY_MASK] = rank_mask(r for r in RANKS if self.ordinary(r))
        a[L.R_PLAYERS] = players
        a[L.R_DECKS] = self.decks
        a[L.R_DECK_SIZE] = self.deck_size
        a[L.R_HAND_SIZE] = self.hand_size
        a[L.R_TABLE_SIZE] = self.table_size
        a[L.R_BURN_RUN] = self.burn_run
        a[L.R_PICKUP] = PICKUP_MODES.index(self.pickup)
        a[L.R_GAMBLE] = int(self.deck_gamble)
        a[L.R_START] = START_RULES.index(self.start)
        a[L.R_BURN_PASSES] = int(self.burn_passes)
        a[L.R_MIX_LAST] = int(self.mix_last_hand)
        a[L.R_MAX_MOVES] = self.max_moves
        a[L.R_STALL] = self.stall_moves(players)
        a[L.R_STALEMATE] = STALEMATE_MODES.index(self.stalemate)
        return a

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (rank sets as sorted name lists), for ``run.json`` and display."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, frozenset):
                v = [rank_name(r) for r in sorted(v)]
            elif isinstance(v, tuple):
                v = list(v)
            out[f.name] = v
        return out


# ---------------------------------------------------------------- presets
def _ranks(*names: str | int) -> frozenset[int]:
    return frozenset(parse_rank(n) for n in names)


def preset(name: str) -> RuleSet:
    """The named preset (docs/reference/rules.md#presets). Raises :class:`RulesError` (field ``rules``)."""
    if name == "duel":
        rs = RuleSet("duel", 2, 2, reset=_ranks(2), burn=_ranks(10), magic=_ranks(5),
                     low=_ranks(5), pickup="always", deck_gamble=True, start="dealer_left",
                     scoring="loser is the idiot")
    elif name == "nines":
        rs = RuleSet("nines", 2, 4, reset=_ranks(2), burn=_ranks(10), invisible=_ranks(9),
                     magic=_ranks("A"), low=_ranks(5), under=_ranks(5), pickup="never",
                     start="lowest_faceup", scoring="places")
    elif name == "family":
        rs = RuleSet("family", 2, 4, reset=_ranks(2), burn=_ranks(10), pickup="hand+faceup",
                     start="dealer_left", scoring="idiot tally")
    elif name == "palace":
        rs = RuleSet("palace", 2, 5, reset=_ranks(2), burn=_ranks(10), pickup="hand+faceup",
                     start="dealer_left", scoring="places summed over a match of 1-10 rounds")
    elif name == "shithead":
        rs = RuleSet("shithead", 2, 5, reset=_ranks(2), burn=_ranks(10), pickup="never",
                     start="lowest_hand", scoring="count of games not lost")
    else:
        raise RulesError("rules", f"unknown rule set {name!r}; one of {', '.join(PRESETS)}")
    return rs


TOGGLES: dict[str, str] = {
    "low7": "7 is low: after a 7 the next play must be 7 or lower (on duel/nines the 7 takes the 5's role)",
    "low5": "5 is low: after a 5 the next play must be 5 or lower",
    "invisible:R": "R in {3, 8, 9} goes on anything and is see-through",
    "skip8": "each 8 played skips the next player (k eights skip k players)",
    "reverse:R": "each card of rank R played reverses the direction of play",
    "burn_passes": "after a burn the next player leads instead of the burner",
    "lowest_starts": "the lowest ordinary hand card starts (ties by seat order from the dealer's left)",
    "random_starts": "a random seat starts",
    "dealer_left_starts": "the seat after the dealer starts",
    "pickup:MODE": "voluntary pick-up: never | hand | hand+faceup | always",
    "deck_gamble": "the duel's blind gamble on the stock's top card, in any preset",
    "mix_last_hand": "with the last hand card you may add face-up cards of its rank (stock empty)",
    "two_decks": "104 cards, up to 10 players",
    "hand_size:N": "hand cards dealt and refilled to (default 3)",
    "table_size:N": "face-up and face-down cards each (default 3)",
    "max_moves:N": "move cap after which a game is unfinished (default 5000)",
    "stall:N": "N moves in a row without a burn, anyone going out or a draw from the stock: the game "
               "is stalled and ends (default " + ", ".join(
                   f"{n} up to {p} players" if p < MAX_PLAYERS_TWO_DECKS else f"{n}" for p, n in STALL_DEFAULTS)
               + "; 0 = off)",
    "stalemate:MODE": "scoring of a stopped game (stalled, proven loop, move cap): share (default: seats "
                      "still in share the remaining places) | most_cards (placed by cards held, most = loser)",
}
"""Every house toggle (docs/reference/rules.md#house) with a one-line description."""

_START_TOGGLES = {"lowest_starts": "lowest_hand", "random_starts": "random",
                  "dealer_left_starts": "dealer_left"}


def _int_arg(toggle: str, arg: str) -> int:
    try:
        return int(arg)
    except ValueError:
        raise RulesError(toggle, f"expects an integer after ':', got {arg!r}") from None


def apply_house(base: RuleSet, toggles: Sequence[str]) -> RuleSet:
    """Apply house toggles (docs/reference/rules.md#house) to ``base``; order does not matter.

    Raises :class:`RulesError` naming the toggle for unknown, malformed or contradictory
    toggles, and the field for an unplayable result.
    """
    toggles = [t.strip() for t in toggles if t.strip()]
    changes: dict[str, Any] = {}
    seen: dict[str, str] = {}

    def once(key: str, toggle: str) -> None:
        if key in seen and seen[key] != toggle:
            raise RulesError(toggle, f"contradicts {seen[key]!r} (both set {key})")
        seen[key] = toggle

    low_requested: set[int] = set()
    invisible = set(base.invisible)
    skip = set(base.skip)
    reverse = set(base.reverse)
    for t in toggles:
        name, _, arg = t.partition(":")
        if name in ("low7", "low5") and not arg:
            low_requested.add(int(name[3]))
        elif name == "invisible" and arg:
            try:
                r = parse_rank(arg)
            except CardError:
                raise RulesError(t, f"unknown rank {arg!r}") from None
            if r not in (3, 8, 9):
                raise RulesError(t, "invisible ranks are 3, 8 or 9")
            invisible.add(r)
        elif name == "skip8" and not arg:
            skip.add(8)
        elif name == "reverse" and arg:
            try:
                reverse.add(parse_rank(arg))
            except CardError:
                raise RulesError(t, f"unknown rank {arg!r}") from None
        elif name == "burn_passes" and not arg:
            changes["burn_passes"] = True
        elif name in _START_TOGGLES and not arg:
            once("start", t)
            changes["start"] = _START_TOGGLES[name]
        elif name == "pickup" and arg:
            if arg not in PICKUP_MODES:
                raise RulesError(t, f"unknown pick-up mode {arg!r}; one of {', '.join(PICKUP_MODES)}")
            once("pickup", t)
            changes["pickup"] = arg
        elif name == "deck_gamble" and not arg:
            changes["deck_gamble"] = True
        elif name == "mix_last_hand" and not arg:
            changes["mix_last_hand"] = True
        elif name == "two_decks" and not arg:
            changes["decks"] = 2
            changes["max_players"] = MAX_PLAYERS_TWO_DECKS
        elif name == "stalemate" and arg:
            if arg not in STALEMATE_MODES:
                raise RulesError(t, f"unknown stalemate mode {arg!r}; one of {', '.join(STALEMATE_MODES)}")
            once("stalemate", t)
            changes["stalemate"] = arg
        elif name in ("hand_size", "table_size", "max_moves", "stall") and arg:
            once(name, t)
            changes[name] = _int_arg(t, arg)
        else:
            known = ", ".join(TOGGLES)
            raise RulesError(t, f"unknown house toggle; known toggles: {known}")

    magic, low, under = set(base.magic), set(base.low), set(base.under)
    if low_requested:
        # The preset's own low card (duel's 5, nines' 5) defines the role to hand on.
        base_low = sorted(base.low)
        role = ({"magic"} if base_low and base_low[0] in base.magic else set()) | (
            {"under"} if base_low and base_low[0] in base.under else set())
        for old in base_low:
            if old not in low_requested:
                low.discard(old)
                magic.discard(old)
                under.discard(old)
        for r in low_requested:
            low.add(r)
            if "magic" in role:
                magic.add(r)
            if "under" in role:
                under.add(r)
    changes.update(invisible=frozenset(invisible), skip=frozenset(skip),
                   reverse=frozenset(reverse), magic=frozenset(magic), low=frozenset(low),
                   under=frozenset(under), house=tuple(sorted(set(base.house) | set(toggles))))
    rs = dataclasses.replace(base, **changes)
    return rs.validate()


def build(rules: str = "shithead", house: Sequence[str] = (), rules_file: str | Path | None = None) -> RuleSet:
    """A rule set from a preset name (or a rules TOML path) plus house toggles.

    ``rules_file`` takes precedence over ``rules``. ``rules`` ending in ``.toml`` is read as
    a file. Raises :class:`RulesError`.
    """
    if rules_file is not None:
        base = load_rules_file(rules_file)
    elif rules.endswith(".toml"):
        base = load_rules_file(rules)
    else:
        base = preset(rules)
    return apply_house(base, list(house)) if house else base.validate()


_TOML_RANK_SETS = ("reset", "burn", "invisible", "magic", "low", "under", "skip", "reverse")
_TOML_BOOLS = ("deck_gamble", "burn_passes", "mix_last_hand")
_TOML_INTS = ("decks", "hand_size", "table_size", "burn_run", "max_moves", "stall")
_TOML_STRS = ("pickup", "start", "name", "scoring", "stalemate")


def rules_from_mapping(data: dict[str, Any], where: str = "rules") -> RuleSet:
    """A rule set from a parsed rules TOML mapping (see :func:`load_rules_file`).

    Raises :class:`RulesError` naming the key for wrong types, unknown keys or values.
    """
    if not isinstance(data, dict):
        raise RulesError(where, "expected a table of rule settings")
    known = {"preset", "house", "players", *_TOML_RANK_SETS, *_TOML_BOOLS, *_TOML_INTS, *_TOML_STRS}
    for k in data:
        if k not in known:
            raise RulesError(k, f"unknown key in {where}; known keys: {', '.join(sorted(known))}")
    if "preset" not in data:
        raise RulesError("preset", f"missing in {where}: name the preset the file starts from "
                         f"({', '.join(PRESETS)})")
    if not isinstance(data["preset"], str):
        raise RulesError("preset", f"must be a string, got {data['preset']!r}")
    rs = preset(data["preset"])
    changes: dict[str, Any] = {}
    for k in _TOML_RANK_SETS:
        if k in data:
            v = data[k]
            if not isinstance(v, list):
                raise RulesError(k, f"must be a list of ranks, got {v!r}")
            try:
                changes[k] = frozenset(parse_rank(x) for x in v)
            except CardError as e:
                raise RulesError(k, str(e)) from None
    for k in _TOML_BOOLS:
        if k in data:
            if not isinstance(data[k], bool):
                raise RulesError(k, f"must be true or false, got {data[k]!r}")
            changes[k] = data[k]
    for k in _TOML_INTS:
        if k in data:
            if not isinstance(data[k], int) or isinstance(data[k], bool):
                raise RulesError(k, f"must be an integer, got {data[k]!r}")
            changes[k] = data[k]
    for k in _TOML_STRS:
        if k in data:
            if not isinstance(data[k], str):
                raise RulesError(k, f"must be a string, got {data[k]!r}")
            changes[k] = data[k]
    if "players" in data:
        p = data["players"]
        if isinstance(p, int) and not isinstance(p, bool):
            p = [p, p]
        if (not isinstance(p, list) or len(p) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in p)):
            raise RulesError("players", f"must be an integer or [min, max], got {data['players']!r}")
        changes["min_players"], changes["max_players"] = p
    if "name" not in changes:
        changes["name"] = f"{rs.name}*" if len(data) > 1 else rs.name
    rs = dataclasses.replace(rs, **changes).validate()
    house = data.get("house", [])
    if not isinstance(house, list) or not all(isinstance(h, str) for h in house):
        raise RulesError("house", f"must be a list of toggle strings, got {house!r}")
    return apply_house(rs, house) if house else rs


def load_rules_file(path: str | Path) -> RuleSet:
    """Read a rules TOML file: ``preset = "NAME"`` plus optional overrides and ``house``.

    Keys: ``preset``, ``house`` (list of toggles), ``players`` (int or [min, max]), rank
    lists ``reset burn invisible magic low under skip reverse``, ``pickup``, ``start``,
    ``deck_gamble``, ``burn_passes``, ``mix_last_hand``, ``decks``, ``hand_size``,
    ``table_size``, ``burn_run``, ``max_moves``, ``stall``, ``stalemate``, ``name``. Raises :class:`RulesError` naming
    the file and field.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RulesError("rules-file", f"cannot read {str(p)!r}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RulesError("rules-file", f"{str(p)!r} is not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError("rules-file", f"{str(p)!r} is not valid TOML: {e}") from None
    return rules_from_mapping(data, where=str(p))
