"""The rules reference and the scenario format page agree with the code they describe.

``docs/reference/rules.md`` and ``docs/reference/scenarios.md`` are written by hand; these
tests read their tables and examples and compare them with the rule sets, the rules-file
parser and the scenario loader, so that a change to either side that forgets the other fails:

* every can-play table (marked ``<!-- can-play: PRESET[+toggle] ... -->``) equals
  :meth:`shedsim.rules.RuleSet.can_play` cell for cell, for every preset it names;
* every house toggle is described (the page's toggle table is generated from the settings
  table, and fails for a toggle without a description), every rules-file key and scenario key
  is documented;
* the examples (a rules file, a scenario) load, and the scenario's expectations hold;
* each ``ruling_NN_*.toml`` scenario file is linked from the section of ruling NN.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from shedsim.rules.cards import RANKS, parse_rank, rank_name
from shedsim.rules.ruleset import TOGGLES, RulesError, build, rules_from_mapping
from shedsim.rules.scenario import (
    END_VALUES,
    EXPECT_KEYS,
    SEAT_EXPECT_FIELDS,
    SEAT_KEYS,
    TOP_KEYS,
    run_scenario,
)

ROOT = Path(__file__).resolve().parents[1]
RULES_PAGE = (ROOT / "docs" / "reference" / "rules.md").read_text(encoding="utf-8")
SCENARIOS_PAGE = (ROOT / "docs" / "reference" / "scenarios.md").read_text(encoding="utf-8")
SCENARIOS = ROOT / "tests" / "scenarios"


def section(text: str, anchor: str) -> str:
    """The text of the section whose heading carries ``{#anchor}``, up to the next heading of
    the same or a higher level."""
    m = re.search(r"^(#+) .*\{#" + re.escape(anchor) + r"\}\s*$", text, re.M)
    assert m, f"no section {{#{anchor}}}"
    rest = text[m.end() :]
    end = re.search(r"^#{1," + str(len(m.group(1))) + r"} ", rest, re.M)
    return rest[: end.start()] if end else rest


def can_play_tables() -> list[tuple[str, dict[int, list[bool]]]]:
    """``(variant, {top: legal per rank 2..14})`` for every marked table of the rules page."""
    out = []
    for m in re.finditer(r"<!-- can-play: ([^>]+?) -->\n((?:\|.*\|\n)+)", RULES_PAGE):
        rows = m.group(2).strip().splitlines()
        header = [c.strip() for c in rows[0].strip("|").split("|")]
        assert [parse_rank(c) for c in header[1:]] == list(RANKS), header
        table = {}
        for row in rows[2:]:
            cells = [c.strip() for c in row.strip("|").split("|")]
            top = 0 if cells[0] == "empty" else parse_rank(cells[0])
            assert set(cells[1:]) <= {"x", "·"}, row
            table[top] = [c == "x" for c in cells[1:]]
        for variant in m.group(1).split():
            out.append((variant, table))
    return out


def test_every_preset_has_a_can_play_table():
    names = {v for v, _ in can_play_tables()}
    assert {"duel", "nines", "family", "palace", "shithead"} <= names


@pytest.mark.parametrize("variant,table", can_play_tables(), ids=[v for v, _ in can_play_tables()])
def test_can_play_table_matches_the_rule_set(variant, table):
    name, *house = variant.split("+")
    rs = build(name, house)
    # every top that can occur: the empty pile and each rank that is neither burn nor invisible
    tops = [0] + [t for t in RANKS if t not in rs.burn and t not in rs.invisible]
    assert sorted(table) == sorted(tops), f"{variant}: rows {sorted(table)}"
    for top in tops:
        assert table[top] == [rs.can_play(top, r) for r in RANKS], (
            f"{variant}, top {rank_name(top)}: page {table[top]}"
        )


def _macros():
    spec = importlib.util.spec_from_file_location(
        "shedsim_docs_macros", ROOT / "docs" / "macros.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_house_toggle_is_documented():
    # the page's toggle table is generated from shedsim/rules/settings.py (a macro); each toggle's
    # description is its help there, and its section on the page, where it has one, is linked
    assert "{{ toggle_table() }}" in section(RULES_PAGE, "house")
    rows = _macros().toggle_rows()
    assert [r["toggle"] for r in rows] == list(TOGGLES)
    assert all(r["effect"] for r in rows)
    for r in rows:
        if r["anchor"]:
            assert "{#" + r["anchor"] + "}" in section(RULES_PAGE, "house"), r


def test_a_house_toggle_without_a_description_fails_the_table(monkeypatch):
    from shedsim.rules import settings

    macros = _macros()
    monkeypatch.setitem(settings.TOGGLES, "new_toggle", settings.Toggle("new_toggle", "  "))
    monkeypatch.setitem(settings.SETTING_OF, "new_toggle", settings.BY_KEY["skip"])
    with pytest.raises(macros.FigureError, match="'new_toggle' has no description"):
        macros.toggle_table()


def test_every_rules_file_key_is_documented():
    with pytest.raises(RulesError) as e:
        rules_from_mapping({"preset": "shithead", "not_a_key": 1})
    keys = str(e.value).split("known keys: ")[1].split(", ")
    table = section(RULES_PAGE, "rules-files")
    for key in keys:
        assert f"`{key}`" in table, key


def test_the_rules_file_example_loads():
    toml = re.search(r"```toml\n(.*?)```", section(RULES_PAGE, "rules-files"), re.S).group(1)
    rs = rules_from_mapping(tomllib.loads(toml))
    assert rs.max_moves == 2000 and 8 in rs.skip and 7 in rs.low


def test_every_scenario_key_is_documented():
    for anchor, keys in (
        ("top-level-keys", TOP_KEYS),
        ("seats", SEAT_KEYS),
        ("expect", EXPECT_KEYS),
    ):
        text = section(SCENARIOS_PAGE, anchor)
        for key in keys:
            assert f"`{key}`" in text, (anchor, key)
    expect = section(SCENARIOS_PAGE, "expect")
    for field in SEAT_EXPECT_FIELDS:
        assert f'`"seats.N.{field}"`' in expect, field
    for value in END_VALUES:
        assert f"`{value}`" in expect, value


def test_the_scenario_example_holds(tmp_path):
    toml = re.search(r"```toml\n(.*?)```", section(SCENARIOS_PAGE, "example"), re.S).group(1)
    path = tmp_path / "example.toml"
    path.write_text(toml, encoding="utf-8")
    assert run_scenario(path) == []


def test_each_ruling_links_its_scenario_files():
    rulings = section(RULES_PAGE, "rulings")
    numbered = dict(re.findall(r"^\| (\d+) \| \[[^\]]+\]\(#([\w-]+)\) \|$", rulings, re.M))
    assert len(numbered) >= 16
    files = sorted(SCENARIOS.glob("ruling_*.toml"))
    assert files
    for f in files:
        number = str(int(f.name.split("_")[1]))
        assert number in numbered, f"{f.name}: no ruling {number} in the table"
        assert f"(../../tests/scenarios/{f.name})" in section(RULES_PAGE, numbered[number]), (
            f"{f.name} is not linked from #{numbered[number]}"
        )
