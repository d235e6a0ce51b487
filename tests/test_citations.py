"""Citations of the documentation resolve, and nothing cites what users do not have.

A source file (the package, the strategies, the tests and their scenario files, the tools and
the build files) cites the documentation by path and anchor, as ``docs/reference/rules.md#burns``
does: the page must exist and hold that explicit anchor (written ``{#burns}`` on a heading,
markdown's attr_list syntax, which the docs site builds with). No
source file may cite the specification files the project was started from, which are not in
the repository (by file name, or by a bare ruling number of theirs; the rulings have named
anchors on the rules page), nor an issue number of the tracker.

The docs pages are checked too: every relative link resolves to a file of the repository (a
page, or a file the page describes, such as a scenario file), and every ``#anchor`` to an
anchor of the linked page. ``mkdocs build --strict`` checks anchors between pages but not links
out of ``docs/``, and needs the ``docs`` extra; this test needs neither.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SOURCE_DIRS = ("shedsim", "strategies", "tests", "tools")
"""Directories whose files are source files (searched recursively)."""
SOURCE_FILES = ("Makefile", "pyproject.toml", "mkdocs.yml", ".ci/run")
"""Single source files at the top of the repository."""
SOURCE_SUFFIXES = {".py", ".toml", ".txt", ".cfg", ".ini", ".sh", ".yml", ".yaml"}
SKIP_PARTS = {"__pycache__", ".venv", "site", "build"}

CITATION = re.compile(r"\bdocs/((?:[\w.-]+/)*[\w.-]+\.md)(?:#([\w-]+))?")
"""A citation of a docs page: its path from the repository root, with or without ``#anchor``."""

# The names are built from parts, so that this file does not match its own patterns.
SPEC_FILE = re.compile(r"\b(?:" + "RULES" + "|" + "SCENARIOS" + r")\.md\b")
"""The specification files outside the repository (their names are upper case; the docs
pages ``rules.md`` and ``scenarios.md`` are not)."""
BARE_RULING = re.compile(r"\b[Rr]ulings?" + r" \d+")
"""A ruling cited by its number alone: the word, a space and digits (scenario file names such
as ``ruling_12_x.toml`` are not citations)."""
ISSUE = re.compile(r"\b[Ii]ssues?" + r" *#? *\d+|\(#\d+\)")
"""An issue of the tracker: the word followed by a number (with or without ``#``), or a
number after ``#`` in parentheses."""

EXPLICIT_ANCHOR = re.compile(r"^#{1,6} .*\{:?[^}]*?#([\w-]+)[^}]*\}\s*$")
HTML_ID = re.compile(r"""<[^>]*\bid=["']([\w-]+)["']""")
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def source_files(root: Path) -> list[Path]:
    """Every source file under ``root`` (:data:`SOURCE_DIRS`, :data:`SOURCE_FILES`)."""
    out = [root / f for f in SOURCE_FILES if (root / f).is_file()]
    for d in SOURCE_DIRS:
        for p in sorted((root / d).rglob("*")):
            if (
                p.is_file()
                and p.suffix in SOURCE_SUFFIXES
                and not SKIP_PARTS & set(p.relative_to(root).parts)
            ):
                out.append(p)
    return out


def doc_pages(root: Path) -> list[Path]:
    """Every markdown page of the docs site (``docs/**/*.md``)."""
    return sorted((root / "docs").rglob("*.md"))


def outside_code(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of a markdown text, leaving out fenced code blocks."""
    lines, fenced = [], False
    for no, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((no, line))
    return lines


def anchors(page: Path) -> set[str]:
    """The explicit anchors of a markdown page: ``{#id}`` on headings and HTML ``id``s."""
    found: set[str] = set()
    for _, line in outside_code(page.read_text(encoding="utf-8")):
        m = EXPLICIT_ANCHOR.match(line)
        if m:
            found.add(m.group(1))
        found.update(HTML_ID.findall(line))
    return found


def citation_problems(root: Path) -> list[str]:
    """``path:line: problem`` for every citation in a source file that does not resolve
    (no such page under ``docs/``, or no such anchor on it)."""
    cache: dict[Path, set[str]] = {}
    problems = []
    for f in source_files(root):
        for no, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in CITATION.finditer(line):
                page, anchor = root / "docs" / m.group(1), m.group(2)
                where = f"{f.relative_to(root)}:{no}"
                if not page.is_file():
                    problems.append(
                        f"{where}: cites {m.group(0)}, but docs/{m.group(1)} does not exist"
                    )
                elif anchor is not None:
                    if page not in cache:
                        cache[page] = anchors(page)
                    if anchor not in cache[page]:
                        problems.append(
                            f"{where}: cites {m.group(0)}, but docs/{m.group(1)} has no anchor "
                            f"{{#{anchor}}}"
                        )
    return problems


def forbidden_citations(root: Path) -> list[str]:
    """``path:line: problem`` for every citation of a specification file, a bare ruling
    number or an issue number in a source file (docs pages: specification files and issues)."""
    problems = []
    checks = [
        (
            SPEC_FILE,
            "cites a specification file that is not in the repository; cite "
            "docs/reference/<page>.md#<anchor> instead",
        ),
        (ISSUE, "cites an issue number; say what the code does instead"),
        (
            BARE_RULING,
            "cites a ruling by number; cite docs/reference/rules.md#<anchor> "
            "(each ruling has one, ruling-...)",
        ),
    ]
    files = [(f, checks) for f in source_files(root)] + [(p, checks[:2]) for p in doc_pages(root)]
    for f, which in files:
        for no, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for pattern, why in which:
                m = pattern.search(line)
                if m:
                    problems.append(f"{f.relative_to(root)}:{no}: {m.group(0)!r} {why}")
    return problems


def link_problems(root: Path) -> list[str]:
    """``page:line: problem`` for every relative link of a docs page that does not resolve to
    a file of the repository, or whose ``#anchor`` is not an anchor of the linked page."""
    problems = []
    for page in doc_pages(root):
        for no, line in outside_code(page.read_text(encoding="utf-8")):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                path, _, anchor = target.partition("#")
                dest = (page.parent / path).resolve() if path else page
                where = f"{page.relative_to(root)}:{no}"
                if not dest.exists() or not dest.is_relative_to(root):
                    problems.append(f"{where}: link {target!r}: no such file in the repository")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    problems.append(
                        f"{where}: link {target!r}: {dest.relative_to(root)} has no anchor "
                        f"{{#{anchor}}}"
                    )
    return problems


# ------------------------------------------------------------------ the repository
def test_citations_of_the_docs_resolve():
    problems = citation_problems(ROOT)
    assert not problems, "\n".join(problems)


def test_nothing_cites_files_users_do_not_have_or_issue_numbers():
    problems = forbidden_citations(ROOT)
    assert not problems, "\n".join(problems)


def test_links_of_the_docs_pages_resolve():
    problems = link_problems(ROOT)
    assert not problems, "\n".join(problems)


def test_the_reference_pages_have_anchors_to_cite():
    for page, wanted in (
        ("rules.md", {"burns", "presets", "house", "rulings", "observation", "rules-files"}),
        ("scenarios.md", {"moves", "expect", "exit-codes", "tracked"}),
    ):
        assert wanted <= anchors(ROOT / "docs" / "reference" / page), page


# ------------------------------------------------------------------ the checks themselves
def _tree(tmp_path: Path, source: str, page: str = "# Page {#top}\n\n## Burns {#burns}\n") -> Path:
    (tmp_path / "docs" / "reference").mkdir(parents=True)
    (tmp_path / "docs" / "reference" / "rules.md").write_text(page, encoding="utf-8")
    (tmp_path / "shedsim").mkdir()
    (tmp_path / "shedsim" / "m.py").write_text(source, encoding="utf-8")
    return tmp_path


def _cite(page: str, anchor: str = "") -> str:
    """A citation, built from parts so that this file does not cite it."""
    return "docs" + "/reference/" + page + ("#" + anchor if anchor else "")


def test_a_citation_of_a_missing_anchor_or_page_is_found(tmp_path):
    root = _tree(
        tmp_path,
        f'"""See {_cite("rules.md", "burns")}, {_cite("rules.md", "nope")} and '
        f'{_cite("gone.md")}."""\n',
    )
    problems = citation_problems(root)
    assert len(problems) == 2, problems
    assert "shedsim/m.py:1" in problems[0] and "{#nope}" in problems[0]
    assert "gone.md does not exist" in problems[1]


def test_anchors_are_explicit_and_code_blocks_do_not_count(tmp_path):
    page = '# T {#t}\n\n## Auto heading\n\n```\n## Fake {#fake}\n```\n\n<a id="html-id"></a>\n'
    root = _tree(tmp_path, "", page)
    assert anchors(root / "docs" / "reference" / "rules.md") == {"t", "html-id"}


def test_specification_files_rulings_and_issues_are_found(tmp_path):
    spec = "RULES" + ".md"
    lines = [
        f"# see {spec} section 2",
        "# as in " + "SCENARIOS" + ".md",
        "# fixed in issue" + " 10",
        "# ruling" + " 12 says",
        f"# ruling_12_skip8.toml and {_cite('rules.md')} are fine",
        "label = 'greedy#2'",
    ]
    root = _tree(tmp_path, "\n".join(lines) + "\n")
    problems = forbidden_citations(root)
    assert [p.split(":")[1] for p in problems] == ["1", "2", "3", "4"], problems


def test_links_out_of_the_docs_are_checked(tmp_path):
    page = (
        "# T {#t}\n\n[ok](../../shedsim/m.py) [same page](#t) [bad anchor](#nowhere)\n"
        "[missing](../../tests/none.toml) [web](https://example.org/x.md#y)\n"
    )
    root = _tree(tmp_path, "", page)
    problems = link_problems(root)
    assert len(problems) == 2, problems
    assert "#nowhere" in problems[0] and "none.toml" in problems[1]
