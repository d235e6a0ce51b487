"""The host side of the bot protocol (shedsim/bot/): messages, processes, faults, time
controls, the legal-move order. The bots are the tiny scripts of tests/bots.py."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import numpy as np
import pytest

import bots
from shedsim.bot import process as BP
from shedsim.bot import protocol as P
from shedsim.bot.table import play_games
from shedsim.rules.engine import legal_moves
from shedsim.rules.ruleset import build
from shedsim.rules.scenario import load_scenario, play_moves
from shedsim.runs.simulate import RunSpec, schedule_games
from shedsim.seeding import game_keys

SCENARIOS = Path(__file__).parent / "scenarios"


def test_legal_moves_in_the_protocols_order_the_engines_own_order_unchanged():
    """The engine lists pick-up before gamble; the protocol lists gamble before pick-up."""
    state, _ = play_moves(
        load_scenario(SCENARIOS / "ruling_02_duel_pickup_and_gamble_with_legal_play.toml")
    )
    legal = legal_moves(state)
    assert [str(m) for m in legal] == ["play 7x1", "play 7x2", "pickup", "gamble"]
    assert P.legal_texts(legal) == ["play 7x1", "play 7x2", "gamble", "pickup"]
    assert [str(legal[k]) for k in P.protocol_order(legal)] == P.legal_texts(legal)


def test_state_holds_every_key_of_the_protocol():
    state, _ = play_moves(
        load_scenario(SCENARIOS / "ruling_02_duel_pickup_and_gamble_with_legal_play.toml")
    )
    v = P.state_view(state, 0)
    assert set(v) == {
        "to_move",
        "stage",
        "hand",
        "pile",
        "top",
        "stock",
        "burned",
        "direction",
        "moves",
        "seats",
    }
    assert (
        v["hand"] == ["4", "7", "7"]
        and v["pile"] == ["6"]
        and v["top"] == "6"
        and v["stage"] == "hand"
    )
    assert set(v["seats"][1]) == {"hand", "known", "face_up", "face_down", "place"}
    assert v["seats"][1] == {
        "hand": 3,
        "known": [],
        "face_up": ["5"],
        "face_down": 1,
        "place": None,
    }
    json.dumps(v)  # plain JSON
    state.pile = [9, 2]  # a reset on top (duel's 2): anything may follow
    assert P.state_view(state, 0)["top"] is None
    state.pile = []
    assert P.state_view(state, 0)["top"] is None


def test_burned_cards_are_told_in_the_order_they_burned():
    # the pile 8 Q, then a gamble turns a 10, which burns them: bottom first, the 10 last
    state, _ = play_moves(load_scenario(SCENARIOS / "ruling_02_duel_gamble_ten_burns.toml"))
    assert state.burned_order == [8, 12, 10]
    assert P.state_view(state, 0)["burned"] == ["8", "Q", "10"]


def test_result_places_share_the_places_between_after_a_forfeit():
    from types import SimpleNamespace

    # 4 seats: seat 2 went out first, seat 0 forfeits, seats 1 and 3 share places 2 and 3
    st = SimpleNamespace(place_of=lambda i: {2: 1}.get(i, 0))
    assert P.result_places(st, 0, 4) == [4, 2.5, 1, 2.5]
    assert P.result_places(st, 3, 4) == [2.5, 2.5, 1, 4]
    st2 = SimpleNamespace(place_of=lambda i: 0)
    assert P.result_places(st2, 1, 2) == [1, 2]


@pytest.mark.parametrize(
    "name, said",
    [
        ("silent", "no answer within 500 ms"),
        ("oldproto", "protocol 0"),
        ("noise", "Segmentation fault (not really)"),
    ],
)
def test_a_bot_that_does_not_greet_is_refused_naming_it_and_what_it_printed(
    tmp_path, monkeypatch, name, said
):
    """The greeting waits :data:`~shedsim.bot.protocol.HELLO_S` (patched here), and a refused
    bot is killed at once: ``silent`` sleeps a minute, it is not waited on."""
    monkeypatch.setattr(P, "HELLO_S", 0.5)
    asked, stopped = _spy_bot_process(monkeypatch)
    with pytest.raises(BP.BotStartError) as e:
        BP.check_bot("mybot", bots.command(tmp_path, name))
    assert "'mybot'" in str(e.value) and said in str(e.value)
    assert asked == [("hello", 0.5)]
    assert [grace for grace, _ in stopped] == [0.0]  # no bye, no grace: killed at once
    if name == "silent":
        assert stopped[0][1] == -signal.SIGKILL


def test_a_bot_that_exits_at_once_is_refused_saying_how_it_ended_once():
    """A program that ends without a word (``true``): the refusal says how it ended, once
    (before, the fault's words and the exit were both appended: the same words twice)."""
    import shutil

    with pytest.raises(BP.BotStartError) as e:
        BP.check_bot("x", shutil.which("true"))
    assert str(e.value).count("exited with status 0") == 1, str(e.value)


def test_a_bot_that_cannot_start_is_refused(tmp_path):
    with pytest.raises(BP.BotStartError, match="cannot start 'no-such-program-x'"):
        BP.check_bot("ghost", "no-such-program-x --flag")


def test_the_command_is_split_as_a_shell_splits_words_and_run_without_a_shell(tmp_path):
    script = bots.write(tmp_path, "first")
    weird = tmp_path / "dir with space"
    weird.mkdir()
    (weird / "b.py").write_text(script.read_text())
    import shlex
    import sys

    hello = BP.check_bot("b", f"{shlex.quote(sys.executable)} '{weird / 'b.py'}'")
    assert hello["protocol"] == 1
    with pytest.raises(P.BotSpecError, match="cannot split"):
        P.split_command("python 'unclosed")


def _spy_bot_process(monkeypatch):
    """Record each :class:`~shedsim.bot.process.BotProcess` greeting (``(expected, timeout_s)``)
    and each stop of a started process (``(grace_s, exit status)``); returns the two lists."""
    asked, stopped = [], []
    ask, stop = BP.BotProcess.ask, BP.BotProcess.stop

    def spy_ask(self, message, expected, timeout_s):
        if expected == "hello":
            asked.append((expected, timeout_s))
        return ask(self, message, expected, timeout_s)

    def spy_stop(self, grace_s=0.0):
        started = self.proc is not None
        code = stop(self, grace_s)
        if started:
            stopped.append((grace_s, code))
        return code

    monkeypatch.setattr(BP.BotProcess, "ask", spy_ask)
    monkeypatch.setattr(BP.BotProcess, "stop", spy_stop)
    return asked, stopped


def _games(
    tmp_path,
    bot: str,
    entries=None,
    players=2,
    games=6,
    move_ms=1000,
    game_ms=None,
    rules="shithead",
):
    """Play ``games`` games of a tournament schedule (the bot as the last entry) through
    :func:`shedsim.bot.table.play_games`; returns (records, ChunkBots, schedule)."""
    from shedsim.plugins import discover

    entries = entries or ("greedy",)
    spec = RunSpec(
        build(rules),
        players,
        (*entries, "bot:" + bots.command(tmp_path, bot)),
        (*entries, bot),
        seed=11,
        games=games,
        bot_move_ms=move_ms,
        bot_game_ms=game_ms,
    )
    sched = schedule_games(spec, 0, games)
    dk, sk = game_keys(spec.seed, sched["index"], sched["deal"], spec.stream)
    rows = np.arange(games)
    rec, rep = play_games(spec, sched, dk, sk, rows, discover([]))
    return rec, rep, sched


@pytest.mark.parametrize(
    "bot, kind",
    [
        ("late", "timeout"),
        ("garbage", "invalid"),
        ("deep", "invalid"),
        ("illegal", "illegal"),
        ("badswap", "illegal"),
        ("dies", "crash"),
    ],
)
def test_each_fault_forfeits_its_game_and_the_bot_plays_the_next_one(
    tmp_path, monkeypatch, bot, kind
):
    monkeypatch.setenv("LATE_S", "0.4")
    rec, rep, sched = _games(tmp_path, bot, move_ms=200, games=4)
    code = P.FAULTS.index(kind) + 1
    bot_seat = np.argmax(sched["seating"] == 1, axis=1)
    # every game: the bot forfeits (its 3rd move, or the swap), placed last; the other seat, alone
    # in, takes the place left (first): a game played to its end, not an unfinished one
    assert (rec["forfeit"][np.arange(4), bot_seat] == code).all()
    assert (rec["places"][np.arange(4), bot_seat] == 2).all()
    assert (rec["places"][np.arange(4), 1 - bot_seat] == 1).all()
    assert (rec["end"] == P.END_FORFEIT).all() and not rec["unfinished"].any()
    assert rep.forfeits == {bot: {kind: 4}}
    assert [(f.kind, f.game, f.seat) for f in rep.faults] == [
        (kind, 0, int(bot_seat[0]))
    ]  # the first only
    f = rep.faults[0]
    assert json.loads(f.sent)["type"] in ("move", "swap") and f.message
    if bot == "garbage":
        assert f.got == "{not json"
    if bot == "deep":
        assert "nested too deeply" in f.message
    if kind == "crash":
        assert f.got is None and "exited with status 1" in f.message
    if (
        bot != "badswap"
    ):  # played on, or started again (greeted): it played up to its 3rd move in every game
        assert (rec["moves"] >= 4).all()


def test_a_bot_at_two_seats_runs_two_processes_kept_from_game_to_game(tmp_path):
    rec, rep, sched = _games(
        tmp_path, "pid", players=3, games=6
    )  # entries greedy, pid: tables hold pid twice
    assert (sched["seating"] == 1).sum(axis=1).max() == 2
    pids = {
        line
        for text in rep.stderr.values()
        for line in text.splitlines()
        if line.startswith("pid ")
    }
    assert len(pids) == 2  # one process per seat it holds, not one per game
    assert rep.hello["pid"]["name"] == "pid" and not rec["forfeit"].any()


def test_the_clock_counts_down_a_game_budget_and_a_spent_budget_is_a_timeout(tmp_path):
    rec, rep, sched = _games(tmp_path, "pid", games=2, move_ms=500, game_ms=60_000)
    clocks = [
        json.loads(line[6:])
        for text in rep.stderr.values()
        for line in text.splitlines()
        if line.startswith("clock ")
    ]
    assert clocks[0]["move_ms"] == 500 and clocks[0]["left_ms"] <= 60_000
    assert all(c["left_ms"] is not None for c in clocks)
    rec, rep, _ = _games(tmp_path, "slow", games=2, move_ms=500, game_ms=100)
    assert rep.forfeits == {"slow": {"timeout": 2}}
    rec, rep, _ = _games(tmp_path, "pid", games=1, move_ms=700)
    clocks = [
        json.loads(line[6:])
        for text in rep.stderr.values()
        for line in text.splitlines()
        if line.startswith("clock ")
    ]
    assert clocks[0] == {"move_ms": 700, "left_ms": None}


def test_standard_error_is_read_all_the_time_so_a_chatty_bot_never_blocks(tmp_path):
    rec, rep, _ = _games(tmp_path, "chatty", games=2)
    assert not rec["forfeit"].any()
    text = rep.stderr["chatty"]
    assert "more bytes of standard error not kept" in text and len(text) < BP.STDERR_KEEP + 200


def test_bye_ends_a_bot_and_one_that_stays_is_killed(tmp_path, monkeypatch):
    """``stays`` sleeps a minute after ``bye``: it gets what is left of
    :data:`~shedsim.bot.protocol.BYE_S` (patched here), then is killed; ``first`` exits."""
    monkeypatch.setattr(P, "BYE_S", 0.3)
    _, stopped = _spy_bot_process(monkeypatch)
    rec, rep, _ = _games(tmp_path, "stays", games=1)
    assert not rec["forfeit"].any()
    assert stopped and all(0 < grace <= 0.3 for grace, _ in stopped)
    assert all(code == -signal.SIGKILL for _, code in stopped)
    stopped.clear()
    _games(tmp_path, "first", games=1)
    assert stopped and all(0 < grace <= 0.3 and code == 0 for grace, code in stopped)


def test_chatter_is_told_by_its_first_character_alone():
    for line in (b"", b"   ", b"hello", b"[1, 2]", b'"text"', b"42", b"null", b"# {", b"\r"):
        assert P.is_chatter(line), line
    for line in (b"{", b'{"type": "move"}', b'  {"note": 1}  \r', b"\xef\xbb\xbf{}", b"{not json"):
        assert not P.is_chatter(line), line


def test_a_json_object_that_answers_nothing_is_unasked_and_another_answer_is_illegal():
    for line in (b'{"note": "hi"}', b'{"type": "log"}', b'{"type": 3}', b"{}"):
        assert P.read_answer(line, "swap") is None, line
    assert P.read_answer(b'{"type": "swap", "face_up": []}', "swap")["type"] == "swap"
    with pytest.raises(P.Fault) as e:
        P.read_answer(b'{"type": "move", "move": "pickup"}', "swap")
    assert e.value.kind == "illegal" and "type 'move', not 'swap'" in str(e.value)
    with pytest.raises(P.Fault) as e:
        P.read_answer(b"{not json", "swap")
    assert e.value.kind == "invalid"


def test_a_hello_protocol_given_as_a_string_is_named_as_such():
    why = P.check_hello({"type": "hello", "name": "x", "protocol": "1"})
    assert why == 'protocol must be the integer 1, got the string "1"'
    assert "no protocol" in P.check_hello({"type": "hello", "name": "x"})
    assert "protocol 2" in P.check_hello({"type": "hello", "name": "x", "protocol": 2})


def test_a_bot_whose_relative_path_is_not_in_the_current_directory_is_named_so(
    tmp_path, monkeypatch
):
    bots.write(tmp_path, "first")
    monkeypatch.chdir(tmp_path)
    import shlex
    import sys

    command = shlex.join([sys.executable, "first.py"])
    assert BP.missing_paths(command) == [] and BP.check_bot("mine", command)["name"] == "first"
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert BP.missing_paths(command) == ["first.py"]
    with pytest.raises(BP.BotStartError) as e:
        BP.check_bot("mine", command)
    assert "could not be started from the current directory" in str(e.value)
    assert "'first.py' is not found there" in str(e.value)
    assert BP.missing_paths("node --flag=a/b /abs/x.js sub/bot.js 'a b.js'") == ["sub/bot.js"]


def test_the_log_shows_a_long_line_cut_with_a_note():
    from shedsim.bot import log as bot_log

    files = [
        {
            "chunk": 0,
            "faults": [],
            "unasked": {"b": ["y" * 5000]},
            "stderr": {"b": "short\n" + "x" * 5000 + "\n"},
        }
    ]
    text = bot_log.log_text(files)
    assert "short\n" + "x" * bot_log.LINE_CHARS + " [4,000 more characters not shown]" in text
    assert "y" * 200 + " [4,800 more characters not shown]" in text
    assert max(map(len, text.splitlines())) < bot_log.LINE_CHARS + 200
