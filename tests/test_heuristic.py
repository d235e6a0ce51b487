"""The tunable ``heuristic`` strategy: each parameter changes the decision it names, the
kernel and the reference engine agree on its games, and it beats ``greedy``."""

import textwrap

import numpy as np
import pytest

from shedsim import layout as L
from shedsim.rules.cards import pack, unpack
from shedsim.rules.engine import public_array
from shedsim.plugins import discover, parse_spec
from shedsim.rules.ruleset import build
from shedsim.rules.scenario import load_scenario

from differential import compare


@pytest.fixture(scope="module")
def known():
    return discover()


def _decide(known, tmp_path, spec, position):
    """The move code ``spec`` (heuristic with overrides) chooses in a scenario position."""
    p = tmp_path / "pos.toml"
    p.write_text(textwrap.dedent(position))
    sc = load_scenario(p)
    name, overrides = parse_spec(spec)
    s = known[name]
    obs = public_array(sc.state)
    ra = sc.rules.compile(len(sc.state.seats))
    return int(s.module.move(obs, ra, s.params_array(overrides), np.array([7], np.uint64)))


def _play(rank, k):
    return (rank << 8) | (k << 4)


def test_parameters_are_declared_and_documented(known):
    h = known["heuristic"]
    assert h.compiled and 1 <= len(h.params) <= 16
    for name in h.params:
        assert f"``{name}``" in h.module.__doc__, name
    # expert is heuristic with the deeper look-ahead, every other parameter the same
    assert known["expert"].params == {**h.params, "search": 32} != h.params
    assert known["expert"].module.move is h.module.move


SHITHEAD = """
    rules = "shithead"
    to_move = 0
    pile = {pile}
    stock = {stock}
    burned = {burned}

    [[seats]]
    hand = {hand}
    face_up = ["K"]
    face_down = ["3"]

    [[seats]]
    hand = {hand2}
    face_up = {up2}
    face_down = {down2}
"""


def _shithead(pile, hand, stock='["4"]', burned=0, hand2='["J"]', up2='["8"]', down2='["6"]'):
    return SHITHEAD.format(
        pile=pile, hand=hand, stock=stock, burned=burned, hand2=hand2, up2=up2, down2=down2
    )


@pytest.mark.parametrize(
    "spec,expected",
    [("heuristic:search=0,copies=1", _play(4, 2)), ("heuristic:search=0,copies=0", _play(4, 1))],
)
def test_copies_plays_pairs_together(known, tmp_path, spec, expected):
    assert _decide(known, tmp_path, spec, _shithead('["3"]', '["4", "4", "9"]')) == expected


@pytest.mark.parametrize("spend,expected", [(5, _play(10, 1)), (99, _play(7, 1))])
def test_spend_pile_burns_a_big_pile(known, tmp_path, spend, expected):
    pos = _shithead('["3", "4", "4", "5", "5", "6"]', '["7", "10"]')
    assert _decide(known, tmp_path, f"heuristic:search=0,spend_pile={spend}", pos) == expected


@pytest.mark.parametrize("four,expected", [(1, _play(7, 1)), (0, _play(10, 1))])
def test_complete_four_comes_before_spending_a_burn(known, tmp_path, four, expected):
    pos = _shithead('["7", "7", "7"]', '["7", "10", "Q"]')
    spec = f"heuristic:search=0,spend_pile=2,complete_four={four}"
    assert _decide(known, tmp_path, spec, pos) == expected


@pytest.mark.parametrize("burn_pile,expected", [(4, _play(10, 1)), (99, _play(2, 1))])
def test_burn_pile_chooses_between_specials(known, tmp_path, burn_pile, expected):
    pos = _shithead('["5", "6", "9", "J", "A"]', '["2", "10", "3"]')
    assert _decide(known, tmp_path, f"heuristic:search=0,burn_pile={burn_pile}", pos) == expected


@pytest.mark.parametrize("block,expected", [(1, _play(13, 1)), (0, _play(4, 1))])
def test_block_plays_what_a_player_about_to_go_out_cannot_beat(known, tmp_path, block, expected):
    # Stock empty; the next seat holds one face-down card: a king is beaten by fewer
    # unseen cards (K, A, 2, 10) than a 4.
    pos = _shithead(
        '["3", "3", "3"]', '["4", "K"]', stock="[]", burned=20, hand2="[]", up2="[]", down2='["6"]'
    )
    assert _decide(known, tmp_path, f"heuristic:search=0,block={block},end_pile=3", pos) == expected


@pytest.mark.parametrize(
    "track,end_pile,expected", [(1, 3, _play(12, 1)), (0, 3, _play(4, 1)), (1, 4, _play(4, 1))]
)
def test_track_forces_a_pick_up_with_a_card_nobody_can_beat(
    known, tmp_path, track, end_pile, expected
):
    # The next seat is in its face-up stage with 5 5 6: it cannot beat a queen.
    pos = _shithead(
        '["3", "3", "3"]',
        '["4", "Q"]',
        stock="[]",
        burned=20,
        hand2="[]",
        up2='["5", "5", "6"]',
        down2='["6"]',
    )
    spec = f"heuristic:search=0,block=0,track={track},end_pile={end_pile}"
    assert _decide(known, tmp_path, spec, pos) == expected


PALACE = """
    rules = "palace"
    to_move = 0
    pile = {pile}
    stock = ["4", "5"]

    [[seats]]
    hand = {hand}
    face_up = ["K"]
    face_down = ["3"]

    [[seats]]
    hand = ["J"]
    face_up = ["8"]
    face_down = ["6"]
"""


@pytest.mark.parametrize("save,expected", [(2, L.PICKUP), (0, _play(10, 1))])
def test_save_pile_picks_up_a_small_pile_rather_than_spend_a_special(
    known, tmp_path, save, expected
):
    pos = PALACE.format(pile='["9", "K"]', hand='["10", "3"]')
    assert _decide(known, tmp_path, f"heuristic:search=0,save_pile={save}", pos) == expected


@pytest.mark.parametrize("take,expected", [(3, L.PICKUP), (0, _play(6, 1))])
def test_take_pile_takes_a_pile_rich_in_specials(known, tmp_path, take, expected):
    pos = PALACE.format(pile='["2", "2", "5"]', hand='["6", "8"]')
    assert _decide(known, tmp_path, f"heuristic:search=0,take_pile={take}", pos) == expected


@pytest.mark.parametrize("pass_on,expected", [(1, _play(9, 1)), (0, _play(2, 1))])
def test_pass_on_plays_the_invisible_nine(known, tmp_path, pass_on, expected):
    pos = """
        rules = "nines"
        to_move = 0
        pile = ["4", "K"]
        stock = ["4"]

        [[seats]]
        hand = ["9", "2", "3"]
        face_up = ["K"]
        face_down = ["3"]

        [[seats]]
        hand = ["J"]
        face_up = ["8"]
        face_down = ["6"]
    """
    assert _decide(known, tmp_path, f"heuristic:search=0,pass_on={pass_on}", pos) == expected


@pytest.mark.parametrize("gamble,expected", [(3, L.GAMBLE), (99, L.PICKUP)])
def test_gamble_pile(known, tmp_path, gamble, expected):
    pos = """
        rules = "duel"
        to_move = 0
        pile = ["8", "Q", "A"]
        stock = ["4", "6"]

        [[seats]]
        hand = ["3", "4", "6"]
        face_up = ["K"]
        face_down = ["3"]

        [[seats]]
        hand = ["J"]
        face_up = ["8"]
        face_down = ["6"]
    """
    assert (
        _decide(
            known, tmp_path, f"heuristic:search=0,gamble_pile={gamble},save_pile=0,take_pile=0", pos
        )
        == expected
    )


@pytest.mark.parametrize("mode,expected", [(1, [2, 10, 14]), (-1, [3, 4, 5])])
def test_swap_puts_strong_cards_face_up(known, mode, expected):
    h = known["heuristic"]
    ra = build("shithead", [], None).compile(2)
    visible = pack([3, 4, 5, 10, 2, 14])
    up = h.module.swap(
        np.int64(visible),
        np.int64(0),
        np.int64(2),
        ra,
        h.params_array({"swap": mode}),
        np.array([1], np.uint64),
    )
    assert sorted(unpack(int(up))) == expected


def test_random_swap_is_a_valid_choice_that_varies(known):
    h = known["heuristic"]
    ra = build("shithead", [], None).compile(2)
    visible = pack([3, 4, 5, 10, 2, 14])
    seen = set()
    rng = np.array([5], np.uint64)
    for _ in range(40):
        up = int(
            h.module.swap(
                np.int64(visible), np.int64(0), np.int64(2), ra, h.params_array({"swap": 0}), rng
            )
        )
        chosen = unpack(up)
        assert len(chosen) == 3 and all(c in [3, 4, 5, 10, 2, 14] for c in chosen)
        seen.add(tuple(sorted(chosen)))
    assert len(seen) > 5


@pytest.mark.parametrize(
    "name,players", [("shithead", 3), ("nines", 4), ("duel", 2), ("palace", 4)]
)
def test_kernel_and_reference_engine_agree_on_heuristic_games(name, players):
    rules = build(name, ["max_moves:400"], None)
    assert compare(rules, players, 6, seed=5, names=("heuristic", "greedy", "heuristic")) == []


def test_heuristic_beats_greedy_on_paired_deals():
    from shedsim.analysis import sprt as S

    m = S.open_match("heuristic", "greedy", "shithead", 2, seed=3)
    h, _ = m.play(0, 2000, True)
    pair = h.reshape(-1, 2).sum(axis=1) / 4.0  # pair scores of heuristic, 0..1
    lo = pair.mean() - 1.96 * pair.std(ddof=1) / np.sqrt(len(pair))
    assert lo > 0.5, pair.mean()


def test_moves_depend_on_the_observation_only():
    """The end-game search seeds itself from the observation (not the game's stream, and
    not the move or pick-up counters), so heuristic is deterministic: the kernel may prove
    its repeating games loops."""
    from shedsim.rules import engine

    known = discover()
    h = known["heuristic"]
    assert h.deterministic
    rules = build("shithead", [], None)
    ra = rules.compile(2)
    seated = [h.player(), known["greedy"].player()]
    state, srng = engine.new_game(rules, seated, 11, 12, 0, ra)
    searched = 0
    params = h.params_array()
    while not (state.finished or state.unfinished) and state.moves < 400:
        obs = engine.public_array(state)
        if state.to_move == 0:
            a = int(h.module.move(obs, ra, params, np.array([1], np.uint64)))
            b = int(h.module.move(obs, ra, params, np.array([99], np.uint64)))
            later = obs.copy()
            later[L.O_MOVES] += 50
            later[L.O_PICKUPS + 1] += 3
            c = int(h.module.move(later, ra, params, np.array([5], np.uint64)))
            assert a == b == c
            searched += obs[L.O_STOCK_N] == 0 and obs[L.O_PILE_N] >= h.params["end_pile"]
        legal = engine.legal_moves(state)
        move = seated[state.to_move].move(state, obs, ra, srng, legal)
        engine.apply_move(state, move)
    assert searched > 0
