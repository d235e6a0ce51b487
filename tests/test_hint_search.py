"""shedsim hint --search: the strongest player's root search ranks the moves."""

import json

import pytest
from typer.testing import CliRunner

from shedsim.analysis.hint import HintError, rank_moves
from shedsim.cli import app
from shedsim.plugins import choice, discover
from test_endgame import GREEDY_LOSES, POSITIONS, brute_values
from test_endgame import _state as _tracked_state
from test_hint import FOURTH_NINE, MIDGAME, _state, two_views


def load_and_play(path):
    from shedsim.rules.scenario import load_scenario, play_moves

    return play_moves(load_scenario(path))[0]


runner = CliRunner()


def test_the_strongest_player_is_chosen_by_its_traits():
    known = discover()
    strongest = [n for n, s in known.items() if s.traits.strongest]
    assert choice("strongest") == strongest == ["champion"]
    assert hasattr(known["champion"].module.root_search, "py_func")


@pytest.mark.parametrize("name", GREEDY_LOSES)
def test_search_ranks_a_winning_move_first_where_greedys_move_loses(name):
    """The tracked end games of the solver's tests, with the solver off: the search ranks a
    move the brute force proves winning first."""
    st = _tracked_state(**POSITIONS[name])
    truth = brute_values(st)
    res = rank_moves(st, search=True, solve_limit=0, iterations=20_000, seed=1)
    assert res.searched and not res.solved and res.policy == "champion"
    assert truth[res.moves[0].move] == 1
    visits = [m.samples for m in res.moves]
    assert visits == sorted(visits, reverse=True) and sum(visits) == res.samples == 20_000


def test_a_solvable_end_game_is_still_solved_with_search():
    st = _tracked_state(**POSITIONS["shithead_greedy_loses"])
    res = rank_moves(st, search=True)
    assert res.solved and res.samples == 0


def test_the_forced_win_and_the_figures(tmp_path):
    """The fourth 9 burns and the K goes out: the search finds it, and its figures say the
    9 never loses while the K sometimes does (the hidden card beats it)."""
    st = _state(tmp_path, FOURTH_NINE.format(opp="6"))
    res = rank_moves(st, search=True, iterations=5000, seed=2)
    best, other = res.moves
    assert best.move == "play 9x1" and best.p_lose.value == 0.0 and best.place.value == 1.0
    assert 0 < other.p_lose.value < 1 and best.samples > other.samples
    j = res.to_json()
    assert j["stopped"] == "searched" and j["moves"][0]["p_lose"]["lo"] is None
    assert "champion's search" in res.stop_text()


def test_same_seed_same_figures_and_hidden_cards_change_nothing(tmp_path):
    a, b = two_views(tmp_path)
    ja, jb = (rank_moves(x, search=True, iterations=3000, seed=7).to_json() for x in (a, b))
    ja.pop("seconds"), jb.pop("seconds")
    assert ja == jb
    jc = rank_moves(a, search=True, iterations=3000, seed=8).to_json()
    jc.pop("seconds")
    assert jc["moves"] != ja["moves"]  # another seed, other deals: the comparison can fail


def test_the_objective_chooses_the_searchs_reward(tmp_path):
    st = _state(tmp_path, MIDGAME.format(h1='["3", "5", "8"]', d2='["J", "Q"]', stock="[]"))
    lose = rank_moves(st, search=True, iterations=3000, seed=3, objective="lose")
    place = rank_moves(st, search=True, iterations=3000, seed=3, objective="place")
    assert lose.objective == "lose" and place.objective == "place"
    assert [m.samples for m in lose.moves] != [m.samples for m in place.moves]


def test_bad_search_options(tmp_path):
    st = _state(tmp_path, FOURTH_NINE.format(opp="6"))
    with pytest.raises(HintError, match="no root search"):
        rank_moves(st, search=True, policy="greedy")
    with pytest.raises(HintError, match="--iterations"):
        rank_moves(st, search=True, iterations=0)
    p = tmp_path / "pos.toml"
    p.write_text(FOURTH_NINE.format(opp="6"))
    r = runner.invoke(app, ["hint", str(p), "--iterations", "100", "--playouts"])
    assert r.exit_code == 2 and "--iterations: only with --search" in r.output
    with pytest.raises(HintError, match="--budget: the samples per move of playouts"):
        rank_moves(st, search=True, budget=100)
    with pytest.raises(HintError, match="iterations is the hint's to set with --search"):
        rank_moves(st, search=True, policy="champion:iterations=50")
    with pytest.raises(HintError, match="--iterations: only with --search"):
        rank_moves(st, search=False, iterations=100)
    res = rank_moves(st, search=True, policy="champion:explore=100", iterations=500)
    assert res.searched and res.budget == 500
    r = runner.invoke(app, ["hint", str(p), "--search", "--policy", "heuristic"])
    assert r.exit_code == 2 and "root search" in r.output


def test_cli_search(tmp_path):
    p = tmp_path / "pos.toml"
    p.write_text(FOURTH_NINE.format(opp="6"))
    r = runner.invoke(app, ["hint", str(p), "--search", "--iterations", "2000", "--json", "--why"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["moves"][0]["move"] == "play 9x1" and out["stopped"] == "searched"
    assert "champion's search settled on play 9x1" in out["why"]
    r = runner.invoke(app, ["hint", str(p), "--search", "--iterations", "2000"])
    assert r.exit_code == 0 and "visits" in r.output and "champion's search" in r.output


def test_a_plugin_from_elsewhere_cannot_declare_itself_the_strongest(tmp_path):
    (tmp_path / "boast.py").write_text(
        'NAME = "boast"\nDESCRIPTION = "claims the crown"\nDETERMINISTIC = True\n'
        'TRAITS = {"strongest": True}\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n"
    )
    known = discover([tmp_path])
    assert "boast" not in known
    assert "is for shedsim's own strategies/ only" in known.why_missing("boast")


def test_search_is_the_default_and_playouts_are_asked_for(tmp_path):
    """Without a policy or a budget the strongest player's search ranks the moves; a
    policy, a budget or --playouts ask for playouts; --iterations for the search."""
    st = _state(tmp_path, FOURTH_NINE.format(opp="6"))
    assert rank_moves(st, iterations=500).searched
    assert not rank_moves(st, policy="greedy").searched
    assert not rank_moves(st, budget=200).searched
    assert rank_moves(st, policy="champion", search=True, iterations=500).searched
    p = tmp_path / "pos.toml"
    p.write_text(FOURTH_NINE.format(opp="6"))
    out = json.loads(runner.invoke(app, ["hint", str(p), "--json", "--iterations", "500"]).output)
    assert out["stopped"] == "searched" and out["policy"] == "champion"
    out = json.loads(runner.invoke(app, ["hint", str(p), "--json", "--playouts"]).output)
    assert out["stopped"] == "separated" and out["policy"] == "heuristic"


def test_the_python_api_searches():
    import math

    import shedsim

    r = shedsim.hint("docs/examples/hint_fourth_seven.toml", search=True, iterations=3000)
    assert r.searched and not r.solved and r.stopped == "searched"
    assert r.moves["samples"].sum() == 3000 and math.isnan(r.moves["p_lose_lo"][0])
    with pytest.raises(shedsim.StudyError, match="iterations: must be"):
        shedsim.hint("docs/examples/hint_fourth_seven.toml", search=True, iterations=0)


def test_the_rewards_hint_asks_for_are_the_searchs():
    import strategies.ismcts as I
    from shedsim.analysis.hint_search import REWARDS

    assert REWARDS == {"place": I.REWARD_PLACE, "lose": I.REWARD_NOT_LAST, "first": I.REWARD_FIRST}


def test_a_seat_without_cards_must_be_marked_out(tmp_path):
    """A seat with no card that is not marked out is refused, naming the seat (it would
    be counted as still in: the searches and playouts cannot play it)."""
    from shedsim.rules.scenario import ScenarioError, load_scenario

    path = "tests/scenarios/invalid/seat_without_cards_not_out.toml"
    with pytest.raises(ScenarioError, match=r"seats\.0.*mark it out = true"):
        load_scenario(path)
    r = runner.invoke(app, ["hint", path])
    assert r.exit_code == 2 and "seats.0" in r.output
    fixed = tmp_path / "out.toml"
    fixed.write_text(open(path).read().replace("[[seats]]\n\n", "[[seats]]\nout = true\n\n", 1))
    res = rank_moves(load_and_play(fixed), iterations=2000)
    assert res.searched and res.players == 3
