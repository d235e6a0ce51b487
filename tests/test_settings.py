"""The table of rule settings and house toggles (:mod:`shedsim.rules.settings`) and what is
read from it: every toggle has a scenario file and a differential case, the ``RuleSet``
fields and the rules array are the table's, every toggle example sets what its row says,
and a rule set written as a rules file (every key) reads back as itself."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

import shedsim.rules.settings as S
import test_differential as D
from shedsim import layout as L
from shedsim.rules.cards import parse_rank
from shedsim.rules.ruleset import PRESETS, RuleSet, RulesError, build, load_rules_file, preset

SCENARIOS = Path(__file__).parent / "scenarios"
EXAMPLES = [t for toggle in S.TOGGLES.values() for t in S.toggle_examples(toggle)]


def scenario_toggles() -> dict[str, list[str]]:
    """Toggle syntax -> the scenario files (``tests/scenarios/*.toml``) whose ``house`` uses it."""
    used: dict[str, list[str]] = {}
    for p in sorted(SCENARIOS.glob("*.toml")):
        for text in tomllib.loads(p.read_text(encoding="utf-8")).get("house", []):
            used.setdefault(S.find_toggle(text).syntax, []).append(p.name)
    return used


def test_every_toggle_has_a_scenario_file():
    used = scenario_toggles()
    missing = [syntax for syntax in S.TOGGLES if syntax not in used]
    assert not missing, f"house toggles without a scenario file in tests/scenarios/: {missing}"


def test_every_toggle_has_a_differential_case():
    cases = D.TOGGLE_CASES + D.STOP_CASES
    missing = [syntax for syntax in S.TOGGLES if not D.covered(syntax, cases)]
    assert not missing, (
        f"house toggles no case of tests/test_differential.py plays where they matter: {missing}"
    )


def test_the_guards_see_a_toggle_without_either():
    """The two checks above fail for a toggle with no scenario file or no case."""
    assert "nosuch" not in scenario_toggles()
    skip8 = [c for c in D.TOGGLE_CASES + D.STOP_CASES if not any(t == "skip8" for t in c[2])]
    assert D.covered("skip8", D.TOGGLE_CASES) and not D.covered("skip8", skip8)
    assert not D.covered(
        "lowest_starts", [("shithead", 4, ["lowest_starts"])]
    )  # shithead's own rule


def test_rule_set_fields_are_the_table():
    fields = [f.name for f in dataclasses.fields(RuleSet)]
    assert fields == [f for s in S.SETTINGS for f in s.fields] + ["house"]
    assert set(S.FILE_KEYS) == {"preset", "house", *(s.key for s in S.SETTINGS)}
    assert all(s.kind in S.KINDS for s in S.SETTINGS)


def test_every_rules_array_entry_is_a_setting_or_follows_from_them():
    derived = {"R_PLAYABLE", "R_FLAGS", "R_SPECIAL_MASK", "R_ORDINARY_MASK", "R_DECK_SIZE"}
    slots = [s.slot for s in S.SETTINGS if s.slot]
    assert len(slots) == len(set(slots)) and not set(slots) & derived
    entries = {
        n for n, v in vars(L).items() if n.startswith("R_") and isinstance(v, int) and n != "R_SIZE"
    }
    assert entries == set(slots) | derived
    flags = {n for n, v in vars(L).items() if n.startswith("F_") and isinstance(v, int)}
    assert flags == {s.flag for s in S.SETTINGS if s.flag} | {"F_MAGIC", "F_ORDINARY"}
    assert max(getattr(L, n) for n in entries) < L.R_SIZE


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("name", PRESETS)
def test_every_toggle_example_sets_its_setting(name, example):
    """What each toggle does to its setting, and to the rules array, read from its row."""
    toggle, setting, value = S.toggle_value(example)
    try:
        rs = build(name, [example])
    except RulesError as e:
        assert e.field in (example, *setting.fields, "players", "under", "low")
        return
    got = getattr(rs, setting.key)
    assert value in got if setting.kind == "ranks" else got == value
    for field, v in toggle.also:
        assert getattr(rs, field) == v
    assert rs.house == (example,)
    a = rs.compile(rs.min_players)
    if setting.slot is not None:
        assert a[getattr(L, setting.slot)] == rs._slot_value(setting, rs.min_players)
    if setting.flag is not None:
        assert a[L.R_FLAGS + value] & getattr(L, setting.flag)


def test_toggle_errors_name_the_toggle():
    for text in (
        "nosuch",
        "skip8:1",
        "pickup",
        "pickup:sometimes",
        "hand_size:x",
        "hand_size:0",
        "invisible:5",
        "reverse:Z",
        "stall:-1",
    ):
        with pytest.raises(RulesError) as ei:
            S.toggle_value(text)
        assert ei.value.field == text


def _as_file(rs: RuleSet, base: str) -> str:
    lines = [f'preset = "{base}"']
    for s in S.SETTINGS:
        v = (rs.min_players, rs.max_players) if s.kind == "players" else getattr(rs, s.key)
        if v is not None:
            lines.append(f"{s.key} = {S.file_value_text(v)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "name, house",
    [(p, []) for p in PRESETS]
    + [
        ("duel", ["low7", "skip8", "stall:30"]),
        ("nines", ["two_decks", "reverse:K", "stalemate:most_cards"]),
        (
            "palace",
            ["hand_size:5", "table_size:2", "pickup:always", "mix_last_hand", "burn_passes"],
        ),
    ],
)
def test_every_setting_reads_back_from_a_rules_file(tmp_path, name, house):
    """A rule set written with every rules-file key (on another preset, so that every key
    matters) reads back as itself."""
    rs = build(name, house)
    other = "shithead" if name != "shithead" else "duel"
    p = tmp_path / "all.toml"
    p.write_text(_as_file(rs, other), encoding="utf-8")
    back = load_rules_file(p)
    assert dataclasses.replace(back, house=rs.house) == rs


def test_presets_are_the_table():
    for s in S.SETTINGS:
        for name in PRESETS:
            v = preset(name)
            got = (v.min_players, v.max_players) if s.kind == "players" else getattr(v, s.key)
            assert got == s.value(name)
            s.check(got)
    assert preset("nines").magic == {parse_rank("A")}


def test_each_toggle_candidates_come_from_the_table():
    tried, never = S.each_toggle_candidates(preset("shithead"))
    names = {S.find_toggle(t).syntax for t in tried}
    assert names | {S.find_toggle(syntax).syntax for syntax, _ in never} == set(S.TOGGLES)
    assert [syntax for syntax, _ in never] == ["pickup:never", "max_moves:N", "stalemate:share"]
    assert (
        "pickup:never" not in tried and "pickup:always" in tried
    )  # shithead's own mode is not tried, but listed with the reason
    assert "no change" in dict(never)["pickup:never"]
    assert "hand_size:2" in tried and "hand_size:4" in tried
    for word in ("invisible:3/8/9", "max_moves left out", "hand_size", "reverse with 2 players"):
        assert word in S.each_toggle_summary()


def test_each_toggle_lists_integers_out_of_range_with_the_reason():
    edge = dataclasses.replace(preset("shithead"), hand_size=10, table_size=1, burn_run=8)
    tried, never = S.each_toggle_candidates(edge)
    why = dict(never)
    assert "hand_size:9" in tried and "hand_size:11" not in tried
    assert "out of range" in why["hand_size:11"] and "1 to 10" in why["hand_size:11"]
    assert "table_size:2" in tried and "out of range" in why["table_size:0"]
    assert "burn_run:7" in tried and "out of range" in why["burn_run:9"]
    assert "hand_size:2" not in why  # shithead's own hand size: both neighbours in range
    assert "hand_size:2" in S.each_toggle_candidates(preset("shithead"))[0]


def test_each_toggle_skips_reverse_with_two_players_only():
    tried2, never2 = S.each_toggle_candidates(preset("shithead"), 2)
    assert "reverse:K" not in tried2
    assert "two players" in dict(never2)["reverse:K"]
    assert "skip8" in tried2  # a skip does change a two-player game (another move)
    for players in (3, 4, None):
        tried, never = S.each_toggle_candidates(preset("shithead"), players)
        assert "reverse:K" in tried and "reverse:K" not in dict(never)
    assert "changes nothing" in S.TOGGLES["reverse:R"].help  # rules list says so too


def test_stall_default_is_stated_one_way_everywhere():
    text = S.STALL_DEFAULT_TEXT
    n = S.default_stall(2)
    assert str(n) in text
    if all(S.default_stall(p) == n for p in range(2, S.MAX_PLAYERS_TWO_DECKS + 1)):
        assert text == f"{n} moves at every player count"
    stall = S.BY_KEY["stall"]
    for where in (stall.help, stall.values_text(), S.TOGGLES["stall:N"].help, S.show_value(None)):
        assert text in where, where
        assert "by player count" not in where, where


@pytest.mark.parametrize("one, ace", [("1", "A"), (1, 14), ("1", "ace")])
def test_one_is_the_ace_in_toggles_and_rules_files(tmp_path, one, ace):
    assert parse_rank(one) == parse_rank(ace) == 14
    toggled = build("shithead", ["reverse:1"])
    as_a = build("shithead", ["reverse:A"])
    assert toggled.reverse == {14} and (toggled.compile(4) == as_a.compile(4)).all()
    value = f'"{one}"' if isinstance(one, str) else str(one)
    p = tmp_path / "r.toml"
    p.write_text(f'preset = "shithead"\nreverse = [{value}]\n')
    assert load_rules_file(p).reverse == {14}


@pytest.mark.parametrize("bad", [0, 15, -1, "0", "15", "11x"])
def test_ranks_beyond_the_ace_are_refused_alike(tmp_path, bad):
    with pytest.raises(RulesError) as ei:
        build("shithead", [f"reverse:{bad}"])
    assert ei.value.field == f"reverse:{bad}" and "unknown rank" in str(ei.value)
    value = f'"{bad}"' if isinstance(bad, str) else str(bad)
    p = tmp_path / "r.toml"
    p.write_text(f'preset = "shithead"\nreverse = [{value}]\n')
    with pytest.raises(RulesError) as ei:
        load_rules_file(p)
    assert ei.value.field == "reverse" and "ace" in str(ei.value)


def test_rules_file_name_default_and_empty_name(tmp_path):
    def load(text: str) -> RuleSet:
        p = tmp_path / "r.toml"
        p.write_text('preset = "shithead"\n' + text)
        return load_rules_file(p)

    assert load('house = ["low7"]\n').name == "shithead"  # toggles only: the preset, + low7
    assert load("hand_size = 4\n").name == "shithead*"  # a setting changed: shithead*
    assert load('name = "mine"\n').name == "mine"
    for empty in ('""', '"  "'):
        with pytest.raises(RulesError) as ei:
            load(f"name = {empty}\n")
        assert ei.value.field == "name" and "empty" in str(ei.value)
