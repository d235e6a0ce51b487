"""The docs quote no figure typed by hand, and every results file was made by a command that
still exists.

**Figures.** A measured figure on a docs page (or in README.md) must be a macro call that
reads it from a committed results file, ``docs/results/NAME.json`` (``{{ fig(...) }}``,
``{{ table(...) }}``; see ``docs/macros.py``), so that ``make results`` re-measures it and
no page can drift from what was run. :func:`measured_numbers` finds what looks measured in
the prose of a page, after leaving out fenced code blocks, inline code, macro calls, HTML
comments and link targets (commands, file names and code are not claims):

* a decimal (``0.64``, ``17.5``), a percentage (``38%``), a number with thousands separators
  (``200,016``), a ratio ``2.4x`` / ``2.4 times``, a fraction of cost ``1/70``, and any number
  beside a unit of measure: games/s, moves/s, decisions/s, ns, µs, ms, s, seconds, minutes,
  hours, MB/GB/MiB/GiB, Elo, pp, points, moves per game.

Allowed, because they are not measurements:

* the confidence level of an interval (``95% interval``, ``95% t interval``, ``95% confidence``);
* a version (``Python 3.11``) and a section of a cited book (``sec. 6.9``);
* bare integers (``4 players``, ``5000``, ``1977``): counts of things and specified values;
* on the two specification pages, ``docs/reference/rules.md`` and ``scenarios.md``, decimals
  and thousands separators (a shared place of ``3.5``, the move cap's range up to
  ``10,000,000``): they state what the rules specify. Percentages, ratios and units are
  still refused there, as everywhere.

Strict where it matters: every speed, rate, rating and share a reader might act on is one
of the refused shapes. Every macro call must be a known macro, and each page is rendered
with the macros (Jinja, as mkdocs-macros-plugin renders it), so a call that names a missing
results file, figure or column fails here as it fails the build.

**Commands.** Each results file records the exact command lines that made its figures. A
``shedsim`` line is parsed by the typer app's click command (``make_context``, which checks
every option and value without running anything); ``make TARGET`` needs the target in the
Makefile; ``.venv/bin/python tools/X.py ...`` needs the script, and is parsed by its
``parser()`` when it defines one. Each results file also records its commit, date and
machine.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = DOCS / "results"
SPEC_PAGES = {DOCS / "reference" / "rules.md", DOCS / "reference" / "scenarios.md"}
"""Pages that specify values (the game's rules and the scenario format) rather than measure them."""

FENCE = re.compile(r"^\s*(```|~~~)")
STRIP = [
    re.compile(p, re.S)
    for p in (
        r"\{\{.*?\}\}",
        r"\{%.*?%\}",
        r"<!--.*?-->",
        r"``.+?``",
        r"`[^`\n]+`",
        r"\]\([^)]*\)",
        r"\{#[\w-]+\}",
        r"https?://\S+",
    )
]
"""Macro calls, Jinja statements, HTML comments, inline code, link targets, heading anchors,
URLs."""

UNITS = (
    r"\s?(?:games/s|games per "
    r"second|moves/s|decisions/s|ns|µs|us|ms|sec|seconds?|min|minutes?|hours?"
    r"|[KMG]i?B|Elo|pp|points?|moves per game)|\s(?:s|h)"
)
"""Units of measure; ``s`` and ``h`` only after a space (``9s`` is the plural of a rank)."""
NUMBER = r"[+-−]?\d[\d,]*(?:\.\d+)?"
MEASURED = {
    "percentage": re.compile(NUMBER + r"\s?%"),
    "ratio": re.compile(NUMBER + r"(?:x|×|\stimes)(?![\w])"),
    "fraction of cost": re.compile(r"\b1/\d{2,}\b"),
    "number with a unit": re.compile(r"(?<![\w.])" + NUMBER + r"(?:" + UNITS + r")(?![\w/])"),
    "decimal": re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])"),
    "thousands separator": re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\d])"),
}
SPEC_ALLOWED_KINDS = {"decimal", "thousands separator"}
ALLOWED = [
    re.compile(p)
    for p in (
        r"\b(?:90|95|99)\s?% (?:\w+ )?(?:interval|intervals|confidence|CI)\b",
        r"\bPython \d+\.\d+",
        r"\bsec(?:tion|\.)\s\d+(?:\.\d+)+",
    )
]


def prose(text: str) -> list[tuple[int, str]]:
    """``(line number, prose)`` of a markdown text: fenced code left out, and in each line
    everything in :data:`STRIP` replaced by a space (multi-line macro calls and comments too)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            kept.append("")
            continue
        kept.append("" if fenced else line)
    joined = "\n".join(kept)
    for pattern in STRIP:
        joined = pattern.sub(lambda m: "\n" * m.group(0).count("\n") + " ", joined)
    return list(enumerate(joined.split("\n"), 1))


def measured_numbers(text: str, spec_page: bool = False) -> list[tuple[int, str, str]]:
    """``(line, kind, token)`` for every measured-looking number in the prose of ``text``
    (rules in the module docstring)."""
    found = []
    for no, line in prose(text):
        for allowed in ALLOWED:
            line = allowed.sub(" ", line)
        taken: list[tuple[int, int]] = []
        for kind, pattern in MEASURED.items():
            if spec_page and kind in SPEC_ALLOWED_KINDS:
                continue
            for m in pattern.finditer(line):
                if any(a <= m.start() < b for a, b in taken):
                    continue
                taken.append(m.span())
                found.append((no, m.start(), kind, m.group(0).strip()))
    return [(no, kind, token) for no, _, kind, token in sorted(found)]


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


def _macros_module():
    spec = importlib.util.spec_from_file_location("shedsim_docs_macros", DOCS / "macros.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MACRO_CALL = re.compile(r"\{\{\s*(\w+)\s*\(", re.S)


def macro_problems(text: str, names: set[str]) -> list[str]:
    """Every ``{{ ... }}`` expression that is not a call of a known macro."""
    problems = []
    for m in re.finditer(r"\{\{(.*?)\}\}", text, re.S):
        call = MACRO_CALL.match(m.group(0))
        if not call or call.group(1) not in names:
            problems.append(f"{m.group(0)[:60]!r} is not a call of a macro of docs/macros.py")
    return problems


def render(text: str, macros: dict) -> str:
    """The page as mkdocs-macros-plugin renders it (Jinja with the macros as globals)."""
    import jinja2

    mod = _macros_module()
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, **{k.removeprefix("j2_"): v for k, v in mod.JINJA.items()}
    )
    env.globals.update(macros)
    return env.from_string(text).render()


# ------------------------------------------------------------------ commands of results files
def command_problem(line: str) -> str | None:
    """Why the recorded command ``line`` would not run today (``None`` when it parses). A
    leading ``NAME=VALUE`` sets a variable for it: one the package still reads."""
    argv = shlex.split(line)
    while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argv[0]):
        name = argv.pop(0).split("=", 1)[0]
        if not any(name in p.read_text() for p in (ROOT / "shedsim").rglob("*.py")):
            return f"the environment variable {name} is read nowhere in shedsim/"
    if argv[0] == "shedsim":
        from shedsim.cli import app

        cmd = typer.main.get_command(app)  # typer's own (vendored) click: duck-typed below
        try:
            ctx = cmd.make_context("shedsim", argv[1:])
            while hasattr(
                cmd, "resolve_command"
            ):  # a group: find the subcommand, parse its options
                protected = (
                    ctx._protected_args if hasattr(ctx, "_protected_args") else ctx.protected_args
                )
                rest = [*protected, *ctx.args]
                if not rest:
                    return "no command given"
                name, cmd, rest = cmd.resolve_command(ctx, rest)
                ctx = cmd.make_context(name, rest, parent=ctx)
        except Exception as e:  # noqa: BLE001 - click's usage errors carry format_message
            if hasattr(e, "format_message"):
                return e.format_message()
            raise
        return None
    if argv[0] == "make":
        makefile = (ROOT / "Makefile").read_text()
        missing = [
            t
            for t in argv[1:]
            if "=" not in t and not re.search(rf"^{re.escape(t)}:", makefile, re.M)
        ]
        return f"no Makefile target {', '.join(missing)}" if missing else None
    if argv[0].endswith("python") and len(argv) > 1 and argv[1].startswith("tools/"):
        script = ROOT / argv[1]
        if not script.is_file():
            return f"no script {argv[1]}"
        spec = importlib.util.spec_from_file_location(f"tool_{script.stem}", script)
        mod = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(ROOT))
        try:
            spec.loader.exec_module(mod)
        finally:
            sys.path.remove(str(ROOT))
        if hasattr(mod, "parser"):
            try:
                mod.parser().parse_args(argv[2:])
            except SystemExit:
                return f"{argv[1]} does not accept {shlex.join(argv[2:])}"
        return None
    return f"not a command the check knows how to parse: {argv[0]}"


def results_files() -> list[Path]:
    return sorted(RESULTS.glob("*.json"))


# ------------------------------------------------------------------ the docs
def test_no_page_quotes_a_figure_typed_by_hand():
    problems = []
    for page in pages():
        for no, kind, token in measured_numbers(
            page.read_text(encoding="utf-8"), page in SPEC_PAGES
        ):
            problems.append(
                f"{page.relative_to(ROOT)}:{no}: {kind} {token!r} is typed by hand; "
                "quote it with {{ fig(...) }} from a results file (docs/results/)"
            )
    assert not problems, "\n".join(problems)


def test_prose_the_pages_take_from_the_code_quotes_no_figure():
    # the strategies' descriptions and the toggles' help are printed on the pages by macros
    # (and by shedsim strategies / rules list): a figure typed there would go stale unseen
    mod = _macros_module()
    found = measured_numbers(mod.strategy_table() + "\n" + mod.toggle_table())
    assert not found, found


def test_every_macro_call_renders_from_the_results_files():
    mod = _macros_module()
    macros = mod.macros()
    problems = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        problems += [f"{page.relative_to(ROOT)}: {p}" for p in macro_problems(text, set(macros))]
        try:
            render(text, macros)
        except Exception as e:  # noqa: BLE001 - any failure of a macro is a broken page
            problems.append(f"{page.relative_to(ROOT)}: {type(e).__name__}: {e}")
    assert not problems, "\n".join(problems)


def test_every_results_file_records_how_it_was_made():
    files = results_files()
    assert files
    for f in files:
        doc = json.loads(f.read_text())
        assert doc["name"] == f.stem, f
        assert doc["commands"] and doc["figures"], f
        assert re.fullmatch(r"[0-9a-f]{40}", doc["commit"]), f
        assert {"cores", "cpu", "python", "numba"} <= set(doc["machine"]), f
        assert re.match(r"\d{4}-\d\d-\d\dT", doc["date"]), f


def test_every_results_file_has_a_results_function():
    spec = importlib.util.spec_from_file_location("tools_results", ROOT / "tools" / "results.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks its module up
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules[spec.name]
    assert {f.stem for f in results_files()} <= set(mod.REGISTRY)


@pytest.mark.parametrize("path", results_files(), ids=lambda p: p.stem)
def test_the_commands_of_a_results_file_still_parse(path):
    doc = json.loads(path.read_text())
    problems = [f"{line}: {why}" for line in doc["commands"] if (why := command_problem(line))]
    assert not problems, (
        f"{path.relative_to(ROOT)} was made by commands that no longer run:\n" + "\n".join(problems)
    )


# ------------------------------------------------------------------ the checks themselves
def test_a_figure_edited_by_hand_is_caught():
    page = (
        "# Speed\n\nThe kernel runs at {{ fig('bench', 'ratio_2p', '.2f') }} of the "
        "calibration kernel,\n"
        "or 0.64x by hand; greedy plays 818,037 games/s, wins 43.8% and is +212 Elo ahead, "
        "about 2.4 times\n"
        "faster at 1/70 of the cost, in 17.5 ns.\n\n```\nshedsim bench --games 1000000  # "
        "0.64x in code\n```\n"
        "A `0.5` in code, a 95% interval, Python 3.11, sec. 6.9 and 4 players are fine.\n"
    )
    kinds = [(no, kind) for no, kind, _ in measured_numbers(page)]
    tokens = [t for _, _, t in measured_numbers(page)]
    assert tokens == [
        "0.64x",
        "818,037 games/s",
        "43.8%",
        "+212 Elo",
        "2.4 times",
        "1/70",
        "17.5 ns",
    ], tokens
    assert all(no in (3, 4, 5) for no, _ in kinds)


def test_spec_pages_may_state_values_but_not_measurements():
    text = (
        "Both get 3.5; the cap is up to 10,000,000 moves; 5000 moves by default; it wins 38% "
        "of deals.\n"
    )
    assert [t for _, _, t in measured_numbers(text, spec_page=True)] == ["38%"]
    assert [k for _, k, _ in measured_numbers(text)] == [
        "decimal",
        "thousands separator",
        "percentage",
    ]


def test_macro_calls_are_checked():
    assert macro_problems("{{ fig('a', 'b') }} {{ '12.5%' }} {{ evil() }}", {"fig"}) == [
        "\"{{ '12.5%' }}\" is not a call of a macro of docs/macros.py",
        "'{{ evil() }}' is not a call of a macro of docs/macros.py",
    ]
    mod = _macros_module()
    with pytest.raises(mod.FigureError, match="no results file"):
        render("{{ fig('no_such_results', 'x') }}", mod.macros())


def test_a_command_that_no_longer_accepts_its_options_is_caught():
    assert command_problem("shedsim tournament --players 3 --games 600 --quiet") is None
    assert command_problem("shedsim rules show palace --house low7") is None
    assert "No such option" in command_problem("shedsim tournament --no-such-option 3")
    assert "--players" in command_problem("shedsim tournament --players many")
    assert "No such command" in command_problem("shedsim no-such-command --x")
    assert command_problem("make demo") is None and "no Makefile target" in command_problem(
        "make nowhere"
    )
    assert command_problem(".venv/bin/python tools/stall_cut.py --players 4 --n 1500") is None
    assert "does not accept" in command_problem(".venv/bin/python tools/stall_cut.py --no-such 1")


def test_a_truth_value_reads_as_yes_or_no():
    f = _macros_module().formatted
    assert (f(True), f(False), f(None), f(0.5, ".0%")) == ("yes", "no", "–", "50%")
