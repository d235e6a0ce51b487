"""The rollout control variate (:mod:`shedsim.kernel.luck`): a chance event's term sums to
zero over every order of the unseen cards (so it has mean zero in any game), it is not zero
where the revealed card matters, and a replay reaches the kernel's recorded places."""

import itertools

import numpy as np
import pytest

from shedsim import layout as L
from shedsim.kernel.core import apply, prepare
from shedsim.kernel.luck import chance_term, luck, unseen_places
from shedsim.kernel.policies import determinise, greedy_move
from shedsim.kernel.probe import sample_positions
from shedsim.analysis.matchup import open_match, schedule
from shedsim.rules.ruleset import build
from shedsim.seeding import game_keys

RULES = build("shithead", [], None).compile(2)


def _states(want, n=40):
    """Full 2-seat states (determinised from greedy self-play positions) where ``want(pub)``."""
    obs = sample_positions(RULES, 20_000, 1, np.uint64(20261204))
    rng = np.array([3], np.uint64)
    out = []
    for o in obs:
        if want(o):
            pub, priv = np.zeros(L.O_SIZE, np.int64), np.zeros(L.P_SIZE, np.int64)
            assert determinise(o, RULES, rng, pub, priv)
            prepare(pub, priv)
            out.append((pub, priv))
            if len(out) == n:
                break
    return out


def _event(pub, priv, m):
    """The places move ``m`` reveals: the face-down slot it turns over, or the stock cards it
    draws."""
    size = RULES[L.R_DECK_SIZE]
    if L.FLIP <= m < L.FLIP + L.MAX_TABLE:
        return np.array([L.P_FACE_DOWN + pub[L.O_SEAT] * L.MAX_TABLE + m - L.FLIP], np.int64)
    p, q = pub.copy(), priv.copy()
    apply(RULES, p, q, m)
    drawn = pub[L.O_STOCK_N] - p[L.O_STOCK_N]
    return np.arange(drawn, dtype=np.int64) + L.P_DECK + size - pub[L.O_STOCK_N]


def _terms_over_every_order(pub, priv, m, reps, key):
    """The term for every order of the unseen cards (each a permutation of their places)."""
    where = np.zeros(L.MAX_DECK, np.int64)
    n = unseen_places(pub, RULES[L.R_DECK_SIZE], where)
    places = where[:n].copy()
    cards = priv[places].copy()
    fixed = _event(pub, priv, m)
    scratch = [np.zeros(L.MAX_DECK, np.int64), np.zeros(L.MAX_DECK, np.int64)]
    scratch += [np.zeros(L.O_SIZE, np.int64), np.zeros(L.P_SIZE, np.int64)]
    scratch += [np.zeros(L.P_SIZE, np.int64)]
    terms = []
    for order in itertools.permutations(range(n)):
        q = priv.copy()
        q[places] = cards[list(order)]
        terms.append(
            chance_term(RULES, pub, q, m, fixed, len(fixed), reps, np.uint64(key), *scratch)
        )
    return np.array(terms)


@pytest.mark.parametrize("kind", ["flip", "draw"])
def test_a_term_sums_to_zero_over_every_order_of_the_unseen_cards(kind):
    if kind == "flip":  # stock empty, the mover turns over a face-down card; few unseen
        states = _states(
            lambda o: (
                o[L.O_STOCK_N] == 0
                and o[L.O_STAGE] == L.STAGE_FACE_DOWN
                and o[L.O_FACE_DOWN_N] + o[L.O_FACE_DOWN_N + 1] <= 5
            ),
            n=6,
        )
    else:  # a play from the hand that draws from a stock of one or two cards
        states = _states(
            lambda o: (
                1 <= o[L.O_STOCK_N] <= 2
                and o[L.O_HAND_N + o[L.O_SEAT]] <= 3
                and o[L.O_FACE_DOWN_N] + o[L.O_FACE_DOWN_N + 1] + o[L.O_STOCK_N] <= 7
            ),
            n=3,
        )
    assert states
    nonzero = 0
    for pub, priv in states:
        m = L.FLIP if kind == "flip" else greedy_move(pub, RULES)
        if kind == "draw" and len(_event(pub, priv, m)) == 0:
            continue
        terms = _terms_over_every_order(pub, priv, m, reps=3, key=99)
        assert abs(terms.sum()) < 1e-9 * len(terms)
        nonzero += (np.abs(terms) > 1e-12).any()
    assert nonzero > 0  # the revealed card does change some rollout


def test_the_replay_reaches_the_recorded_places():
    match = open_match("heuristic", "greedy", "shithead", 2, 5)
    sched = schedule(2, 0, 400, True)
    dk, sk = game_keys(match.spec.seed, sched["index"], sched["deal"], match.spec.stream)
    rec = match.kernel.play(
        match.rules_array, match.ids, match.params, sched["seating"], dk, sk, sched["dealer"],
        trace_moves=2000,
    )  # fmt: skip
    assert (rec["moves"] <= 2000).all()
    out = np.zeros(400)
    places = luck(
        match.rules_array, dk, sk, sched["dealer"].astype(np.int64),
        rec["start"].astype(np.int64), rec["face_up"], rec["trace"],
        rec["moves"].astype(np.int64), 4, 6, out,
    )  # fmt: skip
    assert (places == rec["places"]).all()
    assert (out != 0).mean() > 0.5 and np.isfinite(out).all()
