"""The command line (shedsim.cli) through typer's CliRunner.

Bad input exits 2 with ``error: ...`` on stderr naming the field; a scenario whose
expectations fail exits 1 printing expected and actual; valid commands exit 0.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shedsim.cli import ORDER, app

HERE = Path(__file__).resolve().parent
INVALID = sorted((HERE / "scenarios" / "invalid").glob("*.toml"))
FAILING = sorted((HERE / "scenarios" / "failing").glob("*.toml"))
ENV = {"COLUMNS": "220", "NO_COLOR": "1", "TERM": "dumb"}

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args], env=ENV)


def stderr_of(result) -> str:
    try:
        return result.stderr
    except (ValueError, AttributeError):  # older click: stderr mixed into output
        return result.output


def assert_usage_error(result, *needles: str) -> str:
    err = stderr_of(result)
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert "error" in err.lower(), err
    for n in needles:
        assert n in err, (n, err)
    assert "Traceback" not in result.output
    return err


# --------------------------------------------------------------------------- invalid input
def test_unknown_preset():
    assert_usage_error(invoke("rules", "show", "nosuch"), "rules", "nosuch")


def test_unknown_toggle():
    assert_usage_error(invoke("rules", "show", "shithead", "--house", "nosuch"), "nosuch")


def test_contradictory_toggles():
    err = assert_usage_error(
        invoke("rules", "show", "palace", "--house", "hand_size:2", "--house", "hand_size:4"),
        "hand_size",
    )
    assert "hand_size:2" in err or "hand_size:4" in err


@pytest.mark.parametrize(
    "rules, players", [("duel", 3), ("duel", 1), ("shithead", 6), ("nines", 5), ("family", 5)]
)
def test_players_outside_the_range(rules, players):
    assert_usage_error(invoke("trace", "--rules", rules, "--players", players), "players")


def test_trace_unknown_preset_and_toggle():
    assert_usage_error(invoke("trace", "--rules", "nosuch", "--players", 2), "nosuch")
    assert_usage_error(
        invoke("trace", "--rules", "family", "--house", "jokers", "--players", 2), "jokers"
    )


def test_trace_unknown_strategy():
    assert_usage_error(
        invoke("trace", "--rules", "family", "--players", 2, "--strategies", "nosuchstrategy"),
        "nosuchstrategy",
    )


def test_bad_rules_file(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('preset = "palace"\nhand_size = "three"\n', encoding="utf-8")
    assert_usage_error(invoke("rules", "show", "--rules-file", p), "hand_size")
    p.write_text("preset = \n", encoding="utf-8")
    assert_usage_error(invoke("rules", "show", "--rules-file", p), "rules-file")
    assert_usage_error(invoke("trace", "--rules", str(tmp_path / "missing.toml")), "rules-file")


def _comment_field(path: Path) -> str:
    comment = " ".join(
        line.lstrip("#").strip() for line in path.read_text().splitlines() if line.startswith("#")
    )
    m = re.search(r'field\s+"([^"]+)"', comment)
    assert m, f"{path.name}: the comment should name the field the error must mention"
    return m.group(1)


def test_invalid_scenarios_exist():
    assert len(INVALID) >= 4
    assert len(FAILING) >= 1


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_scenario_exits_2_naming_the_field(path):
    field = _comment_field(path)
    for cmd in ("run", "show"):
        assert_usage_error(invoke("scenario", cmd, path), field, path.name)


SCENARIO = textwrap.dedent("""\
    rules = "shithead"
    to_move = 0
    pile = []
    stock = []
    moves = {moves}

    [[seats]]
    hand = ["Q", "5"]
    face_down = ["3"]

    [[seats]]
    hand = ["4", "K"]
    face_down = ["3"]

    [expect]
    {expect}
    """)


def _scenario(tmp_path, moves, expect="", name="s.toml") -> Path:
    p = tmp_path / name
    p.write_text(SCENARIO.format(moves=moves, expect=expect), encoding="utf-8")
    return p


def test_scenario_with_an_illegal_move_exits_2(tmp_path):
    p = _scenario(tmp_path, '["play Qx1", "play 4x1"]')
    err = assert_usage_error(invoke("scenario", "run", p), "moves[1]")
    assert "play 4x1" in err


def test_scenario_with_an_unknown_move_exits_2(tmp_path):
    p = _scenario(tmp_path, '["play Qx1", "jump 3"]')
    assert_usage_error(invoke("scenario", "run", p), "moves[1]")


def test_scenario_missing_file_exits_2(tmp_path):
    assert_usage_error(invoke("scenario", "run", tmp_path / "nothere.toml"), "nothere.toml")


@pytest.mark.parametrize("path", FAILING, ids=[p.stem for p in FAILING])
def test_failing_scenario_exits_1_with_expected_and_actual(path):
    r = invoke("scenario", "run", path)
    assert r.exit_code == 1, (r.exit_code, r.output)
    assert "expected" in r.output and "actual" in r.output
    assert "FAIL" in r.output


def test_own_failing_scenario_prints_the_key(tmp_path):
    p = _scenario(tmp_path, '["play Qx1"]', "to_move = 0\nburned = 3\n")
    r = invoke("scenario", "run", p)
    assert r.exit_code == 1, r.output
    out = r.output
    assert "to_move" in out and "burned" in out
    assert re.search(r"to_move: expected 0, actual 1", out), out
    assert re.search(r"burned: expected 3, actual 0", out), out


def test_mixed_run_invalid_wins(tmp_path):
    good = _scenario(tmp_path, '["play Qx1"]', 'to_move = 1\npile = ["Q"]', "good.toml")
    bad = _scenario(tmp_path, '["play Qx1"]', "to_move = 0", "bad.toml")
    ugly = _scenario(tmp_path, '["play Qx1", "play 4x1"]', "", "ugly.toml")
    assert invoke("scenario", "run", good).exit_code == 0
    assert invoke("scenario", "run", good, bad).exit_code == 1
    assert invoke("scenario", "run", good, bad, ugly).exit_code == 2


# --------------------------------------------------------------------------- valid commands
def test_rules_list():
    r = invoke("rules", "list")
    assert r.exit_code == 0, r.output
    for name in ("duel", "nines", "family", "palace", "shithead"):
        assert name in r.output
    from shedsim.rules.settings import FILE_KEYS, TOGGLES

    for word in (*TOGGLES, *FILE_KEYS):  # every house toggle and rules-file key of the table
        assert word in r.output, word


def test_rules_list_and_show_fit_80_columns_and_say_yes_or_no():
    env = {**ENV, "COLUMNS": "80"}
    for args in (["rules", "list"], ["rules", "show", "duel"]):
        r = runner.invoke(app, args, env=env)
        assert r.exit_code == 0, r.output
        assert max(len(line) for line in r.output.splitlines()) <= 80
        assert "\u2026" not in r.output and "..." not in r.output  # wrapped, never cut
        assert "True" not in r.output and "False" not in r.output  # one vocabulary: yes / no
    r = runner.invoke(app, ["rules", "list"], env=env)
    assert (
        "dealer_left" in r.output and "lowest_faceup" in r.output
    )  # whole words, not "dealer_l..."
    assert re.search(
        r"deck gamble\W+yes", runner.invoke(app, ["rules", "show", "duel"], env=env).output
    )


def test_rules_show_palace_low7():
    r = invoke("rules", "show", "palace", "--house", "low7")
    assert r.exit_code == 0, r.output
    assert "palace" in r.output and "low7" in r.output
    assert "can play" in r.output
    lines = [ln for ln in r.output.splitlines()]
    # the row of effective top 7: legal ranks 2..7 and 10 only
    row = next(
        ln for ln in lines if re.match(r"^\W*7\W", ln) and ln.count("x") + ln.count(".") >= 13
    )
    marks = re.findall(r"[x.]", row.split("7", 1)[1])[:13]
    assert "".join(marks) == "xxxxxx..x....", row


def test_rules_show_default_and_file(tmp_path):
    r = invoke("rules", "show")
    assert r.exit_code == 0 and "shithead" in r.output
    p = tmp_path / "mine.toml"
    p.write_text('preset = "family"\nname = "kitchen"\nhouse = ["skip8"]\n', encoding="utf-8")
    r = invoke("rules", "show", "--rules-file", p)
    assert r.exit_code == 0, r.output
    assert "kitchen" in r.output and "skip8" in r.output


def test_rules_show_titles_and_help(tmp_path):
    p = tmp_path / "house.toml"
    p.write_text('preset = "shithead"\nhouse = ["low7"]\n', encoding="utf-8")
    r = invoke("rules", "show", "--rules-file", p)
    assert r.exit_code == 0, r.output
    assert "Rule set shithead + low7" in r.output  # the preset itself is not changed: no *
    p.write_text('preset = "shithead"\nname = ""\n', encoding="utf-8")
    assert_usage_error(invoke("rules", "show", "--rules-file", p), "name", "empty")
    p.write_text('preset = "shithead"\nburn = [1]\n', encoding="utf-8")
    r = invoke("rules", "show", "--rules-file", p)
    assert r.exit_code == 0 and re.search(r"burn\W+A\W", r.output), r.output
    assert_usage_error(invoke("rules", "show", "--house", "reverse:15"), "reverse:15")
    h = invoke("rules", "show", "--help").output
    assert "--rules-file" in h and "--rules " not in h and "overrides --rules" not in h


def test_rules_list_states_the_stall_default_as_the_code_sets_it():
    from shedsim.rules.settings import STALL_DEFAULT_TEXT

    out = " ".join(invoke("rules", "list").output.split())
    assert "by player count" not in out
    assert out.count(STALL_DEFAULT_TEXT) >= 3  # the caption, the stall:N row and the file key


def test_scenario_show(tmp_path):
    p = _scenario(tmp_path, '["play Qx1"]', "to_move = 1")
    r = invoke("scenario", "show", p)
    assert r.exit_code == 0, r.output
    assert "legal moves" in r.output
    assert "play Qx1" in r.output and "play 5x1" in r.output
    assert "after the moves" in r.output
    assert "play Kx1" in r.output


def test_scenario_show_of_a_shipped_scenario():
    shipped = sorted(HERE.joinpath("scenarios").glob("*.toml"))
    assert shipped
    r = invoke("scenario", "show", shipped[0])
    assert r.exit_code == 0, r.output
    assert "legal moves" in r.output and "seat 0" in r.output


def test_scenario_run_passing(tmp_path):
    p = _scenario(tmp_path, '["play Qx1"]', 'to_move = 1\npile = ["Q"]\nlegal = ["play Kx1"]')
    r = invoke("scenario", "run", p)
    assert r.exit_code == 0, r.output
    assert "ok" in r.output and "1 passed, 0 failed" in r.output


def test_trace():
    r = invoke("trace", "--rules", "shithead", "--players", 3, "--seed", 5)
    assert r.exit_code == 0, (r.output, r.exception)
    lines = r.output.strip().splitlines()
    assert "shithead" in lines[0] and "seed 5" in lines[0]
    assert "dealer seat 0" in lines[1]
    assert sum(ln.startswith("  swap seat ") for ln in lines) == 3
    moves = [
        ln
        for ln in lines
        if re.match(r"^\s*\d+\. seat \d \(\w+\) \[(hand|face-up|face-down)\] ", ln)
    ]
    assert moves, r.output
    numbers = [int(ln.split(".")[0]) for ln in moves]
    assert numbers == list(range(1, len(numbers) + 1))
    assert lines[-1].startswith("places: ")
    if not any(ln.startswith("unfinished") for ln in lines):
        seats = re.findall(r"seat (\d)", lines[-1])
        assert sorted(seats) == ["0", "1", "2"]
    # the same seed plays the same game
    again = invoke("trace", "--rules", "shithead", "--players", 3, "--seed", 5)
    assert again.output == r.output


def test_trace_game_index_is_the_tournament_numbering():
    """Game g of a 3-seat tournament is rotation g % 3 of deal g // 3, dealt by seat deal % 3."""
    for g in (4, 7):
        r = invoke("trace", "--rules", "family", "--players", 3, "--seed", 1, "--game", g)
        assert r.exit_code == 0, r.output
        assert f"game {g} (deal {g // 3}, dealer seat {g // 3 % 3})" in r.output
        assert f"dealer seat {g // 3 % 3}" in r.output.splitlines()[1]


def test_trace_move_cap_reports_unfinished():
    r = invoke("trace", "--rules", "palace", "--players", 4, "--seed", 2, "--house", "max_moves:10")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[-2].startswith("unfinished (move cap)") and "move cap 10 reached" in lines[-3]


def test_strategies():
    r = invoke("strategies")
    assert r.exit_code == 0, r.output
    assert "greedy" in r.output and "random" in r.output


def test_import_cli_does_not_import_numba():
    code = (
        "import sys, shedsim.cli; assert 'numba' not in sys.modules, 'numba imported'; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# --------------------------------------------------------------------------- parameter ranges,
# defaults by traits
def _range_cases(spec: str, out: Path):
    """Every command that takes a strategy spec, with ``spec`` in the option that takes it."""
    hint_file = HERE.parent / "docs" / "examples" / "hint_fourth_seven.toml"
    quiet = ("--games", "10", "--quiet")
    return [
        (
            "tournament --strategies",
            ["tournament", "--strategies", f"greedy,{spec}", *quiet, "--out", out],
        ),
        ("sprt --a", ["sprt", "--a", spec, "--b", "greedy", "--quiet", "--out", out]),
        (
            "compare-rules --strategies",
            [
                "compare-rules",
                "-r",
                "shithead",
                "-r",
                "duel",
                "-p",
                "2",
                "-S",
                f"greedy,{spec}",
                *quiet,
                "--out",
                out,
            ],
        ),
        ("swaps --strategy", ["swaps", "--strategy", spec, *quiet, "--out", out]),
        ("swaps --swap-policy", ["swaps", "--swap-policy", spec, *quiet, "--out", out]),
        ("tips --base", ["tips", "--base", spec, *quiet, "--out", out]),
        ("tips --opponents", ["tips", "--opponents", spec, *quiet, "--out", out]),
        ("tune --strategy", ["tune", "--strategy", spec, "--budget", "1", *quiet, "--out", out]),
        (
            "tune --field",
            ["tune", "--field", f"greedy,{spec}", "--budget", "1", *quiet, "--out", out],
        ),
        ("hint --policy", ["hint", hint_file, "--policy", spec]),
        ("play --opponents", ["play", "--opponents", spec]),
        ("play --hint-policy", ["play", "--hint-policy", spec]),
        ("bench --strategy", ["bench", "--strategy", spec, "--games", "10"]),
        ("trace --strategies", ["trace", "--strategies", f"{spec},greedy"]),
    ]


@pytest.mark.parametrize("value", ["-1", "999999999999999999999"])
def test_every_command_refuses_a_parameter_outside_its_range(tmp_path, value):
    """heuristic:search=-1 was played, and heuristic:search=999999999999999999999 ended in an
    OverflowError traceback: every command that takes a strategy spec refuses both with exit
    2, naming the option, the strategy, the parameter, the value and the range, before it
    writes anything."""
    want = f"strategy 'heuristic': parameter search={value} is outside its range 0..1000"
    for _i, (option, args) in enumerate(
        _range_cases(f"heuristic:search={value}", tmp_path / "out")
    ):
        r = runner.invoke(app, [str(a) for a in args], env=ENV, input="")
        err = " ".join(stderr_of(r).split())
        assert r.exit_code == 2 and want in err, (option, r.exit_code, r.output)
        assert option.split()[1] in err, (option, err)  # the option is named
        assert "Traceback" not in r.output and "OverflowError" not in r.output, (option, r.output)
        assert not (tmp_path / "out").exists(), f"{option} left {tmp_path / 'out'} behind"


def test_tune_refuses_a_search_range_outside_the_declared_range(tmp_path):
    r = invoke("tune", "--param", "search=0:5000", "--budget", "1", "--out", tmp_path / "u")
    assert_usage_error(
        r, "--param 'search=0:5000': strategy 'heuristic': parameter search accepts 0..1000"
    )
    assert not (tmp_path / "u").exists()


def test_help_names_the_defaults_the_traits_select():
    """The defaults shown in --help are derived from the plugins' traits when the help is
    shown, never hand-typed: every command's help has its marks filled in."""
    from shedsim.plugins import discover, select

    known = discover([])
    for info in app.registered_commands:
        r = invoke(info.name, "--help")
        assert r.exit_code == 0 and "<<" not in r.output, (info.name, r.output)

    def flat(command: str) -> str:  # the help as one line, the table's borders taken out
        return " ".join(invoke(command, "--help").output.replace("│", " ").split())

    text = flat("tournament")
    assert f"(default: {', '.join(select(known, 'default'))}: every built-in" in text, text
    text = flat("hint")
    assert (
        f"Default: {select(known, 'policy')[0]}: the cheapest built-in strategy that searches"
        in text
    ), text
    from shedsim.analysis.tips import default_base

    text = flat("tips")
    assert (
        f"(default: {default_base()}: the built-in strategy whose parameters carry every tip"
        in text
    ), text


def test_strategies_shows_traits_ranges_and_the_choices():
    r = invoke("strategies")
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "heuristic: the beginner tips" in out and "search=8 (0..1000)" in out
    assert (
        "traits: cost moderate; search yes (off with search=0); uses own_cards, pile, "
        "opponents, unseen" in out
    )
    assert "a variant of heuristic" in out and "loops in self-play" in out
    assert "@default: aggressive, greedy, heuristic, random (every built-in" in out
    assert "@reference: greedy (" in out and "@policy: heuristic (" in out


def test_a_role_in_strategies_expands_to_what_the_traits_select():
    from shedsim.analysis.tournament import TournamentError, parse_entries

    assert parse_entries("@baseline,@reference") == [("random", "random"), ("greedy", "greedy")]
    with pytest.raises(
        TournamentError, match=r"'@best' names no selection; use one of @default, @ladder"
    ):
        parse_entries("@best")


# --------------------------------------------------------------------------- the command line reads
# plainly
def test_help_shows_no_type_after_a_flag():
    """Before, typer printed ``<bool>`` after every flag (--help, --quiet, --force, ...) of
    every command; an option with a value keeps its type."""
    for args in (
        [],
        ["rules"],
        ["scenario"],
        *([c] for c in ORDER if c not in ("rules", "scenario")),
        ["rules", "show"],
        ["scenario", "run"],
    ):
        r = invoke(*args, "--help")
        assert r.exit_code == 0, (args, r.output)
        assert "<bool>" not in r.output, (args, r.output)
    r = invoke("tournament", "--help")
    assert re.search(r"--games\s+-g\s+<int range>", r.output) and re.search(
        r"--quiet\s+-q\s+No progress", r.output
    )


def _every_command():
    import typer

    def walk(group, path):
        ctx = group.make_context("shedsim", [], resilient_parsing=True)
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            yield [*path, name], cmd
            if hasattr(cmd, "list_commands"):
                yield from walk(cmd, [*path, name])

    return list(walk(typer.main.get_command(app), []))


def test_help_reads_as_paragraphs_the_terminal_wraps():
    """Before, typer kept the line breaks of a wrapped docstring after its first paragraph, so
    ``bench --help`` and ``scenario run --help`` broke their lines at the source's width, not
    the terminal's. Every command's description (the text its ``--help`` shows) is paragraphs
    of one line each, and one of them renders so on a wide terminal."""
    commands = _every_command()
    names = [path for path, _ in commands]
    assert ["bench"] in names and ["scenario", "run"] in names and ["deals", "export"] in names
    for path, cmd in commands:
        paragraphs = (cmd.help or "").split("\n\n")
        assert not [p for p in paragraphs if "\n" in p and not p.startswith("\b")], path
    r = runner.invoke(app, ["scenario", "run", "--help"], env={**ENV, "COLUMNS": "300"})
    assert "(printing expected and actual), 2 when a file" in r.output, r.output


def test_the_commands_are_listed_in_task_order():
    """Before: trace, strategies, compile, bench, tournament, ... (the order of registration)."""
    out = invoke("--help").output
    at = [out.index(f"│ {name} ") for name in ORDER]
    assert at == sorted(at), [n for _, n in sorted(zip(at, ORDER))]
    for panel in ("Rules and strategies", "Studies", "Positions and games", "Reports", "Tools"):
        assert panel in out


def _ranking_header(output: str) -> list[str]:
    line = next(ln for ln in output.splitlines() if "┃ strategy" in ln)
    return [c.strip() for c in line.strip("┃ ").split("┃")]


def test_the_tournament_table_says_a_figure_shared_by_every_row_once(tmp_path):
    """Before, games and unfinished repeated the same figure on every row (here: every
    strategy plays every game, so each row held the run's unfinished total)."""
    r = invoke(
        "tournament",
        "--strategies",
        "greedy,aggressive",
        "--players",
        "2",
        "--games",
        "2000",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        tmp_path / "two",
    )
    assert r.exit_code == 0, r.output
    head = _ranking_header(r.output)
    assert "unfinished seat-games" not in head and "games" not in head, head
    assert "2,000 seat-games per strategy" in r.output
    assert re.search(r"2,000 games \([\d,]+ unfinished", r.output), (
        r.output
    )  # the total, once, under the table
    # three entries at two seats: each strategy has its own unfinished games, so the column stays
    r = invoke(
        "tournament",
        "--strategies",
        "greedy,aggressive,aggressive",
        "--players",
        "2",
        "--games",
        "2001",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        tmp_path / "three",
    )
    assert r.exit_code == 0, r.output
    assert "unfinished seat-games" in _ranking_header(r.output)


def test_compare_rules_says_the_deals_once(tmp_path):
    r = invoke(
        "compare-rules",
        "-r",
        "duel",
        "-r",
        "duel+low7",
        "--players",
        "2",
        "--strategies",
        "greedy,random",
        "--games",
        "200",
        "--workers",
        "1",
        "--no-plots",
        "--out",
        tmp_path / "o",
    )
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.output.splitlines() if "┃ variant" in ln and "mean moves" in ln)
    assert "deals" not in line and "100 deals per variant" in r.output, r.output


def test_every_place_says_who_starts_in_the_same_words():
    """The engine starts the seat after the dealer under dealer_left (duel, family, palace);
    before, the rule-set table said "first seat" for duel and "left of dealer" for the others,
    and rules list/show said "dealer_left"; the rules reference says it in the same words."""
    from shedsim.rules.engine import deal, start_seat
    from shedsim.rules.ruleset import preset
    from shedsim.seeding import SplitMix64

    for name, players in (("duel", 2), ("family", 3), ("palace", 4)):
        rs = preset(name)
        assert rs.start == "dealer_left"
        for dealer in range(players):
            state, rng = deal(rs, players, 12345 + dealer, dealer)
            assert start_seat(state, SplitMix64(1)) == (dealer + 1) % players
        show = " ".join(invoke("rules", "show", name).output.split())
        assert "start │ the seat after the dealer (dealer_left)" in show, show
    listed = " ".join(invoke("rules", "list").output.split())
    assert listed.count("start: the seat after the dealer (dealer_left)") == 3, listed
    page = (HERE.parent / "docs" / "reference" / "rules.md").read_text()
    head = next(ln for ln in page.splitlines() if ln.startswith("| ") and "`duel`" in ln)
    row = next(ln for ln in page.splitlines() if ln.startswith("| who starts (`start`)"))
    cells = dict(
        zip(
            [c.strip(" `") for c in head.split("|")[2:-1]],
            [c.strip() for c in row.split("|")[2:-1]],
        )
    )
    for name in ("duel", "family", "palace"):
        assert cells[name] == "seat after the dealer", cells


def test_minus_o_is_out_in_every_command_that_writes_a_directory():
    """-o is --out wherever a command has --out (before, gauntlet's -o was --opponents, so
    ``gauntlet ... -o DIR`` read DIR as an opponent), and nothing else but in play, which
    writes no directory (its -o is --opponents)."""
    meaning: dict[str, set[str]] = {}
    for path, cmd in _every_command():
        for p in getattr(cmd, "params", []):
            longs = [o for o in p.opts if o.startswith("--")]
            for short in (o for o in p.opts if not o.startswith("--")):
                meaning.setdefault(short, set()).update(
                    f"{' '.join(path)} {lo}" if (short, lo) == ("-o", "--opponents") else lo
                    for lo in longs
                )
        if any("--out" in p.opts for p in getattr(cmd, "params", [])):
            outs = [p for p in cmd.params if "--out" in p.opts]
            assert "-o" in outs[0].opts, (path, outs[0].opts)
    assert meaning["-o"] == {"--out", "play --opponents"}, meaning["-o"]


def test_help_lists_force_only_where_it_changes_something():
    """tips and tune write beside the files of an --out directory anyway (never replacing
    one), so --force changes nothing there: their help does not offer it (before, it said
    "Write into a --out directory that holds other files"), while the run commands' does;
    tune's --no-plots help no longer promises what --resume keeps (tune stores no charts
    option)."""
    for command in ("tips", "tune"):
        r = invoke(command, "--help")
        assert r.exit_code == 0 and "--force" not in r.output, (command, r.output)
    assert "--force" in invoke("tournament", "--help").output
    r = invoke("tune", "--help")
    assert "stays without them on --resume" not in " ".join(r.output.split()), r.output
