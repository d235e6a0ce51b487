"""What a setting of a rule set is: its kind (:data:`KINDS`), its description and bounds, how a
file value or a house toggle sets it and how it is checked (:class:`Setting`, :class:`Toggle`),
and the error every bad rules input raises (:class:`RulesError`). The table of every setting
is :mod:`shedsim.rules.settings`', which re-exports every name here.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, field
from typing import Any

from shedsim.rules.cards import RANKS, CardError, parse_rank


KINDS = ("text", "players", "ranks", "bool", "choice", "int")
"""A setting's type: free text; a player range (``min_players``, ``max_players``); a set of
ranks 2..14; true/false; one of ``choices``; an integer from ``lo`` to ``hi``."""


class RulesError(ValueError):
    """Invalid rules input. ``field`` names the offending field, toggle or key."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


_short = reprlib.Repr()
_short.maxlevel, _short.maxstring, _short.maxother = 4, 100, 100
_short.maxlist = _short.maxtuple = _short.maxset = _short.maxfrozenset = _short.maxdict = 110


def shown(value: Any) -> str:
    """``repr(value)``, cut short past 4 levels of nesting, 110 items (two decks' cards) or
    100 characters, for messages: a value from a file may be deep or huge."""
    return _short.repr(value)


@dataclass(frozen=True)
class Toggle:
    """A house toggle: ``syntax`` is how it is written (``skip8``; ``NAME:ARG`` with ``ARG``
    one of ``R`` a rank, ``MODE`` a choice, ``N`` an integer).

    Without an argument it sets its setting to ``value`` (a rank set gets the rank
    ``value`` added). ``ranks``: the ranks ``R`` may be (empty: any). ``also``: other
    fields it sets (``two_decks`` raises the player cap). ``each``: the arguments
    ``--each-toggle`` tries (``None``: by kind, see :func:`each_toggle_candidates`; ``()``:
    never tried, ``why`` says why). ``void_at``: player counts at which the rule changes
    nothing in the game (a reverse with two players); ``--each-toggle`` skips it there,
    ``void_why`` says why. ``examples``: toggles the tests try (``None``: by kind).
    """

    syntax: str
    help: str
    value: Any = None
    ranks: tuple[int, ...] = ()
    also: tuple[tuple[str, Any], ...] = ()
    each: tuple[str, ...] | None = None
    why: str = ""
    void_at: tuple[int, ...] = ()
    void_why: str = ""
    examples: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        """The part before ``:`` (``pickup`` of ``pickup:MODE``)."""
        return self.syntax.partition(":")[0]

    @property
    def takes_arg(self) -> bool:
        return ":" in self.syntax


@dataclass(frozen=True)
class Setting:
    """One rule setting (a row of :data:`SETTINGS`).

    ``key``: the ``RuleSet`` field and the rules-file key (``players`` is the two fields
    ``min_players`` and ``max_players``). ``kind``: one of :data:`KINDS`; ``lo``/``hi``
    bound an ``int``, ``choices`` a ``choice`` (``noun`` names one in messages);
    ``optional``: ``None`` is allowed (``stall``: its default), ``absent`` says in words
    what ``None`` (the key absent from a rules file) means.
    ``default``: the value of a preset not in ``presets``. ``slot``: the rules-array
    entry (a :mod:`shedsim.layout` name); ``flag``: a rank set's per-rank flag (``F_*``).
    ``label``: the name in ``rules show`` (default: the key with spaces).
    """

    key: str
    kind: str
    help: str
    default: Any
    presets: dict[str, Any] = field(default_factory=dict)
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    noun: str = ""
    optional: bool = False
    absent: str = ""
    slot: str | None = None
    flag: str | None = None
    label: str = ""
    toggles: tuple[Toggle, ...] = ()

    @property
    def fields(self) -> tuple[str, ...]:
        """The ``RuleSet`` fields this setting is stored in."""
        return ("min_players", "max_players") if self.kind == "players" else (self.key,)

    @property
    def title(self) -> str:
        return self.label or self.key.replace("_", " ")

    def value(self, preset: str) -> Any:
        """This setting's value in ``preset``."""
        return self.presets.get(preset, self.default)

    def annotation(self) -> str:
        return {
            "text": "str",
            "players": "int",
            "ranks": "frozenset[int]",
            "bool": "bool",
            "choice": "str",
            "int": "int | None" if self.optional else "int",
        }[self.kind]

    def values_text(self) -> str:
        """The values a rules file may give, in words."""
        if self.kind == "int":
            return f"{self.lo}-{self.hi}" + (f" (absent: {self.absent})" if self.optional else "")
        return {
            "text": "text",
            "players": "N or [min, max], 2-10",
            "ranks": "list of ranks",
            "bool": "true or false",
            "choice": " | ".join(self.choices),
        }[self.kind]

    def check(self, value: Any) -> None:
        """Raise :class:`RulesError` (field: the key) unless ``value`` is allowed for this
        setting (``players``: the pair ``(min, max)``; the cap by decks is the rule set's
        check)."""
        if self.kind == "ranks":
            for r in value:
                if not isinstance(r, int) or r not in RANKS:
                    raise RulesError(self.key, f"unknown rank {shown(r)}")
        elif self.kind == "choice":
            if value not in self.choices:
                raise RulesError(
                    self.key,
                    f"unknown {self.noun} {shown(value)}; one of {', '.join(self.choices)}",
                )
        elif self.kind == "int":
            if value is None and self.optional:
                return
            if not is_int(value) or not self.lo <= value <= self.hi:
                raise RulesError(
                    self.key, f"must be an integer from {self.lo} to {self.hi}, got {shown(value)}"
                )
        elif self.kind == "bool":
            if not isinstance(value, bool):
                raise RulesError(self.key, f"must be true or false, got {shown(value)}")
        elif self.kind == "text":
            if not isinstance(value, str):
                raise RulesError(self.key, f"must be a string, got {shown(value)}")
        elif self.kind == "players":
            lo, hi = value
            if not (is_int(lo) and is_int(hi) and 2 <= lo <= hi):
                raise RulesError(
                    "players", f"range must be 2 <= min <= max, got {shown(lo)}..{shown(hi)}"
                )

    def from_file(self, value: Any) -> dict[str, Any]:
        """The ``RuleSet`` fields a rules-file value gives (types checked; ranges are
        :meth:`check`'s, once every key and toggle is applied). Raises :class:`RulesError`
        naming the key."""
        if self.kind == "players":
            p = [value, value] if is_int(value) else value
            if not isinstance(p, list) or len(p) != 2 or not all(is_int(x) for x in p):
                raise RulesError("players", f"must be an integer or [min, max], got {shown(value)}")
            return {"min_players": p[0], "max_players": p[1]}
        if self.kind == "ranks":
            if not isinstance(value, list):
                raise RulesError(self.key, f"must be a list of ranks, got {shown(value)}")
            try:
                return {self.key: frozenset(parse_rank(x) for x in value)}
            except CardError as e:
                raise RulesError(self.key, str(e)) from None
        if self.kind == "bool" and not isinstance(value, bool):
            raise RulesError(self.key, f"must be true or false, got {shown(value)}")
        if self.kind == "int" and not is_int(value):
            raise RulesError(self.key, f"must be an integer, got {shown(value)}")
        if self.kind in ("choice", "text") and not isinstance(value, str):
            raise RulesError(self.key, f"must be a string, got {shown(value)}")
        return {self.key: value}


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
