"""Where heuristic's time goes: the anatomy of its end-game look-ahead, a measurement.

heuristic (``strategies/heuristic.py``) judges each legal play at an end-game decision by
``search`` samples of the hidden cards, each finished by greedy rollouts
(:func:`shedsim.kernel.policies.rollout_places`). This tool plays heuristic against itself
(default parameters, shithead) and, at every decision where the look-ahead runs with two
plays or more, counts its real work (the rollouts and their moves, as heuristic's
``move_stats`` reports them) and also plays every candidate on every sample without the
search's exits, to see how much of the work could have told the moves apart::

    .venv/bin/python tools/search_cost.py --players 2 --games 2000 --json

Prints per table size: searched decisions per game, rollouts per searched decision, moves
per rollout (after the candidate move, as ``move_stats`` counts them), the rollouts' moves
against the game's own moves. The other figures are shares of the *full search*: every
candidate rolled out on every one of the ``search`` samples, without the search's exits
(a sample drawn again, a move out of reach). ``real_moves_share``: the moves the search
played as it stands, as a share of the full search's. ``settled``: the share of searched
decisions in which every rollout, of every candidate on every sample, gave one and the same
place (the choice is then the first candidate, and no rollout told the moves apart), and
``settled_moves_share`` the share of the full search's moves spent on them.
``stop_after_K``: a cheaper rule that would stop a search once every rollout on its first K
samples had given one and the same place (and take the first candidate): the share of
decisions it stops, the share whose choice it changes (the full search went on to choose
another), and the share of the full search's moves on the samples after the K-th in the
decisions it stops (the search as it stands plays some of them and skips others, so what
it would save of today's work lies below that share of the full search, and below that
share divided by ``real_moves_share`` of today's).

The figures on every candidate and sample come from the first ``--rows`` searched
decisions (``searches_kept``; the others are counted in ``searches_not_kept``).

The games are played here, by the kernel's own functions (deal, heuristic's swap, the start
rule, ``apply``), not through the game loop; a game is cut once ``LOOP_FROM`` moves pass
with no burn, no draw and nobody out (where the kernel begins to look for a proven loop).
The look-ahead's samples come from the observation's own stream, as in play, so the choices
are heuristic's.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.core import apply, deal, prepare, start_seat
from shedsim.kernel.nb import legal_moves
from shedsim.kernel.policies import deal_hidden, greedy_rollout, unseen_to_place
from shedsim.kernel.rng import GOLDEN
from shedsim.plugins import resolve
from shedsim.rules.ruleset import preset
from shedsim.rules.setting_types import RulesError
from strategies import heuristic as H

MAX_CANDIDATES = 160
"""Room for the legal moves of one decision (as heuristic's search allocates)."""


@njit(cache=False)
def _every_place(obs, rules, reps, places, cost):
    """Play every candidate play on each of the first ``reps`` samples that heuristic's
    search draws (no exits): ``places[k, c]`` the mover's place, ``cost[k, c]`` the
    rollout's moves after the candidate (as heuristic's ``move_stats`` counts them).
    Returns the number of candidates (0 when fewer than two, -1 when the observation does
    not account for a whole deck)."""
    moves = np.empty(MAX_CANDIDATES, np.int64)
    n_all = legal_moves(obs, rules, moves)
    n = 0
    for i in range(n_all):  # the candidates of heuristic's search_move
        if moves[i] >= L.PLAY_MIN or n_all == 1:
            moves[n] = moves[i]
            n += 1
    if n < 2:
        return 0
    rng = H.observation_stream(obs)
    unseen = np.empty(L.MAX_DECK, np.int64)
    pool = np.empty(L.MAX_DECK, np.int64)
    m = unseen_to_place(obs, rules, unseen)
    if m < 0:
        return -1
    sample = np.zeros(L.P_SIZE, np.int64)
    pub = np.empty(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    for k in range(reps):
        deal_hidden(obs, rules, rng, unseen, m, pool, sample)
        for c in range(n):
            pub[:] = obs
            priv[:] = sample
            places[k, c] = greedy_rollout(rules, pub, priv, obs[L.O_SEAT], 400, moves[c])
            cost[k, c] = pub[L.O_MOVES] - obs[L.O_MOVES] - 1  # after the candidate
    return n


@njit(cache=False)
def _self_play(rules, params, games, seed, places_out, cost_out, n_out, totals):
    """Play ``games`` games of heuristic in every seat; each searched decision's
    :func:`_every_place` tables go to row ``i`` of ``places_out``/``cost_out``
    (``float32[D, search, C]``, ``n_out[i]`` candidates) while rows last. ``totals``
    (``int64[5]``): the games' own moves, the searched decisions, the search's rollout moves
    and rollouts (heuristic's ``move_stats``), and its rollout moves in the decisions kept.
    Returns the rows written."""
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    drng = np.zeros(1, np.uint64)
    srng = np.zeros(1, np.uint64)
    reps = params[H.P_SEARCH]
    places = np.zeros((reps, MAX_CANDIDATES))
    cost = np.zeros((reps, MAX_CANDIDATES))
    stats = np.zeros(2, np.int64)
    players = rules[L.R_PLAYERS]
    rows = 0
    for g in range(games):
        drng[0] = np.uint64(seed) + GOLDEN * np.uint64(2 * g + 1)
        srng[0] = np.uint64(seed) + GOLDEN * np.uint64(2 * g + 2)
        deal(rules, pub, priv, drng, g % players)
        for s in range(players):
            visible = priv[L.P_HANDS + s] + pub[L.O_FACE_UP + s]
            pub[L.O_SEAT] = s
            up = H.swap(visible, s, players, rules, params, srng)
            pub[L.O_FACE_UP + s] = up
            priv[L.P_HANDS + s] = visible - up
        pub[L.O_SEAT] = start_seat(rules, pub, priv, drng)
        quiet = 0
        while pub[L.O_IN] > 1 and quiet < L.LOOP_FROM:
            prepare(pub, priv)
            was = (pub[L.O_IN], pub[L.O_STOCK_N], pub[L.O_BURNED_N])
            if H._searches(pub, params):
                before = stats[1]
                before_moves = stats[0]
                m = H.move_stats(pub, rules, params, srng, stats)
                if stats[1] > before:  # the search ran (two plays or more)
                    totals[1] += 1
                    if rows < n_out.shape[0]:
                        n = _every_place(pub, rules, reps, places, cost)
                        if 0 < n <= places_out.shape[2]:  # else not kept
                            places_out[rows, :, :n] = places[:, :n]
                            cost_out[rows, :, :n] = cost[:, :n]
                            n_out[rows] = n
                            rows += 1
                            totals[4] += stats[0] - before_moves
            else:
                m = H.move(pub, rules, params, srng)
            apply(rules, pub, priv, m)
            totals[0] += 1
            now = (pub[L.O_IN], pub[L.O_STOCK_N], pub[L.O_BURNED_N])
            quiet = quiet + 1 if now == was else 0
    totals[2] += stats[0]
    totals[3] += stats[1]
    return rows


ROWS = 100_000
"""Searched decisions kept by default (two ``float32[search, KEPT_CANDIDATES]`` tables each:
4 KiB at ``search=8``)."""
KEPT_CANDIDATES = 64
"""The most candidates a kept decision may have (one with more is counted as not kept)."""


def anatomy(players: int, games: int, seed: int, rows: int = ROWS) -> dict:
    """The figures described in the module docstring for one table size: ``games`` games
    of self-play from ``seed``; the first ``rows`` searched decisions are kept for the
    figures on every candidate and sample (``searches_kept``; the others are counted in
    ``searches_not_kept``)."""
    rules = preset("shithead").compile(players)
    params = resolve(["heuristic"])[0].params_array()
    reps = int(params[H.P_SEARCH])
    places = np.zeros((rows, reps, KEPT_CANDIDATES), np.float32)
    cost = np.zeros_like(places)
    n = np.zeros(rows, np.int64)
    totals = np.zeros(5, np.int64)
    k = _self_play(rules, params, games, seed, places, cost, n, totals)
    places, cost, n = places[:k], cost[:k], n[:k]
    cand = np.arange(places.shape[2])[None, :] < n[:, None]  # [d, c]: a candidate
    full_moves = (cost * cand[:, None, :]).sum(axis=(1, 2))

    def tied(upto: int) -> np.ndarray:
        first = places[:, :1, :1]
        same = (places[:, :upto, :] == first) | ~cand[:, None, :]
        return same.all(axis=(1, 2))

    settled = tied(reps)
    totals_full = places.sum(axis=1)
    totals_full[~cand] = np.inf
    choice = totals_full.argmin(axis=1)  # the first of the lowest totals, as the search
    figs = {
        "players": players,
        "games": games,
        "game_moves_per_game": totals[0] / games,
        "searched_per_game": totals[1] / games,
        "rollouts_per_search": totals[3] / max(totals[1], 1),
        "moves_per_rollout": totals[2] / max(totals[3], 1),
        "rollout_moves_per_game": totals[2] / games,
        "rollout_moves_per_game_move": totals[2] / max(totals[0], 1),
        "candidates_per_search": float(n.mean()),
        "searches_kept": int(len(n)),
        "searches_not_kept": int(totals[1] - len(n)),
        "real_moves_share": float(totals[4] / full_moves.sum()),
        "settled": float(settled.mean()),
        "settled_moves_share": float(full_moves[settled].sum() / full_moves.sum()),
    }
    for upto in (2, 4):
        stop = tied(upto)
        later = (cost[:, upto:, :] * cand[:, None, :]).sum(axis=(1, 2))
        figs[f"stop_after_{upto}"] = {
            "stopped": float(stop.mean()),
            "choice_changed": float((stop & (choice != 0)).mean()),
            "moves_saved_share": float(later[stop].sum() / full_moves.sum()),
        }
    return figs


def _positive(text: str) -> int:
    """An ``argparse`` type: an integer of at least 1."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def _lines(figs: dict, indent: str = "") -> list[str]:
    """``figs`` as aligned ``name: value`` lines, shares as percentages."""
    out = []
    for k, v in figs.items():
        if isinstance(v, dict):
            out.append(f"{indent}{k}:")
            out += _lines(v, indent + "  ")
        elif isinstance(v, float):
            share = k in SHARES
            out.append(f"{indent}{k:<30} {v:.1%}" if share else f"{indent}{k:<30} {v:,.1f}")
        else:
            out.append(f"{indent}{k:<30} {v:,}")
    return out


SHARES = {
    "real_moves_share",
    "settled",
    "settled_moves_share",
    "stopped",
    "choice_changed",
    "moves_saved_share",
}
"""The figures that are shares (printed as percentages)."""


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="The figures are described in the module docstring (tools/search_cost.py).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    rules = preset("shithead")
    ap.add_argument(
        "--players",
        type=int,
        default=2,
        help=f"seats at the table ({rules.min_players}..{rules.max_players})",
    )
    ap.add_argument("--games", type=_positive, default=2000, help="games of self-play")
    ap.add_argument("--seed", type=int, default=1, help="seed of the deals")
    ap.add_argument(
        "--rows",
        type=_positive,
        default=ROWS,
        help="searched decisions kept for the figures on every candidate and sample (the "
        "first ones; the rest counted as not kept)",
    )
    ap.add_argument("--json", action="store_true", help="one JSON line of figures")
    a = ap.parse_args()
    try:
        rules.check_players(a.players)
    except RulesError as e:
        ap.error(str(e))
    figs = anatomy(a.players, a.games, a.seed, a.rows)
    if a.json:
        print(json.dumps(figs))
        return
    print("\n".join(_lines(figs)))


if __name__ == "__main__":
    main()
