"""Macros of the docs site (mkdocs-macros-plugin): figures from results files, tables from code.

Every measured figure on a page is written as a macro call that reads it from a committed
results file, ``docs/results/NAME.json`` (made by ``make results``, see ``tools/results.py``),
so a page cannot quote a figure that no run produced::

    {{ fig("bench", "ratio_2p", ".2f") }}          one figure (a dotted path into "figures")
    {{ table("ladder", "rows", ["strategy", "elo_2p|Elo, 2 players|+.0f"]) }}
    {{ measured("ladder") }}                        the command, commit, date and machine

What the code declares is generated, never typed: the house toggles (:func:`toggle_table`,
from :data:`shedsim.rules.settings.TOGGLES`), the strategies and their parameters
(:func:`strategy_table`, :func:`strategy_params`, from the plugins' metadata), the default
tournament field (:func:`default_field`), values the code declares such as defaults
(:func:`const`), every command with its options (:func:`cli_reference`, from the typer app)
and the output files' columns (:func:`columns`).

The functions are plain Python so that the tests render the pages without mkdocs
(``tests/test_docs_figures.py``): :func:`macros` is the name -> function table both use.
A missing results file, figure or column raises :class:`FigureError`, which fails the build.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache, cache
from pathlib import Path
from typing import Any
from collections.abc import Callable

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
RULES_PAGE = ROOT / "docs" / "reference" / "rules.md"


JINJA = {"j2_comment_start_string": "{##", "j2_comment_end_string": "##}"}
"""mkdocs-macros-plugin's Jinja settings (mkdocs.yml repeats them): comments are ``{## ##}``,
so the headings' explicit anchors (``{#burns}``) are not read as Jinja comments."""


class FigureError(LookupError):
    """A macro asked for a results file, figure, command or column that does not exist."""


# ------------------------------------------------------------------ results files
@cache
def results(name: str) -> dict[str, Any]:
    """The parsed ``docs/results/NAME.json``. Raises :class:`FigureError` when it is missing."""
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        raise FigureError(
            f"no results file docs/results/{name}.json (make results NAME={name} makes it)"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def lookup(name: str, key: str) -> Any:
    """The value at the dotted path ``key`` of results file ``name``'s ``figures``
    (``rows.0.elo``: list items by index). Raises :class:`FigureError`."""
    value: Any = results(name)["figures"]
    for part in key.split("."):
        try:
            value = value[int(part)] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            raise FigureError(f"docs/results/{name}.json has no figure {key!r}") from None
    return value


def formatted(value: Any, fmt: str = "") -> str:
    """``value`` with the format spec ``fmt`` (Python's mini-language; ``%`` multiplies by
    100), ``SPECpp``: a difference of shares in percentage points (``+.1pp``: ``-3.4``, the
    page says the unit), or ``~N``: N significant digits without an exponent, with thousands
    separators
    (``77,700``, ``1.64``). ``None`` is written as an en dash, a truth value as yes or no."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if fmt.endswith("pp"):  # a difference of shares in percentage points: "+.1pp" -> "-3.4"
        return format(100 * value, fmt[:-2] + "f")
    if fmt.startswith("~"):
        import math

        if value == 0:
            return "0"
        places = (
            int(fmt[1:]) - 1 - math.floor(math.log10(abs(value)))
        )  # negative: to tens, hundreds
        return format(round(value, places), f",.{max(places, 0)}f")
    if isinstance(value, float) and fmt == "":
        fmt = ".3g"
    return format(value, fmt)


def fig(name: str, key: str, fmt: str = "") -> str:
    """One figure of a results file, formatted (``fig("demo", "unfinished_share", ".1%")``)."""
    return formatted(lookup(name, key), fmt)


def _column(spec: str) -> tuple[str, str, str]:
    key, header, fmt = (spec.split("|") + ["", ""])[:3]
    return key, header or key.replace("_", " "), fmt


def markdown_table(rows: list[dict[str, Any]], columns: list[str], what: str = "table") -> str:
    """A Markdown table of ``rows`` (dicts); each column is ``"key"``, ``"key|header"`` or
    ``"key|header|fmt"``. Raises :class:`FigureError` for a key that a row lacks."""
    cols = [_column(c) for c in columns]
    lines = ["| " + " | ".join(h for _, h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for row in rows:
        cells = []
        for key, _, fmt in cols:
            if key not in row:
                raise FigureError(f"{what}: a row has no column {key!r} (it has {', '.join(row)})")
            cell = row[key]
            cells.append(f"`{cell}`" if fmt == "code" else formatted(cell, fmt))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table(name: str, key: str, columns: list[str] | None = None) -> str:
    """A list of rows of a results file as a Markdown table (every column when ``columns``
    is not given)."""
    rows = lookup(name, key)
    if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict):
        raise FigureError(f"docs/results/{name}.json: {key!r} is not a list of rows")
    return markdown_table(rows, columns or list(rows[0]), f"docs/results/{name}.json {key!r}")


def command(name: str, index: int = 0) -> str:
    """The ``index``-th command that made results file ``name``, as inline code."""
    cmds = results(name)["commands"]
    if not 0 <= index < len(cmds):
        raise FigureError(f"docs/results/{name}.json has no command {index}")
    return f"`{cmds[index]}`"


def measured(name: str) -> str:
    """Where the figures of results file ``name`` come from: its commands, commit, date and
    machine, as an admonition (collapsed)."""
    r = results(name)
    m = r["machine"]
    cmds = "\n".join(f"    {c}" for c in r["commands"])
    reduced = (
        f" Sizes were reduced for this run (`make results NAME={name}` re-measures at full size)."
        if r.get("reduced")
        else ""
    )
    return (
        f'??? note "How these figures were measured"\n'
        "    Commit "
        f"`{r['commit'][:10]}`{' (with uncommitted changes)' if r.get('dirty') else ''}, "
        f"{r['date'][:10]}, {m['cores']} cores ({m['cpu']}), Python {m['python']}, numba "
        f"{m['numba']}."
        f"{reduced} `make results NAME={name}` runs again:\n\n"
        f"    ```\n{cmds}\n    ```\n"
    )


# ------------------------------------------------------------------ generated from the code
def _toggle_anchor(syntax: str, page: str) -> str | None:
    """The anchor of the rules page heading that names toggle ``syntax`` in backticks."""
    m = re.search(r"^###[^\n]*`" + re.escape(syntax) + r"`[^\n]*\{#([\w-]+)\}\s*$", page, re.M)
    return m.group(1) if m else None


def toggle_rows() -> list[dict[str, str]]:
    """One row per house toggle, in table order: ``toggle`` (the syntax), ``setting`` (the
    rules-file key it changes), ``effect`` (its help) and ``anchor`` (its section on the rules
    page, or ``""``). Raises :class:`FigureError` for a toggle without a description."""
    from shedsim.rules.settings import SETTING_OF, TOGGLES

    page = RULES_PAGE.read_text(encoding="utf-8")
    rows = []
    for syntax, t in TOGGLES.items():
        if not t.help.strip():
            raise FigureError(
                f"house toggle {syntax!r} has no description (its help in "
                "shedsim/rules/settings.py)"
            )
        rows.append(
            {
                "toggle": syntax,
                "setting": SETTING_OF[syntax].key,
                "effect": t.help.strip(),
                "anchor": _toggle_anchor(syntax, page) or "",
            }
        )
    return rows


def toggle_table() -> str:
    """The house toggles as a Markdown table (toggle linked to its section, rules-file key,
    effect)."""
    lines = ["| toggle | changes | effect |", "|---|---|---|"]
    for r in toggle_rows():
        name = f"[`{r['toggle']}`](#{r['anchor']})" if r["anchor"] else f"`{r['toggle']}`"
        lines.append(f"| {name} | `{r['setting']}` | {r['effect'].replace('|', '&#124;')} |")
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _plugins():
    from shedsim.plugins import discover

    return discover()


def strategy_rows() -> list[dict[str, Any]]:
    """The built-in strategies from their plugins' metadata: name, description,
    deterministic, kind, parameters (name -> default) and search ranges (``PARAM_SPACE``)."""
    out = []
    for s in _plugins().values():
        out.append(
            {
                "name": s.name,
                "description": s.description,
                "deterministic": s.deterministic,
                "kind": s.kind,
                "params": dict(s.params),
                "space": dict(getattr(s.module, "PARAM_SPACE", {}) or {}),
            }
        )
    return out


def strategy_table() -> str:
    """Every built-in strategy: name, what it does, deterministic, parameters with defaults."""
    lines = [
        "| strategy | what it does | deterministic | parameters (defaults) |",
        "|---|---|---|---|",
    ]
    for r in strategy_rows():
        params = ", ".join(f"`{k}={v}`" for k, v in r["params"].items()) or "none"
        lines.append(
            f"| `{r['name']}` | {r['description']} | {'yes' if r['deterministic'] else 'no'} | "
            f"{params} |"
        )
    return "\n".join(lines)


def strategy_params(name: str) -> str:
    """The parameters of strategy ``name``: default and, where the plugin declares a search
    space for ``shedsim tune``, its range."""
    row = next((r for r in strategy_rows() if r["name"] == name), None)
    if row is None:
        raise FigureError(f"no strategy {name!r}")
    if not row["params"]:
        return f"`{name}` has no parameters."
    lines = ["| parameter | default | tuned over |", "|---|---|---|"]
    for k, v in row["params"].items():
        space = row["space"].get(k)
        rng = (
            "–"
            if space is None
            else " to ".join(str(x) for x in space[:2])
            + (" (log)" if len(space) > 2 and space[2] else "")
        )
        lines.append(f"| `{k}` | {v} | {rng} |")
    return "\n".join(lines)


def default_field() -> str:
    """The default tournament field, as the code selects it (names in code, comma-separated)."""
    from shedsim.analysis.tournament import default_strategies

    return ", ".join(f"`{n}`" for n in default_strategies())


def left_out_of_default() -> str:
    """The built-in strategies the default field leaves out."""
    from shedsim.analysis.tournament import default_strategies

    chosen = set(default_strategies())
    return ", ".join(f"`{r['name']}`" for r in strategy_rows() if r["name"] not in chosen) or "none"


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "&#124;")


def _command_section(path: str, cmd, level: int) -> list[str]:
    out = [f"{'#' * level} `shedsim {path}` {{#{path.replace(' ', '-')}}}", ""]
    if getattr(cmd, "commands", None):
        out += [_cell(cmd.help or ""), ""]
        for name, sub in cmd.commands.items():
            out += _command_section(f"{path} {name}", sub, level + 1)
        return out
    ctx = cmd.make_context(path, [], resilient_parsing=True)
    usage = (
        cmd.get_usage(ctx).removeprefix("Usage: ").replace(path.split()[-1], f"shedsim {path}", 1)
    )
    out += ["```", usage, "```", "", (cmd.help or "").replace("\b\n", "").strip(), ""]
    records = [(p.param_type_name, p.get_help_record(ctx)) for p in cmd.params]
    records = [(kind, r) for kind, r in records if r]
    if records:
        out += ["| argument or option | what it does |", "|---|---|"]
        out += [f"| `{_cell(names)}` | {_cell(help_)} |" for _, (names, help_) in records]
        out.append("")
    return out


def cli_reference() -> str:
    """Every command of the typer app (``shedsim.cli.app``), in the order ``shedsim --help``
    lists them: usage, help and a table of arguments and options with their defaults."""
    import typer

    from shedsim.cli import app

    top = typer.main.get_command(app)
    out: list[str] = []
    for name, cmd in top.commands.items():
        out += _command_section(name, cmd, 2)
    return "\n".join(out)


def const(module: str, name: str, fmt: str = "") -> str:
    """A value the code declares (``const("shedsim.analysis.tournament", "DEFAULT_GAMES", ",")``;
    ``NAME.0.1`` indexes into it): defaults and limits quoted on a page follow the code."""
    import importlib

    attr, *path = name.split(".")
    try:
        value = getattr(importlib.import_module(module), attr)
        for part in path:  # items of a tuple or list by index, of a dict by key
            value = value[int(part)] if isinstance(value, (list, tuple)) else value[part]
    except (ImportError, AttributeError, LookupError, ValueError):
        raise FigureError(f"no {module}.{name}") from None
    return formatted(value, fmt)


def columns(command_name: str, file: str) -> str:
    """The columns of one output file of a real run (``docs/results/outputs.json``) with their
    definitions (``docs/reference/columns.json``), as a Markdown table. Raises
    :class:`FigureError` for a column with no definition."""
    cols = lookup("outputs", f"{command_name}.{file.replace('.', '_')}")
    defs = definitions()
    lines = ["| column | meaning |", "|---|---|"]
    params = {k for r in strategy_rows() for k in r["params"]} if command_name == "tune" else set()
    for c in cols:
        text = definition(c, defs)
        if (
            text is None and c in params
        ):  # tune's trials: one column per parameter of the strategy tuned
            text = (
                f"the trial's value of the strategy's parameter `{c}` "
                "([parameters](strategies.md#parameters))"
            )
        if text is None:
            raise FigureError(
                f"{command_name} {file}: column {c!r} has no definition in "
                "docs/reference/columns.json"
            )
        lines.append(f"| `{c}` | {text} |")
    return "\n".join(lines)


@lru_cache(maxsize=1)
def definitions() -> dict[str, str]:
    """Column name (or pattern with ``*``) -> definition."""
    return json.loads((ROOT / "docs" / "reference" / "columns.json").read_text(encoding="utf-8"))


def definition(column: str, defs: dict[str, str]) -> str | None:
    """The definition of ``column``: an exact entry, else the first pattern (``*`` = any
    text, so ``skill_edge[*]`` covers ``skill_edge[greedy]``) that matches it."""
    if column in defs:
        return defs[column]
    for pattern, text in defs.items():
        if "*" in pattern and re.fullmatch(
            ".*".join(re.escape(p) for p in pattern.split("*")), column
        ):
            return text
    return None


MACROS: dict[str, Callable[..., str]] = {
    f.__name__: f
    for f in (
        fig,
        table,
        command,
        measured,
        toggle_table,
        strategy_table,
        strategy_params,
        default_field,
        left_out_of_default,
        const,
        columns,
        cli_reference,
    )
}
"""Every macro a page may call, by name."""


def macros() -> dict[str, Callable[..., str]]:
    """The macros as a name -> function table (for the tests' renderer)."""
    return dict(MACROS)


LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?(?:\s+\"[^\"]*\")?\)")


def files_outside_docs() -> list[Path]:
    """Files of the repository outside ``docs/`` that the pages link to relatively (the
    scenario files, the example report): the site has them at the same path from its root."""
    out = set()
    for page in (ROOT / "docs").rglob("*.md"):
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            dest = (page.parent / target).resolve()
            if (
                dest.is_file()
                and dest.is_relative_to(ROOT)
                and not dest.is_relative_to(ROOT / "docs")
            ):
                out.add(dest)
    return sorted(out)


def copy_linked_files(site_dir: Path) -> None:
    """Copy :func:`files_outside_docs` into the built site. A page ``docs/a/b.md`` is served
    at ``/a/b/``, one level deeper than its file, so its link ``../../tests/x.toml`` reaches
    ``/tests/x.toml``: the file's path from the repository root."""
    import shutil

    for f in files_outside_docs():
        dest = Path(site_dir) / f.relative_to(ROOT)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)


def on_post_build(env) -> None:  # pragma: no cover - called by mkdocs-macros-plugin
    """After the build: the files outside ``docs/`` that pages link to go into the site."""
    copy_linked_files(Path(env.conf["site_dir"]))


def define_env(env) -> None:  # pragma: no cover - called by mkdocs-macros-plugin
    """mkdocs-macros-plugin's entry point: register every macro."""
    for name, f in MACROS.items():
        env.macro(f, name)
