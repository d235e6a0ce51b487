"""The compiled exact end-game search (shedsim.kernel.endgame) against the brute force of
test_endgame (plain recursion over the reference engine, a repetition on the line a draw)
and the reference solver (shedsim.analysis.endgame), on hand-made and random two-seat
positions with the stock empty; and ismcts with ``solve`` on: valid moves, the forced win,
the fall back to playouts when a search runs over its budget."""

import random
from collections import Counter

import numpy as np
import pytest

import strategies.ismcts as I
from shedsim import layout as L
from shedsim.analysis.endgame import solve as reference_solve
from shedsim.kernel import endgame as EG
from shedsim.rules.cards import RANKS, pack
from shedsim.rules.engine import apply_move, legal_moves, public_array
from test_endgame import GREEDY_LOSES, POSITIONS, _greedy, _key, _state

VALUE = {1: EG.WIN, 0: EG.DRAW, -1: EG.LOSS}  # the brute force's words as the solver's values
NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}


def arrays(st):
    """The kernel's view of a reference state: the public array, the private one (hands and
    face-down slots: every card known) and the compiled rules."""
    pub = public_array(st)
    priv = np.zeros(L.P_SIZE, np.int64)
    for i, s in enumerate(st.seats):
        priv[L.P_HANDS + i] = pack(s.hand)
        for j, c in enumerate(s.face_down):
            priv[L.P_FACE_DOWN + i * L.MAX_TABLE + j] = c
    return pub, priv, st.rules.compile(st.players)


class TooBig(Exception):
    pass


def _brute(state, me, line, left):
    """test_endgame's brute force with the face-down cards in the key (there they are none):
    +1 when ``me`` goes out first of the two against best play, -1 when it is last, 0 when
    neither can force the end (a position repeated on the line). ``left``: a one-item list,
    the nodes it may still visit (TooBig after)."""
    left[0] -= 1
    if left[0] < 0:
        raise TooBig
    if state.finished:
        return -1 if state.places[-1] == me else 1
    key = (_key(state), tuple(tuple(sorted(s.face_down)) for s in state.seats))
    if key in line:
        return 0
    line = line | {key}
    best = None
    for m in legal_moves(state):
        child = state.copy()
        apply_move(child, m)
        v = _brute(child, me, line, left)
        if state.to_move != me:
            v = -v
        if best is None or v > best:
            best = v
            if v == 1:  # a win for the seat to move: the others need not be looked at
                break
    return best if state.to_move == me else -best


def brute_values(state, nodes=10_000):
    """Each legal move's value for the seat to move, by brute force: {move: +1/0/-1}
    (TooBig after ``nodes`` nodes)."""
    me = state.to_move
    out = {}
    left = [nodes]
    for m in legal_moves(state):
        child = state.copy()
        apply_move(child, m)
        out[str(m)] = _brute(child, me, frozenset(), left)
    return out


def kernel_value(st, budget=200_000, sc=None, stats=None):
    pub, priv, ra = arrays(st)
    before = (pub.copy(), priv.copy())
    v = EG.solve(
        ra,
        pub,
        priv,
        budget,
        *(sc if sc is not None else EG.scratch()),
        stats if stats is not None else np.zeros(2, np.int64),
    )
    assert np.array_equal(pub, before[0]) and np.array_equal(priv, before[1])  # only read
    return int(v)


def kernel_move_values(st, sc):
    """Each legal move's value for the seat to move, by the compiled search on the child."""
    me = st.to_move
    out = {}
    for m in legal_moves(st):
        child = st.copy()
        apply_move(child, m)
        if child.finished:
            out[str(m)] = EG.LOSS if child.places[-1] == me else EG.WIN
            continue
        v = kernel_value(child, sc=sc)
        out[str(m)] = v if child.to_move == me else EG.WIN - v
    return out


def _name(r):
    return NAMES.get(r, str(r))


def random_position(rng):
    """A small two-seat end game with the stock empty, every card accounted for (the rest of
    the deck burned): a few hand cards, maybe face-up and face-down ones, maybe a pile."""
    rules = rng.choice(["shithead", "duel", "family", "nines", "palace"])
    deck = [r for r in RANKS for _ in range(4)]
    rng.shuffle(deck)
    seats = []
    for _ in range(2):
        hand = [deck.pop() for _ in range(rng.randint(1, 3))]
        up = [deck.pop() for _ in range(rng.randint(0, 1))]
        down = [deck.pop() for _ in range(rng.choice([0, 0, 1]))]
        seats.append({"hand": hand, "face_up": up, "face_down": down})
    pile = [deck.pop() for _ in range(rng.randint(0, 1))]
    listed = Counter(pile)
    for s in seats:
        for k in ("hand", "face_up", "face_down"):
            listed.update(s[k])
    burned = [_name(r) for r in RANKS for _ in range(4 - listed[r])]
    return _state(
        rules=rules,
        to_move=rng.randint(0, 1),
        pile=[_name(r) for r in pile],
        burned_cards=burned,
        seats=[{k: [_name(r) for r in v] for k, v in s.items()} for s in seats],
    )


def _small(count):
    """The first ``count`` random positions (seeds 0, 1, ...) the brute force settles within
    its node limit, with their values."""
    out = []
    seed = 0
    while len(out) < count:
        st = random_position(random.Random(seed))
        seed += 1
        try:
            out.append((st, brute_values(st)))
        except TooBig:
            pass
    return out


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_values_match_the_brute_force_and_the_reference_solver(name):
    st = _state(**POSITIONS[name])
    truth = brute_values(st)
    sc = EG.scratch()
    assert kernel_value(st, sc=sc) == VALUE[max(truth.values())]
    assert (
        kernel_value(st)
        == {"win": EG.WIN, "draw": EG.DRAW, "loss": EG.LOSS}[reference_solve(st).result]
    )
    assert kernel_move_values(st, sc) == {m: VALUE[v] for m, v in truth.items()}


@pytest.mark.parametrize("name", GREEDY_LOSES)
def test_finds_the_win_where_greedys_move_loses(name):
    st = _state(**POSITIONS[name])
    values = kernel_move_values(st, EG.scratch())
    assert values[_greedy(st)] == EG.LOSS and max(values.values()) == EG.WIN


def test_random_positions_match_the_brute_force():
    """Random small end games (face-down cards too, every preset): the value of the position
    and of every move is the brute force's, one table shared by them all (its entries are
    exact whichever position found them); some of them are won only by a move that is not
    greedy's, some are draws, some lost."""
    sc = EG.scratch()
    seen = Counter()
    greedy_loses = 0
    for st, truth in _small(40):
        assert kernel_value(st, sc=sc) == VALUE[max(truth.values())], st
        assert kernel_move_values(st, sc) == {m: VALUE[v] for m, v in truth.items()}
        seen[max(truth.values())] += 1
        g = _greedy(st)
        if g in truth and truth[g] < max(truth.values()):
            greedy_loses += 1
    assert seen[1] and seen[-1] and seen[0], seen
    assert greedy_loses >= 1, greedy_loses


def test_gives_up_over_its_budget_and_off_end_games():
    st = _state(**POSITIONS["shithead_greedy_loses"])
    stats = np.zeros(2, np.int64)
    assert kernel_value(st, budget=1, stats=stats) == EG.GAVE_UP
    assert stats[0] == 2 and stats[1] == 0  # gave up at the second node, solved nothing
    assert kernel_value(st, budget=10_000, stats=stats) == EG.WIN and stats[1] == 1
    # a stack too shallow for the line gives up too; a draw under most_cards is no value
    assert kernel_value(st, sc=EG.scratch(1, 4)) == EG.GAVE_UP
    draws = _state(**dict(POSITIONS["duel_only_draws"], house=["stalemate:most_cards"]))
    assert kernel_value(draws) == EG.GAVE_UP
    assert kernel_value(_state(**POSITIONS["duel_only_draws"])) == EG.DRAW
    # not an end game: three seats in, or cards left in the stock
    three = _state(
        pile=["6"], burned=40, seats=[{"hand": ["10", "K"]}, {"hand": ["A"]}, {"hand": ["4"]}]
    )
    assert kernel_value(three) == EG.GAVE_UP
    stock = _state(pile=["6"], stock=["3"], burned=40, seats=[{"hand": ["K"]}, {"hand": ["A"]}])
    assert kernel_value(stock) == EG.GAVE_UP


def test_the_move_cap_gives_up():
    st = _state(**dict(POSITIONS["shithead_greedy_loses"], house=["max_moves:10"]))
    st.moves = 9  # the cap is one move away: every line but an immediate end reaches it
    assert kernel_value(st) == EG.GAVE_UP


def test_write_result_leaves_the_places_a_playout_would():
    st = _state(
        pile=["6"], burned=40, seats=[{"hand": ["10", "K"]}, {"out": True}, {"hand": ["A"]}]
    )
    pub, _, _ = arrays(st)
    for value, places in ((EG.WIN, (2, 1, 3)), (EG.LOSS, (3, 1, 2)), (EG.DRAW, (0, 1, 0))):
        p = pub.copy()
        EG.write_result(p, value)
        assert tuple(p[L.O_PLACE : L.O_PLACE + 3]) == places
        assert p[L.O_IN] == (2 if value == EG.DRAW else 0)


# ------------------------------------------------------------------ in the search
def _search(obs, ra, iterations, seed, solve, seen=None):
    moves = np.zeros(160, np.int64)
    visits = np.zeros(160, np.int64)
    value = np.zeros(160)
    stats = np.zeros(2, np.int64)
    out = np.zeros((160, 3))
    m = I.search(
        obs,
        ra,
        iterations,
        0.7,
        I.PLAYOUT_GREEDY,
        400,
        np.array([seed], np.uint64),
        moves,
        visits,
        value,
        stats,
        I.REWARD_PLACE,
        seen,
        I.INFER_NONE,
        False,
        out,
        solve=solve,
    )
    return int(m), moves, visits, value, stats


@pytest.mark.parametrize("name", GREEDY_LOSES)
def test_the_search_with_solve_plays_the_win_its_leaves_prove(name):
    """Every card known (tracked), every leaf solved: with one iteration per root move (each
    expanded once, its leaf solved there) each root move's mean reward is its exact value (1
    win, 0 loss); with more the move returned wins, where greedy's loses."""
    from shedsim.rules.state import Move

    st = _state(**POSITIONS[name])
    pub, priv, ra = arrays(st)
    truth = brute_values(st)
    _, moves, visits, value, stats = _search(pub, ra, len(truth), 5, EG_BUDGET)
    assert visits[: len(truth)].tolist() == [1] * len(truth) and moves[len(truth)] == 0
    for k in range(len(truth)):
        v = truth[str(Move.from_code(int(moves[k])))]
        assert value[k] == {1: 1.0, -1: 0.0, 0: 0.5}[v]
    m = _search(pub, ra, 200, 5, EG_BUDGET)[0]
    assert truth[str(Move.from_code(m))] == 1 and truth[_greedy(st)] == -1


EG_BUDGET = 10_000


def test_the_search_with_solve_returns_legal_moves_and_falls_back_over_budget():
    """Random end games with hidden cards (the other hand unseen: each iteration deals it):
    with solve on, each move is legal; with a budget of one node every solve gives up and
    the search is the one without solve, move for move, visit for visit."""
    from shedsim.kernel.nb import legal_moves as k_legal

    buf = np.zeros(160, np.int64)
    changed = 0
    for st in (random_position(random.Random(seed)) for seed in range(20)):
        # seat 1's hand unseen: the burned cards of unknown rank
        hidden = st.copy()
        pub, priv, ra = arrays(hidden)
        obs = pub.copy()
        obs[L.O_BURNED] = 0  # the burned cards' ranks unknown: seat 1's hand is any of them
        n = k_legal(obs, ra, buf)
        legal = set(buf[:n].tolist())
        m, *_ = _search(obs, ra, 100, 3, EG_BUDGET)
        assert m in legal or (m == L.FLIP and any(x >= L.FLIP for x in legal))
        on = _search(obs, ra, 100, 3, EG_BUDGET)
        off = _search(obs, ra, 100, 3, 0)
        over = _search(obs, ra, 100, 3, 1)
        assert off[0] == over[0]
        assert np.array_equal(off[2], over[2]) and np.array_equal(off[3], over[3])
        changed += not np.array_equal(on[3], off[3])
    assert changed >= 5, changed  # the solves did change the search's values


def test_params_decode_solve():
    # move_stats and root_search read solve from params[9]
    assert list(I.PARAMS)[9] == "solve" and I.PARAMS["solve"] == 0
    assert I.PARAM_RANGES["solve"] == (0, 1)
    import strategies.ismcts_cheat as C

    assert "solve" in C.PARAMS and C._SOLVE == list(C.PARAMS).index("solve")
