"""What a strategy plugin says about itself: its traits, its parameters' ranges, and the
record of a loaded plugin that the kernel reads.

This module sits below the kernel: :mod:`shedsim.kernel.build` and
:mod:`shedsim.kernel.playouts` import it (for :class:`StrategyInfo` and
:func:`load_module`), never :mod:`shedsim.plugins`, which adds discovery and the
reference engine's adapters on top.

Besides ``NAME``, ``DESCRIPTION``, ``DETERMINISTIC``, ``PARAMS`` and ``INLINE``
(:mod:`shedsim.plugins`), a plugin module may declare:

``PARAM_RANGES``
    ``{name: (lo, hi)}``: the values each parameter of ``PARAMS`` accepts, both ends
    included. A parameter left out accepts any 64-bit integer (the kernel's ``int64``).
    A spec that sets a parameter outside its range (``NAME:param=value``) is refused with
    :class:`PluginError`, naming the strategy, the parameter, the value and the range.
``PARAM_SPACE``
    ``{name: (lo, hi[, "log"])}``: what ``shedsim tune`` searches by default; it must lie
    inside the parameter's range.
``TRAITS``
    A dict of facts about the strategy that commands select strategies by (the default
    fields, the reference opponent, hint's default policy; :mod:`shedsim.plugins`), in
    the spirit of the Axelrod library's ``classifier``. Keys (all optional; see
    :data:`TRAIT_HELP`):

    ``cost``: ``"fast"``, ``"moderate"`` or ``"slow"`` (:data:`COSTS`); default
    ``"fast"`` for a compiled plugin inlined into the fast game loop, else
    ``"moderate"``. ``search``: True when it looks ahead by playing out samples of the
    cards it cannot see (default False). ``search_param``: the parameter whose value 0
    turns that search off (default None: it cannot be turned off). ``uses``: what it
    decides on beyond which moves are legal, a subset of :data:`USES` (default: all of
    them, since every plugin is given all of it). ``swap``: its face-up rule, one of
    :data:`SWAP_RULES` (default ``"own"``). ``self_play_loops``: True when its games
    against copies of itself tend to repeat a position instead of ending (default False).
    ``cheating``: True when it sees the hidden cards (other hands, face-down cards, the
    stock order): its module defines ``move_seeing(obs, priv, rules, params, rng)``, which
    the kernel calls with its private state (:data:`shedsim.layout.P_HANDS` onwards)
    instead of ``move``. A measuring tool (what perfect information is worth): only
    ``sprt`` and ``bench`` seat it (:data:`CHEATING_COMMANDS`), no default or selection
    picks it, the reference engine cannot play it, and only shedsim's own ``strategies/``
    may declare it (default False). ``strongest``: True for the strongest player shedsim
    has measured (docs/explanation/strength.md): ``play`` seats it by default and ``hint
    --search`` searches with it; its module defines ``root_search`` (as
    :func:`strategies.ismcts.root_search`). Only shedsim's own ``strategies/`` may declare
    it (default False).

Every value is checked when the plugin loads; a wrong one makes the file broken with a
message naming the field (:class:`PluginError`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

MAX_PARAMS = 16
"""The most parameters a strategy may have: the kernel passes them as ``int64[16]``."""
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

COSTS = ("fast", "moderate", "slow")
"""Cost classes, cheapest first: ``fast``, a rule of thumb of a few comparisons a decision;
``moderate``, more work at some decisions (card counting, an occasional look-ahead);
``slow``, many playouts at every decision."""
USES = ("own_cards", "pile", "opponents", "unseen")
"""What a strategy may decide on beyond which of its moves are legal: ``own_cards``, its
own cards (copies, special ranks); ``pile``, the pile's size or cards below the top;
``opponents``, other seats' card counts, face-up rows or known cards; ``unseen``, which
cards it has not seen (card counting, sampling the hidden cards)."""
SWAP_RULES = {
    "greedy-high": (
        "the strongest cards face up: burn and reset ranks, other special ranks, then high ranks"
    ),
    "expert-table": "the highest values of a face-up value table (its parameters) face up",
    "random": "a uniformly random choice of the visible cards",
    "own": "a rule of its own",
}
"""Face-up rules of the swap phase, by the label ``shedsim swaps`` gives them."""
TRAIT_HELP = {
    "cost": "cost class: " + ", ".join(COSTS) + " (cheapest first)",
    "search": "looks ahead by playing out samples of the cards it cannot see",
    "search_param": "the parameter whose value 0 turns the search off",
    "uses": "what it decides on beyond its legal moves: " + ", ".join(USES),
    "swap": "its face-up rule: " + ", ".join(SWAP_RULES),
    "self_play_loops": "its games against copies of itself tend to repeat instead of ending",
    "cheating": "sees the hidden cards: a measuring tool, only sprt and bench seat it",
    "strongest": "the strongest player measured: play's default opponent, hint --search's search",
}
"""Each key of ``TRAITS`` in a few words (``shedsim strategies`` prints them)."""
CHEATING_COMMANDS = ("sprt", "bench")
"""The commands that may seat a strategy with ``TRAITS['cheating']`` (it measures what
seeing the hidden cards is worth; nothing else may be decided by it)."""


class PluginError(ValueError):
    """A strategy plugin that cannot be loaded or used; the message names the plugin."""


@dataclass(frozen=True)
class Traits:
    """A plugin's ``TRAITS``, checked and completed with the defaults (module docstring)."""

    cost: str = "moderate"
    search: bool = False
    search_param: str | None = None
    uses: tuple[str, ...] = USES
    swap: str = "own"
    self_play_loops: bool = False
    cheating: bool = False
    strongest: bool = False

    @property
    def cost_rank(self) -> int:
        """0 for ``fast``, 1 for ``moderate``, 2 for ``slow``."""
        return COSTS.index(self.cost)

    def describe(self) -> dict[str, str]:
        """The traits as short words, by key (for ``shedsim strategies``)."""
        return {
            "cost": self.cost,
            "search": "yes" if self.search else "no",
            "search_param": self.search_param or "-",
            "uses": ", ".join(self.uses) if self.uses else "legal moves only",
            "swap": self.swap,
            "self_play_loops": "yes" if self.self_play_loops else "no",
            "cheating": "YES: sees the hidden cards (only sprt and bench)"
            if self.cheating
            else "no",
            "strongest": "yes" if self.strongest else "no",
        }


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def read_ranges(mod: ModuleType, where: str, params: dict[str, int]) -> dict[str, tuple[int, int]]:
    """``PARAM_RANGES`` of ``mod`` for every parameter of ``params`` (those left out: the
    whole ``int64`` range). Raises :class:`PluginError` (``where`` names the plugin) for a
    range that is not two integers ``lo <= hi`` inside ``int64``, an unknown parameter, or
    a default outside its range."""
    given = getattr(mod, "PARAM_RANGES", {})
    if not isinstance(given, dict):
        raise PluginError(
            f"{where}: PARAM_RANGES must be a dict {{parameter: (lo, hi)}}, got {given!r}"
        )
    out: dict[str, tuple[int, int]] = {}
    for k, r in given.items():
        if k not in params:
            raise PluginError(
                f"{where}: PARAM_RANGES names {k!r}, which is not in PARAMS "
                f"({', '.join(params) or 'none'})"
            )
        if (
            not isinstance(r, (tuple, list))
            or len(r) != 2
            or not all(_is_int(x) for x in r)
            or not INT64_MIN <= r[0] <= r[1] <= INT64_MAX
        ):
            raise PluginError(
                f"{where}: PARAM_RANGES[{k!r}] must be (lo, hi), two integers with lo <= hi "
                f"inside the 64-bit range; got {r!r}"
            )
        out[k] = (int(r[0]), int(r[1]))
    for k, v in params.items():
        lo, hi = out.setdefault(k, (INT64_MIN, INT64_MAX))
        if not lo <= v <= hi:
            raise PluginError(
                f"{where}: the default {k}={v} lies outside PARAM_RANGES[{k!r}] = ({lo}, {hi})"
            )
    return {k: out[k] for k in params}


def read_space(mod: ModuleType, where: str, ranges: dict[str, tuple[int, int]]) -> dict[str, tuple]:
    """``PARAM_SPACE`` of ``mod`` (``shedsim tune``'s default search ranges), checked: each
    entry ``(lo, hi)`` or ``(lo, hi, "log")`` of a known parameter, inside its range (a log
    range from 1 up). Raises :class:`PluginError`."""
    space = getattr(mod, "PARAM_SPACE", None) or {}
    if not isinstance(space, dict):
        raise PluginError(
            f"{where}: PARAM_SPACE must be a dict {{parameter: (lo, hi[, 'log'])}}, got {space!r}"
        )
    for k, r in space.items():
        if k not in ranges:
            raise PluginError(
                f"{where}: PARAM_SPACE names {k!r}, which is not in PARAMS "
                f"({', '.join(ranges) or 'none'})"
            )
        ok = (
            isinstance(r, (tuple, list))
            and len(r) in (2, 3)
            and _is_int(r[0])
            and _is_int(r[1])
            and r[0] <= r[1]
            and (len(r) == 2 or (r[2] == "log" and r[0] >= 1))
        )
        if not ok:
            raise PluginError(
                f"{where}: PARAM_SPACE[{k!r}] must be (lo, hi) or (lo, hi, 'log') with lo <= hi "
                f"(lo >= 1 for 'log'); got {r!r}"
            )
        lo, hi = ranges[k]
        if not lo <= r[0] <= r[1] <= hi:
            raise PluginError(
                f"{where}: PARAM_SPACE[{k!r}] = ({r[0]}, {r[1]}) lies outside the parameter's "
                "range "
                f"{range_text((lo, hi))}"
            )
    return dict(space)


def read_traits(
    mod: ModuleType,
    where: str,
    params: dict[str, int],
    ranges: dict[str, tuple[int, int]],
    inline: bool,
) -> Traits:
    """``TRAITS`` of ``mod``, checked and completed with the defaults (``inline``: whether
    it is a compiled plugin that runs in the fast game loop; the default cost depends on
    it). Raises :class:`PluginError` naming the key for an unknown key or a wrong value."""
    given = getattr(mod, "TRAITS", {})
    if not isinstance(given, dict):
        raise PluginError(
            f"{where}: TRAITS must be a dict with keys {', '.join(TRAIT_HELP)}; got {given!r}"
        )
    unknown = [k for k in given if k not in TRAIT_HELP]
    if unknown:
        raise PluginError(
            f"{where}: TRAITS has no key {unknown[0]!r}; the keys are {', '.join(TRAIT_HELP)}"
        )
    cost = given.get("cost", "fast" if inline else "moderate")
    if cost not in COSTS:
        raise PluginError(
            f"{where}: TRAITS['cost'] must be one of {', '.join(COSTS)}; got {cost!r}"
        )
    for key in ("search", "self_play_loops", "cheating", "strongest"):
        if not isinstance(given.get(key, False), bool):
            raise PluginError(f"{where}: TRAITS[{key!r}] must be True or False; got {given[key]!r}")
    search = given.get("search", False)
    sp = given.get("search_param")
    if sp is not None:
        if sp not in params:
            raise PluginError(
                f"{where}: TRAITS['search_param'] must name a parameter of PARAMS "
                f"({', '.join(params) or 'none'}); got {sp!r}"
            )
        if not search:
            raise PluginError(
                f"{where}: TRAITS['search_param'] names the parameter that turns the search off, "
                f"so TRAITS['search'] must be True"
            )
        if not ranges[sp][0] <= 0 <= ranges[sp][1]:
            raise PluginError(
                f"{where}: TRAITS['search_param'] {sp!r} must accept 0 (search off); its range is "
                f"{range_text(ranges[sp])}"
            )
    uses = given.get("uses", USES)
    if (
        not isinstance(uses, (tuple, list, set, frozenset))
        or not all(u in USES for u in uses)
        or len(set(uses)) != len(uses)
    ):
        raise PluginError(
            f"{where}: TRAITS['uses'] must be a tuple of distinct words from "
            f"{', '.join(USES)} (() for legal moves only); got {uses!r}"
        )
    swap = given.get("swap", "own")
    if swap not in SWAP_RULES:
        raise PluginError(
            f"{where}: TRAITS['swap'] must be one of {', '.join(SWAP_RULES)}; got {swap!r}"
        )
    return Traits(
        cost=cost,
        search=search,
        search_param=sp,
        uses=tuple(u for u in USES if u in uses),
        swap=swap,
        self_play_loops=given.get("self_play_loops", False),
        cheating=given.get("cheating", False),
        strongest=given.get("strongest", False),
    )


def range_text(r: tuple[int, int]) -> str:
    """``"0..1000"``; the whole ``int64`` range as such."""
    return "any 64-bit integer" if r == (INT64_MIN, INT64_MAX) else f"{r[0]}..{r[1]}"


@dataclass
class StrategyInfo:
    """A loaded plugin as the kernel and the selections see it. ``kind`` is ``"numba"`` or
    ``"python"``; ``path`` its source file; ``params`` the defaults of its integer
    parameters (at most :data:`MAX_PARAMS`), in order; ``ranges`` each parameter's
    ``(lo, hi)``; ``traits`` its :class:`Traits`; ``variant_of`` the name of the plugin
    whose ``move`` and ``swap`` it reuses with other parameters (``expert`` is
    ``heuristic`` with a deeper search), or None."""

    name: str
    description: str
    deterministic: bool
    kind: str
    module: ModuleType
    path: Path
    source_hash: str
    params: dict[str, int]
    ranges: dict[str, tuple[int, int]]
    traits: Traits
    variant_of: str | None = None

    @property
    def compiled(self) -> bool:
        return self.kind == "numba"

    @property
    def outside(self) -> bool:
        """Whether it comes from outside shedsim's own ``strategies/`` (a ``--strategy-path``
        or ``$SHEDSIM_STRATEGY_PATH`` directory): its compiled code is not trusted to stay
        inside its arrays (see :mod:`shedsim.base.isolate`), to play legal moves or to
        leave the rules and its parameters alone, so the kernel checks all of it. Decided
        by the file's origin (:func:`is_own_strategy`), never by a name the plugin gives."""
        return not is_own_strategy(self.module, self.path)

    @property
    def inline(self) -> bool:
        """The module's ``INLINE`` (default True): whether its decisions are inlined into
        the fast game loop (see :func:`shedsim.kernel.build.inlinable`)."""
        return bool(getattr(self.module, "INLINE", True))

    @property
    def param_space(self) -> dict[str, tuple]:
        """The module's ``PARAM_SPACE`` (checked when it loaded; empty when it declares none)."""
        return dict(getattr(self.module, "PARAM_SPACE", None) or {})

    def check_param(self, key: str, value: Any) -> int:
        """``value`` as an int when ``key`` is a parameter and ``value`` lies in its range.
        Raises :class:`PluginError` naming the strategy, the parameter, the value and the
        allowed range (or the known parameters)."""
        if key not in self.params:
            known = ", ".join(self.params) or "none"
            raise PluginError(
                f"strategy {self.name!r} has no parameter {key!r}; parameters: {known}"
            )
        lo, hi = self.ranges[key]
        if not _is_int(value) or not lo <= int(value) <= hi:
            raise PluginError(
                f"strategy {self.name!r}: parameter {key}={value} is outside its range "
                f"{range_text((lo, hi))}"
            )
        return int(value)

    def params_array(self, overrides: dict[str, int] | None = None) -> np.ndarray:
        """``int64[MAX_PARAMS]`` (16): the parameters with ``overrides`` applied. Raises
        :class:`PluginError` for an unknown parameter name or a value outside its range
        (:meth:`check_param`)."""
        values = dict(self.params)
        for k, v in (overrides or {}).items():
            values[k] = self.check_param(k, v)
        a = np.zeros(MAX_PARAMS, np.int64)
        a[: len(values)] = list(values.values())
        return a


def own_strategies_dir() -> Path:
    """The ``strategies/`` directory of the installed shedsim (the package ``strategies``
    that ships with it), resolved; found by the import system without importing it (the
    plugins sit a layer above this module)."""
    spec = importlib.util.find_spec("strategies")
    if spec is None or spec.origin is None:
        raise PluginError("shedsim's own strategies package (strategies/) is not installed")
    return Path(spec.origin).resolve().parent


def is_own_strategy(module: ModuleType, path: str | Path) -> bool:
    """Whether ``module``, loaded from the file ``path``, is one of shedsim's own
    strategies: ``path`` lies in :func:`own_strategies_dir` and ``module`` is that file
    imported as ``strategies.<file stem>`` (the entry of ``sys.modules``). Neither a
    plugin's ``NAME``, its file name nor a module name it sets (``__name__``) elsewhere
    makes it one: its file is not in the installed package."""
    p = Path(path).resolve()
    if p.parent != own_strategies_dir() or p.suffix != ".py":
        return False
    name = f"strategies.{p.stem}"
    origin = getattr(module, "__file__", None)
    return (
        module.__name__ == name
        and sys.modules.get(name) is module
        and origin is not None
        and Path(origin).resolve() == p
    )


def own_module(name: str, path: str | Path) -> ModuleType:
    """The module ``name`` (``strategies.<stem>``) imported, checked to be loaded from
    ``path`` (:func:`is_own_strategy`): what a generated kernel imports for a strategy it
    does not check. Raises :class:`PluginError` when ``sys.modules`` holds another
    module under that name."""
    mod = importlib.import_module(name)
    if not is_own_strategy(mod, path):
        raise PluginError(
            f"module {name!r} is not shedsim's own {str(path)!r}: another module took its name"
        )
    return mod


def hash_file(path: Path) -> str:
    """The first 16 hex digits of the file's sha256."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def module_name(path: Path) -> str:
    """The stable module name of a plugin file outside ``strategies/``."""
    digest = hashlib.sha256(str(path.parent.resolve()).encode()).hexdigest()[:10]
    return f"shedsim_plugin_{digest}_{path.stem}"


def load_module(path: str | Path, name: str | None = None) -> ModuleType:
    """Import a plugin file under a stable module name (kept in ``sys.modules``).

    Built-in strategies import as ``strategies.NAME``. Raises :class:`PluginError` naming
    the file for syntax errors and exceptions at import.
    """
    path = Path(path).resolve()
    name = name or module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    try:
        if name.startswith("strategies."):
            return importlib.import_module(name)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PluginError(f"strategy plugin {str(path)!r}: not a Python module")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod
    except PluginError:
        raise
    except SyntaxError as e:
        sys.modules.pop(name, None)
        raise PluginError(
            f"strategy plugin {str(path)!r} has a syntax error at line {e.lineno}: {e.msg}"
        ) from None
    except Exception as e:  # noqa: BLE001 - plugin code may raise anything on import
        sys.modules.pop(name, None)
        raise PluginError(
            f"strategy plugin {str(path)!r} failed to import: {type(e).__name__}: {e}"
        ) from None
