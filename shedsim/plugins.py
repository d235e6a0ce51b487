"""Strategy plugins: discovery, validation and the adapters the engines call.

A strategy is one Python module (a file in ``strategies/``, in a directory given with
``--strategy-path DIR``, or in ``$SHEDSIM_STRATEGY_PATH``, ``:``-separated). It declares:

* ``NAME`` (str), ``DESCRIPTION`` (one line), ``DETERMINISTIC`` (bool: True promises that
  each decision is a function of the position alone: the observation without its move,
  pick-up and burn counters, the rules and the parameters; no draws from ``rng``, no
  memory between calls. The loop check relies on it: a game whose seats still in are all
  deterministic ends as a proven loop when its whole position repeats);
* either compiled decisions (numba ``@njit``), which the kernel dispatches to by an
  integer id (:mod:`shedsim.kernel.build`)::

      swap(visible, seat, players, rules, params, rng) -> int64   # packed face-up cards
      move(obs, rules, params, rng) -> int64                      # a move code

  ``visible`` is the packed multiset of the seat's hand + face-up cards after the deal;
  ``obs`` the ``int64`` observation and ``rules`` the compiled rules (layouts in
  :mod:`shedsim.layout`); ``params`` the strategy's integer parameters (``int64[16]``, in
  the order of the module's ``PARAMS`` dict of defaults, e.g. ``{"rollouts": 16}``, set
  on the command line as ``mc:rollouts=64``); ``rng`` a random stream (``uint64[1]``, draw with
  :func:`shedsim.kernel.rng.rng_below`): the game's strategy stream for shedsim's own
  strategies, the seat's own stream for a plugin from outside ``strategies/`` (its draws
  reach no other seat; it must write nothing past ``rng[0]``, which is named as a write
  into a stream it does not own; a ``DETERMINISTIC`` plugin's stream starts afresh at
  every decision);
* or plain-Python decisions, which run on the reference engine only::

      choose_swap(visible: list[int], seat: int, players: int, rules: RulesView, rng) -> list[int]
      choose_move(obs: Observation, legal: list[Move], rng) -> int   # index into legal

  ``rng`` is a :class:`StreamRandom` on the seat's own stream, as for a compiled plugin.

A module may also declare ``PARAM_RANGES`` (the values each parameter accepts; a spec
outside them is refused), ``PARAM_SPACE`` (``shedsim tune``'s search ranges) and ``TRAITS``
(its cost class, whether it searches, what it uses, its face-up rule, ...): see
:mod:`shedsim.plugin_meta`, which also holds :class:`StrategyInfo`, the part of a loaded
plugin the kernel reads. The defaults of the commands (the default field, the reference
opponent, hint's policy, ...) are chosen among the built-in strategies by their traits,
never by name (:func:`select`, :data:`ROLES`).

A compiled strategy's ``move`` is inlined into the kernel's game loop unless the module
sets ``INLINE = False`` (worth it for expensive decisions such as search). An inlined
strategy's ``move`` and ``swap`` must not allocate arrays (the fast loop runs without
numba's reference counting); one that does sets ``INLINE = False``.

Neither kind ever receives hidden cards (docs/reference/rules.md#observation): the observation is
built
from public information and the mover's own hand only.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType


from shedsim.plugin_meta import (
    CHEATING_COMMANDS,
    is_own_strategy,
    MAX_PARAMS,
    PluginError,
    StrategyInfo,
    hash_file,
    load_module,  # noqa: F401
    module_name,  # noqa: F401
    own_strategies_dir,
    read_ranges,
    read_space,
    read_traits,
)
from shedsim.base.isolate import (
    DECISION_TIMEOUT_ENV,  # noqa: F401
    DEFAULT_DECISION_TIMEOUT,  # noqa: F401 - re-exported
    MAX_DECISION_TIMEOUT,  # noqa: F401
    decision_timeout,  # noqa: F401
)

from shedsim.plugin_player import (  # noqa: F401 - re-exported (a plugin's view, the engine's adapter)
    DecisionTimeout,
    EnginePlayer,
    Observation,
    RulesView,
    StreamRandom,
    decision_guard,
)

ENV_PATH = "SHEDSIM_STRATEGY_PATH"


@dataclass
class Strategy(StrategyInfo):
    """A loaded plugin (:class:`shedsim.plugin_meta.StrategyInfo`: name, kind, parameters
    and their ranges, traits, ...) that can also play on the reference engine."""

    def player(
        self, label: str | None = None, overrides: dict[str, int] | None = None
    ) -> EnginePlayer:
        """An adapter that plays this strategy on the reference engine. Raises
        :class:`PluginError` for an unknown parameter or a value outside its range, and for
        a strategy that sees the hidden cards (``TRAITS['cheating']``): the reference engine
        gives a strategy only its observation."""
        if self.traits.cheating:
            raise PluginError(
                f"{cheating_refusal(self.name)}; the reference engine (bots, play, hint, "
                "trace) gives a strategy only its observation, so it cannot play it"
            )
        return EnginePlayer(self, label or self.name, self.params_array(overrides))


def cheating_refusal(name: str) -> str:
    """Why a strategy that sees the hidden cards (``TRAITS['cheating']``) is refused, in
    words that name it."""
    return f"{name} sees the hidden cards: a measuring tool, only for " + " and ".join(
        CHEATING_COMMANDS
    )


def parse_spec(text: str) -> tuple[str, dict[str, int]]:
    """Read a strategy spec ``NAME`` or ``NAME:param=value,param=value`` (integer values).

    Raises :class:`PluginError` naming the spec when it cannot be read. A value's range
    (the kernel's 64-bit parameters at most) is checked by
    :meth:`shedsim.plugin_meta.StrategyInfo.check_param` once the strategy is known.
    """
    name, _, rest = text.strip().partition(":")
    overrides: dict[str, int] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            try:
                if not eq:
                    raise ValueError
                overrides[key.strip()] = int(value)
            except ValueError:
                raise PluginError(
                    f"strategy spec {text!r}: write NAME:param=INTEGER[,param=INTEGER]"
                ) from None
    if not name:
        raise PluginError(f"strategy spec {text!r}: missing strategy name")
    return name, overrides


def deterministic_identity(known: dict[str, Strategy], spec: str) -> tuple | None:
    """What makes two entries play identically: ``(name, parameter values)`` for a spec of
    a deterministic strategy (its moves a function of what it sees), None for a strategy
    with randomness or a spec that does not read. Two entries with the same identity,
    seated with nobody else, replay the same game under every rotation of a deal."""
    try:
        name, overrides = parse_spec(spec)
        s = known[name]
        if not s.deterministic:
            return None
        return (name, tuple(int(x) for x in s.params_array(overrides)))
    except (PluginError, KeyError):
        return None


def _strategy_from_module(mod: ModuleType, path: Path) -> Strategy:
    where = f"strategy plugin {str(path)!r}"
    name = getattr(mod, "NAME", None)
    if (
        not isinstance(name, str)
        or not name.isidentifier()
        and not name.replace("-", "_").isidentifier()
    ):
        raise PluginError(
            f"{where}: NAME must be a string of letters, digits, '_' or '-', got {name!r}"
        )
    desc = getattr(mod, "DESCRIPTION", None)
    if not isinstance(desc, str) or not desc.strip():
        raise PluginError(f"{where} ({name}): DESCRIPTION must be a one-line string")
    det = getattr(mod, "DETERMINISTIC", None)
    if not isinstance(det, bool):
        raise PluginError(f"{where} ({name}): DETERMINISTIC must be True or False")
    has_nb = all(callable(getattr(mod, f, None)) for f in ("swap", "move"))
    has_py = all(callable(getattr(mod, f, None)) for f in ("choose_swap", "choose_move"))
    if has_nb and all(hasattr(getattr(mod, f), "py_func") for f in ("swap", "move")):
        kind = "numba"
    elif has_py:
        kind = "python"
    elif has_nb:
        raise PluginError(
            f"{where} ({name}): swap and move must be numba @njit functions "
            f"(or define choose_swap and choose_move for a plain-Python strategy)"
        )
    else:
        raise PluginError(
            f"{where} ({name}): define swap() and move() (numba) or "
            f"choose_swap() and choose_move() (plain Python)"
        )
    params = getattr(mod, "PARAMS", {})
    if (
        not isinstance(params, dict)
        or len(params) > MAX_PARAMS
        or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in params.items()
        )
    ):
        raise PluginError(
            f"{where} ({name}): PARAMS must be a dict of at most {MAX_PARAMS} "
            f"integer defaults, e.g. {{'rollouts': 16}}"
        )
    where = f"{where} ({name})"
    ranges = read_ranges(mod, where, params)
    read_space(mod, where, ranges)
    traits = read_traits(
        mod, where, params, ranges, kind == "numba" and bool(getattr(mod, "INLINE", True))
    )
    if traits.cheating:
        if not is_own_strategy(mod, path):
            raise PluginError(
                f"{where}: TRAITS['cheating'] (it sees the hidden cards) is for shedsim's own "
                "measuring tools in strategies/ only"
            )
        seeing = getattr(mod, "move_seeing", None)
        if kind != "numba" or not hasattr(seeing, "py_func") or getattr(mod, "INLINE", True):
            raise PluginError(
                f"{where}: TRAITS['cheating'] needs a numba move_seeing(obs, priv, rules, "
                "params, rng) and INLINE = False"
            )
    if traits.strongest:
        if not is_own_strategy(mod, path):
            raise PluginError(
                f"{where}: TRAITS['strongest'] (the strongest player measured) is for shedsim's "
                "own strategies/ only"
            )
        if kind != "numba" or not hasattr(getattr(mod, "root_search", None), "py_func"):
            raise PluginError(
                f"{where}: TRAITS['strongest'] needs a numba root_search(obs, rules, params, rng, "
                "iterations, reward_kind, moves, visits, out), the search hint --search runs"
            )
    return Strategy(
        name=name,
        description=desc.strip().splitlines()[0],
        deterministic=det,
        kind=kind,
        module=mod,
        path=path,
        source_hash=hash_file(path),
        params=dict(params),
        ranges=ranges,
        traits=traits,
    )


def builtin_dir() -> Path:
    """The ``strategies/`` directory that ships with shedsim."""
    return own_strategies_dir()


def search_dirs(extra: list[str | Path] | None = None) -> list[Path]:
    """Directories searched for plugins: built-ins, then ``$SHEDSIM_STRATEGY_PATH``, then
    ``extra``."""
    dirs = [builtin_dir()]
    env = os.environ.get(ENV_PATH, "")
    for d in [*(p for p in env.split(os.pathsep) if p), *(extra or [])]:
        p = Path(d).resolve()
        if not p.is_dir():
            raise PluginError(f"strategy path {str(d)!r} is not a directory")
        if p not in dirs:
            dirs.append(p)
    return dirs


def compiled_strategy(
    known: dict[str, Strategy], spec: str, command: str = "this command"
) -> Strategy:
    """The strategy of ``spec`` (``NAME`` or ``NAME:param=v``) among ``known`` (from
    :func:`discover`), checked for the compiled kernel: it exists, it is a numba plugin,
    the parameters are valid, and it does not see the hidden cards unless ``command`` is
    one of :data:`shedsim.plugin_meta.CHEATING_COMMANDS` (``"sprt"``, ``"bench"``).
    Raises :class:`PluginError` (``command`` names what needs the kernel in the message)."""
    name, overrides = parse_spec(spec)
    if name not in known:
        why = known.why_missing(name) if isinstance(known, Plugins) else None
        raise PluginError(why or f"unknown strategy {name!r}; known: {', '.join(known)}")
    if known[name].traits.cheating and command not in CHEATING_COMMANDS:
        raise PluginError(f"{cheating_refusal(name)} ({command} cannot seat it)")
    if not known[name].compiled:
        raise PluginError(
            f"strategy {name!r} is plain Python: {command} runs on the "
            f"compiled kernel, which needs numba strategies"
        )
    known[name].params_array(overrides)
    return known[name]


@dataclass(frozen=True)
class BrokenPlugin:
    """A plugin file that could not be loaded: its ``path``, the ``names`` it would answer
    to (the file's stem, and its ``NAME`` when it got that far) and the ``reason``."""

    path: Path
    names: tuple[str, ...]
    reason: str


class Plugins(dict):
    """What :func:`discover` found: the loaded strategies by name (a dict), and ``broken``,
    the :class:`BrokenPlugin` files left out. A broken file stops only the commands that
    name it (:func:`compiled_strategy`, :func:`resolve`, :meth:`require`)."""

    broken: list[BrokenPlugin]

    def __init__(self, *args, broken: list[BrokenPlugin] | None = None) -> None:
        super().__init__(*args)
        self.broken = list(broken or [])

    def why_missing(self, name: str) -> str | None:
        """The reason a strategy named ``name`` is not available because its file is
        broken (None when no broken file answers to that name)."""
        for b in self.broken:
            if name in b.names:
                return f"strategy {name!r} is broken: {b.reason}"
        return None

    def require(self, name: str) -> Strategy:
        """The strategy ``name``; raises :class:`PluginError` saying why when it is broken
        or unknown (listing the known ones)."""
        if name in self:
            return self[name]
        raise PluginError(
            self.why_missing(name) or f"unknown strategy {name!r}; known: {', '.join(self)}"
        )


def type_problem(strat: Strategy) -> str | None:
    """Why a compiled plugin's ``swap`` and ``move`` cannot go into the kernel, or None.

    Every compiled strategy is compiled into one kernel (:mod:`shedsim.kernel.build`), so
    one whose functions do not type-check with numba for the kernel's argument types, or
    that do not return an integer on every path (e.g. ``swap`` raising on every path
    gives ``OptionalType(int64)``), would stop every run with a numba error naming no
    plugin. :func:`discover` calls this for plugins from outside ``strategies/`` and lists
    such a file as broken with this reason. The compiled code lands in numba's cache
    (``cache=True``), so later processes only load it."""
    if not strat.compiled:
        return None
    from numba import types

    vec = types.Array(types.int64, 1, "C")
    rng = types.Array(types.uint64, 1, "C")
    i64 = types.int64
    for fname, sig, args in (
        ("swap", (i64, i64, i64, vec, vec, rng), "visible, seat, players, rules, params, rng"),
        ("move", (vec, vec, vec, rng), "obs, rules, params, rng"),
    ):
        fn = getattr(strat.module, fname, None)
        if fn is None or not hasattr(fn, "compile"):
            return f"{fname} is not a numba function: decorate it with @njit"
        try:
            fn.compile(sig)
        except Exception as e:  # noqa: BLE001 - numba's typing and lowering errors
            text = " ".join(
                ln.strip() for ln in str(e).splitlines() if ln.strip() and not ln.startswith("-")
            )
            return (
                f"{fname}({args}) does not compile with numba for the kernel's argument types: "
                f"{text[:400]}{'...' if len(text) > 400 else ''}"
            )
        ret = fn.overloads[sig].signature.return_type
        if not isinstance(ret, types.Integer):
            return (
                f"{fname} returns {ret}, not an integer: it must return an int64 on every path "
                f"(a path that raises or returns nothing gives an optional type)"
            )
    return None


def _decisions_module(strat: Strategy) -> str | None:
    """The module that defines the plugin's swap and move (for a compiled plugin, their
    Python source), or None when they come from different modules."""
    names = ("swap", "move") if strat.compiled else ("choose_swap", "choose_move")
    homes = set()
    for n in names:
        fn = getattr(strat.module, n)
        homes.add(getattr(getattr(fn, "py_func", fn), "__module__", None))
    return homes.pop() if len(homes) == 1 else None


def discover(extra: list[str | Path] | None = None) -> Plugins:
    """Load every plugin in :func:`search_dirs`; returns them by name, sorted, as
    :class:`Plugins` (a dict) whose ``broken`` lists the files that could not be loaded
    (a syntax error, an exception at import, a missing or wrong NAME, DESCRIPTION,
    DETERMINISTIC, PARAMS, PARAM_RANGES, PARAM_SPACE, TRAITS or functions, or a NAME
    already taken by an earlier file) with the reason. A broken file never stops the
    others from loading. A plugin whose move and swap come from another loaded plugin's
    module gets that plugin's name in :attr:`StrategyInfo.variant_of`.

    Raises :class:`PluginError` only for a strategy path that is not a directory.

    The result is kept for this process and given again (as a new :class:`Plugins`) while
    no plugin file in the search directories is added, removed or changed (name, size
    and modification time): a run asks for it once per chunk of games.
    """
    dirs = search_dirs(extra)
    files = [
        (d, path) for d in dirs for path in sorted(d.glob("*.py")) if not path.name.startswith("_")
    ]
    key = tuple(
        (str(path), st.st_mtime_ns, st.st_size) for _, path in files for st in [path.stat()]
    )
    hit = _DISCOVERED.get(key)
    if hit is not None:
        return Plugins(hit.items(), broken=hit.broken)
    with _DISCOVER_LOCK:  # threads playing chunks (shedsim.runs.simulate): one loads them
        hit = _DISCOVERED.get(key)
        if hit is not None:
            return Plugins(hit.items(), broken=hit.broken)
        return _load_all(files, key)


def _load_all(files: list[tuple[Path, Path]], key: tuple) -> Plugins:
    found: dict[str, Strategy] = {}
    broken: list[BrokenPlugin] = []
    builtin = builtin_dir()
    for d, path in files:
        modname = f"strategies.{path.stem}" if d == builtin else None
        names = [path.stem]
        try:
            mod = load_module(path, modname)
            nm = getattr(mod, "NAME", None)
            if isinstance(nm, str) and nm not in names:
                names.append(nm)
            strat = _strategy_from_module(mod, path.resolve())
        except PluginError as e:
            broken.append(BrokenPlugin(path.resolve(), tuple(names), str(e)))
            continue
        why = type_problem(strat) if d != builtin else None
        if why is not None:  # it would break the kernel every strategy is compiled into
            broken.append(
                BrokenPlugin(path.resolve(), tuple(names), f"strategy plugin {str(path)!r}: {why}")
            )
            continue
        if strat.name in found:
            broken.append(
                BrokenPlugin(
                    path.resolve(),
                    tuple(names),
                    f"strategy plugin {str(path)!r}: the name {strat.name!r} is already "
                    f"used by {str(found[strat.name].path)!r}",
                )
            )
            continue
        found[strat.name] = strat
    by_module = {s.module.__name__: s.name for s in found.values()}
    for strat in found.values():
        home = _decisions_module(strat)
        if home != strat.module.__name__ and home in by_module:
            strat.variant_of = by_module[home]
    result = Plugins(sorted(found.items()), broken=broken)
    if len(_DISCOVERED) > 16:
        _DISCOVERED.clear()
    _DISCOVERED[key] = Plugins(result.items(), broken=result.broken)
    return result


_DISCOVERED: dict[tuple, Plugins] = {}
_DISCOVER_LOCK = threading.RLock()


def resolve(names: list[str], extra: list[str | Path] | None = None) -> list[Strategy]:
    """The strategies named (in order, repeats allowed). Raises :class:`PluginError` for an
    unknown name, listing the known ones."""
    known = discover(extra)
    return [known.require(n) for n in names]


# ---------------------------------------------------------------------- selecting by traits
def candidates(known: dict[str, Strategy]) -> list[Strategy]:
    """The strategies commands choose their defaults from: shedsim's own (``strategies/``),
    compiled, not a variant of another (:attr:`StrategyInfo.variant_of`) and not seeing the
    hidden cards (``TRAITS['cheating']``: a measuring tool), by name."""
    return sorted(
        (
            s
            for s in known.values()
            if not s.outside and s.compiled and s.variant_of is None and not s.traits.cheating
        ),
        key=lambda s: s.name,
    )


def _fast_deterministic(s: Strategy) -> bool:
    return (
        s.deterministic
        and s.traits.cost == "fast"
        and not s.traits.self_play_loops
        and bool(s.traits.uses)
    )


def is_random_baseline(s: Strategy) -> bool:
    """Whether ``s`` draws among its legal moves at random and decides on nothing else
    (``TRAITS['uses']`` empty, not ``DETERMINISTIC``): ``random``."""
    return not s.deterministic and not s.traits.uses


ROLES: dict[str, str] = {
    "default": (
        "every built-in compiled strategy that is neither slow (cost) nor a variant of another"
    ),
    "ladder": "every built-in compiled strategy that is not a variant of another",
    "reference": "the built-in strategy that is fast, deterministic, decides on more than its "
    "legal moves and "
    "does not loop in self-play",
    "baseline": (
        "the built-in strategy that draws among its legal moves at random and uses nothing else"
    ),
    "policy": "the cheapest built-in strategy that searches, slow ones left out",
    "tunable": "the built-in strategy that declares a PARAM_SPACE",
    "compare": (
        "the baseline, the reference opponent and the strongest quick player (hint's playout "
        "policy)"
    ),
    "strongest": "the built-in strategy whose TRAITS say it is the strongest player measured",
}
"""Each choice commands make by traits, in words (``--help`` prints them beside the names)."""


def select(known: dict[str, Strategy], role: str) -> list[str]:
    """The strategy names ``role`` (a key of :data:`ROLES`) picks among :func:`candidates`
    of ``known`` (from :func:`discover`): a list for the fields (``default``, ``ladder``,
    ``compare``), one name for the others (the first by name where several qualify).
    Raises :class:`PluginError` when none qualifies, and ``KeyError`` for an unknown role."""
    pool = candidates(known)
    if role == "compare":
        return [select(known, r)[0] for r in ("baseline", "reference", "policy")]
    rule = {
        "default": lambda s: s.traits.cost != "slow",
        "ladder": lambda s: True,
        "reference": _fast_deterministic,
        "baseline": is_random_baseline,
        "policy": lambda s: s.traits.search and s.traits.cost != "slow",
        "tunable": lambda s: bool(s.param_space),
        "strongest": lambda s: s.traits.strongest,
    }[role]
    chosen = [s for s in pool if rule(s)]
    if role == "policy":
        chosen.sort(key=lambda s: (s.traits.cost_rank, s.name))
    if not chosen:
        raise PluginError(
            f"no strategy in {builtin_dir()} qualifies as {ROLES[role]}: the built-in strategies' "
            f"TRAITS decide that (`shedsim strategies` lists them)"
        )
    return [s.name for s in chosen] if role in ("default", "ladder") else [chosen[0].name]


def swap_policies(known: dict[str, Strategy]) -> list[tuple[str, str]]:
    """``(label, strategy)`` for each face-up rule of :data:`shedsim.plugin_meta.SWAP_RULES`
    but ``own`` that a built-in strategy declares (``TRAITS['swap']``), in the order the
    :func:`candidates` first show them; the strategy is the first that declares it (any
    does: they share the rule)."""
    out: dict[str, str] = {}
    for s in candidates(known):
        if s.traits.swap != "own":
            out.setdefault(s.traits.swap, s.name)
    return list(out.items())


def choice(role: str) -> list[str]:
    """:func:`select` among the built-in strategies alone (what a default is when no
    ``--strategy-path`` is given; a default never picks a plugin from elsewhere)."""
    return select(discover([]), role)


def choices_text() -> dict[str, str]:
    """For ``--help``: each role of :data:`ROLES` as ``"NAMES: the rule"``, plus ``swaps``
    (:func:`swap_policies` as ``"LABEL (NAME's)"``) and ``cost:fast``, ``cost:moderate``,
    ``cost:slow`` (the built-in strategies of each cost class). Loads the built-in
    plugins (numba): call it only when the help is shown."""
    known = discover([])
    out = {}
    for role, rule in ROLES.items():
        try:
            out[role] = f"{', '.join(select(known, role))}: {rule}"
        except PluginError as e:
            out[role] = f"none ({e})"
    out["swaps"] = ", ".join(f"{lab} ({name}'s)" for lab, name in swap_policies(known))
    for c in ("fast", "moderate", "slow"):
        out[f"cost:{c}"] = (
            ", ".join(
                s.name
                for s in known.values()
                if not s.outside and s.traits.cost == c and not s.traits.cheating
            )
            or "none"
        )
    return out
