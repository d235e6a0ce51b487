"""Who starts, and the dealer rotation, for every preset (docs/reference/rules.md#start,
docs/reference/rules.md#dealer,
docs/reference/rules.md#ruling-game-rng).

Positions are built with :func:`shedsim.rules.engine.deal` and then given the seat cards each
case needs; :func:`shedsim.rules.engine.start_seat` is asked with a :class:`SplitMix64` stream
of a fixed key. The oracles are written from the spec:

* ``duel`` ("first seat"), ``family``, ``palace``: the seat after the dealer
  (docs/reference/rules.md#ruling-dealer-rotates);
* ``shithead`` (and ``palace`` with ``lowest_starts``): the lowest ordinary hand card, 2s
  and 10s excluded; ties by seat order from the dealer's left; nobody: dealer's left;
* ``nines``: the lowest ordinary face-up card (3, 4, 6, 7, 8, J, Q, K); a tie is settled at
  random among the tied seats; nobody: a random seat;
* ``random_starts``: any seat, at random.
"""

from __future__ import annotations

import random

import pytest

from shedsim.rules import engine
from shedsim.rules.cards import RANKS, pack
from shedsim.rules.ruleset import PRESETS, build
from shedsim.seeding import SplitMix64, shuffle

J, Q, K, A = 11, 12, 13, 14
KEYS = range(300)


def make_state(rules, n, dealer, hands=None, face_ups=None, key=7):
    state, _ = engine.deal(rules, n, key, dealer)
    for i in range(n):
        if hands is not None:
            state.seats[i].hand = sorted(hands[i])
        if face_ups is not None:
            state.seats[i].face_up = sorted(face_ups[i])
    return state


def starts(state, keys=KEYS) -> set[int]:
    return {engine.start_seat(state, SplitMix64(k)) for k in keys}


def player_counts(name):
    rs = build(name)
    return range(rs.min_players, rs.max_players + 1)


# --------------------------------------------------------------------------- oracles
SHITHEAD_ORDINARY = {3, 4, 5, 6, 7, 8, 9, J, Q, K, A}
NINES_ORDINARY = {3, 4, 6, 7, 8, J, Q, K}


def lowest_hand_oracle(hands, dealer):
    n = len(hands)
    order = [(dealer + 1 + i) % n for i in range(n)]
    best = None
    for s in order:
        ords = [c for c in hands[s] if c in SHITHEAD_ORDINARY]
        if ords and (best is None or min(ords) < best[0]):
            best = (min(ords), s)
    return order[0] if best is None else best[1]


def nines_candidates(face_ups):
    lows = [min((c for c in fu if c in NINES_ORDINARY), default=None) for fu in face_ups]
    present = [x for x in lows if x is not None]
    if not present:
        return set(range(len(face_ups)))
    return {s for s, x in enumerate(lows) if x == min(present)}


# --------------------------------------------------------------------------- dealer's left
@pytest.mark.parametrize("name", ["duel", "family", "palace"])
def test_seat_after_the_dealer_starts(name):
    rs = build(name)
    assert rs.start == "dealer_left"
    for n in player_counts(name):
        for dealer in range(n):
            for key in range(5):
                state, rng = engine.deal(rs, n, 1000 + key, dealer)
                assert engine.start_seat(state, rng) == (dealer + 1) % n
            # whatever the cards: low cards elsewhere do not matter
            hands = [[3, 3, 3] if s == dealer else [K, A, A] for s in range(n)]
            state = make_state(rs, n, dealer, hands=hands, face_ups=hands)
            assert starts(state, range(20)) == {(dealer + 1) % n}


@pytest.mark.parametrize("name", PRESETS)
def test_dealer_left_starts_toggle(name):
    rs = build(name, ["dealer_left_starts"])
    for n in player_counts(name):
        for dealer in range(n):
            state = make_state(rs, n, dealer, hands=[[3, 4, 5]] * n, face_ups=[[3, 4, 6]] * n)
            assert starts(state, range(20)) == {(dealer + 1) % n}


# --------------------------------------------------------------------------- lowest hand
def test_shithead_lowest_hand_card_starts():
    rs = build("shithead")
    assert rs.start == "lowest_hand"
    # seat 2 holds the only 3; seat 0 has 2s and 10s (never count) and a 3 face up
    hands = [[2, 2, 10], [5, K, A], [3, Q, Q], [4, 4, 9]]
    face_ups = [[3, 3, 3], [4, 4, 4], [K, K, K], [J, J, J]]
    for dealer in range(4):
        state = make_state(rs, 4, dealer, hands=hands, face_ups=face_ups)
        assert starts(state, range(20)) == {2}


def test_shithead_tie_goes_by_seat_order_from_dealers_left():
    rs = build("shithead")
    hands = [[4, 9, K], [5, 6, 7], [4, 4, A], [2, 10, 4], [8, 8, 8]]
    # seats 0, 2 and 3 hold a 4 (seat 3's 2 and 10 do not count)
    expected = {0: 2, 1: 2, 2: 3, 3: 0, 4: 0}
    for dealer, first in expected.items():
        state = make_state(rs, 5, dealer, hands=hands)
        assert starts(state, range(20)) == {first}, dealer


def test_shithead_nobody_with_an_ordinary_card():
    rs = build("shithead")
    for n in player_counts("shithead"):
        hands = [[2, 10, 10], [2, 2, 2], [10, 2, 10], [2, 10, 2], [10, 10, 2]][:n]
        for dealer in range(n):
            state = make_state(rs, n, dealer, hands=hands, face_ups=[[3, 3, 3]] * n)
            assert starts(state, range(20)) == {(dealer + 1) % n}


@pytest.mark.parametrize(
    "name, house", [("shithead", []), ("palace", ["lowest_starts"]), ("family", ["lowest_starts"])]
)
def test_lowest_hand_card_random_positions(name, house):
    """Random hands (fixed seed) against the oracle, every dealer, every player count."""
    rs = build(name, house)
    assert rs.start == "lowest_hand"
    rnd = random.Random(2024)
    pool = [2, 10, 10, 2, *RANKS]
    for n in player_counts(name):
        for _ in range(60):
            hands = [[rnd.choice(pool) for _ in range(rnd.randint(1, 5))] for _ in range(n)]
            for dealer in range(n):
                state = make_state(rs, n, dealer, hands=hands)
                assert engine.start_seat(
                    state, SplitMix64(rnd.getrandbits(64))
                ) == lowest_hand_oracle(hands, dealer), (hands, dealer)


def test_palace_lowest_starts_toggle():
    rs = build("palace", ["lowest_starts"])
    hands = [[9, 9, Q], [6, 2, 2], [6, 10, A]]
    for dealer, first in {0: 1, 1: 2, 2: 1}.items():
        state = make_state(rs, 3, dealer, hands=hands)
        assert starts(state, range(20)) == {first}
    # without the toggle palace starts left of the dealer
    for dealer in range(3):
        state = make_state(build("palace"), 3, dealer, hands=hands)
        assert starts(state, range(20)) == {(dealer + 1) % 3}


# --------------------------------------------------------------------------- nines
def test_nines_lowest_face_up_card_starts():
    rs = build("nines")
    assert rs.start == "lowest_faceup"
    # 2, 5, 9, 10 and A never count; the lowest ordinary face-up card is seat 1's 6
    face_ups = [[2, 5, 9], [6, 10, A], [7, 7, K], [8, 5, 2]]
    hands = [[3, 3, 3], [K, K, K], [4, 4, 4], [3, 4, 3]]
    for dealer in range(4):
        state = make_state(rs, 4, dealer, hands=hands, face_ups=face_ups)
        assert starts(state) == {1}


def test_nines_only_ordinary_ranks_count():
    rs = build("nines")
    for special in (2, 5, 9, 10, A):
        face_ups = [[special] * 3, [K, K, Q]]
        state = make_state(rs, 2, 0, face_ups=face_ups)
        assert starts(state, range(50)) == {1}, special
        state = make_state(rs, 2, 1, face_ups=face_ups)
        assert starts(state, range(50)) == {1}, special


@pytest.mark.parametrize(
    "face_ups, tied",
    [
        ([[4, 9, A], [4, K, K], [6, 7, 8]], {0, 1}),
        ([[3, 5, 5], [J, Q, K], [3, 3, 10], [3, 2, 2]], {0, 2, 3}),
        ([[8, 10, 10], [9, 9, 8]], {0, 1}),
        ([[K, A, A], [5, 5, K], [2, 2, K], [K, 9, 9]], {0, 1, 2, 3}),
    ],
)
def test_nines_tie_is_random_among_the_tied_seats_only(face_ups, tied):
    rs = build("nines")
    n = len(face_ups)
    assert nines_candidates(face_ups) == tied
    for dealer in range(n):
        state = make_state(rs, n, dealer, face_ups=face_ups, hands=[[3, 3, 3]] * n)
        seen = [engine.start_seat(state, SplitMix64(k)) for k in KEYS]
        assert set(seen) == tied, (dealer, sorted(set(seen)))
        # a draw from the stream: the same key gives the same seat
        assert seen == [engine.start_seat(state, SplitMix64(k)) for k in KEYS]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_nines_nobody_with_an_ordinary_card_starts_at_random(n):
    rs = build("nines")
    face_ups = [[2, 5, 9], [10, A, A], [5, 5, 2], [9, 10, 2]][:n]
    for dealer in range(n):
        state = make_state(rs, n, dealer, face_ups=face_ups, hands=[[3, 4, 6]] * n)
        assert starts(state) == set(range(n))


def test_nines_random_positions():
    rs = build("nines")
    rnd = random.Random(99)
    for n in player_counts("nines"):
        for _ in range(40):
            face_ups = [[rnd.choice(RANKS) for _ in range(3)] for _ in range(n)]
            cand = nines_candidates(face_ups)
            state = make_state(rs, n, rnd.randrange(n), face_ups=face_ups)
            seen = starts(state, range(120))
            assert seen <= cand
            if len(cand) == 1:
                assert seen == cand


# --------------------------------------------------------------------------- random starts
@pytest.mark.parametrize("name", PRESETS)
def test_random_starts_gives_every_seat(name):
    rs = build(name, ["random_starts"])
    assert rs.start == "random"
    for n in player_counts(name):
        for dealer in range(n):
            state = make_state(rs, n, dealer, hands=[[3, 3, 3]] + [[A, A, A]] * (n - 1))
            seen = [engine.start_seat(state, SplitMix64(k)) for k in KEYS]
            assert set(seen) == set(range(n))
            assert seen == [engine.start_seat(state, SplitMix64(k)) for k in KEYS]


def test_random_starts_with_ten_seats():
    rs = build("family", ["random_starts", "two_decks"])
    state = make_state(rs, 10, 4)
    assert starts(state, range(500)) == set(range(10))


# --------------------------------------------------------------------------- new_game
class KeepPlayer:
    """Keeps the dealt face-up cards; moves are never asked for here."""

    def __init__(self, up: int, name="keep"):
        self.name = name
        self.up = up

    def swap(self, visible, seat, players, rules_array, rng):
        return self.up

    def move(self, state, obs, rules_array, rng, legal):  # pragma: no cover
        return legal[0]


def _keep_players(rules, n, key, dealer):
    state, _ = engine.deal(rules, n, key, dealer)
    out = []
    for s in state.seats:
        out.append(KeepPlayer(pack(s.face_up)))
    return out


@pytest.mark.parametrize("name", PRESETS)
def test_new_game_start_continues_the_deal_stream(name):
    """The start rule draws from the game's deal stream after the shuffle
    (docs/reference/rules.md#ruling-game-rng)."""
    base = build(name)
    for rs in (base, build(name, ["random_starts"])):
        for n in player_counts(name):
            for dealer in range(n):
                for key in (3, 1 << 40, 2**64 - 5):
                    players = _keep_players(rs, n, key, dealer)
                    state, _ = engine.new_game(rs, players, key, 11, dealer)
                    ref, rng = engine.deal(rs, n, key, dealer)
                    expected = engine.start_seat(ref, rng)
                    assert state.to_move == state.start_seat == expected
                    assert state.dealer == dealer
                    if rs.start == "dealer_left":
                        assert expected == (dealer + 1) % n


# --------------------------------------------------------------------------- dealing
def _shuffled_deck(rules, key):
    deck = [r for r in RANKS for _ in range(4 * rules.decks)]
    shuffle(deck, SplitMix64(key))
    return deck


@pytest.mark.parametrize("name", PRESETS)
def test_cards_go_round_from_the_dealers_left(name):
    rs = build(name)
    for n in player_counts(name):
        for dealer in range(n):
            key = 500 + dealer
            deck = _shuffled_deck(rs, key)
            state, _ = engine.deal(rs, n, key, dealer)
            # the first card of the deck goes to the seat after the dealer, and so on round
            for i in range(n):
                assert state.seats[(dealer + 1 + i) % n].face_down[0] == deck[i]
            # the second round continues from the same seat
            assert state.seats[(dealer + 1) % n].face_down[1] == deck[n]
            assert state.stock == deck[n * (rs.hand_size + 2 * rs.table_size) :]


@pytest.mark.parametrize("name", PRESETS)
def test_rotating_the_dealer_rotates_the_dealt_seats(name):
    rs = build(name)
    for n in player_counts(name):
        for key in (1, 42, 2**63 + 17):
            base, _ = engine.deal(rs, n, key, 0)
            cards = lambda st, s: (st.seats[s].hand, st.seats[s].face_up, st.seats[s].face_down)  # noqa: E731
            for dealer in range(n):
                rotated, _ = engine.deal(rs, n, key, dealer)
                assert rotated.dealer == dealer
                assert rotated.stock == base.stock
                for s in range(n):
                    assert cards(rotated, (s + dealer) % n) == cards(base, s)
            if n > 2:
                # with distinct deals per seat the dealer really matters
                d1, _ = engine.deal(rs, n, key, 1)
                assert [cards(d1, s) for s in range(n)] != [cards(base, s) for s in range(n)]


class RandomPlayer:
    def __init__(self, name, rng, table_size):
        self.name, self.rng, self.table_size = name, rng, table_size

    def swap(self, visible, seat, players, rules_array, rng):
        from shedsim.rules.cards import unpack

        return pack(self.rng.sample(unpack(int(visible)), self.table_size))

    def move(self, state, obs, rules_array, rng, legal):
        return self.rng.choice(legal)


@pytest.mark.parametrize("name", PRESETS)
def test_play_game_rotates_the_dealer_one_seat_each_game(name):
    """Runs play game g with dealer g % players: the start and the deal rotate with it."""
    rs = build(name, ["max_moves:40"])
    for n in player_counts(name):
        results = []
        for g in range(2 * n):
            dealer = g % n
            players = [
                RandomPlayer(f"r{i}", random.Random(g * 10 + i), rs.table_size) for i in range(n)
            ]
            res = engine.play_game(rs, players, 777, 5, dealer=dealer, trace=True)
            results.append(res)
            assert f"dealer seat {dealer}" in res.trace[0]
            assert f"seat {res.start_seat} starts" in res.trace[0]
            if rs.start == "dealer_left":
                assert res.start_seat == (dealer + 1) % n
        # same deal key: the dealt visible cards move one seat per game
        for g, res in enumerate(results):
            d = g % n
            for s in range(n):
                assert res.dealt_visible[(s + d) % n] == results[0].dealt_visible[s]
