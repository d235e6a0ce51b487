"""A field of entries: the ``--strategies`` text read as ``(label, spec)`` pairs, and the
default field, both resolved through the strategy registry (:mod:`shedsim.plugins`: specs,
``@ROLE`` selections by traits).

Every command that seats several strategies reads its field here (``tournament``,
``compare-rules``, ``trace``; the tournament's :func:`shedsim.analysis.tournament.parse_entries`
gives the same pairs and raises its own error). Errors are :class:`EntryError`, whose message
names ``--strategies``.
"""

from __future__ import annotations

import re


class EntryError(ValueError):
    """A ``--strategies`` value that cannot be read; the message names the option."""


_LABEL_RE = re.compile(r"^[A-Za-z0-9_.#+-]+$")
_PARAM_RE = re.compile(r"^\s*[A-Za-z_]\w*\s*=\s*-?\d+\s*$")


def parse_entries(text: str) -> list[tuple[str, str]]:
    """Read ``--strategies``: comma-separated ``SPEC`` or ``LABEL=SPEC`` items, where SPEC
    is ``NAME`` or ``NAME:param=v[,param=v]``. Returns ``(label, spec)`` pairs.

    A piece ``param=INTEGER`` right after a spec with parameters continues that spec
    (``mc:rollouts=64,cap=200``). Without a label, the spec is the label; a spec entered
    again gets ``#2``, ``#3``, ... (``greedy,greedy`` gives ``greedy`` and ``greedy#2``:
    an A/A test). A piece ``@ROLE`` stands for the built-in strategies that role selects
    by their traits (:data:`shedsim.plugins.ROLES`: ``@default`` is the default field,
    ``@ladder`` every built-in strategy but variants, ``@reference``, ...). Raises
    :class:`EntryError` naming ``--strategies``.
    """
    pieces = [p.strip() for p in text.split(",")]
    items: list[list[str | None]] = []  # [label, spec]
    for p in pieces:
        if not p:
            continue
        if p.startswith("@"):
            items += [[None, name] for name in _role_names(p)]
            continue
        if items and _PARAM_RE.match(p) and ":" in (items[-1][1] or ""):
            items[-1][1] = f"{items[-1][1]},{p.replace(' ', '')}"
            continue
        eq, colon = p.find("="), p.find(":")
        if eq > 0 and (colon < 0 or eq < colon):
            label, spec = p[:eq].strip(), p[eq + 1 :].strip()
            if not _LABEL_RE.match(label):
                raise EntryError(
                    f"--strategies: label {label!r} may hold only letters, digits and _ . # + -"
                )
            items.append([label, spec])
        else:
            items.append([None, p])
    if not items:
        raise EntryError("--strategies: name at least two strategies")
    out: list[tuple[str, str]] = []
    used: set[str] = {str(lab) for lab, _ in items if lab is not None}
    seen: dict[str, int] = {}
    for lab, spec in items:
        assert spec is not None
        if not spec:
            raise EntryError(f"--strategies: label {lab!r} has no strategy")
        if lab is None:
            base = spec
            seen[base] = seen.get(base, 0) + 1
            lab = base if seen[base] == 1 else f"{base}#{seen[base]}"
            while lab in used:
                seen[base] += 1
                lab = f"{base}#{seen[base]}"
        elif any(lab == o for o, _ in out):
            raise EntryError(f"--strategies: label {lab!r} is used twice")
        used.add(lab)
        out.append((lab, spec))
    return out


def _role_names(piece: str) -> list[str]:
    """The names ``@ROLE`` stands for (:func:`shedsim.plugins.select` among the built-in
    strategies). Raises :class:`EntryError` for an unknown role."""
    from shedsim.plugins import ROLES, PluginError, choice

    role = piece[1:].strip()
    if role not in ROLES:
        raise EntryError(
            f"--strategies: {piece!r} names no selection; use one of "
            f"{', '.join('@' + r for r in ROLES)}"
        )
    try:
        return choice(role)
    except PluginError as e:
        raise EntryError(f"--strategies: {piece}: {e}") from None


def default_field(extra_paths: tuple[str, ...] = ()) -> list[str]:
    """The default field, by name: every built-in compiled strategy that is neither slow
    (``TRAITS['cost']``) nor a variant of another (:func:`shedsim.plugins.select`, role
    ``default``). Plugins from ``extra_paths`` are never in it. Raises
    :class:`EntryError` when no built-in strategy qualifies or a path is not a directory."""
    from shedsim.plugins import PluginError, discover, select

    try:
        return select(discover(list(extra_paths)), "default")
    except PluginError as e:
        raise EntryError(str(e)) from None
