"""Rule sets as data (docs/reference/rules.md#presets and docs/reference/rules.md#house): presets,
toggles, TOML files, compiling.

The ``can_play`` oracles below are written straight from the per-preset rules of
docs/reference/rules.md#presets, independently of :meth:`shedsim.rules.RuleSet.can_play`, and
compared with it
on every (effective top, rank) pair that can occur (a burn rank never stays on top and an
invisible rank is never the effective top, so those rows are left out).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shedsim.rules.settings as S
from shedsim import layout as L
from shedsim.rules.cards import RANKS
from shedsim.rules.engine import GameState, Move, Seat, legal_moves
from shedsim.rules.ruleset import (
    PRESETS,
    RuleSet,
    RulesError,
    build,
    load_rules_file,
    preset,
    rules_from_mapping,
)

J, Q, K, A = 11, 12, 13, 14
TOPS = (0, *RANKS)


# --------------------------------------------------------------------------- oracles
def oracle_duel(t: int, r: int) -> bool:
    if t in (0, 2):
        return True
    if r in (2, 5, 10):
        return True
    if t == 5:
        return r <= 5
    return r >= t


def oracle_nines(t: int, r: int) -> bool:
    if t in (0, 2):
        return True
    if r in (2, 9, 10, A):
        return True
    if t == A:
        return False
    if r == 5:
        return 5 <= t <= K
    if t == 5:
        return r in (3, 4, 5)
    return r >= t


def oracle_plain(t: int, r: int) -> bool:
    """family, palace, shithead."""
    if t in (0, 2):
        return True
    if r in (2, 10):
        return True
    return r >= t


def oracle_with_low(base, lows: set[int]):
    """family/palace/shithead with ``low7``/``low5``: t low allows only r <= t or 2 or 10."""

    def f(t: int, r: int) -> bool:
        if t in lows and t not in (0, 2):
            return r <= t or r in (2, 10)
        return base(t, r)

    return f


def oracle_duel_low(lows: set[int]):
    """docs/reference/rules.md#ruling-low7-duel: the low ranks take the whole role of duel's 5."""
    magic = {2, 10} | lows

    def f(t: int, r: int) -> bool:
        if t in (0, 2):
            return True
        if r in magic:
            return True
        if t in lows:
            return r <= t
        return r >= t

    return f


def reachable_tops(rs: RuleSet) -> list[int]:
    return [t for t in TOPS if t not in rs.burn and t not in rs.invisible]


def assert_table(rs: RuleSet, oracle) -> None:
    bad = [
        (t, r, rs.can_play(t, r), oracle(t, r))
        for t in reachable_tops(rs)
        for r in RANKS
        if rs.can_play(t, r) != oracle(t, r)
    ]
    assert not bad, f"{rs.name} {rs.house}: (top, rank, can_play, spec) mismatches {bad}"


# --------------------------------------------------------------------------- presets
EXPECTED = {
    # name: (min, max, pickup, gamble, start)
    "duel": (2, 2, "always", True, "dealer_left"),
    "nines": (2, 4, "never", False, "lowest_faceup"),
    "family": (2, 4, "hand+faceup", False, "dealer_left"),
    "palace": (2, 5, "hand+faceup", False, "dealer_left"),
    "shithead": (2, 5, "never", False, "lowest_hand"),
}


def test_presets_are_the_five_of_the_spec():
    assert set(PRESETS) == set(EXPECTED)


@pytest.mark.parametrize("name", PRESETS)
def test_preset_properties(name):
    lo, hi, pickup, gamble, start = EXPECTED[name]
    rs = build(name)
    assert rs.name == name
    assert (rs.min_players, rs.max_players) == (lo, hi)
    assert rs.pickup == pickup
    assert rs.deck_gamble is gamble
    assert rs.start == start
    assert rs.decks == 1 and rs.deck_size == 52
    assert (rs.hand_size, rs.table_size, rs.burn_run) == (3, 3, 4)
    assert rs.max_moves == 5000
    assert rs.reset == {2} and rs.burn == {10}
    assert rs.house == ()
    assert rs.skip == frozenset() and rs.reverse == frozenset()
    assert not rs.burn_passes and not rs.mix_last_hand
    assert rs.invisible == ({9} if name == "nines" else frozenset())


@pytest.mark.parametrize("name", PRESETS)
def test_player_range(name):
    lo, hi = EXPECTED[name][:2]
    rs = build(name)
    for n in range(lo, hi + 1):
        rs.check_players(n)
        assert rs.compile(n)[L.R_PLAYERS] == n
    for n in (0, 1, lo - 1, hi + 1, hi + 5):
        if lo <= n <= hi:
            continue
        with pytest.raises(RulesError) as ei:
            rs.check_players(n)
        assert ei.value.field == "players"
        with pytest.raises(RulesError):
            rs.compile(n)
    for bad in (True, 2.0, "2"):
        with pytest.raises(RulesError) as ei:
            rs.check_players(bad)
        assert ei.value.field == "players"


@pytest.mark.parametrize(
    "name, oracle",
    [
        ("duel", oracle_duel),
        ("nines", oracle_nines),
        ("family", oracle_plain),
        ("palace", oracle_plain),
        ("shithead", oracle_plain),
    ],
)
def test_can_play_table_matches_spec(name, oracle):
    assert_table(build(name), oracle)


def test_can_play_rows_spelled_out():
    duel, nines, sh = build("duel"), build("nines"), build("shithead")
    # duel: 2, 5, 10 magic even on a 5 or an ace; on a 5 only 5 or lower
    for t in TOPS:
        for r in (2, 5, 10):
            assert duel.can_play(t, r)
    assert [r for r in RANKS if duel.can_play(5, r)] == [2, 3, 4, 5, 10]
    assert [r for r in RANKS if duel.can_play(A, r)] == [2, 5, 10, A]
    assert [r for r in RANKS if duel.can_play(8, r)] == [2, 5, 8, 9, 10, J, Q, K, A]
    # nines: 5 only on 5..K; on a 5 only 3, 4, 5 (and the magic 2, 9, 10, A)
    assert [t for t in (3, 4, 5, 6, 7, 8, J, Q, K, A) if nines.can_play(t, 5)] == [
        5,
        6,
        7,
        8,
        J,
        Q,
        K,
    ]
    assert [r for r in RANKS if nines.can_play(5, r)] == [2, 3, 4, 5, 9, 10, A]
    assert [r for r in RANKS if nines.can_play(A, r)] == [2, 9, 10, A]
    assert [r for r in RANKS if nines.can_play(4, r)] == [2, 4, 6, 7, 8, 9, 10, J, Q, K, A]
    # empty pile: everything
    for rs in (duel, nines, sh):
        assert all(rs.can_play(0, r) for r in RANKS)
        assert all(rs.can_play(2, r) for r in RANKS)
    assert [r for r in RANKS if sh.can_play(K, r)] == [2, 10, K, A]


@pytest.mark.parametrize("name", ["family", "palace", "shithead"])
@pytest.mark.parametrize("lows", [{7}, {5}, {5, 7}])
def test_low_toggles_on_plain_presets(name, lows):
    house = [f"low{r}" for r in sorted(lows)]
    rs = build(name, house)
    assert rs.low == frozenset(lows)
    assert_table(rs, oracle_with_low(oracle_plain, lows))


def test_palace_low7_row():
    rs = build("palace", ["low7"])
    assert [r for r in RANKS if rs.can_play(7, r)] == [2, 3, 4, 5, 6, 7, 10]
    # another 7 passes the limit on
    assert rs.can_play(7, 7)


def test_duel_low7_takes_the_role_of_the_five():
    """docs/reference/rules.md#ruling-low7-duel: the 7 goes on anything, the next play is seven or
    lower; the 5 is then
    ordinary."""
    rs = build("duel", ["low7"])
    assert_table(rs, oracle_duel_low({7}))
    assert all(rs.can_play(t, 7) for t in TOPS)
    assert [r for r in RANKS if rs.can_play(7, r)] == [2, 3, 4, 5, 6, 7, 10]
    assert not rs.can_play(6, 5) and not rs.can_play(A, 5)  # 5 ordinary
    assert rs.can_play(5, 9)  # no limit after a 5
    assert 5 not in rs.low and 5 not in rs.magic


def test_duel_low7_and_low5_both_keep_the_role():
    rs = build("duel", ["low7", "low5"])
    assert rs.low == {5, 7}
    assert_table(rs, oracle_duel_low({5, 7}))
    assert rs.can_play(A, 5) and rs.can_play(A, 7)
    assert [r for r in RANKS if rs.can_play(5, r)] == [2, 3, 4, 5, 7, 10]


def test_duel_low5_changes_nothing():
    assert_table(build("duel", ["low5"]), oracle_duel)


def test_nines_low7_moves_the_low_role():
    """On nines the 7 takes the 5's role: after a 7 only 7 or lower (and the magic ranks)."""
    rs = build("nines", ["low7"])
    assert 7 in rs.low and 5 not in rs.low
    for r in RANKS:
        if r in (2, 9, 10, A):
            assert rs.can_play(7, r)
        else:
            assert rs.can_play(7, r) == (r <= 7), r
    assert rs.can_play(4, 5) == (5 >= 4)  # 5 ordinary now


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("r", [3, 8, 9])
def test_invisible_toggle(name, r):
    rs = build(name, [f"invisible:{r}"])
    assert r in rs.invisible
    assert all(rs.can_play(t, r) for t in TOPS), "an invisible rank goes on anything"
    assert rs.goes_on_anything(r)
    assert not rs.ordinary(r)
    state = GameState(rules=rs, seats=[Seat(hand=[4]), Seat(hand=[4])], pile=[K, r, r])
    assert state.effective_top() == K
    state.pile = [r]
    assert state.effective_top() == 0


def test_pile_of_invisible_cards_counts_as_empty_but_can_be_picked_up():
    """docs/reference/rules.md#ruling-invisible-pile."""
    rs = build("shithead", ["invisible:8", "pickup:hand"])
    state = GameState(rules=rs, seats=[Seat(hand=[3, K]), Seat(hand=[4, 5, 6])], pile=[8, 8])
    legal = legal_moves(state)
    assert Move("play", 3, 1) in legal and Move("play", K, 1) in legal
    assert Move("pickup") in legal


@pytest.mark.parametrize("bad", ["invisible:5", "invisible:A", "invisible:Z", "invisible:2"])
def test_invisible_only_three_eight_nine(bad):
    with pytest.raises(RulesError) as ei:
        build("family", [bad])
    assert ei.value.field == bad


# --------------------------------------------------------------------------- toggles
def test_each_toggle_sets_its_field():
    rs = build(
        "family",
        [
            "skip8",
            "reverse:K",
            "burn_passes",
            "random_starts",
            "pickup:always",
            "deck_gamble",
            "mix_last_hand",
            "two_decks",
            "hand_size:4",
            "table_size:2",
            "max_moves:123",
        ],
    )
    assert rs.skip == {8} and rs.reverse == {K}
    assert rs.burn_passes and rs.deck_gamble and rs.mix_last_hand
    assert rs.start == "random" and rs.pickup == "always"
    assert rs.decks == 2 and rs.deck_size == 104 and rs.max_players == 10
    assert (rs.hand_size, rs.table_size, rs.max_moves) == (4, 2, 123)
    assert build("palace", ["lowest_starts"]).start == "lowest_hand"
    assert build("shithead", ["dealer_left_starts"]).start == "dealer_left"
    assert build("nines", ["pickup:hand"]).pickup == "hand"


@pytest.mark.parametrize("name", PRESETS)
def test_two_decks_allow_ten_players(name):
    """docs/reference/rules.md#ruling-two-decks."""
    rs = build(name, ["two_decks"])
    for n in range(2, 11):
        rs.check_players(n)
    with pytest.raises(RulesError) as ei:
        rs.check_players(11)
    assert ei.value.field == "players"
    with pytest.raises(RulesError) as ei:
        build(name).check_players(6)
    assert ei.value.field == "players"


_FREE, _GROUPS = S.toggle_groups()


@st.composite
def toggle_lists(draw):
    """Every toggle of the table may be drawn: any of those that compose freely, and at
    most one per other setting."""
    toggles = list(draw(st.sets(st.sampled_from(_FREE))))
    for group in _GROUPS.values():
        c = draw(st.none() | st.sampled_from(group))
        if c:
            toggles.append(c)
    return toggles


def _comparable(rs: RuleSet) -> RuleSet:
    return dataclasses.replace(rs, house=tuple(sorted(rs.house)))


@settings(derandomize=True, database=None, max_examples=300, deadline=None)
@given(name=st.sampled_from(PRESETS), toggles=toggle_lists(), data=st.data())
def test_toggles_compose_in_any_order(name, toggles, data):
    order = data.draw(st.permutations(toggles), label="order")
    try:
        a = build(name, toggles)
    except RulesError as e:
        with pytest.raises(RulesError) as ei:
            build(name, order)
        assert ei.value.field == e.field or ei.value.field in toggles
        return
    b = build(name, order)
    assert _comparable(a) == _comparable(b)
    assert sorted(a.house) == sorted(toggles)
    n = a.min_players
    assert np.array_equal(a.compile(n), b.compile(n))
    for t in TOPS:
        for r in RANKS:
            assert a.can_play(t, r) == b.can_play(t, r)


@pytest.mark.parametrize(
    "t1, t2",
    [
        ("lowest_starts", "random_starts"),
        ("random_starts", "dealer_left_starts"),
        ("lowest_starts", "dealer_left_starts"),
        ("pickup:never", "pickup:always"),
        ("pickup:hand", "pickup:hand+faceup"),
        ("hand_size:2", "hand_size:4"),
        ("table_size:2", "table_size:3"),
        ("max_moves:100", "max_moves:200"),
    ],
)
@pytest.mark.parametrize("name", ["shithead", "duel"])
def test_contradictory_toggles_are_refused(name, t1, t2):
    for pair in ([t1, t2], [t2, t1], [t1, "skip8", t2]):
        with pytest.raises(RulesError) as ei:
            build(name, pair)
        assert ei.value.field in (t1, t2)
        assert t1 in str(ei.value) and t2 in str(ei.value)


def test_repeating_a_toggle_is_not_a_contradiction():
    assert build("palace", ["pickup:always", "pickup:always"]).pickup == "always"
    assert build("palace", ["hand_size:4", "hand_size:4"]).hand_size == 4
    assert build("palace", ["low7", "low7"]).low == {7}


def test_unknown_preset():
    for name in ("nosuch", "Shithead", "", "palace "):
        with pytest.raises(RulesError) as ei:
            build(name)
        assert ei.value.field == "rules"
        with pytest.raises(RulesError):
            preset(name)
    assert "nosuch" in str(pytest.raises(RulesError, build, "nosuch").value)


@pytest.mark.parametrize(
    "toggle",
    [
        "nosuch",
        "low6",
        "low7:1",
        "skip8:2",
        "skip9",
        "pickup:sometimes",
        "pickup",
        "hand_size:x",
        "hand_size",
        "table_size:",
        "reverse:Z",
        "reverse",
        "invisible",
        "two_decks:3",
        "hand_size:0",
        "hand_size:11",
        "table_size:7",
        "max_moves:5",
    ],
)
def test_unknown_or_malformed_toggle_names_the_toggle(toggle):
    with pytest.raises(RulesError) as ei:
        build("shithead", [toggle])
    assert ei.value.field in (toggle, toggle.partition(":")[0])
    assert ei.value.field in str(ei.value)


def test_too_few_cards_for_the_deal():
    rs = None
    with pytest.raises(RulesError) as ei:
        rs = build("shithead", ["table_size:6", "hand_size:10"])
        rs.check_players(5)
    assert "too few cards" in str(ei.value)
    assert ei.value.field in ("players", "table_size", "hand_size")
    with pytest.raises(RulesError):
        rs = build("shithead", ["table_size:6", "hand_size:10"])
        rs.compile(5)
    # two decks make room for the same deal
    build("shithead", ["table_size:6", "hand_size:10", "two_decks"]).check_players(4)


def test_too_few_cards_even_for_the_smallest_table():
    with pytest.raises(RulesError) as ei:
        rules_from_mapping({"preset": "shithead", "players": [4, 5], "hand_size": 10})
    assert "too few cards" in str(ei.value)
    assert ei.value.field in ("players", "hand_size")


# --------------------------------------------------------------------------- TOML files
def _write(tmp_path, text: str, name: str = "rules.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_valid_rules_file(tmp_path):
    p = _write(
        tmp_path,
        """
preset = "palace"
house = ["low7", "skip8"]
pickup = "always"
players = [2, 4]
max_moves = 100
burn = ["10"]
deck_gamble = true
name = "my palace"
""",
    )
    rs = load_rules_file(p)
    assert rs.name == "my palace"
    assert (rs.min_players, rs.max_players) == (2, 4)
    assert rs.pickup == "always" and rs.deck_gamble and rs.max_moves == 100
    assert rs.low == {7} and rs.skip == {8}
    assert rs.reset == {2} and rs.burn == {10}
    assert not rs.can_play(7, 8)
    assert rs.house == ("low7", "skip8")
    # the same through build(), by path and by rules_file, plus extra toggles
    assert build(str(p)) == rs
    assert build(rules_file=p) == rs
    more = build(rules_file=p, house=["reverse:K"])
    assert more.reverse == {K} and more.low == {7}
    with pytest.raises(RulesError) as ei:
        rs.check_players(5)
    assert ei.value.field == "players"


def test_rules_file_scalar_players_and_rank_names(tmp_path):
    rs = load_rules_file(_write(tmp_path, 'preset = "shithead"\nplayers = 3\nreverse = ["K", 3]\n'))
    assert (rs.min_players, rs.max_players) == (3, 3)
    assert rs.reverse == {K, 3}
    assert load_rules_file(_write(tmp_path, 'preset = "duel"\n', "d.toml")) == preset("duel")


@pytest.mark.parametrize(
    "line, key",
    [
        ('deck_gamble = "yes"', "deck_gamble"),
        ("burn_passes = 1", "burn_passes"),
        ('hand_size = "3"', "hand_size"),
        ("hand_size = true", "hand_size"),
        ("table_size = 2.5", "table_size"),
        ('burn = "10"', "burn"),
        ('burn = ["Z"]', "burn"),
        ("reset = [0]", "reset"),
        ("reset = [15]", "reset"),
        ("pickup = 3", "pickup"),
        ('pickup = "sometimes"', "pickup"),
        ('start = "youngest"', "start"),
        ('house = "low7"', "house"),
        ("house = [7]", "house"),
        ('house = ["nosuch"]', "nosuch"),
        ('players = "2"', "players"),
        ("players = [2]", "players"),
        ("players = [1, 4]", "players"),
        ("players = [2, 6]", "players"),
        ("decks = 3", "decks"),
        ("hand_size = 0", "hand_size"),
        ("max_moves = 1", "max_moves"),
        ("name = 5", "name"),
        ("colour = 1", "colour"),
    ],
)
def test_rules_file_errors_name_the_key(tmp_path, line, key):
    p = _write(tmp_path, f'preset = "family"\n{line}\n')
    with pytest.raises(RulesError) as ei:
        load_rules_file(p)
    assert ei.value.field == key
    assert key in str(ei.value)
    with pytest.raises(RulesError):
        build(rules_file=p)


@pytest.mark.parametrize(
    "lines, roles",
    [
        ('burn = ["2", "10"]', ("reset", "burn")),  # shithead's 2 resets: burn too contradicts
        ('invisible = ["10"]', ("burn", "invisible")),
        ('reset = ["2", "9"]\ninvisible = ["9"]', ("reset", "invisible")),
        ('low = ["2"]', ("reset", "low")),
        ('under = ["10"]', ("burn", "under")),
        ('magic = ["5"]\nunder = ["5"]', ("magic", "under")),
    ],
)
def test_rules_file_with_contradicting_roles_is_refused(tmp_path, lines, roles):
    """One rank with two roles that contradict is refused, naming the rank and both roles;
    the command exits 2."""
    p = _write(tmp_path, f'preset = "shithead"\n{lines}\n')
    with pytest.raises(RulesError) as ei:
        load_rules_file(p)
    msg = str(ei.value)
    assert ei.value.field == roles[1] and "contradict" in msg
    assert f"both {roles[0]} and {roles[1]}" in msg
    from typer.testing import CliRunner

    from shedsim.cli import app

    r = CliRunner().invoke(app, ["rules", "show", "--rules-file", str(p)])
    assert r.exit_code == 2 and "contradict" in " ".join(r.output.split())
    # roles that combine are kept: duel's 5 is magic and low, nines' 5 low and under
    assert load_rules_file(
        _write(tmp_path, 'preset = "shithead"\nmagic = ["5"]\nlow = ["5"]\n')
    ).low == {5}


def test_rules_file_preset_errors(tmp_path):
    with pytest.raises(RulesError) as ei:
        load_rules_file(_write(tmp_path, 'pickup = "always"\n'))
    assert ei.value.field == "preset"
    with pytest.raises(RulesError) as ei:
        load_rules_file(_write(tmp_path, "preset = 5\n"))
    assert ei.value.field == "preset"
    with pytest.raises(RulesError) as ei:
        load_rules_file(_write(tmp_path, 'preset = "nosuch"\n'))
    assert "nosuch" in str(ei.value)


def test_rules_file_not_toml_or_missing(tmp_path):
    p = _write(tmp_path, 'preset = "family\nhouse = [\n')
    with pytest.raises(RulesError) as ei:
        load_rules_file(p)
    assert ei.value.field == "rules-file"
    assert str(p) in str(ei.value)
    with pytest.raises(RulesError) as ei:
        load_rules_file(tmp_path / "missing.toml")
    assert ei.value.field == "rules-file"
    with pytest.raises(RulesError) as ei:
        build(str(tmp_path / "missing.toml"))
    assert ei.value.field == "rules-file"


# --------------------------------------------------------------------------- compile
RULESETS = [(name, ()) for name in PRESETS] + [
    ("duel", ("low7",)),
    ("duel", ("low7", "low5")),
    ("nines", ("low7",)),
    ("palace", ("low7",)),
    ("family", ("invisible:3", "skip8", "reverse:K")),
    ("shithead", ("invisible:8", "reverse:8", "skip8", "two_decks")),
    ("nines", ("invisible:3", "low5", "pickup:always", "deck_gamble", "mix_last_hand")),
]


@pytest.mark.parametrize("name, house", RULESETS)
def test_compile_agrees_with_can_play(name, house):
    rs = build(name, list(house))
    for n in range(rs.min_players, min(rs.max_players, 10) + 1):
        a = rs.compile(n)
        assert a.dtype == np.int64 and a.shape == (L.R_SIZE,)
        for t in TOPS:
            mask = int(a[L.R_PLAYABLE + t])
            for r in RANKS:
                assert bool((mask >> (4 * (r - 2))) & 0xF) == rs.can_play(t, r), (n, t, r)
                if rs.can_play(t, r):
                    assert (mask >> (4 * (r - 2))) & 0xF == 0xF
        for r in RANKS:
            f = int(a[L.R_FLAGS + r])
            assert bool(f & L.F_BURN) == (r in rs.burn)
            assert bool(f & L.F_RESET) == (r in rs.reset)
            assert bool(f & L.F_INVISIBLE) == (r in rs.invisible)
            assert bool(f & L.F_SKIP) == (r in rs.skip)
            assert bool(f & L.F_REVERSE) == (r in rs.reverse)
            assert bool(f & L.F_LOW) == (r in rs.low)
            assert bool(f & L.F_MAGIC) == rs.goes_on_anything(r)
            if rs.goes_on_anything(r):
                assert all(rs.can_play(t, r) for t in TOPS)
            assert bool(f & L.F_ORDINARY) == rs.ordinary(r)
        assert a[L.R_PLAYERS] == n
        assert a[L.R_DECKS] == rs.decks and a[L.R_DECK_SIZE] == 52 * rs.decks
        assert a[L.R_HAND_SIZE] == rs.hand_size and a[L.R_TABLE_SIZE] == rs.table_size
        assert a[L.R_BURN_RUN] == 4 and a[L.R_MAX_MOVES] == rs.max_moves
        assert a[L.R_GAMBLE] == int(rs.deck_gamble)
        assert a[L.R_BURN_PASSES] == int(rs.burn_passes)
        assert a[L.R_MIX_LAST] == int(rs.mix_last_hand)
        assert a[L.R_PICKUP] == ("never", "hand", "hand+faceup", "always").index(rs.pickup)
        assert (
            a[L.R_START]
            == {
                "dealer_left": L.START_DEALER_LEFT,
                "lowest_hand": L.START_LOWEST_HAND,
                "lowest_faceup": L.START_LOWEST_FACEUP,
                "random": L.START_RANDOM,
            }[rs.start]
        )


def test_ordinary_ranks_per_preset():
    """docs/reference/rules.md#ruling-lowest-card-start: 2 and 10 (and in nines also 5, 9 and A)
    never count for the start."""
    ordinary = {name: [r for r in RANKS if build(name).ordinary(r)] for name in PRESETS}
    plain = [3, 4, 5, 6, 7, 8, 9, J, Q, K, A]
    assert ordinary["family"] == ordinary["palace"] == ordinary["shithead"] == plain
    assert ordinary["nines"] == [3, 4, 6, 7, 8, J, Q, K]
    assert 2 not in ordinary["duel"] and 10 not in ordinary["duel"]


def test_rules_error_carries_field():
    e = RulesError("hand_size", "too big")
    assert e.field == "hand_size"
    assert str(e).startswith("hand_size")
    assert isinstance(e, ValueError)


def test_toggle_order_does_not_change_compiled_rules_for_all_pairs():
    toggles = ["low7", "skip8", "reverse:K", "invisible:3", "burn_passes", "pickup:hand"]
    ref = build("palace", toggles).compile(3)
    for perm in itertools.islice(itertools.permutations(toggles), 0, None, 37):
        assert np.array_equal(build("palace", list(perm)).compile(3), ref)


def test_stall_and_stalemate_toggles():
    """Games that cannot end (shedsim's rules, docs/reference/rules.md#cannot-end)."""
    from shedsim import layout as L
    from shedsim.rules.ruleset import STALL_DEFAULTS, default_stall

    rs = build("shithead")
    assert rs.stall is None and rs.stalemate == "share"
    assert [default_stall(p) for p in (2, 4, 5, 10)] == [STALL_DEFAULTS[0][1]] * 4
    assert rs.compile(4)[L.R_STALL] == default_stall(4) and rs.compile(5)[
        L.R_STALL
    ] == default_stall(5)
    assert rs.compile(4)[L.R_STALEMATE] == L.STALEMATE_SHARE
    rs = build("palace", ["stall:0", "stalemate:most_cards"])
    assert rs.stall == 0 and rs.compile(3)[L.R_STALL] == 0
    assert rs.compile(3)[L.R_STALEMATE] == L.STALEMATE_MOST_CARDS
    assert build("duel", ["stall:77"]).compile(2)[L.R_STALL] == 77
    for bad in ("stall:x", "stall:-1", "stall", "stalemate:fewest", "stalemate"):
        with pytest.raises(RulesError) as ei:
            build("shithead", [bad])
        assert ei.value.field in (bad, "stall")
    with pytest.raises(RulesError, match="contradicts"):
        build("shithead", ["stalemate:share", "stalemate:most_cards"])


def test_rules_file_stall_keys(tmp_path):
    p = _write(tmp_path, 'preset = "shithead"\nstall = 250\nstalemate = "most_cards"\n')
    rs = load_rules_file(p)
    assert (rs.stall, rs.stalemate) == (250, "most_cards")
    for line, key in (
        ('stall = "x"', "stall"),
        ("stall = -3", "stall"),
        ('stalemate = "x"', "stalemate"),
    ):
        with pytest.raises(RulesError) as ei:
            load_rules_file(_write(tmp_path, f'preset = "shithead"\n{line}\n'))
        assert ei.value.field == key


def test_rules_file_house_counts_for_its_checks(tmp_path):
    """A rules file's settings and ``house`` toggles are applied before anything is checked:
    ``two_decks`` in the file lifts the player cap and the cards for the deal (as
    ``rules show palace --house two_decks`` does); a ``players`` range given in the file
    stands. The same for extra toggles (``--rules-file F --house T``) and scenario files."""
    rs = load_rules_file(
        _write(tmp_path, 'preset = "palace"\nhouse = ["two_decks"]\nplayers = [2, 8]\n')
    )
    assert (rs.min_players, rs.max_players, rs.decks) == (2, 8, 2)
    rs = load_rules_file(_write(tmp_path, 'preset = "palace"\nhouse = ["two_decks"]\n'))
    assert (
        (rs.min_players, rs.max_players)
        == (2, 10)
        == (build("palace", ["two_decks"]).min_players, build("palace", ["two_decks"]).max_players)
    )
    # 66 cards at 3 seats
    big = 'preset = "shithead"\nhand_size = 10\ntable_size = 6\nplayers = [3, 4]\n'
    assert load_rules_file(_write(tmp_path, big + 'house = ["two_decks"]\n')).deck_size == 104
    assert build(rules_file=_write(tmp_path, big, "big.toml"), house=["two_decks"]).decks == 2
    eight = _write(tmp_path, 'preset = "palace"\nplayers = [2, 8]\n', "eight.toml")
    assert build(rules_file=eight, house=["two_decks"]).max_players == 10
    for text, want in (
        ('preset = "palace"\nhouse = ["two_decks"]\nplayers = [2, 12]\n', "at most 10 players"),
        ('preset = "palace"\nplayers = [2, 8]\n', "at most 5 players with 1 deck"),
    ):
        with pytest.raises(RulesError) as ei:
            load_rules_file(_write(tmp_path, text))
        assert ei.value.field == "players" and want in str(ei.value)
    from typer.testing import CliRunner

    from shedsim.cli import app
    from shedsim.rules.scenario import run_scenario

    r = CliRunner().invoke(
        app,
        [
            "rules",
            "show",
            "--rules-file",
            str(_write(tmp_path, 'preset = "palace"\nhouse = ["two_decks"]\nplayers = [2, 8]\n')),
        ],
    )
    assert r.exit_code == 0 and "2-8" in r.output, r.output
    seats = "".join(f'[[seats]]\nhand = ["{c}"]\n' for c in "3456789")
    sc = _write(
        tmp_path,
        f'rules = "eight.toml"\nhouse = ["two_decks"]\nmoves = ["play 3x1"]\n{seats}'
        "[expect]\nto_move = 1\n",
        "seven_seats.toml",
    )
    assert run_scenario(sc) == []


@pytest.mark.parametrize(
    "value",
    ["[" * 5000 + "]" * 5000, "[" * 2000 + '"2"' + "]" * 2000, "{a = " * 3000 + "1" + "}" * 3000],
)
def test_rules_file_nested_too_deeply_is_refused_naming_the_file(tmp_path, value):
    """tomllib recurses once per level of nesting and gives up with RecursionError (not a
    TOMLDecodeError): refused as a file that cannot be read, with its name and the line,
    exit 2 from every command that takes a rules file."""
    p = _write(tmp_path, f'preset = "palace"\nname = "deep"\nburn = {value}\n')
    with pytest.raises(RulesError) as ei:
        load_rules_file(p)
    assert ei.value.field == "rules-file"
    assert (
        str(p) in str(ei.value)
        and "nested too deeply" in str(ei.value)
        and "line 3" in str(ei.value)
    )
    from typer.testing import CliRunner

    from shedsim.cli import app

    for args in (
        ["rules", "show", "--rules-file", str(p)],
        ["rules", "show", str(p)],
        ["rules", "show", "shithead", "--rules-file", str(p), "--house", "skip8"],
    ):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2 and "nested too deeply" in r.output, r.output
        assert not isinstance(r.exception, RecursionError)
