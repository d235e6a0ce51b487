"""Inference of the hidden cards: the void ranks a forced pick-up with the stock empty shows
(``O_VOID``, written alike by the kernel and the reference engine), and ismcts's deals that
respect them (``determinise_void``), checked exact against every deal enumerated."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

import strategies.ismcts as I
from shedsim import layout as L
from shedsim.kernel import core
from shedsim.kernel.policies import determinise_any
from shedsim.rules.cards import pack, pack_counts, rank_mask, unpack
from shedsim.rules.engine import apply_move, public_array
from shedsim.rules.ruleset import preset
from shedsim.rules.scenario import load_scenario, play_moves
from shedsim.rules.state import Move

FORCED = """
rules = "{rules}"
house = {house}
to_move = 0
pile = ["K"]
stock = {stock}
burned = 40

[[seats]]
hand = ["4", "5"]

[[seats]]
hand = ["6", "7"]
"""


def _both_pick_up(tmp_path, rules="shithead", house="[]", stock="[]"):
    """Seat 0 picks up the K in the scenario above on both engines; returns the reference
    engine's observation after it, the kernel's, and the rules array."""
    p = tmp_path / "pos.toml"
    p.write_text(FORCED.format(rules=rules, house=house, stock=stock))
    state = play_moves(load_scenario(p))[0]
    ra = state.rules.compile(state.players)
    pub = public_array(state)
    priv = np.zeros(L.P_SIZE, np.int64)
    for s, seat in enumerate(state.seats):
        priv[L.P_HANDS + s] = pack(seat.hand)
    size = ra[L.R_DECK_SIZE]
    for i, card in enumerate(state.stock):  # the stock is the deck's tail, next card first
        priv[L.P_DECK + size - len(state.stock) + i] = card
    core.prepare(pub, priv)
    core.apply(ra, pub, priv, L.PICKUP)
    core.prepare(pub, priv)
    apply_move(state, Move("pickup"))
    return public_array(state), pub, ra


def test_a_forced_pick_up_with_the_stock_empty_shows_the_ranks_the_hand_lacks(tmp_path):
    ref, ker, ra = _both_pick_up(tmp_path)
    assert np.array_equal(ref, ker), np.nonzero(ref != ker)
    beats_k = rank_mask([2, 10, 13, 14])  # reset, burn, K, A: what goes on a K
    assert ker[L.O_VOID] == beats_k == ra[L.R_PLAYABLE + 13]
    assert not ker[L.O_VOID + 1 : L.O_VOID + L.MAX_PLAYERS].any()
    assert ker[L.O_KNOWN] == pack([13])  # the K picked up is known, not void


@pytest.mark.parametrize(
    "rules,house,stock",
    [
        ("shithead", "[]", '["3"]'),  # cards still to draw: unseen cards enter the hand
        ("shithead", '["pickup:hand"]', "[]"),  # a voluntary pick-up shows nothing
        ("duel", "[]", "[]"),  # duel picks up voluntarily anywhere
    ],
)
def test_no_void_where_the_pick_up_shows_nothing(tmp_path, rules, house, stock):
    ref, ker, _ = _both_pick_up(tmp_path, rules, house, stock)
    assert np.array_equal(ref, ker), np.nonzero(ref != ker)
    assert not ker[L.O_VOID : L.O_VOID + L.MAX_PLAYERS].any()


# ------------------------------------------------------------------ the deals
def _observation(players, mine, unseen, hands, face_down):
    """An observation of seat 0 (one deck, stock empty, nothing on the table): its hand
    ``mine``, the ``unseen`` ranks hidden, every other card burned; seat s holds
    ``hands[s]`` unknown hand cards and ``face_down[s]`` face-down cards."""
    obs = np.zeros(L.O_SIZE, np.int64)
    obs[L.O_PLAYERS] = players
    obs[L.O_IN] = players
    obs[L.O_DIRECTION] = 1
    obs[L.O_HAND] = pack(mine)
    left = Counter({r: 4 for r in range(2, 15)})
    left.subtract(Counter(mine) + Counter(unseen))
    obs[L.O_BURNED] = pack_counts(left)
    obs[L.O_BURNED_N] = sum(left.values())
    for s in range(players):
        obs[L.O_HAND_N + s] = len(mine) if s == 0 else hands[s]
        obs[L.O_FACE_DOWN_N + s] = face_down[s]
    return obs


def _sample(obs, ra, n, seed=1, deal=I.determinise_void):
    """``n`` deals: per deal, each seat's hand and face-down cards as sorted tuples."""
    rng = np.array([seed], np.uint64)
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.empty(L.P_SIZE, np.int64)
    out = Counter()
    for _ in range(n):
        assert deal(obs, ra, rng, pub, priv)
        assert np.array_equal(pub, obs)
        key = []
        for s in range(1, obs[L.O_PLAYERS]):
            down = priv[L.P_FACE_DOWN + s * L.MAX_TABLE :][: obs[L.O_FACE_DOWN_N + s]]
            key.append((tuple(unpack(int(priv[L.P_HANDS + s]))), tuple(sorted(down))))
        out[tuple(key)] += 1
    return out


def _exact(obs, unseen, players):
    """Every deal of the physical ``unseen`` cards to the hidden places, those that keep
    each seat's unknown hand cards outside its void ranks, by the same key as
    :func:`_sample`: the exact distribution (each physical deal equally likely)."""
    places = []
    for s in range(1, players):
        places += [(s, "hand")] * int(obs[L.O_HAND_N + s]) + [(s, "down")] * int(
            obs[L.O_FACE_DOWN_N + s]
        )
    assert len(places) == len(unseen)
    tally = Counter()
    for order in itertools.permutations(range(len(unseen))):
        hands = {s: [] for s in range(1, players)}
        downs = {s: [] for s in range(1, players)}
        for (s, where), i in zip(places, order):
            (hands if where == "hand" else downs)[s].append(unseen[i])
        if any((int(obs[L.O_VOID + s]) >> (4 * (r - 2))) & 15 for s in hands for r in hands[s]):
            continue
        key = tuple((tuple(sorted(hands[s])), tuple(sorted(downs[s]))) for s in hands)
        tally[key] += 1
    total = sum(tally.values())
    return {k: v / total for k, v in tally.items()}


def _assert_matches(sample, exact, n):
    assert set(sample) <= set(exact), set(sample) - set(exact)
    for key, p in exact.items():  # each count within 5 standard deviations of n p
        sd = np.sqrt(n * p * (1 - p))
        assert abs(sample[key] - n * p) <= 5 * sd + 1, (key, sample[key], n * p)


def test_one_void_seat_gets_a_uniform_draw_of_the_cards_outside_its_voids():
    """The worked example: 3, 4, 5, 9 and K unseen; seat 1 holds two unknown hand cards and
    was shown to hold no 9 or K (it picked up a 9 with the stock empty, say), and three
    face-down cards. Its hand is one of 3-4, 3-5 and 4-5, each a third of the time, and
    its face-down cards the other three (9 and K always among them); without the void its
    hand is any of the ten pairs."""
    ra = preset("shithead").compile(2)
    unseen = [3, 4, 5, 9, 13]
    obs = _observation(2, [6], unseen, [0, 2], [0, 3])
    n = 3000
    free = _sample(obs, ra, n)
    assert len(free) == 10  # no void: every pair
    obs[L.O_VOID + 1] = rank_mask([9, 13])
    exact = _exact(obs, unseen, 2)
    assert sorted(k[0][0] for k in exact) == [(3, 4), (3, 5), (4, 5)]
    assert all(abs(p - 1 / 3) < 1e-12 for p in exact.values())
    _assert_matches(_sample(obs, ra, n), exact, n)


def test_two_void_seats_competing_for_cards_are_dealt_exactly():
    """Three seats: seat 1 (no K or A) and seat 2 (no 3 or 4) each hold two unknown hand
    cards and one face-down card; 3, 3, 4, 9, K and A are unseen. The deals respect both
    voids with the probabilities of the enumeration of every physical deal."""
    ra = preset("shithead").compile(3)
    unseen = [3, 3, 4, 9, 13, 14]
    obs = _observation(3, [6], unseen, [0, 2, 2], [0, 1, 1])
    obs[L.O_VOID + 1] = rank_mask([13, 14])
    obs[L.O_VOID + 2] = rank_mask([3, 4])
    exact = _exact(obs, unseen, 3)
    assert len(exact) > 3 and len(set(exact.values())) > 1  # not a uniform list of outcomes
    n = 4000
    _assert_matches(_sample(obs, ra, n, seed=5), exact, n)


def test_without_a_void_it_deals_as_determinise_any():
    """No seat void (or only the mover): the same deal as ismcts without inference, draw
    for draw, so infer=1 plays as ismcts until a void is shown."""
    ra = preset("shithead").compile(2)
    obs = _observation(2, [6], [3, 4, 5, 9, 13], [0, 2], [0, 3])
    obs[L.O_VOID] = rank_mask([9])  # the mover's own void tells it nothing
    a = _sample(obs, ra, 200, seed=3)
    b = _sample(obs, ra, 200, seed=3, deal=determinise_any)
    assert a == b


def test_voids_leaving_too_few_cards_fall_back_to_the_plain_deal():
    """A void that no deal can keep (two unknown cards, one allowed) gives determinise_any's
    deal rather than none."""
    ra = preset("shithead").compile(2)
    obs = _observation(2, [6], [3, 9, 13], [0, 2], [0, 1])
    obs[L.O_VOID + 1] = rank_mask([9, 13])
    assert _sample(obs, ra, 100, seed=2) == _sample(obs, ra, 100, seed=2, deal=determinise_any)


def test_ismcts_takes_infer_as_a_parameter():
    from shedsim.plugins import discover

    s = discover([])["ismcts"]
    assert s.params["infer"] == 0 and s.ranges["infer"] == (0, 1)
    assert "infer" not in discover([])["ismcts_cheat"].params
