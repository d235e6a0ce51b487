"""Property tests of the reference engine: whole games of uniformly random legal moves.

Hypothesis draws a preset, a compatible set of house toggles (docs/reference/rules.md#house), a
player count in the rule set's range and the seeds; the game is played on
:mod:`shedsim.rules.engine` with a small move cap, and invariants are checked after every move:

* conservation: every card of the deck(s) is somewhere (hands, face-up, face-down, pile,
  stock, burned), per rank as well as in total;
* the move applied was legal, and every legal move is well formed for the position;
* nobody's cards but the mover's change; an out seat never moves again;
* refill (docs/reference/rules.md#refill): while the stock has cards, every seat still in holds at
  least ``hand_size`` hand cards;
* at the end: finished (``places`` a permutation of the seats, only the loser holds
  cards) or unfinished exactly at the move cap.

Everything is seeded (``derandomize=True``; the players use ``random.Random`` seeded by
Hypothesis-drawn integers), so the runs are reproducible.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from shedsim.rules import engine
from shedsim import layout as L
from shedsim.rules.cards import RANKS, pack, unpack
from shedsim.rules.engine import IllegalMoveError, Move
from shedsim.rules.ruleset import PRESETS, RulesError, build
from shedsim.rules.settings import toggle_groups

EXAMPLES = int(os.environ.get("SHEDSIM_PROPERTY_EXAMPLES", "120"))
"""Random games of :func:`test_random_games_keep_every_invariant` (``make differential``: 3,000)."""

# --------------------------------------------------------------------------- players


class RandomPlayer:
    """A uniformly random player on the reference engine (the engine's ``Player``
    protocol): a random face-up row of the visible cards, a random legal move."""

    def __init__(self, name: str, rng: random.Random, table_size: int) -> None:
        self.name = name
        self.rng = rng
        self.table_size = table_size
        self.swaps: list[tuple[int, int]] = []

    def swap(self, visible, seat, players, rules_array, rng) -> int:
        cards = unpack(int(visible))
        up = self.rng.sample(cards, self.table_size)
        packed = pack(up)
        self.swaps.append((int(visible), packed))
        return packed

    def move(self, state, obs, rules_array, rng, legal):
        return self.rng.choice(legal)


# --------------------------------------------------------------------------- toggles

_FREE, _GROUPS = toggle_groups(leave_out=("max_moves", "stall", "stalemate"))
"""Every toggle of the table but those that stop or score games otherwise (the move cap is
the test's own; the end check expects a finished game or one stopped at the cap)."""


@st.composite
def house_toggles(draw) -> list[str]:
    """A list of compatible house toggles, in a drawn order."""
    toggles = list(draw(st.sets(st.sampled_from(_FREE))))
    for group in _GROUPS.values():
        choice = draw(st.none() | st.sampled_from(group))
        if choice is not None:
            toggles.append(choice)
    return draw(st.permutations(toggles))


def _deal_ok(rules, players: int) -> bool:
    """Whether the rule set accepts ``players`` seats (enough cards for the deal)."""
    try:
        rules.check_players(players)
    except RulesError:
        return False
    return True


@st.composite
def games(draw, max_moves: int = 300):
    """(rules, players, deal key, strategy key, dealer, player seed)."""
    preset = draw(st.sampled_from(PRESETS))
    toggles = draw(house_toggles())
    try:
        rules = build(preset, toggles + [f"max_moves:{max_moves}"])
    except RulesError:
        # e.g. hand_size:4 + table_size:4 on five players: too few cards for the deal
        from hypothesis import reject

        reject()
    counts = [n for n in range(rules.min_players, rules.max_players + 1) if _deal_ok(rules, n)]
    if not counts:
        from hypothesis import reject

        reject()
    players = draw(st.sampled_from(counts))
    deal_key = draw(st.integers(0, 2**64 - 1))
    strategy_key = draw(st.integers(0, 2**64 - 1))
    dealer = draw(st.integers(0, players - 1))
    seed = draw(st.integers(0, 2**32 - 1))
    return rules, players, deal_key, strategy_key, dealer, seed


# --------------------------------------------------------------------------- checks


def _rank_counts(state: engine.GameState) -> Counter:
    c = Counter()
    for s in state.seats:
        c.update(s.hand)
        c.update(s.face_up)
        c.update(s.face_down)
    c.update(state.pile)
    c.update(state.stock)
    c.update(state.burned_cards)
    return c


def _check_conservation(state: engine.GameState) -> None:
    rules = state.rules
    assert state.card_total() == rules.deck_size
    assert sum(state.burned_cards.values()) == state.burned
    counts = _rank_counts(state)
    assert counts == Counter({r: 4 * rules.decks for r in RANKS}), counts


def _check_legal_set(state: engine.GameState, legal: list[Move]) -> None:
    """Every legal move is well formed for the position (docs/reference/rules.md#moves)."""
    rules = state.rules
    seat = state.seats[state.to_move]
    stage = state.stage()
    top = state.effective_top()
    assert not seat.out
    assert legal, "a seat still in always has a move (at least a pick-up or a flip)"
    assert len(set(legal)) == len(legal)
    plays = [m for m in legal if m.kind == "play"]
    for m in legal:
        if m.kind == "pickup":
            assert state.pile, "picking up an empty pile is never legal"
            if plays or any(x.kind == "flip" for x in legal):
                # voluntary: only where the rule set allows it in this stage
                allowed = {
                    L.STAGE_HAND: ("hand", "hand+faceup", "always"),
                    L.STAGE_FACE_UP: ("hand+faceup", "always"),
                    L.STAGE_FACE_DOWN: ("always",),
                }[stage]
                assert rules.pickup in allowed, (m, rules.pickup, stage)
        elif m.kind == "gamble":
            assert rules.deck_gamble and state.stock
        elif m.kind == "flip":
            assert stage == L.STAGE_FACE_DOWN
            assert 0 <= m.slot < len(seat.face_down)
        else:
            assert m.kind == "play"
            assert stage in (L.STAGE_HAND, L.STAGE_FACE_UP)
            assert rules.can_play(top, m.rank), (top, m)
            source = seat.hand if stage == L.STAGE_HAND else seat.face_up
            assert 1 <= m.count <= source.count(m.rank)
            if m.extra:
                assert rules.mix_last_hand and stage == L.STAGE_HAND and not state.stock
                assert m.count == len(seat.hand)
                assert m.extra <= seat.face_up.count(m.rank)
    if stage == L.STAGE_FACE_DOWN:
        assert not plays
        assert {m.slot for m in legal if m.kind == "flip"} == set(range(len(seat.face_down)))
    if not plays and stage != L.STAGE_FACE_DOWN:
        # no legal play: pick-up is forced (unless the pile is empty, which cannot be:
        # everything goes on an empty pile)
        assert state.pile and Move("pickup") in legal
    if rules.deck_gamble and state.stock:
        assert Move("gamble") in legal


def _candidate_moves(state: engine.GameState) -> list[Move]:
    out = [Move("pickup"), Move("gamble")]
    out += [Move("flip", slot=s) for s in range(L.MAX_TABLE)]
    out += [Move("play", r, k) for r in RANKS for k in range(1, 5)]
    out += [Move("play", r, 1, 1) for r in RANKS]
    return out


def _snapshot(state: engine.GameState):
    return [(list(s.hand), list(s.face_up), list(s.face_down), s.out) for s in state.seats]


def play_checked(rules, players, deal_key, strategy_key, dealer, seed, probe_illegal=True):
    """Play one random game with every invariant checked after every move."""
    rng = random.Random(seed)
    seated = [RandomPlayer(f"random{i}", rng, rules.table_size) for i in range(players)]
    state, srng = engine.new_game(rules, seated, deal_key, strategy_key, dealer)
    assert 0 <= state.to_move < players
    _check_conservation(state)
    for s in state.seats:
        assert len(s.hand) == rules.hand_size
        assert len(s.face_up) == rules.table_size
        assert len(s.face_down) == rules.table_size
    assert len(state.stock) == rules.deck_size - players * (rules.hand_size + 2 * rules.table_size)
    prev_stock = len(state.stock)
    while not (state.finished or state.unfinished):
        legal = engine.legal_moves(state)
        _check_legal_set(state, legal)
        if probe_illegal and rng.random() < 0.05:
            illegal = [m for m in _candidate_moves(state) if m not in legal]
            if illegal:
                bad = rng.choice(illegal)
                before = state.copy()
                with pytest.raises(IllegalMoveError):
                    engine.apply_move(state, bad)
                assert state == before, f"a refused move {bad} changed the state"
        obs = engine.public_array(state)
        mover = state.to_move
        move = seated[mover].move(state, obs, None, srng, legal)
        assert move in legal
        others = [(i, snap) for i, snap in enumerate(_snapshot(state)) if i != mover]
        moves_before = state.moves
        text = engine.apply_move(state, move)
        assert isinstance(text, str) and text
        assert state.moves == moves_before + 1
        _check_conservation(state)
        # only the mover's cards change
        after = _snapshot(state)
        for i, snap in others:
            if state.finished and i == state.places[-1]:
                assert after[i][:3] == snap[:3]
                continue
            assert after[i] == snap, f"seat {i} changed on seat {mover}'s move {move}"
        # the stock only shrinks
        assert len(state.stock) <= prev_stock
        prev_stock = len(state.stock)
        # places: the out seats, each once
        assert len(set(state.places)) == len(state.places)
        assert set(state.places) == {i for i, s in enumerate(state.seats) if s.out}
        for i in state.places[: len(state.places) - (1 if state.finished else 0)]:
            assert not state.seats[i].holds_cards()
        if state.finished or state.unfinished:
            break
        assert not state.seats[state.to_move].out, "an out player never moves again"
        assert state.direction in (1, -1)
        # refill before anything else: while the stock lasts nobody in is short of cards
        if state.stock:
            for s in state.seats:
                if not s.out:
                    assert len(s.hand) >= rules.hand_size
    # the end
    assert engine.legal_moves(state) == []
    assert state.finished != state.unfinished
    if state.unfinished:
        assert state.moves == rules.max_moves
        assert len(state.in_seats()) >= 2
    else:
        assert state.moves <= rules.max_moves
        assert sorted(state.places) == list(range(players))
        holders = [i for i, s in enumerate(state.seats) if s.holds_cards()]
        assert len(holders) <= 1
        assert all(h == state.places[-1] for h in holders)
        assert all(s.out for s in state.seats)
    return state


# --------------------------------------------------------------------------- properties


@settings(
    derandomize=True,
    database=None,
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(games())
def test_random_games_keep_every_invariant(game):
    state = play_checked(*game)
    event("finished" if state.finished else "unfinished")
    event(f"players={game[1]}")


@settings(
    derandomize=True,
    database=None,
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(preset=st.sampled_from(PRESETS), data=st.data())
def test_plain_presets_every_player_count(preset, data):
    """Each preset without toggles, a drawn player count, a longer cap."""
    rules = build(preset, ["max_moves:600"])
    players = data.draw(
        st.sampled_from(range(rules.min_players, rules.max_players + 1)), label="players"
    )
    keys = data.draw(
        st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 2**32 - 1)),
        label="keys",
    )
    play_checked(rules, players, keys[0], keys[1], data.draw(st.integers(0, players - 1)), keys[2])


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_and_player_count_finishes_some_games(preset):
    """Fixed seeds: for every preset and every allowed player count, random games with a
    generous cap finish (so the finished-game checks really run) and all invariants hold."""
    base = build(preset, ["max_moves:3000"])
    for players in range(base.min_players, base.max_players + 1):
        finished = 0
        for g in range(6):
            state = play_checked(
                base, players, 1000 * players + g, 77 + g, g % players, seed=g, probe_illegal=False
            )
            finished += state.finished
        assert finished >= 1, f"{preset} with {players} players: no random game finished"


def test_two_decks_ten_players_conserve_104_cards():
    rules = build("shithead", ["two_decks", "max_moves:400"])
    assert rules.deck_size == 104
    state = play_checked(rules, 10, 12345, 678, 3, seed=9)
    assert state.card_total() == 104


def test_unfinished_game_stops_exactly_at_the_cap():
    """A cap of 10 moves cannot be enough for a whole game: it ends unfinished at 10."""
    rules = build("palace", ["max_moves:10"])
    state = play_checked(rules, 4, 1, 2, 0, seed=3, probe_illegal=False)
    assert state.unfinished and not state.finished
    assert state.moves == 10
    assert state.places == [] or len(state.places) < 4
