"""Rules as data: the five presets, the house toggles, TOML rules files, compiled arrays.

Every setting and toggle is declared once, in :data:`shedsim.rules.settings.SETTINGS`:
the :class:`RuleSet` fields, their checks, the presets, :func:`apply_house` and the
rules-file loader are read from that table.

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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import shedsim.rules.settings as S
from shedsim import layout as L
from shedsim.rules.cards import RANKS, rank_mask, rank_name
from shedsim.rules.files import FileProblem, read_toml
from shedsim.rules.settings import (  # noqa: F401 - re-exported
    MAX_PLAYERS_ONE_DECK,
    MAX_PLAYERS_TWO_DECKS,
    PICKUP_MODES,
    PRESETS,
    STALEMATE_MODES,
    STALL_DEFAULTS,
    START_RULES,
    RulesError,
    default_stall,
)

TOGGLES: dict[str, str] = {syntax: t.help for syntax, t in S.TOGGLES.items()}
"""Every house toggle (docs/reference/rules.md#house) with a one-line description (from the
table)."""

_RANK_SETS = tuple(s for s in S.SETTINGS if s.kind == "ranks")


def _table_fields(cls: type) -> type:
    """Make ``cls`` a frozen, keyword-only dataclass whose fields are the table's settings
    (:data:`shedsim.rules.settings.SETTINGS`, in order), then ``house``."""
    own = dict(cls.__dict__.get("__annotations__", {}))
    cls.__annotations__ = {f: s.annotation() for s in S.SETTINGS for f in s.fields} | own
    return dataclass(frozen=True, kw_only=True)(cls)


_COMPILED: dict[tuple, np.ndarray] = {}
"""What :meth:`RuleSet.compile` gave, by (rule set, players)."""


@_table_fields
class RuleSet:
    """One variant of the game, as data (docs/reference/rules.md).

    The fields are the settings of :data:`shedsim.rules.settings.SETTINGS` (``players`` as
    ``min_players`` and ``max_players``, the range allowed, inclusive), then ``house``: the
    toggles applied. Rank sets hold ints 2..14. Build one with :func:`preset`,
    :func:`build` or :func:`load_rules_file`; invalid combinations raise
    :class:`RulesError` from :meth:`validate`.
    """

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
        """Whether ``r`` counts for lowest-card start rules
        (docs/reference/rules.md#ruling-lowest-card-start): it has no role (is
        in no rank set of the table)."""
        return not any(r in getattr(self, s.key) for s in _RANK_SETS)

    @property
    def deck_size(self) -> int:
        """Cards in the deck: 52 per deck."""
        return 52 * self.decks

    def describe(self) -> list[tuple[str, str]]:
        """``(label, value)`` of every setting but the name, in table order, for ``rules
        show``: ``goes on anything`` lists every rank that does (magic, reset, burn and
        invisible ranks); ``stall`` its limit by player count."""
        out = []
        for s in S.SETTINGS:
            if s.key == "name":
                continue
            if s.key == "magic":
                v = S.names(r for r in RANKS if self.goes_on_anything(r))
            elif s.key == "stall":
                v = self.describe_stall()
            elif s.key == "start":
                v = S.start_text(self.start)
            elif s.kind == "players":
                v = S.show_value((self.min_players, self.max_players))
            else:
                v = S.show_value(getattr(self, s.key))
            out.append((s.title, v))
        return out

    def describe_stall(self) -> str:
        """The no-progress limit over the player range: ``off`` or ``N (2-5 players)``."""
        if self.stall == 0:
            return "off"
        groups: dict[int, list[int]] = {}
        for p in range(self.min_players, self.max_players + 1):
            groups.setdefault(self.stall_moves(p), []).append(p)
        return "; ".join(
            f"{n} ({ps[0]}{'' if len(ps) == 1 else f'-{ps[-1]}'} players)"
            for n, ps in groups.items()
        )

    # ------------------------------------------------------------ validation
    def validate(self) -> RuleSet:
        """Check the rule set is playable; returns ``self``. Raises :class:`RulesError`:
        a setting outside its type or range (:meth:`shedsim.rules.settings.Setting.check`),
        more players than the decks allow, too few cards for the deal at the smallest
        table, or a rank with two roles that contradict."""
        for s in S.SETTINGS:
            s.check(
                (self.min_players, self.max_players)
                if s.kind == "players"
                else getattr(self, s.key)
            )
        cap = MAX_PLAYERS_TWO_DECKS if self.decks == 2 else MAX_PLAYERS_ONE_DECK
        if self.max_players > cap:
            raise RulesError(
                "players",
                f"at most {cap} players with {self.decks} deck(s), got {self.max_players}",
            )
        if self.deal_size(self.min_players) > self.deck_size:
            raise RulesError(
                "table_size" if self.table_size != 3 else "hand_size",
                f"too few cards for the deal: {self.min_players} players x "
                f"({self.hand_size} hand + 2 x {self.table_size} table) = "
                f"{self.deal_size(self.min_players)} > {self.deck_size} cards",
            )
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
            for b in roles[i + 1 :]:
                for r in sorted(getattr(self, a) & getattr(self, b)):
                    raise RulesError(
                        b,
                        f"rank {rank_name(r)} is both {a} and {b}, which contradict: as {a} "
                        f"{self.ROLE_EFFECTS[a]}; as {b} {self.ROLE_EFFECTS[b]}. Give the rank "
                        f"one of the two roles",
                    )
        for a in ("reset", "burn", "invisible", "magic"):
            for r in sorted(getattr(self, a) & self.under):
                raise RulesError(
                    "under",
                    f"rank {rank_name(r)} is both {a} and under, which contradict: as {a} "
                    f"it goes on anything; as under only on its own rank or higher. Give "
                    f"the rank one of the two roles",
                )

    def check_players(self, players: int) -> None:
        """Raise :class:`RulesError` (field ``players``) if ``players`` is outside the range."""
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise RulesError("players", f"must be an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            rng = (
                f"exactly {self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players}-{self.max_players}"
            )
            raise RulesError("players", f"{self.name} is for {rng} players, got {players}")
        if self.deal_size(players) > self.deck_size:
            raise RulesError(
                "players",
                f"too few cards for the deal: {players} players x "
                f"({self.hand_size} hand + 2 x {self.table_size} table) = "
                f"{self.deal_size(players)} > {self.deck_size} cards",
            )

    def stall_moves(self, players: int) -> int:
        """The no-progress limit in moves at ``players`` seats: ``stall`` if set (0 = off),
        else :func:`default_stall`."""
        return default_stall(players) if self.stall is None else self.stall

    def deal_size(self, players: int) -> int:
        """Cards dealt to ``players`` seats: hand plus face-up plus face-down."""
        return players * (self.hand_size + 2 * self.table_size)

    # ------------------------------------------------------------- compiling
    def compile(self, players: int) -> np.ndarray:
        """The ``int64[L.R_SIZE]`` array the kernel reads (layout in :mod:`shedsim.layout`):
        each setting's ``slot`` of the table (a rank set as a packed mask, a choice as its
        index, ``stall`` as :meth:`stall_moves`, ``players`` as ``players``), the per-rank
        flags of the rank sets with a ``flag``, and what follows from them: the can-play
        masks, ``F_MAGIC`` (goes on anything), ``F_ORDINARY``, the special and ordinary
        masks and the deck size.

        Raises :class:`RulesError` if ``players`` is outside the rule set's range.

        Kept per rule set and seat count for the process (a run asks once per chunk); each
        call returns a copy of its own.
        """
        self.check_players(players)
        key = (self, players)
        kept = _COMPILED.get(key)
        if kept is None:
            if len(_COMPILED) > 64:
                _COMPILED.clear()
            kept = _COMPILED[key] = self._compile(players)
        return kept.copy()

    def _compile(self, players: int) -> np.ndarray:
        a = np.zeros(L.R_SIZE, dtype=np.int64)
        for t in (0, *RANKS):
            a[L.R_PLAYABLE + t] = rank_mask(r for r in RANKS if self.can_play(t, r))
        for r in RANKS:
            f = 0
            for s in _RANK_SETS:
                if s.flag is not None and r in getattr(self, s.key):
                    f |= getattr(L, s.flag)
            f |= L.F_MAGIC if self.goes_on_anything(r) else 0
            f |= L.F_ORDINARY if self.ordinary(r) else 0
            a[L.R_FLAGS + r] = f
        for s in S.SETTINGS:
            if s.slot is not None:
                a[getattr(L, s.slot)] = self._slot_value(s, players)
        a[L.R_SPECIAL_MASK] = rank_mask(r for r in RANKS if not self.ordinary(r))
        a[L.R_ORDINARY_MASK] = rank_mask(r for r in RANKS if self.ordinary(r))
        a[L.R_DECK_SIZE] = self.deck_size
        return a

    def _slot_value(self, s: S.Setting, players: int) -> int:
        """The rules-array value of setting ``s`` at ``players`` seats."""
        if s.kind == "players":
            return players
        if s.key == "stall":
            return self.stall_moves(players)
        v = getattr(self, s.key)
        if s.kind == "ranks":
            return rank_mask(v)
        if s.kind == "choice":
            return s.choices.index(v)
        return int(v)

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
def preset(name: str) -> RuleSet:
    """The named preset (docs/reference/rules.md#presets): each setting's value for it in the table.
    Raises :class:`RulesError` (field ``rules``)."""
    if name not in PRESETS:
        raise RulesError("rules", f"unknown rule set {name!r}; one of {', '.join(PRESETS)}")
    values: dict[str, Any] = {}
    for s in S.SETTINGS:
        v = s.value(name)
        values.update(zip(s.fields, v) if s.kind == "players" else [(s.key, v)])
    return RuleSet(**values)


# ---------------------------------------------------------------- house toggles
def _house_changes(base: RuleSet, toggles: Sequence[str]) -> dict[str, Any]:
    """The fields the house ``toggles`` change on ``base`` (not checked: the caller
    validates once everything is applied). Raises :class:`RulesError` naming the toggle
    for an unknown or malformed one, or two that set one setting differently."""
    toggles = [t.strip() for t in toggles if t.strip()]
    changes: dict[str, Any] = {}
    seen: dict[str, str] = {}
    sets = {s.key: set(getattr(base, s.key)) for s in _RANK_SETS}
    low_requested: set[int] = set()
    for text in toggles:
        toggle, s, value = S.toggle_value(text)
        if s.key == "low":
            low_requested.add(value)
        elif s.kind == "ranks":
            sets[s.key].add(value)
        else:
            if s.key in seen and seen[s.key] != text:
                raise RulesError(text, f"contradicts {seen[s.key]!r} (both set {s.key})")
            seen[s.key] = text
            changes[s.key] = value
            changes.update(toggle.also)
    if low_requested:
        _hand_on_low_role(base, low_requested, sets)
    changes.update({k: frozenset(v) for k, v in sets.items()})
    changes["house"] = tuple(sorted(set(base.house) | set(toggles)))
    return changes


def _hand_on_low_role(base: RuleSet, requested: set[int], sets: dict[str, set[int]]) -> None:
    """``low7``/``low5`` (docs/reference/rules.md#ruling-low7-duel): the preset's own low card
    (duel's 5, nines' 5) defines
    the role to hand on; a low card not requested loses it (low, magic, under)."""
    base_low = sorted(base.low)
    role = ({"magic"} if base_low and base_low[0] in base.magic else set()) | (
        {"under"} if base_low and base_low[0] in base.under else set()
    )
    for old in base_low:
        if old not in requested:
            for k in ("low", "magic", "under"):
                sets[k].discard(old)
    for r in requested:
        sets["low"].add(r)
        for k in role:
            sets[k].add(r)


def apply_house(base: RuleSet, toggles: Sequence[str]) -> RuleSet:
    """Apply house toggles (docs/reference/rules.md#house) to ``base``; order does not matter.

    Raises :class:`RulesError` naming the toggle for unknown, malformed or contradictory
    toggles, and the field for an unplayable result.
    """
    return dataclasses.replace(base, **_house_changes(base, toggles)).validate()


def build(
    rules: str = "shithead", house: Sequence[str] = (), rules_file: str | Path | None = None
) -> RuleSet:
    """A rule set from a preset name (or a rules TOML path) plus house toggles.

    ``rules_file`` takes precedence over ``rules``. ``rules`` ending in ``.toml`` is read as
    a file; ``house`` then applies on top of the file's settings and toggles before
    anything is checked (:func:`rules_from_mapping`). Raises :class:`RulesError`.
    """
    if rules_file is not None:
        return load_rules_file(rules_file, house)
    if rules.endswith(".toml"):
        return load_rules_file(rules, house)
    base = preset(rules)
    return apply_house(base, list(house)) if house else base.validate()


# ---------------------------------------------------------------- rules files
def rules_from_mapping(
    data: dict[str, Any], where: str = "rules", house: Sequence[str] = ()
) -> RuleSet:
    """A rule set from a parsed rules TOML mapping (keys: :data:`shedsim.rules.settings.FILE_KEYS`).

    The preset, then the file's settings, then its ``house`` toggles, then its ``players``
    (a range given in the file stands: ``two_decks`` lifts the cap to 10, it does not
    widen the file's range), then the extra ``house`` toggles; the result is checked once,
    at the end. Raises :class:`RulesError` naming the key for wrong types, unknown keys or
    values.
    """
    if not isinstance(data, dict):
        raise RulesError(where, "expected a table of rule settings")
    for k in data:
        if k not in S.FILE_KEYS:
            raise RulesError(
                k, f"unknown key in {where}; known keys: {', '.join(sorted(S.FILE_KEYS))}"
            )
    if "preset" not in data:
        raise RulesError(
            "preset",
            f"missing in {where}: name the preset the file starts from ({', '.join(PRESETS)})",
        )
    if not isinstance(data["preset"], str):
        raise RulesError("preset", f"must be a string, got {S.shown(data['preset'])}")
    rs = preset(data["preset"])
    changes: dict[str, Any] = {}
    for s in S.SETTINGS:
        if s.key in data and s.kind != "players":
            changes.update(s.from_file(data[s.key]))
    players = S.BY_KEY["players"].from_file(data["players"]) if "players" in data else {}
    if "name" not in changes:
        changed = any(k not in ("preset", "house") for k in data)
        changes["name"] = f"{rs.name}*" if changed else rs.name
    elif not changes["name"].strip():
        raise RulesError(
            "name", f"must not be empty in {where}: give a name or leave the key out (the preset's)"
        )
    own = data.get("house", [])
    if not isinstance(own, list) or not all(isinstance(h, str) for h in own):
        raise RulesError("house", f"must be a list of toggle strings, got {S.shown(own)}")
    rs = dataclasses.replace(rs, **changes)
    if own:
        rs = dataclasses.replace(rs, **_house_changes(rs, own))
    rs = dataclasses.replace(rs, **players)
    if house:
        rs = dataclasses.replace(rs, **_house_changes(rs, house))
    return rs.validate()


def load_rules_file(path: str | Path, house: Sequence[str] = ()) -> RuleSet:
    """Read a rules TOML file: ``preset = "NAME"`` plus optional settings (every key of
    :data:`shedsim.rules.settings.SETTINGS`; ``shedsim rules list`` prints them) and
    ``house``; then the extra ``house`` toggles (:func:`rules_from_mapping`). Raises
    :class:`RulesError` naming the file (field ``rules-file``: unreadable, not UTF-8, not
    TOML, nested too deeply) or the key.
    """
    p = Path(path)
    try:
        data = read_toml(p)
    except FileProblem as e:
        raise RulesError("rules-file", f"{str(p)!r}: {e}") from None
    return rules_from_mapping(data, where=str(p), house=house)
