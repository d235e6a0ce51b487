"""The exact end game (shedsim.analysis.endgame) against a brute-force minimax written here,
independently of it: plain recursion over the reference engine's legal moves and
transitions, deep copies, no transposition table, a position repeated on the current line
scored as a draw (play that goes round forever is stopped, and under stalemate:share a
stopped game places neither seat). Positions are tiny, so the brute force takes moments."""

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.analysis.endgame import NotSolved, perfect_information, solve
from shedsim.analysis.hint import rank_moves
from shedsim.cli import app
from shedsim.rules.engine import apply_move, legal_moves, public_array
from shedsim.rules.scenario import parse_scenario, play_moves

runner = CliRunner()


def _brute(state, me, line, depth=60):
    """+1 when ``me`` goes out first of the two against best play, -1 when it is last, 0
    when neither can force the end."""
    if state.finished:
        return -1 if state.places[-1] == me else 1
    key = _key(state)
    if key in line:
        return 0
    assert depth > 0, "position too deep for the brute force"
    line = line | {key}
    values = []
    for m in legal_moves(state):
        child = state.copy()
        apply_move(child, m)
        values.append(_brute(child, me, line, depth - 1))
    return max(values) if state.to_move == me else min(values)


def _key(state):
    return (
        tuple(tuple(sorted(s.hand)) for s in state.seats),
        tuple(tuple(sorted(s.face_up)) for s in state.seats),
        tuple(sorted(state.pile)),  # the rules read the pile's cards, its tops and run
        state.effective_top(),
        state.top_run(),
        state.to_move,
        state.direction,
    )


def _brute_length(state, me, line=frozenset()):
    """(value, moves to the end) for ``me`` by brute force: the winner ends soonest, the
    loser holds out longest; a position repeated on the line is a draw (0, 0)."""
    if state.finished:
        return (-1 if state.places[-1] == me else 1), 0
    key = _key(state)
    if key in line:
        return 0, 0
    line = line | {key}
    best = None
    for m in legal_moves(state):
        child = state.copy()
        apply_move(child, m)
        v, n = _brute_length(child, me, line)
        score = (v, -v * (n + 1))  # for me: a win sooner, a loss later
        if best is None or (score > best[0] if state.to_move == me else score < best[0]):
            best = score, (v, n + 1)
    return best[1]


def brute_values(state):
    """Each legal move's value for the seat to move, by brute force: {move: +1/0/-1}."""
    me = state.to_move
    out = {}
    for m in legal_moves(state):
        child = state.copy()
        apply_move(child, m)
        out[str(m)] = _brute(child, me, frozenset())
    return out


WORDS = {"win": 1, "draw": 0, "loss": -1}


def _state(**data):
    data.setdefault("rules", "shithead")
    return play_moves(parse_scenario(data))[0]


def _greedy(state):
    from shedsim.kernel.policies import greedy_move
    from shedsim.rules.engine import Move

    return str(Move.from_code(greedy_move(public_array(state), state.rules.compile(2))))


# Every card is accounted for (burned_cards lists the rest of the deck), so seat 0 knows
# seat 1's hand. Each position: (name, data).
def _tracked(rules, pile, hands, ups, house=()):
    from collections import Counter

    from shedsim.rules.cards import RANKS, parse_cards

    listed = Counter(parse_cards(pile))
    for h in hands + ups:
        listed.update(parse_cards(h))
    rest = []
    for r in RANKS:
        rest += [r] * (4 - listed[r])
    names = {11: "J", 12: "Q", 13: "K", 14: "A"}
    return dict(
        rules=rules,
        house=list(house),
        pile=pile,
        burned_cards=[names.get(r, str(r)) for r in rest],
        seats=[{"hand": h, "face_up": u} for h, u in zip(hands, ups)],
    )


POSITIONS = {
    # greedy sheds its lowest ordinary card (the 7 or 4 here) and loses; another move wins
    "shithead_greedy_loses": _tracked("shithead", [], [["8", "9", "7"], ["7", "2"]], [["9"], []]),
    "shithead_pair_or_king": _tracked("shithead", ["5"], [["6", "6", "K"], ["8"]], [[], []]),
    "duel_ten_first": _tracked("duel", [], [["10", "K", "K"], ["2", "10"]], [[], []]),
    "duel_jack_not_seven": _tracked("duel", [], [["7", "A", "J"], ["7"]], [[], []]),
    "family_queen": _tracked("family", [], [["2", "4", "Q"], ["J"]], [[], []]),
    # a pick-up that goes round forever: a draw against best play
    "duel_pickup_draws": _tracked("duel", ["6"], [["K"], ["3"]], [["4"], ["7"]]),
    "duel_only_draws": _tracked("duel", [], [["4"], ["3", "Q"]], [["9"], ["4"]]),
    "duel_ace_draws": _tracked("duel", [], [["A", "3"], ["8"]], [["Q"], ["K"]]),
    # house toggles play their part in the transition
    "skip8": _tracked("shithead", [], [["8", "8", "5"], ["6", "K"]], [[], ["4"]], ["skip8"]),
    "low7": _tracked("shithead", ["3"], [["7", "4"], ["5", "J"]], [[], []], ["low7"]),
    "nines_invisible": _tracked("nines", ["8"], [["9", "Q", "4"], ["J", "5"]], [[], ["A"]]),
    # every move loses: the 10 (burn, again) holds out a move longer than the K
    "shithead_lost": _tracked("shithead", ["K"], [["3", "K", "10"], ["K"]], [[], []]),
    "family_lost": _tracked("family", [], [["7", "K"], ["J"]], [["3"], ["10"]]),
}
GREEDY_LOSES = (
    "shithead_greedy_loses",
    "shithead_pair_or_king",
    "duel_ten_first",
    "duel_jack_not_seven",
    "family_queen",
)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_values_match_the_brute_force(name):
    st = _state(**POSITIONS[name])
    assert perfect_information(st) is None
    sol = solve(st)
    truth = brute_values(st)
    assert {v.move: WORDS[v.result] for v in sol.values} == truth
    # a winning move first whenever one exists; the order is best first
    assert WORDS[sol.values[0].result] == max(truth.values())
    assert [WORDS[v.result] for v in sol.values] == sorted(truth.values(), reverse=True)


@pytest.mark.parametrize("name", GREEDY_LOSES)
def test_hint_ranks_the_win_first_where_greedys_move_loses(name):
    st = _state(**POSITIONS[name])
    truth = brute_values(st)
    assert truth[_greedy(st)] == -1 and max(truth.values()) == 1
    res = rank_moves(st, policy="greedy")
    assert res.solved and res.stopped == "solved" and res.samples == 0
    best = res.moves[0]
    assert truth[best.move] == 1 and best.solved.result == "win"
    assert best.p_lose.value == 0.0 and best.place.value == 1.0
    assert res.stop_text().startswith(f"solved: {best.move} wins against every reply")
    for m in res.moves:
        assert WORDS[m.solved.result] == truth[m.move]
        assert m.p_lose.value == (1.0 if truth[m.move] == -1 else 0.0)


# ------------------------------------------------------------ positions that say what was tracked
TRACKED = """
rules = "shithead"
pile = ["5"]
burned_cards = ["K", "K", "K", "K", "3"]
{burned}

[[seats]]
hand = ["6", "9"]

[[seats]]
hand = ["A", "A", "4"]
known = ["A", "A"]
"""


def test_burned_cards_and_known_are_read(tmp_path):
    from shedsim.rules.scenario import load_scenario

    p = tmp_path / "pos.toml"
    p.write_text(TRACKED.format(burned=""))
    st = load_scenario(p).state
    assert st.burned == 5 and st.burned_cards == {13: 4, 3: 1}
    assert st.seats[1].known == {14: 2} and not st.seats[0].known
    obs = public_array(st)
    from shedsim import layout as L
    from shedsim.rules.cards import pack_counts

    assert obs[L.O_BURNED] == pack_counts({13: 4, 3: 1}) and obs[L.O_BURNED_N] == 5
    assert obs[L.O_KNOWN + 1] == pack_counts({14: 2})
    p.write_text(TRACKED.format(burned="burned = 5"))  # agreeing: fine
    assert load_scenario(p).state.burned == 5


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda t: t.format(burned="burned = 7"), "burned, burned_cards"),
        (lambda t: t.format(burned="").replace('["A", "A"]\n', '["K"]\n'), "seats.1.known"),
        (lambda t: t.format(burned="").replace('["A", "A"]\n', '"A"\n'), "seats.1.known"),
        (lambda t: t.format(burned="").replace('"K", "3"]', '"K", "K"]'), "cards"),
        (lambda t: t.format(burned="").replace('"K", "3"]', '"K", "Z"]'), "burned_cards"),
    ],
)
def test_tracked_fields_refused_naming_the_field(tmp_path, edit, field):
    p = tmp_path / "bad.toml"
    p.write_text(edit(TRACKED))
    for cmd in (["scenario", "run", str(p)], ["hint", str(p)]):
        r = runner.invoke(app, cmd)
        assert r.exit_code == 2, r.output
        assert f"{p}: {field}:" in r.output and "Traceback" not in r.output
        assert "unknown key" not in r.output


def test_api_position_carries_the_tracked_fields():
    from shedsim import Position, StudyError

    p = Position(
        seats=[{"hand": ["6", "9"]}, {"hand": ["A", "A", "4"], "known": ["A", "A"]}],
        pile=["5"],
        burned_cards=["K", "K", "K", "K", "3"],
    )
    st = p.state()
    assert st.burned == 5 and st.burned_cards[13] == 4 and st.seats[1].known == {14: 2}
    bad = Position(seats=[{"hand": ["6"]}, {"hand": ["4"]}], burned=2, burned_cards=["K"])
    with pytest.raises(StudyError, match="burned, burned_cards"):
        bad.state()


def test_hint_redeals_respect_known_and_burned_cards(tmp_path):
    """Seat 0's view: seat 1 holds two aces it saw picked up and one card it did not; four
    kings and a 3 are burned. In every re-deal seat 1 holds the two aces and never a king
    (all four are burned), and a 3 as often as three 3s among the unseen cards make it."""
    from shedsim import layout as L
    from shedsim.kernel.policies import determinise_any
    from shedsim.rules.scenario import load_scenario

    p = tmp_path / "pos.toml"
    p.write_text(TRACKED.format(burned=""))
    st = load_scenario(p).state
    obs = public_array(st)
    ra = st.rules.compile(2)
    rng = np.array([7], np.uint64)
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    threes = 0
    for _ in range(3000):
        assert determinise_any(obs, ra, rng, pub, priv)
        h1 = int(priv[L.P_HANDS + 1])
        count = {r: (h1 >> (4 * (r - 2))) & 15 for r in range(2, 15)}
        assert sum(count.values()) == 3 and count[14] >= 2 and count[13] == 0
        threes += count[3]
    # the unseen cards: 52 - (6, 9, 5) - 5 burned - the two known aces = 42, three of them 3s
    assert abs(threes - 3000 * 3 / 42) < 4 * np.sqrt(3000 * 3 / 42)


@pytest.mark.parametrize("name", ("shithead_lost", *GREEDY_LOSES))
def test_moves_to_the_end_match_the_brute_force(name):
    """A lost position ranks the move that holds out longest first; a won one the quickest
    win; ``moves`` counts both seats' moves to the end, as a brute force finds them."""
    st = _state(**POSITIONS[name])
    sol = solve(st)
    for v in sol.values:
        child = st.copy()
        apply_move(child, next(m for m in legal_moves(st) if str(m) == v.move))
        value, n = _brute_length(child, st.to_move)
        assert (WORDS[v.result], v.moves) == (value, n + 1), v
    if sol.result == "loss":
        assert [v.moves for v in sol.values] == sorted((v.moves for v in sol.values), reverse=True)
        assert sol.summary().startswith(f"every move loses against best play; {sol.values[0].move}")


# ------------------------------------------------------------ hint and the api say "solved"
def test_cli_says_solved_and_json_carries_the_values(tmp_path):
    import json

    data = POSITIONS["duel_jack_not_seven"]
    lines = [f"{k} = {json.dumps(data[k])}" for k in ("rules", "house", "pile", "burned_cards")]
    for seat in data["seats"]:
        lines += ["[[seats]]"] + [f"{k} = {json.dumps(v)}" for k, v in seat.items()]
    p = tmp_path / "pos.toml"
    p.write_text("\n".join(lines) + "\n")
    truth = brute_values(_state(**POSITIONS["duel_jack_not_seven"]))
    r = runner.invoke(app, ["hint", str(p), "--policy", "greedy"])
    assert r.exit_code == 0, r.output
    assert "solved: play Jx1 wins against every reply" in r.output and "solved exactly" in r.output
    r = runner.invoke(app, ["hint", str(p), "--json", "--why"])
    out = json.loads(r.output)
    assert out["solved"] is True and out["stopped"] == "solved" and out["not_solved"] is None
    assert {m["move"]: WORDS[m["solved"]["result"]] for m in out["moves"]} == truth
    assert out["moves"][0]["move"] == "play Jx1" and "whatever the other seat does" in out["why"]


def test_api_hint_carries_solved_and_each_moves_value():
    from shedsim import Position, hint

    data = dict(POSITIONS["family_queen"])
    pos = Position(
        seats=data["seats"], pile=data["pile"], burned_cards=data["burned_cards"], rules="family"
    )
    res = hint(pos, policy="greedy")
    truth = brute_values(pos.state())
    assert res.solved and res.note is None and res.best == "play Qx1"
    assert dict(zip(res.moves["move"], res.moves["result"].map(WORDS))) == truth
    assert res.moves["moves_to_end"].notna().all()
    assert not hint(pos, policy="greedy", budget=50, solve_limit=0).solved


def test_untracked_too_big_or_stoppable_end_games_fall_back_to_playouts():
    """Ranked by playouts, with a note saying why not solved: a hand the seat cannot know
    (burned cards of unknown rank), a search over its limit, a stall limit nearer than the
    end of best play, a draw under stalemate:most_cards."""
    untracked = _state(
        pile=["6"], burned=30, seats=[{"hand": ["4", "10", "K"]}, {"hand": ["Q", "5"]}]
    )
    res = rank_moves(untracked, policy="greedy", budget=100)
    assert not res.solved and res.samples > 0
    assert res.note.startswith("not solved exactly: the other seat's hand is not known: 2 of")
    # the same hand seen picked up: known, so solved
    seen = _state(
        pile=["6"],
        burned=30,
        seats=[{"hand": ["4", "10", "K"]}, {"hand": ["Q", "5"], "known": ["Q", "5"]}],
    )
    assert rank_moves(seen, policy="greedy").solved
    st = _state(**POSITIONS["shithead_greedy_loses"])
    res = rank_moves(st, policy="greedy", budget=100, solve_limit=3)
    assert not res.solved and "more than 3 positions" in res.note
    with pytest.raises(NotSolved, match="stall limit"):
        solve(_state(**dict(POSITIONS["shithead_greedy_loses"], house=["stall:2"])))
    with pytest.raises(NotSolved, match="stalemate:most_cards"):
        solve(_state(**dict(POSITIONS["duel_pickup_draws"], house=["stalemate:most_cards"])))
    # no draw under most_cards: the values stand
    assert solve(_state(**dict(POSITIONS["duel_ten_first"], house=["stalemate:most_cards"])))


def test_play_hint_says_solved_in_an_end_game():
    """``shedsim play``'s hint shares rank_moves: in a tracked end game it says it solved the
    position (not "playouts") and gives each move's value."""
    from types import SimpleNamespace

    from shedsim.analysis.play_advice import Advice

    st = _state(**POSITIONS["duel_jack_not_seven"])
    game = SimpleNamespace(
        swapped=True,
        state=st,
        you=0,
        hints=0,
        hint_policy="greedy",
        hint_budget=100,
        strategy_paths=(),
        hint_objective=None,
    )
    lines = Advice.hint_lines(game)
    assert lines[0].startswith("hint: solved exactly") and "playouts" not in lines[0]
    truth = brute_values(st)
    winner = next(m for m, v in truth.items() if v == 1)
    assert any(winner in line and "wins in" in line for line in lines)
    assert lines[-2].strip().startswith(f"solved: {winner} wins against every reply")


def test_two_seats_left_of_three_and_the_view_of_another_seat():
    """A seat already out: the two left play the end game for the last places. Advised as
    if it were its turn, seat 1 does not know seat 0's hand (never seen): not solved."""
    st = _state(
        pile=["6"],
        burned=40,
        seats=[{"hand": ["10", "K"]}, {"face_up": ["A", "4"]}, {"out": True}],
    )
    truth = brute_values(st)
    res = rank_moves(st, policy="greedy", objective="place")
    assert res.solved and {m.move: WORDS[m.solved.result] for m in res.moves} == truth
    best = res.moves[0]
    assert truth[best.move] == 1 and best.place.value == 2 and best.p_first.value == 0.0
    other = rank_moves(st, seat=1, policy="greedy", budget=100)
    assert not other.solved and "the other seat's hand is not known" in other.note


def test_the_docs_example_is_solved_as_the_hint_page_says():
    """docs/tutorials/hint-and-play.md#solved: the J wins against every reply; greedy's 7
    loses."""
    from pathlib import Path

    from shedsim.rules.scenario import load_scenario

    path = Path(__file__).resolve().parents[1] / "docs" / "examples" / "hint_solved_duel.toml"
    st = play_moves(load_scenario(path))[0]
    truth = brute_values(st)
    assert _greedy(st) == "play 7x1" and truth["play 7x1"] == -1 and truth["play Jx1"] == 1
    res = rank_moves(st, policy="greedy")
    assert res.stop_text().startswith("solved: play Jx1 wins against every reply")


def test_play_why_judges_a_bots_move_by_the_exact_values():
    """``why`` after a bot's move in a tracked end game: the bot's own view is solved, and
    the words say so (its move's value and the best one), not playouts."""
    from types import SimpleNamespace

    from shedsim.analysis.play import BotMove
    from shedsim.analysis.play_advice import Advice
    from shedsim.rules.engine import Move

    st = _state(**POSITIONS["duel_jack_not_seven"])
    truth = brute_values(st)
    assert truth["play 7x1"] == -1
    bot = BotMove(0, "greedy", SimpleNamespace(strategy=None), st, Move.parse("play 7x1"), "x")
    game = SimpleNamespace(
        last_bot=bot,
        hint_policy="greedy",
        hint_budget=100,
        strategy_paths=(),
        hint_objective=None,
        names=["greedy", "you"],
    )
    lines = Advice.why_lines(game)
    assert "exact search from what" in lines[-1] and "loses in" in lines[-1]
    assert "play Jx1 wins in" in lines[-1] and "samples" not in lines[-1]


def test_the_commands_default_search_limit_is_the_modules():
    import inspect

    from shedsim.analysis.endgame import MAX_POSITIONS
    from shedsim.cli.hint import hint

    assert inspect.signature(hint).parameters["solve_limit"].default == MAX_POSITIONS
    r = runner.invoke(app, ["hint", "x.toml", "--solve-limit", "-1"])
    assert r.exit_code == 2 and "--solve-limit" in r.output


def test_scenario_show_prints_what_was_tracked(tmp_path):
    p = tmp_path / "pos.toml"
    p.write_text(TRACKED.format(burned=""))
    r = runner.invoke(app, ["scenario", "show", str(p)])
    assert r.exit_code == 0, r.output
    assert "burned cards seen: 3 K K K K\n" in r.output and "seat 1 known: A A" in r.output
