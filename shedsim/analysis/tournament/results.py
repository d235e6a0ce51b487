"""A tournament's statistics: from a tally (:mod:`shedsim.analysis.tournament.tally`) to
the tables (:class:`Results`: summary, head to head, seats, lengths, matches), every
interval cluster-robust over deals with the table combinations as strata, the ratings a
Plackett-Luce fit (every formula: :mod:`shedsim.stats`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from shedsim import stats
from shedsim.analysis.tournament.plan import END_LABELS, TournamentSpec  # noqa: F401 - END_LABELS re-exported
from shedsim.output.charts.tournament import SHARED_AFTER_FORFEIT


@dataclass
class Results:
    """The tables of a tournament (pandas DataFrames, numeric) and headline numbers."""

    summary: Any
    head_to_head: Any
    seats: Any
    lengths: Any
    matches: Any | None
    h2h_matrix: Any
    place_shares: Any
    """Per strategy (rows, ranked), the share of its seat-games in each place (columns
    ``"1"`` .. ``"n"``), then, in runs with bots, :data:`SHARED_AFTER_FORFEIT`, and
    ``"unfinished"`` (still in when an unfinished game was stopped)."""
    info: dict[str, Any]


def _pl_raw(spec: TournamentSpec, keys: np.ndarray):
    """Choice sets (int64[J, E], entry multiplicities) and winners (int64[J]) of raw event keys."""
    n, e = spec.players, len(spec.entries)
    tables = np.array(spec.tables, dtype=np.int64)
    w = keys % n
    rem = (keys // n) % (1 << n)
    tbl = keys // (n * (1 << n))
    present = ((rem[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    ent = tables[tbl]
    sets = np.zeros((len(keys), e), np.int64)
    for p in range(n):
        np.add.at(sets, (np.arange(len(keys))[present[:, p]], ent[present[:, p], p]), 1)
    return sets, ent[np.arange(len(keys)), w]


def _pl_cluster_se(spec: TournamentSpec, t: dict[str, np.ndarray], theta: np.ndarray) -> np.ndarray:
    """Cluster-robust standard errors of the Plackett-Luce fit (one deal = one cluster):
    :func:`shedsim.stats.plackett_luce_cluster_se` on the raw events and their
    within-deal pairs."""
    keys = t["pl_keys"]
    sets, winners = _pl_raw(spec, keys)
    n_keys = len(spec.tables) * (1 << spec.players) * spec.players
    pk = t["pl_pair_keys"]
    pa = np.searchsorted(keys, pk // n_keys)
    pb = np.searchsorted(keys, pk % n_keys)
    return stats.plackett_luce_cluster_se(
        theta, sets, winners, t["pl_counts"], pa, pb, t["pl_pair_counts"]
    )


def _pl_events(spec: TournamentSpec, keys: np.ndarray, counts: np.ndarray):
    """The raw events of :func:`_pl_raw` with equal choice set and winner merged:
    (choice sets int64[K, E], winners int64[K], counts float64[K])."""
    e = len(spec.entries)
    sets, winners = _pl_raw(spec, keys)
    # merge events that differ only in table/positions but have the same multiset and winner
    code = np.concatenate([sets, winners[:, None]], axis=1)
    uc, inv = np.unique(code, axis=0, return_inverse=True)
    c = np.bincount(inv.ravel(), weights=counts, minlength=len(uc))
    return uc[:, :e], uc[:, e], c


def _corrected(t: dict[str, np.ndarray], ia, lo_i, hi_i):
    """The head to head's share of each pair (rows: entry ``ia`` against the other of
    ``lo_i``, ``hi_i``) corrected by the control variate (``--control-variate``): each deal's
    half points less its luck, the coefficient cross-fitted between two halves of each
    table's deals (the odd and the even turns: :func:`shedsim.stats.control.cross_fitted`),
    with the same cluster-robust interval and test as the raw share. Columns ``share_cv``,
    ``share_cv_lo``, ``share_cv_hi``, ``se_cv``, ``p_value_cv``, ``beta_cv`` (the halves' mean)."""
    import pandas as pd

    from shedsim.analysis.tournament.tally import LUCK_SCALE
    from shedsim.stats.control import cross_fitted

    def sums(key: str, scale: int = 1) -> np.ndarray:
        return t[f"cv_{key}"][:, lo_i, hi_i].astype(np.float64) / scale

    k = LUCK_SCALE
    n, s, m, ss, mm, sm, beta = cross_fitted(
        sums("n"), sums("s"), sums("m"), sums("c", k), sums("ss"), sums("mm"), sums("sm"),
        sums("cc", k * k), sums("sc", k), sums("cm", k),
    )  # fmt: skip
    rt = stats.cluster_ratio(n, s, m, ss, mm, sm)
    flip = ia != lo_i
    return pd.DataFrame(
        {
            "share_cv": np.where(flip, 1 - rt.share, rt.share),
            "share_cv_lo": np.where(flip, 1 - rt.hi, rt.lo),
            "share_cv_hi": np.where(flip, 1 - rt.lo, rt.hi),
            "se_cv": rt.se,
            "p_value_cv": rt.p,
            "beta_cv": beta.mean(axis=0),
        }
    )


def degenerate_pairs(spec: TournamentSpec) -> list[tuple[str, str]]:
    """Pairs of entries (labels) whose head-to-head comparison cannot fail: the same
    deterministic strategy with the same parameters
    (:func:`shedsim.plugins.deterministic_identity`),
    meeting only at tables where every seat holds that same strategy. Every rotation of a
    deal then replays one game with the seats' labels moved round, so each copy finishes
    ahead in exactly half of the comparisons: the share is exactly 0.5 and its interval has
    zero width, whatever the game."""
    from shedsim.plugins import deterministic_identity, discover

    try:
        known = discover(list(spec.strategy_paths))
    except Exception:  # noqa: BLE001 - a note only; the run itself loaded its strategies
        return []
    ident = [deterministic_identity(known, s) for s in spec.entries]
    out = []
    e = len(spec.entries)
    for a in range(e):
        for b in range(a + 1, e):
            if ident[a] is None or ident[a] != ident[b]:
                continue
            shared = [tb for tb in spec.tables if a in tb and b in tb]
            if shared and all(all(ident[x] == ident[a] for x in tb) for tb in shared):
                out.append((spec.labels[a], spec.labels[b]))
    return out


def degenerate_note(pairs: list[tuple[str, str]], players: int) -> str | None:
    """The note printed for :func:`degenerate_pairs` (None when there are none): which
    comparisons are degenerate, why, and what to run instead."""
    if not pairs:
        return None
    names = ", ".join(f"{a} vs {b}" for a, b in pairs)
    return (
        f"degenerate comparison: {names}: the same deterministic strategy, alone at its "
        "tables, so every "
        "rotation of a deal replays the same game and each copy wins exactly half: the share "
        "is exactly 0.5 "
        "(zero-width interval) and this A/A test cannot fail. For an A/A test that can, enter "
        "a strategy with "
        f"randomness (e.g. --strategies random,random) or seat another strategy with the copies "
        f"(e.g. --strategies greedy,greedy,expert --players {max(3, players)})."
    )


def seat_table(t: dict[str, np.ndarray], players: int):
    """``seats.csv``: win rate, loss rate and mean place by seat number (``kind`` "seat")
    and by seat counted in turn order from the starting player (``kind`` "from_starter",
    0 = the starter), from a tally (:func:`empty_tally`).

    A deal's ``players`` rotations give every seat ``players`` games with the same cards
    in that seat, so they are strongly correlated (at 2 players one seat often wins both);
    deals are independent. Rates: :func:`shedsim.stats.cluster_rate` (Wilson at
    the design-effect-adjusted size, one deal = one cluster); mean place:
    :func:`shedsim.stats.cluster_mean`. Columns: kind, seat, games, deals, wins,
    win_rate, win_lo, win_hi, losses, loss_rate, loss_lo, loss_hi, mean_place, place_lo,
    place_hi (rates as shares, places 1 = first out)."""
    import pandas as pd

    n = players
    # every deal gives each seat (and each seat counted from the starter) n games: clusters of size
    # n
    g_total = int(t["games"])
    n_deals = g_total // n
    parts = []
    for kind, pre, wins, losses, p2 in (
        ("seat", "seat", t["seat_wins"], t["seat_losses"], t["seat_place2"]),
        ("from_starter", "off", t["off_wins"], t["off_losses"], t["off_place2"]),
    ):
        k = np.full(n, n_deals, np.int64)
        m = np.full(n, g_total, np.int64)
        mm_s = np.full(n, n_deals * n * n, np.int64)
        swr = stats.cluster_rate(k, wins, m, t[f"{pre}_win_ss"], mm_s, n * wins)
        slr = stats.cluster_rate(k, losses, m, t[f"{pre}_loss_ss"], mm_s, n * losses)
        smp = stats.cluster_mean(
            k, p2 / 2.0, m, t[f"{pre}_p2_ss"] / 4.0, mm_s, n * p2 / 2.0, bounds=(1.0, float(n))
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append(
                pd.DataFrame(
                    {
                        "kind": kind,
                        "seat": np.arange(n),
                        "games": m,
                        "deals": k,
                        "wins": wins,
                        "win_rate": wins / m,
                        "win_lo": swr.lo,
                        "win_hi": swr.hi,
                        "losses": losses,
                        "loss_rate": losses / m,
                        "loss_lo": slr.lo,
                        "loss_hi": slr.hi,
                        "mean_place": smp[0],
                        "place_lo": smp[1],
                        "place_hi": smp[2],
                    }
                )
            )
    seats = pd.concat(parts, ignore_index=True)
    return seats


def analyse(spec: TournamentSpec, t: dict[str, np.ndarray]) -> Results:
    """Statistics from a tally (see :mod:`shedsim.stats` for every formula)."""
    import pandas as pd

    e, n = len(spec.entries), spec.players
    labels = list(spec.labels)
    games = t["seat_games"]
    # every interval treats a deal (its P rotations share the cards) as one cluster
    # and the table combinations are strata (fixed by the design: within-stratum variance)
    deals, em, mm = t["e_deals"], t["e_m"], t["e_mm"]
    wr = stats.cluster_rate(deals, t["win_s"], em, t["win_ss"], mm, t["win_sm"], strata=True)
    lr = stats.cluster_rate(deals, t["loss_s"], em, t["loss_ss"], mm, t["loss_sm"], strata=True)
    win_lo, win_hi, loss_lo, loss_hi = wr.lo, wr.hi, lr.lo, lr.hi
    mp, mp_lo, mp_hi, _ = stats.cluster_mean(
        deals,
        t["p2_s"] / 2.0,
        em,
        t["p2_ss"] / 4.0,
        mm,
        t["p2_sm"] / 2.0,
        bounds=(1.0, float(n)),
        strata=True,
    )
    if len(t["pl_keys"]):
        sets, winners, counts = _pl_events(spec, t["pl_keys"], t["pl_counts"])
        fit = stats.plackett_luce(sets, winners, counts)
        rating = fit.elo
        rating_se = stats.ELO_PER_THETA * _pl_cluster_se(spec, t, fit.theta)
    else:
        fit = None
        rating = rating_se = np.full(e, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        summary = pd.DataFrame(
            {
                "strategy": labels,
                "spec": list(spec.entries),
                "games": games,
                "wins": t["wins"],
                "win_rate": t["wins"] / games,
                "win_lo": win_lo,
                "win_hi": win_hi,
                "losses": t["losses"],
                "loss_rate": t["losses"] / games,
                "loss_lo": loss_lo,
                "loss_hi": loss_hi,
                "mean_place": mp,
                "place_lo": mp_lo,
                "place_hi": mp_hi,
                "rating": rating,
                "rating_se": rating_se,
                "rating_lo": rating - stats.Z95 * rating_se,
                "rating_hi": rating + stats.Z95 * rating_se,
                "unfinished": t["unfinished_games"],
                "still_in_at_cap": t["still_in"] if "still_in" in t else t["place_hist"][:, 0],
                "pickups_per_game": t["pickups"] / games,
                "burns_per_game": t["burns"] / games,
            }
        )
    if t["ends"][1:3].any():  # how the unfinished games ended (only when not all at the cap)
        at = summary.columns.get_loc("still_in_at_cap") + 1
        for k, col in enumerate(("stalled", "loops", "capped")):
            summary.insert(at + k, col, t["end_games"][:, k + 1])
    if "forfeits" in t:  # a run with bots: the games each forfeited, in all and per fault kind
        from shedsim.bot.protocol import FAULTS

        at = summary.columns.get_loc("unfinished") + 1
        summary.insert(at, "forfeits", t["forfeits"].sum(axis=1))
        for k, kind in enumerate(FAULTS):
            summary.insert(at + 1 + k, f"forfeits_{kind}", t["forfeits"][:, k])
    summary["_i"] = np.arange(e)
    summary = summary.sort_values(
        ["rating", "mean_place", "strategy"], ascending=[False, True, True], kind="mergesort"
    ).reset_index(drop=True)
    summary.insert(0, "rank", np.arange(1, e + 1))
    order = summary["_i"].to_numpy()
    rank_of = np.empty(e, np.int64)
    rank_of[order] = np.arange(e)

    # head to head: one row per pair that shared a table, better-ranked first
    rows = []
    for ra in range(e):
        for rb in range(ra + 1, e):
            a, b = int(order[ra]), int(order[rb])
            lo_, hi_ = min(a, b), max(a, b)
            if t["blk_n"][lo_, hi_] == 0:
                continue
            rows.append((a, b, lo_, hi_))
    share_ab = np.full((e, e), np.nan)
    h2h = pd.DataFrame()
    if rows:
        ia = np.array([r[0] for r in rows])
        ib = np.array([r[1] for r in rows])
        lo_i = np.array([r[2] for r in rows])
        hi_i = np.array([r[3] for r in rows])
        rt = stats.cluster_ratio(
            t["blk_n"][lo_i, hi_i],
            t["blk_s"][lo_i, hi_i],
            t["blk_m"][lo_i, hi_i],
            t["blk_ss"][lo_i, hi_i],
            t["blk_mm"][lo_i, hi_i],
            t["blk_sm"][lo_i, hi_i],
        )
        flip = ia != lo_i  # the share is stored for the lower entry index; turn it round for a
        share = np.where(flip, 1 - rt.share, rt.share)
        lo = np.where(flip, 1 - rt.hi, rt.lo)
        hi = np.where(flip, 1 - rt.lo, rt.hi)
        comparisons = t["ahead"][ia, ib] + t["ahead"][ib, ia] + t["ties"][ia, ib]
        h2h = pd.DataFrame(
            {
                "a": [labels[i] for i in ia],
                "b": [labels[i] for i in ib],
                "comparisons": comparisons,
                "deals": rt.clusters.astype(np.int64),
                "a_ahead": t["ahead"][ia, ib],
                "b_ahead": t["ahead"][ib, ia],
                "ties": t["ties"][ia, ib],
                "share_a_ahead": share,
                "share_lo": lo,
                "share_hi": hi,
                "se": rt.se,
                "p_value": rt.p,
                "p_holm": stats.holm(rt.p),
            }
        )
        if "cv_n" in t:  # --control-variate: the same share less each deal's luck
            h2h = pd.concat([h2h, _corrected(t, ia, lo_i, hi_i)], axis=1)
        share_ab[ia, ib] = share
        share_ab[ib, ia] = 1 - share
    h2h_matrix = pd.DataFrame(
        share_ab[np.ix_(order, order)],
        index=[labels[i] for i in order],
        columns=[labels[i] for i in order],
    )

    # seats: absolute seat number, and seat counted from the starting player
    g_total = int(t["games"])
    seats = seat_table(t, n)

    lengths, length_info = _lengths(spec, t)
    hist = t["place_hist"].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = hist / hist.sum(axis=1, keepdims=True)
    cols = [shares[:, p] for p in range(1, n + 1)]
    names = [str(p) for p in range(1, n + 1)]
    if "still_in" in t:  # place 0 also holds the seats that share places after a forfeit
        with np.errstate(invalid="ignore", divide="ignore"):
            still = t["still_in"] / hist.sum(axis=1)
        cols += [shares[:, 0] - still]
        names += [SHARED_AFTER_FORFEIT]
        shares[:, 0] = still
    place_shares = pd.DataFrame(
        np.column_stack(cols + [shares[:, 0]])[order],
        index=[labels[i] for i in order],
        columns=names + ["unfinished"],
    )

    matches = None
    if spec.rounds > 1:
        mc = t["m_count"]
        # clusters: one table's rotations on the same K deals
        mk, mm_, mmm = t["m_clusters"], t["m_m"], t["m_mm"]
        mw = stats.cluster_rate(
            mk, t["m_win_s"], mm_, t["m_win_ss"], mmm, t["m_win_sm"], strata=True
        )
        ml = stats.cluster_rate(
            mk, t["m_loss_s"], mm_, t["m_loss_ss"], mmm, t["m_loss_sm"], strata=True
        )
        wl, wh, xl, xh = mw.lo, mw.hi, ml.lo, ml.hi
        mr, mr_lo, mr_hi, _ = stats.cluster_mean(
            mk,
            t["m_rank2_s"] / 2.0,
            mm_,
            t["m_rank2_ss"] / 4.0,
            mmm,
            t["m_rank2_sm"] / 2.0,
            bounds=(1.0, float(n)),
            strata=True,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            matches = pd.DataFrame(
                {
                    "strategy": labels,
                    "matches": mc,
                    "rounds": spec.rounds,
                    "match_wins": t["m_wins"],
                    "match_win_rate": t["m_wins"] / mc,
                    "match_win_lo": wl,
                    "match_win_hi": wh,
                    "shared_first": t["m_shared"],
                    "match_losses": t["m_losses"],
                    "match_loss_rate": t["m_losses"] / mc,
                    "match_loss_lo": xl,
                    "match_loss_hi": xh,
                    "mean_match_place": mr,
                    "match_place_lo": mr_lo,
                    "match_place_hi": mr_hi,
                    "mean_total_places": t["m_total2_sum"] / 2.0 / mc,
                }
            )
        matches = matches.iloc[order].reset_index(drop=True)
        matches = matches.sort_values(
            ["mean_match_place", "strategy"], kind="mergesort"
        ).reset_index(drop=True)
        matches.insert(0, "rank", np.arange(1, e + 1))

    info = {
        "games": g_total,
        "unfinished": int(t["unfinished"]),
        "unfinished_share": (int(t["unfinished"]) / g_total) if g_total else None,
        "ends": {name: int(c) for name, c in zip(spec.end_labels, t["ends"])},
        "end_shares": {
            name: (int(c) / g_total if g_total else None)
            for name, c in zip(spec.end_labels, t["ends"])
        },
        "lengths": length_info,
        "degenerate": [list(p) for p in degenerate_pairs(spec)],
        "rating_fit": None
        if fit is None
        else {
            "model": "Plackett-Luce (I-LSR via choix.utils.statdist)",
            "iterations": fit.iterations,
            "converged": fit.converged,
            "scale": "Elo points (400/ln 10 per unit log-strength), mean 0",
            "se": (
                "cluster-robust sandwich over deals (the Fisher information around the "
                "per-deal scores)"
            ),
        },
    }
    summary = summary.drop(columns="_i")
    return Results(summary, h2h, seats, lengths, matches, h2h_matrix, place_shares, info)


def _nice_width(span: int, target_bins: int = 60) -> int:
    raw = max(1, span / target_bins)
    mag = 10 ** int(math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


def _lengths(spec: TournamentSpec, t: dict[str, np.ndarray]):
    """Game-length table: finished games rebinned to about 60 bins, then (where there are
    any) stalled games and proven loops in the same bins, then the games stopped at the
    move cap."""
    import pandas as pd

    hist = t["lengths"]
    bw = spec.length_bin
    cap = spec.rules.max_moves
    g = int(t["games"])
    unf = int(t["ends"][3])
    fin = hist - t["len_stalled"] - t["len_loop"]
    cap_bin = cap // bw
    # capped games all sit at `cap` moves: take them out of the histogram
    fin[cap_bin] -= unf
    nz = np.nonzero(fin + t["len_stalled"] + t["len_loop"])[0]
    rows = []
    if len(nz):
        lo_m, hi_m = int(nz[0]) * bw, (int(nz[-1]) + 1) * bw - 1
        width = math.ceil(max(bw, _nice_width(hi_m - lo_m + 1)) / bw) * bw
        first = (lo_m // width) * width
        n_out = (hi_m - first) // width + 1
        starts = np.arange(len(fin)) * bw
        idx = (starts - first) // width
        ok = (idx >= 0) & (idx < n_out)
        for kind, h in (
            ("finished", fin),
            ("stalled", t["len_stalled"]),
            ("proven loop", t["len_loop"]),
        ):
            if kind != "finished" and not h.any():
                continue
            counts = np.rint(np.bincount(idx[ok], weights=h[ok], minlength=n_out)).astype(np.int64)
            if kind == "finished":
                nzf = np.nonzero(counts)[0]
                ks = range(int(nzf[0]), int(nzf[-1]) + 1) if len(nzf) else range(0)
            else:
                ks = np.nonzero(counts)[0]
            for k in ks:
                rows.append((kind, first + k * width, first + (k + 1) * width - 1, int(counts[k])))
    rows.append(("unfinished (move cap)", cap, cap, unf))
    df = pd.DataFrame(rows, columns=["kind", "moves_from", "moves_to", "games"])
    df["share"] = df["games"] / g if g else np.nan
    df["cumulative_share"] = df["share"].cumsum()
    mean = float(t["moves_sum"]) / g if g else float("nan")
    var = (float(t["moves_sq"]) - g * mean * mean) / (g - 1) if g > 1 else float("nan")
    cum = np.cumsum(hist)

    def quant(q: float) -> int | None:
        if g == 0:
            return None
        return int(np.searchsorted(cum, q * g, side="left")) * bw

    info = {
        "mean_moves": round(mean, 4),
        "sd_moves": round(math.sqrt(max(var, 0.0)), 4) if g > 1 else None,
        "median_moves": quant(0.5),
        "p90_moves": quant(0.9),
        "p99_moves": quant(0.99),
        "max_moves_cap": cap,
        "histogram_bin_moves": bw,
    }
    return df, info
