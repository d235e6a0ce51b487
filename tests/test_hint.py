"""shedsim hint: positions with a provably best move, hidden information, racing, CLI."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim import layout as L
from shedsim.cli import app
from shedsim.rules.engine import public_array
from shedsim.analysis.hint import HintError, rank_moves
from shedsim.kernel.policies import determinise_any
from shedsim.rules.scenario import load_scenario, play_moves
from suite import LONG

runner = CliRunner()
G = "greedy"  # the fast playout policy; the default (heuristic) is tested where noted

# Four 9s: the 9 burns the pile, the seat moves again and goes out with the K (a forced
# win); after the K the opponent's one hidden card goes out on it if it is an A, 2 or 10.
FOURTH_NINE = """
rules = "shithead"
to_move = 0
pile = ["5", "9", "9", "9"]
stock = []
burned = 30

[[seats]]
hand = ["9", "K"]

[[seats]]
hand = ["{opp}"]
"""

# Nothing hidden: the 10 burns, the seat moves again and goes out with the K (first);
# after the K the opponent goes out with its face-up A (the seat loses).
OPEN_DUEL = """
rules = "shithead"
to_move = 0
pile = ["6"]
stock = []
burned = 40

[[seats]]
hand = ["10", "K"]

[[seats]]
face_up = ["A"]
"""

# Three seats, a stock and face-down cards; seat 0 to move with several options.
# {h1}, {d2} and {stock} are hidden from seat 0.
MIDGAME = """
rules = "shithead"
to_move = 0
pile = ["4", "6"]
stock = {stock}
burned = 10

[[seats]]
hand = ["6", "7", "7", "J"]
face_up = ["Q", "A"]
face_down = ["3", "8"]

[[seats]]
hand = {h1}
face_up = ["10"]
face_down = ["5", "9"]

[[seats]]
hand = ["2", "4", "K"]
face_up = ["9"]
face_down = {d2}
"""


# Three seats, nothing hidden: the 10 burns, the seat moves again and goes out with the K
# (first); the K alone lets seat 1 out on its A, and the seat finishes second. Nobody
# else can lose but seat 2.
THREE_SEATS = (
    OPEN_DUEL
    + """
[[seats]]
face_up = ["3", "4"]
"""
)


def _state(tmp_path, text, name="pos.toml"):
    p = tmp_path / name
    p.write_text(text)
    return play_moves(load_scenario(p))[0]


def two_views(tmp_path):
    """Two MIDGAME positions that seat 0 sees alike: the other hands, the face-down cards
    and the stock differ."""
    a = _state(
        tmp_path,
        MIDGAME.format(h1='["3", "5", "8"]', d2='["J", "Q"]', stock='["K", "2", "9"]'),
        "a.toml",
    )
    b = _state(
        tmp_path,
        MIDGAME.format(h1='["A", "A", "2"]', d2='["3", "3"]', stock='["5", "8", "10"]'),
        "b.toml",
    )
    return a, b


def test_fourth_of_a_kind_burn_then_out_is_ranked_first(tmp_path):
    st = _state(tmp_path, FOURTH_NINE.format(opp="6"))
    res = rank_moves(st, policy=G, budget=4000, seed=1)
    assert [m.move for m in res.moves] == ["play 9x1", "play Kx1"]
    best, other = res.moves
    assert best.place.value == 1.0 and best.p_first.value == 1.0 and best.p_lose.value == 0.0
    assert best.facts["burn"] == 1.0 and best.facts["again"] == 1.0
    # the opponent's card is one of the 46 unseen: 15 of them (K, A, 2, 10) go out on the K
    assert other.p_lose.lo < 15 / 46 < other.p_lose.hi
    assert res.stopped == "separated"


def test_open_position_forced_win_against_forced_loss(tmp_path):
    st = _state(tmp_path, OPEN_DUEL)
    # the playouts (the default policy, heuristic); without solve_limit=0 it is solved exactly
    res = rank_moves(st, budget=300, seed=0, why=True, solve_limit=0)
    assert [m.move for m in res.moves] == ["play 10x1", "play Kx1"]
    assert res.moves[0].p_first.value == 1.0
    assert res.moves[1].p_lose.value == 1.0 and res.moves[1].place.value == 2.0
    assert res.stopped == "separated" and res.samples < 300
    assert "burns the pile" in res.why and "you move again" in res.why
    assert "the next player goes out at once in 100% of samples" in res.why


def test_three_players_visible_endgame(tmp_path):
    res = rank_moves(
        _state(tmp_path, THREE_SEATS), policy=G, budget=1000, seed=0, objective="place"
    )
    assert [m.move for m in res.moves] == ["play 10x1", "play Kx1"]
    assert res.moves[0].place.value == 1.0 and res.moves[1].place.value == 2.0


def test_hidden_cards_do_not_change_the_answer(tmp_path):
    """The seat's view is the same; the opponents' hands, face-down cards and the stock
    differ: every figure is the same (the samples never read a hidden card)."""
    a, b = two_views(tmp_path)
    ra = rank_moves(a, policy=G, budget=600, seed=5)
    rb = rank_moves(b, policy=G, budget=600, seed=5)
    ja, jb = ra.to_json(), rb.to_json()
    ja.pop("seconds"), jb.pop("seconds")
    assert ja == jb
    # the seat's own cards do change it (so the comparison above can fail)
    c = a.copy()
    c.seats[0].hand = [2, 6, 7, 7]
    jc = rank_moves(c, policy=G, budget=600, seed=5).to_json()
    jc.pop("seconds")
    assert jc["moves"] != ja["moves"]


def test_hidden_cards_do_not_change_the_answer_with_the_default_policy(tmp_path):
    a = _state(tmp_path, FOURTH_NINE.format(opp="6"), "a.toml")
    b = _state(tmp_path, FOURTH_NINE.format(opp="A"), "b.toml")
    ja, jb = (rank_moves(x, budget=100, seed=4).to_json() for x in (a, b))
    ja.pop("seconds"), jb.pop("seconds")
    assert ja == jb and ja["policy"] == "heuristic"


def test_hidden_cards_with_another_seed_agree_within_noise(tmp_path):
    a = _state(tmp_path, FOURTH_NINE.format(opp="6"), "a.toml")
    b = _state(tmp_path, FOURTH_NINE.format(opp="A"), "b.toml")
    ra, rb = (
        rank_moves(a, policy=G, budget=2000, seed=1),
        rank_moves(b, policy=G, budget=2000, seed=2),
    )
    assert [m.move for m in ra.moves] == [m.move for m in rb.moves]
    ka, kb = ra.moves[1], rb.moves[1]
    assert abs(ka.p_lose.value - kb.p_lose.value) < 3 * np.sqrt(
        0.33 * 0.67 * (1 / ka.samples + 1 / kb.samples)
    )


def test_determinise_any_keeps_what_the_seat_saw_and_redeals_the_rest(tmp_path):
    st = _state(
        tmp_path, MIDGAME.format(h1='["3", "5", "8"]', d2='["J", "Q"]', stock='["K", "2", "9"]')
    )
    obs = public_array(st)
    ra = st.rules.compile(3)
    rng = np.array([11], np.uint64)
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    counts = np.zeros(15)
    n = 4000
    for _ in range(n):
        assert determinise_any(obs, ra, rng, pub, priv)
        assert np.array_equal(pub, obs)
        assert priv[L.P_HANDS + 0] == obs[L.O_HAND]
        h1 = int(priv[L.P_HANDS + 1])
        assert sum((h1 >> (4 * (r - 2))) & 15 for r in range(2, 15)) == 3
        for r in range(2, 15):
            counts[r] += (h1 >> (4 * (r - 2))) & 15
    # seen by seat 0: its hand 6 7 7 J, face-up Q A 10 9, pile 4 6 -> 42 unseen cards;
    # each is in seat 1's 3-card hand with probability 3/42
    seen = {6: 2, 7: 2, 11: 1, 12: 1, 14: 1, 10: 1, 9: 1, 4: 1}
    for r in range(2, 15):
        expect = n * 3 * (4 - seen.get(r, 0)) / 42
        assert abs(counts[r] - expect) < 4 * np.sqrt(expect), (r, counts[r], expect)


def test_same_seed_same_figures_and_budget_stop(tmp_path):
    st = _state(
        tmp_path, MIDGAME.format(h1='["3", "5", "8"]', d2='["J", "Q"]', stock='["K", "2", "9"]')
    )
    r1 = rank_moves(st, policy=G, budget=300, seed=3, batch=100)
    r2 = rank_moves(st, policy=G, budget=300, seed=3, batch=100)
    assert [m.to_json() for m in r1.moves] == [m.to_json() for m in r2.moves]
    assert r1.stopped in ("separated", "budget") and r1.samples <= 300
    assert {m.move for m in r1.moves} == {"play 6x1", "play 7x1", "play 7x2", "play Jx1"}
    assert r1.moves[0].dropped_after is None


def test_equivalent_flips_share_figures(tmp_path):
    text = """
rules = "shithead"
to_move = 0
pile = ["8"]
stock = []
burned = 30

[[seats]]
face_down = ["3", "K", "9"]

[[seats]]
hand = ["5", "6"]
"""
    res = rank_moves(_state(tmp_path, text), policy=G, budget=200, seed=0)
    moves = {m.move: m for m in res.moves}
    assert set(moves) == {"flip 1", "flip 2", "flip 3"}
    assert moves["flip 2"].same_as == "flip 1" and moves["flip 2"].place == moves["flip 1"].place
    assert res.stopped == "single"


def test_bad_options(tmp_path):
    st = _state(tmp_path, OPEN_DUEL)
    with pytest.raises(HintError, match="unknown strategy"):
        rank_moves(st, policy="nosuch")
    with pytest.raises(HintError, match="--seat"):
        rank_moves(st, seat=5)
    with pytest.raises(HintError, match="--budget"):
        rank_moves(st, budget=0)


def test_cli_json_and_why(tmp_path):
    p = tmp_path / "pos.toml"
    p.write_text(FOURTH_NINE.format(opp="6"))
    r = runner.invoke(
        app, ["hint", str(p), "--json", "--why", "--budget", "2000", "--policy", "greedy"]
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert [m["move"] for m in out["moves"]] == ["play 9x1", "play Kx1"]
    assert out["moves"][0]["expected_place"]["value"] == 1.0
    assert out["stopped"] == "separated" and out["seat"] == 0
    assert "The 9 is the fourth of its rank on top: the pile burns; you move again." in out["why"]
    assert "After play Kx1 the next player goes out at once in" in out["why"]
    r = runner.invoke(app, ["hint", str(p), "--budget", "200"])  # default policy
    assert r.exit_code == 0 and "play 9x1" in r.output and "stopped" in r.output


def test_cli_bad_input_exits_2(tmp_path):
    p = tmp_path / "pos.toml"
    p.write_text(OPEN_DUEL)
    assert runner.invoke(app, ["hint", str(tmp_path / "missing.toml")]).exit_code == 2
    r = runner.invoke(app, ["hint", str(p), "--policy", "nosuch"])
    assert r.exit_code == 2 and "--policy" in r.output
    r = runner.invoke(app, ["hint", str(p), "--seat", "1", "--policy", "greedy", "--budget", "100"])
    assert r.exit_code == 0  # seat 1 advised as if it were its turn
    out = tmp_path / "over.toml"
    out.write_text(OPEN_DUEL.replace('face_up = ["A"]', "out = true"))
    assert runner.invoke(app, ["hint", str(out)]).exit_code == 2
    r = runner.invoke(app, ["hint", str(p), "--objective", "win"])
    assert r.exit_code == 2 and "--objective" in r.output


def test_moves_equal_in_every_sample_stop_as_tied(tmp_path):
    # either card: seat 1 cannot beat it with its 3, picks up, and the other card goes out
    text = """
rules = "shithead"
to_move = 0
pile = ["5"]
stock = []
burned = 40

[[seats]]
hand = ["J", "Q"]

[[seats]]
face_up = ["3"]
"""
    res = rank_moves(_state(tmp_path, text), policy=G, budget=4000, seed=0, solve_limit=0)
    assert res.stopped == "tied" and res.samples < 4000
    assert {m.move for m in res.moves} == {"play Jx1", "play Qx1"}
    assert all(m.place.value == 1.0 and m.dropped_after is None for m in res.moves)
    assert "tied" in res.stop_text()


def test_readme_example_position():
    """The hint tutorial's example (docs/tutorials/hint-and-play.md). shithead scores only losing,
    so the moves are ranked by P(lose):
    the fourth 7 (burn, move again) loses far less often than the Q, with greedy or heuristic
    playouts, though the Q goes out first more often and has the better expected place.
    Ranked by expected place (--objective place), both put the Q first."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    st = play_moves(load_scenario(path))[0]
    for policy in (G, "heuristic"):
        res = rank_moves(st, policy=policy, budget=1000, why=True)
        assert (
            res.objective == "lose"
            and "shithead's scoring: count of games not lost" in res.ranked_by()
        )
        seven, queen = res.moves[0], res.moves[1]
        assert [seven.move, queen.move] == ["play 7x1", "play Qx1"] and res.stopped == "separated"
        assert seven.p_lose.hi < queen.p_lose.lo
        assert queen.place.value < seven.place.value and queen.p_first.value > seven.p_first.value
        # the why argues from the ranking's own figure and names the trade-off
        first = res.why.split(" samples; ")[0]
        assert first.startswith("play 7x1 rather than play Qx1, ranked by P(lose)")
        assert (
            f"you lose {100 * seven.p_lose.value:.0f}% against {100 * queen.p_lose.value:.0f}%"
            in first
        )
        assert "favour play Qx1: a trade-off, and the ranking follows P(lose)" in res.why
        assert "The 7 is the fourth of its rank on top: the pile burns; you move again." in res.why
        assert (
            rank_moves(st, policy=policy, budget=1000, objective="place").moves[0].move
            == "play Qx1"
        )


@LONG  # mc's playouts compile a kernel of their own (seconds); make test-long plays them
def test_readme_example_position_by_place_with_mc_playouts():
    """Ranked by expected place, mc's playouts (a search at every decision) put the fourth 7
    first, where greedy's and heuristic's put the Q (the test above)."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    st = play_moves(load_scenario(path))[0]
    res = rank_moves(st, policy="mc:rollouts=8", objective="place")
    assert [m.move for m in res.moves][:2] == [
        "play 7x1",
        "play Qx1",
    ] and res.stopped == "separated"
    assert res.objective_source == "--objective place"


def test_the_objective_follows_each_presets_scoring():
    """duel (loser = idiot), family (idiot tally) and shithead (games not lost) score only
    losing; nines (places) and palace (summed places) score every place. A rules file's own
    scoring text is read by its words; --objective overrides it."""
    from shedsim.rules.ruleset import preset, rules_from_mapping
    from shedsim.rules.scoring import objective_of

    assert {
        n: objective_of(preset(n)) for n in ("duel", "nines", "family", "palace", "shithead")
    } == {"duel": "lose", "nines": "place", "family": "lose", "palace": "place", "shithead": "lose"}
    assert (
        objective_of(
            rules_from_mapping({"preset": "palace", "scoring": "the loser buys the drinks"})
        )
        == "lose"
    )
    assert (
        objective_of(rules_from_mapping({"preset": "shithead", "scoring": "first out wins"}))
        == "first"
    )
    assert objective_of(rules_from_mapping({"preset": "shithead", "scoring": "points"})) == "place"


def test_the_race_and_the_order_follow_the_objective(tmp_path):
    """Three seats, nothing hidden: the 10 burns and the K goes out (first); the K alone
    lets seat 1 out on its A and leaves the seat second. Neither loses: ranked by P(lose)
    the two tie in every sample (the place orders them); ranked by place the 10 is
    separated; ranked by P(first) too."""
    st = _state(tmp_path, THREE_SEATS)
    lose = rank_moves(st, policy=G, budget=1000, seed=0)
    assert lose.stopped == "tied" and "lost or did not lose together" in lose.stop_text()
    assert [m.move for m in lose.moves] == ["play 10x1", "play Kx1"]
    for objective in ("place", "first"):
        res = rank_moves(st, policy=G, budget=1000, seed=0, objective=objective)
        assert res.stopped == "separated" and res.moves[0].move == "play 10x1", objective
    with pytest.raises(HintError, match="--objective: one of lose, place, first"):
        rank_moves(st, policy=G, objective="win")


def test_the_why_calls_figures_equal_as_printed_equal():
    """Two moves whose expected places differ by less than the printed precision: the why
    said "expected place 2.34 against 2.34 also favours ..."; now the pair reads equal."""
    from pathlib import Path

    from shedsim.analysis.hint_words import explain

    path = Path(__file__).resolve().parents[1] / "docs" / "examples" / "hint_fourth_seven.toml"
    st = play_moves(load_scenario(path))[0]
    res = rank_moves(st, policy=G, budget=400, why=True)
    a, b = res.moves[0], res.moves[1]
    n = min(a.samples, b.samples)
    places = np.full((n, 2), 2.0)  # synthetic playouts: both moves second every time...
    places[0, 1] = 2.3  # ...but one sample of b's a little worse: 2.00 against 2.00 printed
    text = explain(st, res, places, {a.move: 0, b.move: 1})
    assert (
        "Expected place 2.00 against 2.00 and going out first 0% against 0%: equal each" in text
    ), text
    assert "favours" not in text, text
