"""Fuzzing rules files, scenario files and plugins: nothing crashes; bad input is refused
with the project's own errors (which the CLI turns into exit code 2)."""

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shedsim import plugins
from shedsim.rules import engine
from shedsim.rules.ruleset import RulesError, load_rules_file, preset
from shedsim.rules.scenario import ScenarioError, run_scenario
from shedsim.rules.settings import FILE_KEYS

SETTINGS = settings(
    derandomize=True,
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

card = st.sampled_from(["2", "3", "5", "7", "9", "10", "J", "Q", "K", "A", "1", "11", "X", "", "z"])
scalar = st.one_of(st.integers(-3, 12), st.booleans(), st.text(max_size=6), card)
value = st.one_of(scalar, st.lists(scalar, max_size=5))
rules_keys = st.sampled_from([*FILE_KEYS, "bogus"])


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\\\", "").replace('"', "") + '"'
    return "[" + ", ".join(toml_value(x) for x in v) + "]"


@SETTINGS
@given(
    st.dictionaries(rules_keys, value, max_size=6),
    st.sampled_from(["duel", "nines", "family", "palace", "shithead", "nosuch", None]),
)
def test_rules_files_never_crash(tmp_path_factory, data, base):
    if base is not None:
        data = {**data, "preset": base}
    path = tmp_path_factory.mktemp("rules") / "r.toml"
    path.write_text("\n".join(f"{k} = {toml_value(v)}" for k, v in data.items()) + "\n")
    try:
        rs = load_rules_file(path)
    except RulesError as e:
        assert e.field and str(e)
        return
    rs.compile(rs.min_players)  # a rule set that loads is playable


@SETTINGS
@given(st.binary(max_size=200))
def test_rules_files_of_random_bytes_are_refused_cleanly(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("rules") / "r.toml"
    path.write_bytes(blob)
    with pytest.raises(RulesError):
        load_rules_file(path)


seat = st.fixed_dictionaries(
    {},
    optional={
        "hand": st.lists(card, max_size=6),
        "face_up": st.lists(card, max_size=4),
        "face_down": st.lists(card, max_size=4),
        "out": st.booleans(),
        "extra": st.integers(),
    },
)
moves = st.lists(
    st.sampled_from(
        [
            "play 7x1",
            "play 3x2",
            "play Ax1+1",
            "flip 1",
            "flip 9",
            "pickup",
            "gamble",
            "play Zx1",
            "jump",
            "",
        ]
    ),
    max_size=4,
)


@SETTINGS
@given(
    rules=st.sampled_from(["duel", "nines", "family", "palace", "shithead", "nosuch", "x.toml"]),
    house=st.lists(
        st.sampled_from(["low7", "skip8", "reverse:K", "two_decks", "pickup:always", "bogus"]),
        max_size=3,
    ),
    seats=st.lists(seat, max_size=6),
    pile=st.lists(card, max_size=5),
    stock=st.lists(card, max_size=5),
    to_move=st.integers(-1, 6),
    burned=st.integers(-1, 60),
    moves=moves,
    expect=st.dictionaries(
        st.sampled_from(["pile", "to_move", "legal", "seats.0.hand", "bogus", "burned"]),
        value,
        max_size=3,
    ),
)
def test_scenario_files_never_crash(
    tmp_path_factory, rules, house, seats, pile, stock, to_move, burned, moves, expect
):
    lines = [
        f"rules = {toml_value(rules)}",
        f"house = {toml_value(house)}",
        f"to_move = {to_move}",
        f"pile = {toml_value(pile)}",
        f"stock = {toml_value(stock)}",
        f"burned = {burned}",
        f"moves = {toml_value(moves)}",
    ]
    for s in seats:
        lines.append("[[seats]]")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in s.items())
    lines.append("[expect]")
    lines.extend(f'"{k}" = {toml_value(v)}' for k, v in expect.items())
    path = tmp_path_factory.mktemp("scen") / "s.toml"
    path.write_text("\n".join(lines) + "\n")
    try:
        run_scenario(path)
    except ScenarioError as e:
        assert e.field and str(e)


def test_python_plugin_that_loops_forever_is_stopped(tmp_path, monkeypatch):
    d = tmp_path / "p"
    d.mkdir()
    (d / "spinner.py").write_text(
        textwrap.dedent("""
        NAME = "spinner"
        DESCRIPTION = "never decides"
        DETERMINISTIC = True
        def choose_swap(visible, seat, players, rules, rng):
            return sorted(visible)[:rules.table_size]
        def choose_move(obs, legal, rng):
            while True:
                pass
    """)
    )
    monkeypatch.setenv("SHEDSIM_DECISION_TIMEOUT", "0.2")
    known = plugins.discover([d])
    with pytest.raises(engine.StrategyError) as err:
        engine.play_game(
            preset("shithead"), [known["spinner"].player(), known["greedy"].player()], 5, 6
        )
    assert "spinner" in str(err.value) and "DecisionTimeout" in str(err.value)
