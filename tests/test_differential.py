"""Reference engine vs compiled kernel: identical move sequences, places and records.

``make test`` plays ``SHEDSIM_DIFF_GAMES`` (default 100) games per preset and player count,
and a sample of house-toggle combinations (30 games each, or an eighth as many when that is
more); ``make differential`` sets
``SHEDSIM_DIFF_PER_PRESET=100000``: 100,000 games per preset, shared equally by its
player counts. The
move cap is lowered to 600 so that the occasional endless game (e.g. two ``aggressive``
players) stays cheap on the reference engine while still exercising the cap.
Games that cannot end (proven loops, ``stall:N``, ``stalemate:most_cards``) have their own
cases, which also check that each way of ending actually occurs in them.
"""

import os

import numpy as np
import pytest

import shedsim.rules.settings as S
from differential import compare
from shedsim.rules.ruleset import PRESETS, RulesError, build, preset

GAMES = int(os.environ.get("SHEDSIM_DIFF_GAMES", "100"))
PER_PRESET = int(os.environ.get("SHEDSIM_DIFF_PER_PRESET", "0"))
CAP = "max_moves:600"

CASES = [
    (name, p)
    for name in PRESETS
    for p in range(preset(name).min_players, preset(name).max_players + 1)
]

TOGGLE_SETS = [
    ["low7"],
    ["low5"],
    ["low7", "low5"],
    ["invisible:3"],
    ["invisible:8", "skip8"],
    ["skip8"],
    ["reverse:K"],
    ["reverse:8", "skip8"],
    ["burn_passes"],
    ["random_starts"],
    ["dealer_left_starts"],
    ["pickup:always"],
    ["pickup:hand"],
    ["deck_gamble"],
    ["mix_last_hand"],
    ["two_decks"],
    ["hand_size:4", "table_size:2"],
    ["invisible:9", "reverse:3", "burn_passes", "deck_gamble"],
    ["two_decks", "skip8", "low7", "mix_last_hand", "pickup:hand+faceup"],
]
TOGGLE_CASES = [("shithead", 4, t) for t in TOGGLE_SETS] + [
    ("duel", 2, ["low7"]),
    ("nines", 3, ["low7", "skip8"]),
    ("family", 3, ["reverse:A", "mix_last_hand"]),
    ("palace", 5, ["invisible:8", "burn_passes"]),
    ("palace", 2, ["two_decks", "deck_gamble"]),
    ("shithead", 8, ["two_decks"]),
    ("nines", 4, ["two_decks", "pickup:always", "invisible:3"]),
]

STOP_CASES = [
    # (rules, players, toggles, strategies, ways of ending that must occur)
    ("shithead", 4, ["stall:0"], ("aggressive", "greedy", "heuristic"), {"finished", "loop"}),
    (
        "shithead",
        4,
        ["stall:200"],
        ("greedy", "heuristic", "aggressive", "random"),
        {"finished", "stalled", "loop"},
    ),
    (
        "shithead",
        3,
        ["stall:0", "stalemate:most_cards"],
        ("aggressive", "random", "greedy"),
        {"finished", "loop", "cap"},
    ),
    (
        "palace",
        4,
        ["stall:40", "stalemate:most_cards"],
        ("aggressive", "random", "greedy", "heuristic"),
        {"finished", "stalled"},
    ),
    (
        "duel",
        2,
        ["stall:300", "deck_gamble", "stalemate:most_cards"],
        ("aggressive", "heuristic", "random"),
        {"finished", "stalled", "loop"},
    ),
]


def changes(name: str, players: int, toggles: list[str], toggle: str) -> bool:
    """Whether ``toggle`` (one of ``toggles``) changes the compiled rules of ``name`` with
    ``toggles`` at ``players`` seats."""
    try:
        with_it = build(name, toggles).compile(players)
        without = build(name, [t for t in toggles if t != toggle]).compile(players)
    except RulesError:
        return False
    return not np.array_equal(with_it, without)


def covered(syntax: str, cases) -> bool:
    """Whether one of ``cases`` plays the toggle ``syntax`` (``pickup:MODE``...), the move
    cap included, where it changes the rules."""
    return any(
        S.find_toggle(t).syntax == syntax and changes(name, players, [*toggles, CAP], t)
        for name, players, toggles, *_ in cases
        for t in [*toggles, CAP]
    )


def _first_change(t: S.Toggle) -> tuple[str, int, list[str]]:
    """A case for toggle ``t``: its first example on the first preset it changes (at 4
    players, or the preset's most), trying shithead, palace, family, nines, duel."""
    for name in ("shithead", "palace", "family", "nines", "duel"):
        players = min(4, preset(name).max_players)
        for example in S.toggle_examples(t):
            if changes(name, players, [example, CAP], example):
                return name, players, [example]
    raise AssertionError(f"no example of {t.syntax} changes any preset")


TOGGLE_CASES += [
    _first_change(t)
    for syntax, t in S.TOGGLES.items()
    if not covered(syntax, TOGGLE_CASES + STOP_CASES)
]
"""Every house toggle of the table that the cases above do not play gets its own case."""


@pytest.mark.parametrize("name,players", CASES, ids=[f"{n}-{p}p" for n, p in CASES])
def test_presets_agree(name, players):
    rules = build(name, [CAP])
    counts = rules.max_players - rules.min_players + 1
    games = -(-PER_PRESET // counts) if PER_PRESET else GAMES
    problems = compare(rules, players, games, seed=20261129)
    assert problems == [], "\n".join(problems[:10])


@pytest.mark.parametrize(
    "name,players,toggles",
    TOGGLE_CASES,
    ids=[f"{n}-{p}p-{'+'.join(t)}" for n, p, t in TOGGLE_CASES],
)
def test_toggles_agree(name, players, toggles):
    rules = build(name, [*toggles, CAP])
    problems = compare(rules, players, max(30, GAMES // 8), seed=7)
    assert problems == [], "\n".join(problems[:10])


def test_mc_agrees_on_a_few_games():
    rules = build("shithead", ["max_moves:300"])
    problems = compare(rules, 3, 4, seed=3, names=("mc", "greedy", "heuristic"))
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize(
    "name,players,toggles,names,want",
    STOP_CASES,
    ids=[f"{n}-{p}p-{'+'.join(t)}" for n, p, t, _, _ in STOP_CASES],
)
def test_stopped_games_agree(name, players, toggles, names, want):
    rules = build(name, [*toggles, CAP])
    ends: list[str] = []
    problems = compare(rules, players, max(60, GAMES // 10), seed=11, names=names, ends=ends)
    assert problems == [], "\n".join(problems[:10])
    assert want <= set(ends), f"expected games ending {sorted(want)}, got {sorted(set(ends))}"
