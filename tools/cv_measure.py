"""Does an AIVAT-style control variate shrink a 2-player match's interval? A measurement.

shedsim's head-to-head tests play paired games (a deal, then the same deal with the seats
swapped). What pairing leaves is the luck of the stock draws, which diverge between the two
games. This tool takes it out of each game's score with the learned value
(:mod:`shedsim.kernel.value`; AIVAT: Burch, Schmid, Moravcik, Morrill and Bowling, AAAI 2018)
and compares the variance of X's pair score with and without the correction::

    .venv/bin/python tools/cv_measure.py --a heuristic --b greedy --pairs 4000 --seed 1

After the deal and the swap the stock is a uniformly random order of the cards not dealt, so
each card drawn is uniform over the stock's remaining multiset; a move that draws ``d`` cards
is ``d`` single draws. For each draw, with ``V`` seat 0's learned value (:func:`value0`, a
function of the whole position), the term

    V(position with the drawn card) - mean over the stock's cards c of V(position with c)

has mean zero whatever ``V`` is (each card weighted by its copies), so the game's score minus
the sum of its terms is unbiased. A draw's position is the one after its move (the pile as the
move left it, the seat to move next), the drawer's hand holding the cards drawn before it. At
2 players seat 1's value is ``1 - V``: its correction is minus seat 0's. Valid only where
:func:`shedsim.kernel.value.applies` holds, and with strategies that do not see the stock's
order (a cheating one's moves depend on the cards to come).

The games are played on the kernel with every move traced (``Kernel.play(trace_moves=T)``),
then replayed on the compiled engine (:func:`corrections`: re-dealt from their deal keys,
the recorded face-up cards and start seat, the traced moves); the replay must reach the
recorded places of every game traced to its end (asserted). Prints, per match: the pair
score's mean, standard error and variance raw, corrected (coefficient 1, as AIVAT) and with
the variance-minimising coefficient (CUPED's, fitted on the same games); their ratios (the
variance ratio is the ratio of games for one interval width); the mean correction with its
standard error (the bias check); the same at the level of single games. ``--unpaired``: a
fresh deal for every game (a bias check on independent games). The compiled functions are
not cached (``cache=False``): they hold the value's weights as constants, and a cache here
would not be dropped when the weights change (:func:`shedsim.layout._drop_stale_caches`
covers shedsim/ and strategies/ only).

The same games are also corrected with rollout values (:func:`shedsim.kernel.luck.luck`: the
face-down cards turned over and the last stock draws, each valued by greedy rollouts), with
``--reps`` rollouts per value and draws from a stock of at most ``--max-stock`` cards; their
figures are under ``rollout`` in ``--json``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.analysis.matchup import half_points, open_match, schedule
from shedsim.kernel.core import apply, place_by_cards, prepare
from shedsim.kernel.luck import MAX_STOCK, REPS, luck, redeal
from shedsim.kernel.nb import ix, one
from shedsim.kernel.value import HIDDEN, N_FEATURES, applies, win_probability
from shedsim.seeding import game_keys


@njit(cache=False)
def value0(pub, priv, mover, x, a):
    """The learned value of seat 0 in the 2-seat position (``pub``, ``priv``) with ``mover``
    to move: the model's win probability of the mover (:func:`shedsim.kernel.value.
    win_probability`), or one minus it where the mover is seat 1. Writes ``pub[O_SEAT]``;
    ``x`` (``float64[N_FEATURES]``) and ``a`` (``float64[HIDDEN]``) are scratch."""
    pub[L.O_SEAT] = mover
    p = win_probability(pub, priv, x, a)
    return p if mover == 0 else 1.0 - p


@njit(cache=False)
def _draw_terms(pub, priv, drawer, mover, hand_end, pos0, d, stock_before, size, x, a):
    """The terms of the ``d`` cards ``drawer`` drew from the stock in one move (deck
    positions ``pos0 .. pos0 + d - 1`` of ``priv[P_DECK:]``), the position being the one
    after the move (``mover`` to move next, the drawer's hand ``hand_end`` with every drawn
    card). Leaves the hand and the stock's size as the move left them; returns the sum of
    the terms (seat 0's value)."""
    base = hand_end
    for i in range(d):
        base -= one(priv[ix(L.P_DECK + pos0 + i)])
    total = 0.0
    hand = base
    for k in range(d):
        left = stock_before - k  # cards in the stock before this draw
        pub[L.O_STOCK_N] = left - 1
        drawn = priv[ix(L.P_DECK + pos0 + k)]
        mean = 0.0
        actual = 0.0
        for r in range(2, 15):
            c = 0
            for p in range(pos0 + k, size):
                if priv[ix(L.P_DECK + p)] == r:
                    c += 1
            if c == 0:
                continue
            priv[ix(L.P_HANDS + drawer)] = hand + one(r)
            v = value0(pub, priv, mover, x, a)
            mean += c * v
            if r == drawn:
                actual = v
        total += actual - mean / left
        hand += one(drawn)
    priv[ix(L.P_HANDS + drawer)] = hand_end
    pub[L.O_STOCK_N] = stock_before - d
    return total


@njit(cache=False)
def corrections(rules, deal_keys, dealers, start, face_up, trace, moves, corr, places, draws):
    """Replay games and sum their control-variate terms. For game ``g``: dealt from
    ``deal_keys[g]`` (uint64) with dealer ``dealers[g]`` as the kernel deals it, the face-up
    rows ``face_up[g]`` (int64[n, 2], packed) set as the swap left them, seat ``start[g]``
    to move first, then the recorded moves ``trace[g, :moves[g]]`` (int32[n, T], the
    kernel's ``trace``; ``moves[g]`` at most T) applied. Writes ``corr[g]`` (float64[n]: the
    sum of the terms of seat 0's value, see the module docstring), ``places[g]``
    (int8[n, 2], as the kernel records them) and ``draws[g]`` (int64[n]: cards drawn from
    the stock). Returns -1, or the first game whose move draws with a gamble (not
    supported: such rules are not the model's)."""
    n_games = deal_keys.shape[0]
    players = rules[L.R_PLAYERS]
    size = rules[L.R_DECK_SIZE]
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    x = np.zeros(N_FEATURES)
    a = np.zeros(max(HIDDEN, 1))
    for g in range(n_games):
        redeal(rules, pub, priv, deal_keys[g], dealers[g], face_up[g], start[g])
        total = 0.0
        n_draws = 0
        for t in range(moves[g]):
            if pub[L.O_IN] == 0:
                break
            m = np.int64(trace[g, t])
            if m == L.GAMBLE:
                return g
            prepare(pub, priv)
            drawer = pub[L.O_SEAT]
            before = pub[L.O_STOCK_N]
            apply(rules, pub, priv, m)
            d = before - pub[L.O_STOCK_N]
            if d > 0 and pub[L.O_IN] == players:
                total += _draw_terms(
                    pub, priv, drawer, pub[L.O_SEAT], priv[ix(L.P_HANDS + drawer)],
                    size - before, d, before, size, x, a,
                )  # fmt: skip
                n_draws += d
        n_in = pub[L.O_IN]
        if n_in > 0 and rules[L.R_STALEMATE] == L.STALEMATE_MOST_CARDS:
            place_by_cards(pub, pub[L.O_SEAT], pub[L.O_DIRECTION], players, n_in)
        for s in range(players):
            places[g, s] = pub[L.O_PLACE + s]
        corr[g] = total
        draws[g] = n_draws
    return -1


def play(
    a: str,
    b: str,
    units: int,
    seed: int,
    batch: int,
    trace_len: int,
    paired: bool = True,
    reps: int = REPS,
    max_stock: int = MAX_STOCK,
) -> dict[str, np.ndarray]:
    """Play ``units`` pairs (``paired``) or games of X = ``a`` against Y = ``b`` at 2
    players, shithead, in the schedule of ``shedsim sprt`` (run seed ``seed``), and replay
    them. Returns per game (float64[n] unless named): ``score`` (X's game score), ``corr``
    (X's correction by the learned value), ``rollout`` (X's correction by rollouts,
    :func:`shedsim.kernel.luck.luck` with ``reps`` and ``max_stock``), ``draws`` (int64:
    cards drawn), ``moves`` (int64), ``unfinished``
    (bool). Raises SystemExit where the model does not apply or a strategy sees the stock."""
    from shedsim.plugins import compiled_strategy

    match = open_match(a, b, "shithead", 2, seed)
    ra = match.rules_array
    if not applies(ra):
        raise SystemExit("the learned value does not apply to these rules and players")
    for name in (a, b):
        if compiled_strategy(match.known, name, "sprt").traits.cheating:
            raise SystemExit(f"{name} sees the stock's order: the correction would be biased")
    keys = ("score", "corr", "rollout", "draws", "moves", "unfinished")
    out: dict[str, list] = {k: [] for k in keys}
    n_games = 2 * units if paired else units
    for g0 in range(0, n_games, batch):
        g1 = min(n_games, g0 + batch)
        sched = schedule(2, g0, g1, paired)
        dk, sk = game_keys(match.spec.seed, sched["index"], sched["deal"], match.spec.stream)
        rec = match.kernel.play(
            ra,
            match.ids,
            match.params,
            sched["seating"],
            dk,
            sk,
            sched["dealer"],
            trace_moves=trace_len,
        )
        n = g1 - g0
        mv = rec["moves"].astype(np.int64)
        corr = np.zeros(n)
        places = np.zeros((n, 2), np.int8)
        draws = np.zeros(n, np.int64)
        bad = corrections(
            ra,
            dk,
            sched["dealer"].astype(np.int64),
            rec["start"].astype(np.int64),
            rec["face_up"],
            rec["trace"],
            np.minimum(mv, trace_len),
            corr,
            places,
            draws,
        )
        if bad >= 0:
            raise SystemExit(f"game {g0 + bad}: a gamble draws from the stock (not supported)")
        full = mv <= trace_len  # traced to its end: the replay must reach its places
        roll = np.zeros(n)
        again = luck(
            ra, dk, sk, sched["dealer"].astype(np.int64), rec["start"].astype(np.int64),
            rec["face_up"], rec["trace"], np.minimum(mv, trace_len), reps, max_stock, roll,
        )  # fmt: skip
        for p in (places, again):
            if not (p[full] == rec["places"][full]).all():
                raise SystemExit(f"games {g0}..{g1 - 1}: a replay missed the recorded places")
        out["rollout"].append(np.where(sched["x_seat"] == 0, roll, -roll))
        out["score"].append(half_points(rec["places"], sched["x_seat"]) / 2.0)
        out["corr"].append(np.where(sched["x_seat"] == 0, corr, -corr))
        out["draws"].append(draws)
        out["moves"].append(mv)
        out["unfinished"].append(rec["unfinished"])
    return {k: np.concatenate(v) for k, v in out.items()}


def compare(s: np.ndarray, c: np.ndarray) -> dict[str, float]:
    """Unit scores ``s`` and their corrections ``c`` (float64[n]): mean, standard error and
    variance of ``s``, of ``s - c`` and of ``s - beta c`` (beta the variance-minimising
    coefficient), the variance ratios raw / corrected, the correlation of ``s`` and ``c`` and
    the mean correction with its standard error (NaN where a variance is 0)."""
    n = len(s)
    vs, vc = float(s.var(ddof=1)), float(c.var(ddof=1))
    beta = float(np.cov(s, c)[0, 1] / vc) if vc > 0 else math.nan
    y, yb = s - c, s - (beta if vc > 0 else 0.0) * c
    vy, vb = float(y.var(ddof=1)), float(yb.var(ddof=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "n": n,
            "mean": float(s.mean()),
            "se": math.sqrt(vs / n),
            "var": vs,
            "mean_cv": float(y.mean()),
            "se_cv": math.sqrt(vy / n),
            "var_cv": vy,
            "beta": beta,
            "mean_beta": float(yb.mean()),
            "var_beta": vb,
            "ratio": vs / vy if vy > 0 else math.nan,
            "ratio_beta": vs / vb if vb > 0 else math.nan,
            "corr": float(np.corrcoef(s, c)[0, 1]) if vs > 0 and vc > 0 else math.nan,
            "c_mean": float(c.mean()),
            "c_se": math.sqrt(vc / n),
        }


def show(label: str, f: dict[str, float]) -> None:
    """Print :func:`compare`'s figures for one level (pairs or games)."""
    print(
        f"  {label}: n {f['n']}; raw mean {f['mean']:.4f} se {f['se']:.4f} var {f['var']:.5f}; "
        f"corrected mean {f['mean_cv']:.4f} se {f['se_cv']:.4f} var {f['var_cv']:.5f}"
    )
    print(
        f"    variance ratio {f['ratio']:.3f} (width ratio {math.sqrt(f['ratio']):.3f}); "
        f"with beta {f['beta']:.3f}: {f['ratio_beta']:.3f}; corr(score, c) {f['corr']:.3f}; "
        f"mean correction {f['c_mean']:+.5f} se {f['c_se']:.5f}"
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--a", required=True, help="strategy X")
    p.add_argument("--b", required=True, help="strategy Y")
    p.add_argument("--pairs", type=int, default=4000, help="pairs (--unpaired: games)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=2000, help="games per kernel call")
    p.add_argument("--trace", type=int, default=1000, help="moves traced per game")
    p.add_argument("--unpaired", action="store_true", help="a fresh deal for every game")
    p.add_argument("--reps", type=int, default=REPS, help="rollouts per value (rollout terms)")
    p.add_argument(
        "--max-stock", type=int, default=MAX_STOCK, help="stock draws count from this many cards"
    )
    p.add_argument("--json", action="store_true", help="the figures as one JSON line")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    r = play(
        args.a, args.b, args.pairs, args.seed, args.batch, args.trace, not args.unpaired,
        args.reps, args.max_stock,
    )  # fmt: skip
    traced = int((r["moves"] <= args.trace).sum())
    figures = {
        "a": args.a,
        "b": args.b,
        "paired": not args.unpaired,
        "games": len(r["score"]),
        "traced_to_end": traced,
        "unfinished": int(r["unfinished"].sum()),
        "draws_per_game": float(r["draws"].mean()),
        "reps": args.reps,
        "max_stock": args.max_stock,
    }
    for name, corr in (("learned", r["corr"]), ("rollout", r["rollout"])):
        level = {"games_level": compare(r["score"], corr)}
        if not args.unpaired:
            level["pairs_level"] = compare(
                r["score"].reshape(-1, 2).mean(1), corr.reshape(-1, 2).mean(1)
            )
        figures[name] = level
    if args.json:
        import json

        print(json.dumps(figures, default=float))
        return
    print(
        f"{args.a} vs {args.b}, seed {args.seed}, {'unpaired' if args.unpaired else 'paired'}: "
        f"{figures['games']} games ({traced} traced to the end, their places replayed exactly), "
        f"{figures['unfinished']} unfinished, {figures['draws_per_game']:.1f} draws a game"
    )
    for name in ("learned", "rollout"):
        print(f" {name} value:")
        if not args.unpaired:
            show("pairs", figures[name]["pairs_level"])
        show("games", figures[name]["games_level"])


if __name__ == "__main__":
    main()
