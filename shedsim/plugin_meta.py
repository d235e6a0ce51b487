"""What a strategy plugin says about itself (its parameters' ranges) and the record of a
loaded plugin that the kernel reads.

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
INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1


class PluginError(ValueError):
    """A strategy plugin that cannot be loaded or used; the message names the plugin."""


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def read_ranges(mod: ModuleType, where: str, params: dict[str, int]) -> dict[str, tuple[int, int]]:
    """``PARAM_RANGES`` of ``mod`` for every parameter of ``params`` (those left out: the
    whole ``int64`` range). Raises :class:`PluginError` (``where`` names the plugin) for a
    range that is not two integers ``lo <= hi`` inside ``int64``, an unknown parameter, or
    a default outside its range."""
    given = getattr(mod, "PARAM_RANGES", {})
    if not isinstance(given, dict):
        raise PluginError(f"{where}: PARAM_RANGES must be a dict {{parameter: (lo, hi)}}, got {given!r}")
    out: dict[str, tuple[int, int]] = {}
    for k, r in given.items():
        if k not in params:
            raise PluginError(f"{where}: PARAM_RANGES names {k!r}, which is not in PARAMS "
                              f"({', '.join(params) or 'none'})")
        if (not isinstance(r, (tuple, list)) or len(r) != 2 or not all(_is_int(x) for x in r)
                or not INT64_MIN <= r[0] <= r[1] <= INT64_MAX):
            raise PluginError(f"{where}: PARAM_RANGES[{k!r}] must be (lo, hi), two integers with lo <= hi "
                              f"inside the 64-bit range; got {r!r}")
        out[k] = (int(r[0]), int(r[1]))
    for k, v in params.items():
        lo, hi = out.setdefault(k, (INT64_MIN, INT64_MAX))
        if not lo <= v <= hi:
            raise PluginError(f"{where}: the default {k}={v} lies outside PARAM_RANGES[{k!r}] = ({lo}, {hi})")
    return {k: out[k] for k in params}


def read_space(mod: ModuleType, where: str, ranges: dict[str, tuple[int, int]]) -> dict[str, tuple]:
    """``PARAM_SPACE`` of ``mod`` (``shedsim tune``'s default search ranges), checked: each
    entry ``(lo, hi)`` or ``(lo, hi, "log")`` of a known parameter, inside its range (a log
    range from 1 up). Raises :class:`PluginError`."""
    space = getattr(mod, "PARAM_SPACE", None) or {}
    if not isinstance(space, dict):
        raise PluginError(f"{where}: PARAM_SPACE must be a dict {{parameter: (lo, hi[, 'log'])}}, got {space!r}")
    for k, r in space.items():
        if k not in ranges:
            raise PluginError(f"{where}: PARAM_SPACE names {k!r}, which is not in PARAMS "
                              f"({', '.join(ranges) or 'none'})")
        ok = (isinstance(r, (tuple, list)) and len(r) in (2, 3) and _is_int(r[0]) and _is_int(r[1])
              and r[0] <= r[1] and (len(r) == 2 or (r[2] == "log" and r[0] >= 1)))
        if not ok:
            raise PluginError(f"{where}: PARAM_SPACE[{k!r}] must be (lo, hi) or (lo, hi, 'log') with lo <= hi "
                              f"(lo >= 1 for 'log'); got {r!r}")
        lo, hi = ranges[k]
        if not lo <= r[0] <= r[1] <= hi:
            raise PluginError(f"{where}: PARAM_SPACE[{k!r}] = ({r[0]}, {r[1]}) lies outside the parameter's range "
                              f"{range_text((lo, hi))}")
    return dict(space)


def range_text(r: tuple[int, int]) -> str:
    """``"0..1000"``; the whole ``int64`` range as such."""
    return "any 64-bit integer" if r == (INT64_MIN, INT64_MAX) else f"{r[0]}..{r[1]}"


@dataclass
class StrategyInfo:
    """A loaded plugin as the kernel and the selections see it. ``kind`` is ``"numba"`` or
    ``"python"``; ``path`` its source file; ``params`` the defaults of its integer
    parameters (at most :data:`MAX_PARAMS`), in order; ``ranges`` each parameter's
    ``(lo, hi)``."""

    name: str
    description: str
    deterministic: bool
    kind: str
    module: ModuleType
    path: Path
    source_hash: str
    params: dict[str, int]
    ranges: dict[str, tuple[int, int]]

    @property
    def compiled(self) -> bool:
        return self.kind == "numba"

    @property
    def outside(self) -> bool:
        """Whether it comes from outside shedsim's own ``strategies/`` (a ``--strategy-path``
        or ``$SHEDSIM_STRATEGY_PATH`` directory): its compiled code is not trusted to stay
        inside its arrays (see :mod:`shedsim.kernel.isolate`)."""
        return not self.module.__name__.startswith("strategies.")

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
            raise PluginError(f"strategy {self.name!r} has no parameter {key!r}; parameters: {known}")
        lo, hi = self.ranges[key]
        if not _is_int(value) or not lo <= int(value) <= hi:
            raise PluginError(f"strategy {self.name!r}: parameter {key}={value} is outside its range "
                              f"{range_text((lo, hi))}")
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
        raise PluginError(f"strategy plugin {str(path)!r} has a syntax error at line {e.lineno}: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 - plugin code may raise anything on import
        sys.modules.pop(name, None)
        raise PluginError(f"strategy plugin {str(path)!r} failed to import: {type(e).__name__}: {e}") from None
