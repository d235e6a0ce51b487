"""A tournament's tally: each finished chunk's per-game records reduced at once to a few
small integer arrays (:func:`aggregate_chunk`), summed exactly in any order (:func:`merge`),
so that memory does not grow with ``--games`` and the results do not depend on how the
games were split into chunks, on the workers or on the sessions of a resumed run.
"""

from __future__ import annotations

import numpy as np

from shedsim.analysis.tournament.plan import TournamentSpec
from shedsim.rules.scoring import effective_places2
from shedsim.runs.simulate import schedule_games

RECORD_KEEP = ("places", "start", "moves", "unfinished", "end", "pickups", "burns")
"""The kernel's record fields a chunk returns for its tally (the others are never transferred)."""
SAVE_KEEP = RECORD_KEEP + ("dealt", "face_up")
"""With ``--save-games``: also the cards dealt and put face up, for the games files."""
LUCK_KEEP = ("luck",)
"""With ``--control-variate``: also each game's luck
(:attr:`shedsim.runs.simulate.RunSpec.luck`)."""


def record_keep(spec: TournamentSpec) -> tuple[str, ...]:
    """The record fields a chunk of ``spec`` returns: for its tally, its games files
    (``--save-games``) and its luck (``--control-variate``)."""
    return (SAVE_KEEP if spec.save_games else RECORD_KEEP) + (
        LUCK_KEEP if spec.control_variate else ()
    )


def play_total(spec: TournamentSpec, workers: int = 1, progress=None) -> dict[str, np.ndarray]:
    """Play every game of ``spec`` without a run store (no files, no resume: a study of its
    own, such as the swap study's tournament of policies) and return the summed tally;
    ``progress(games)`` is called as each chunk finishes. Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.runs.simulate import run_chunks

    total = empty_tally(spec)

    def on_result(c: int, r) -> None:
        nonlocal total
        a, b = spec.chunk_bounds(c)
        total = merge(total, aggregate_chunk(spec, a, b, r.records))
        r.records.clear()
        if progress:
            progress(b - a)

    run_chunks(
        spec.run_spec(), list(range(spec.n_chunks)), workers=workers, on_result=on_result,
        keep=record_keep(spec),
    )  # fmt: skip
    return total


def luck_fit_shortfall(spec: TournamentSpec) -> str | None:
    """Why some pair's head to head will not be corrected (``share_cv`` the raw share,
    ``beta_cv`` 0), or None: each half of a pair's deals (a table's odd turns, its even
    turns, over the pair's tables) needs :data:`shedsim.stats.control.MIN_UNITS` deals for
    the other half's correction to be fitted."""
    from shedsim.stats.control import MIN_UNITS

    nt = len(spec.tables)
    turns = spec.games // (spec.players * nt)  # deals of each table
    shared = min(
        sum(1 for t in spec.tables if i in t and j in t)
        for i in range(len(spec.entries))
        for j in range(i + 1, len(spec.entries))
    )
    if shared == 0 or (turns // 2) * shared >= MIN_UNITS:
        return None
    need = 2 * -(-MIN_UNITS // shared) * spec.players * nt
    return (
        f"the coefficient is fitted on each half of a pair's deals from {MIN_UNITS} deals in a "
        f"half, and these games give a pair {(turns // 2) * shared:,}: where a half is short, "
        f"share_cv is the raw share (beta_cv 0); --games {need:,} or more corrects every pair"
    )


CV_KEYS = ("cv_n", "cv_s", "cv_m", "cv_c", "cv_ss", "cv_mm", "cv_sm", "cv_cc", "cv_sc", "cv_cm")
"""The control variate's sums (``--control-variate``), each int64[2, E, E]: over the deals of
each half (a table's deals in turn: its first, third, ...; its second, fourth, ...) and each
pair of entries (lower index first), the deals,
and the sums of ``s`` (the lower entry's half points in the deal's two games), ``m`` (4),
``c`` (its luck in the same units, times :data:`LUCK_SCALE`), their squares and products."""
LUCK_SCALE = 256
"""``c`` is stored times this: a game's luck is a whole number of 1/256 (each rollout value
is a mean of 128 rollouts scoring 0, 1/2 or 1), so the sums are exact integers and the
same in any order."""


def empty_tally(spec: TournamentSpec) -> dict[str, np.ndarray]:
    """Zeroed counters of one tally (the shapes :func:`aggregate_chunk` returns)."""
    e, n = len(spec.entries), spec.players
    nb = spec.rules.max_moves // spec.length_bin + 1
    ne = len(spec.end_labels)
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    t = {
        "games": z(),
        "unfinished": z(),
        "moves_sum": z(),
        "moves_sq": z(),
        "seat_games": z(e),
        "wins": z(e),
        "losses": z(e),
        "place_hist": z(e, n + 1),
        "place2_sum": z(e),
        "place2_sq": z(e),
        "unfinished_games": z(e),
        "pickups": z(e),
        "burns": z(e),
        "seat_wins": z(n),
        "seat_losses": z(n),
        "seat_place2": z(n),
        "off_wins": z(n),
        "off_losses": z(n),
        "off_place2": z(n),
        "lengths": z(nb),
        "len_stalled": z(nb),
        "len_loop": z(nb),
        "ends": z(ne),
        "end_games": z(e, ne),
        "ahead": z(e, e),
        "ties": z(e, e),
        "blk_n": z(e, e),
        "blk_s": z(e, e),
        "blk_m": z(e, e),
        "blk_ss": z(e, e),
        "blk_mm": z(e, e),
        "blk_sm": z(e, e),
        "pl_keys": z(0),
        "pl_counts": z(0),
        "pl_pair_keys": z(0),
        "pl_pair_counts": z(0),
        "m_count": z(e),
        "m_wins": z(e),
        "m_shared": z(e),
        "m_losses": z(e),
        "m_rank2_sum": z(e),
        "m_rank2_sq": z(e),
        "m_total2_sum": z(e),
    }
    # per-deal cluster sums (sum over deals of squares and cross products of a deal's counts),
    # for the cluster-robust intervals of analyse(): see stats.cluster_sums
    ns = spec.n_strata
    t.update({k: z(e, ns) for k in CLUSTER_ENTRY_KEYS})
    t.update({k: z(n) for k in CLUSTER_SEAT_KEYS})
    t.update({k: z(e, ns) for k in CLUSTER_MATCH_KEYS})
    if spec.control_variate:
        t.update({k: z(2, e, e) for k in CV_KEYS})
    if spec.has_bots:  # games forfeited per entry and fault kind (shedsim.bot.protocol.FAULTS)
        from shedsim.bot.protocol import FAULTS

        t["forfeits"] = z(e, len(FAULTS))
        # seats still in when an unfinished game stopped (place_hist[:, 0] also holds the
        # seats that share their places after a forfeit)
        t["still_in"] = z(e)
    return t


CLUSTER_ENTRY_KEYS = (
    "e_deals",
    "e_m",
    "e_mm",
    "win_s",
    "win_ss",
    "win_sm",
    "loss_s",
    "loss_ss",
    "loss_sm",
    "p2_s",
    "p2_ss",
    "p2_sm",
)
"""Per entry and stratum (table combination, :attr:`TournamentSpec.table_strata`), over deals
(the P rotations of one deal, the unit of independence): deals the entry played, its
seat-games and their squares summed per deal, and for wins, losses and twice the place the
count, the sum over deals of the squared per-deal count and of its product with the seat-games."""
CLUSTER_SEAT_KEYS = (
    "seat_win_ss",
    "seat_loss_ss",
    "seat_p2_ss",
    "off_win_ss",
    "off_loss_ss",
    "off_p2_ss",
)
"""Per seat (and per seat counted from the starter), the sum over deals of the squared per-deal
count of wins, losses and twice the place (every deal gives each seat P games)."""
CLUSTER_MATCH_KEYS = (
    "m_clusters",
    "m_m",
    "m_mm",
    "m_win_s",
    "m_win_ss",
    "m_win_sm",
    "m_loss_s",
    "m_loss_ss",
    "m_loss_sm",
    "m_rank2_s",
    "m_rank2_ss",
    "m_rank2_sm",
)
"""As :data:`CLUSTER_ENTRY_KEYS` for matches (``--rounds``), whose clusters are one table's
P rotations on the same K deals."""


def _cluster_counts(
    cluster: np.ndarray,
    entry: np.ndarray,
    n_clusters: int,
    e: int,
    stratum: np.ndarray,
    ns: int,
    values: dict[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """Per-entry, per-stratum cluster sums of seat-level values: ``cluster``, ``entry``
    int64[k] (one per seat-game or seat-match), ``stratum`` int64[n_clusters] (each
    cluster's stratum), ``values`` name -> int64[k]. Returns int64[e, ns] arrays: the
    entry's ``clusters``, ``m`` (size), ``mm`` (sum of squared sizes) and, per value name,
    ``NAME_s``, ``NAME_ss`` and ``NAME_sm``."""
    key = cluster * e + entry
    size = _bincount(key, n_clusters * e).reshape(n_clusters, e)
    hk = (stratum[:, None] * e + np.arange(e)[None, :]).ravel()

    def by_stratum(x: np.ndarray) -> np.ndarray:
        return _bincount(hk, ns * e, x.ravel().astype(np.float64)).reshape(ns, e).T.copy()

    out = {"clusters": by_stratum(size > 0), "m": by_stratum(size), "mm": by_stratum(size * size)}
    for name, v in values.items():
        sb = _bincount(key, n_clusters * e, v.astype(np.float64)).reshape(n_clusters, e)
        out[f"{name}_s"] = by_stratum(sb)
        out[f"{name}_ss"] = by_stratum(sb * sb)
        out[f"{name}_sm"] = by_stratum(sb * size)
    return out


def _bincount(idx: np.ndarray, size: int, weights: np.ndarray | None = None) -> np.ndarray:
    if weights is None:
        return np.bincount(idx, minlength=size).astype(np.int64)
    # integer weights summed in float64 are exact below 2**53
    return np.rint(np.bincount(idx, weights=weights, minlength=size)).astype(np.int64)


def _luck_sums(spec: TournamentSpec, sched, cols, s_blk, lo, hi, flip, keep, luck):
    """The :data:`CV_KEYS` sums of one chunk, at 2 players, where a deal is one table's two
    games: ``s_blk``, ``lo``, ``hi``, ``flip``, ``keep`` (one per deal) as the head to head
    by deal computes them (the lower entry's half points, the pair, whether the table
    seats the higher entry first, whether the pair is two entries), ``cols`` its seat of
    each table position, ``luck`` the games' luck (seat 0's; seat 1's is minus it)."""
    e, n = len(spec.entries), 2
    deal = sched["index"][::n] // n
    tpl = np.take_along_axis(np.stack([luck, -luck], axis=1), cols, axis=1)  # by table position
    cf = 2 * LUCK_SCALE * tpl[:, 0].reshape(-1, n).sum(axis=1)  # half points: 2 a game
    c = np.rint(cf).astype(np.int64)
    if len(c) and np.abs(cf - c).max() > 1e-6:
        raise RuntimeError("a game's luck is not a whole number of 1/256: sums would not be exact")
    c = np.where(flip, -c, c)  # the lower entry's, as s_blk
    s = s_blk.astype(np.int64)
    m = np.full(len(s), 2 * n, np.int64)
    # the halves: a table's deals taken in turn (deal d is table d % T's (d // T)-th), so
    # that every pair has deals in both, whatever the number of tables
    half = (deal // len(spec.tables)) % 2
    key = ((half * e + lo) * e + hi)[keep]
    vals = {"n": np.ones(len(s), np.int64), "s": s, "m": m, "c": c, "ss": s * s, "mm": m * m,
            "sm": s * m, "cc": c * c, "sc": s * c, "cm": c * m}  # fmt: skip
    return {
        f"cv_{k}": _bincount(key, 2 * e * e, v[keep].astype(np.float64)).reshape(2, e, e)
        for k, v in vals.items()
    }


def aggregate_chunk(
    spec: TournamentSpec, start: int, stop: int, rec: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Reduce the per-game records of games ``start..stop-1`` to the counters of
    :func:`empty_tally` (vectorised numpy: bincount over flattened seat arrays)."""
    e, n = len(spec.entries), spec.players
    tables = np.array(spec.tables, dtype=np.int64)
    nt = len(tables)
    sched = schedule_games(spec.run_spec(), start, stop)
    seating = sched["seating"]
    g = stop - start
    places = rec["places"].astype(np.int64)
    unf = rec["unfinished"].astype(bool)
    moves = rec["moves"].astype(np.int64)
    eff2 = effective_places2(places)
    t = empty_tally(spec)
    t["games"] = np.int64(g)
    t["unfinished"] = np.int64(unf.sum())
    t["moves_sum"] = np.int64(moves.sum())
    t["moves_sq"] = np.int64((moves * moves).sum())

    sf = seating.ravel()
    pf = places.ravel()
    ef = eff2.ravel()
    won = pf == 1
    lost = pf == n  # last place: a finished game, or a stopped one under stalemate:most_cards
    t["seat_games"] = _bincount(sf, e)
    t["wins"] = _bincount(sf[won], e)
    t["losses"] = _bincount(sf[lost], e)
    t["place_hist"] = _bincount(sf * (n + 1) + pf, e * (n + 1)).reshape(e, n + 1)
    t["place2_sum"] = _bincount(sf, e, ef.astype(np.float64))
    t["place2_sq"] = _bincount(sf, e, (ef * ef).astype(np.float64))
    t["unfinished_games"] = _bincount(sf[np.repeat(unf, n)], e)
    t["pickups"] = _bincount(sf, e, rec["pickups"].ravel().astype(np.float64))
    t["burns"] = _bincount(sf, e, rec["burns"].ravel().astype(np.float64))

    t["seat_wins"] = (places == 1).sum(axis=0).astype(np.int64)
    t["seat_losses"] = (places == n).sum(axis=0).astype(np.int64)
    t["seat_place2"] = eff2.sum(axis=0).astype(np.int64)
    off = (np.arange(n)[None, :] - rec["start"].astype(np.int64)[:, None]) % n
    of = off.ravel()
    t["off_wins"] = _bincount(of[won], n)
    t["off_losses"] = _bincount(of[lost], n)
    t["off_place2"] = _bincount(of, n, ef.astype(np.float64))
    # cluster sums by deal (games j*n .. j*n+n-1 of the chunk are one deal's rotations)
    nbk = g // n
    deal_of = np.repeat(np.arange(g, dtype=np.int64) // n, n)
    strata = spec.table_strata
    deal_stratum = strata[(sched["index"][::n] // n) % nt]
    cc = _cluster_counts(
        deal_of,
        sf,
        nbk,
        e,
        deal_stratum,
        spec.n_strata,
        {"win": won.astype(np.int64), "loss": lost.astype(np.int64), "p2": ef},
    )
    t["e_deals"], t["e_m"], t["e_mm"] = cc["clusters"], cc["m"], cc["mm"]
    for k in ("win", "loss", "p2"):
        t[f"{k}_s"], t[f"{k}_ss"], t[f"{k}_sm"] = cc[f"{k}_s"], cc[f"{k}_ss"], cc[f"{k}_sm"]
    start_seat = rec["start"].astype(np.int64)
    by_off = (np.arange(n)[None, :] + start_seat[:, None]) % n  # seat at offset o from the starter
    for pre, cols_ in (("seat", None), ("off", by_off)):
        for k, arr in (("win", places == 1), ("loss", places == n), ("p2", eff2)):
            a = arr.astype(np.int64)
            if cols_ is not None:
                a = np.take_along_axis(a, cols_, axis=1)
            sb = a.reshape(nbk, n, n).sum(axis=1)
            t[f"{pre}_{k}_ss"] = (sb * sb).sum(axis=0)
    t["lengths"] = _bincount(moves // spec.length_bin, len(t["lengths"]))
    end = rec["end"].astype(np.int64) if "end" in rec else np.where(unf, 3, 0)
    t["len_stalled"] = _bincount(moves[end == 1] // spec.length_bin, len(t["lengths"]))
    t["len_loop"] = _bincount(moves[end == 2] // spec.length_bin, len(t["lengths"]))
    ne = len(spec.end_labels)
    t["ends"] = _bincount(end, ne)
    t["end_games"] = _bincount(sf * ne + np.repeat(end, n), e * ne).reshape(e, ne)
    if "forfeits" in t and "forfeit" in rec:  # the fault code per seat (kind index + 1; 0: none)
        code = rec["forfeit"].astype(np.int64).ravel()
        hit = code > 0
        k = t["forfeits"].shape[1]
        t["forfeits"] = _bincount(sf[hit] * k + code[hit] - 1, e * k).reshape(e, k)
    if "still_in" in t:
        t["still_in"] = _bincount(sf[(pf == 0) & np.repeat(unf, n)], e)

    # head to head, game by game: ordered entry pairs of the seats
    ahead = np.zeros(e * e, np.int64)
    ties = np.zeros(e * e, np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = seating[:, i], seating[:, j]
            ai, bj = eff2[:, i], eff2[:, j]
            ahead += _bincount((a * e + b)[ai < bj], e * e) + _bincount((b * e + a)[bj < ai], e * e)
            eq = ai == bj
            ties += _bincount((a * e + b)[eq], e * e) + _bincount((b * e + a)[eq], e * e)
    t["ahead"], t["ties"] = ahead.reshape(e, e), ties.reshape(e, e)

    # head to head by deal (block of rotations), for the cluster-robust test
    idx = sched["index"]
    rot = idx % n
    cols = (np.arange(n)[None, :] - rot[:, None]) % n  # table position j sits at seat (j - r) % n
    tp2 = np.take_along_axis(eff2, cols, axis=1)  # eff2 by table position
    tpp = np.take_along_axis(places, cols, axis=1)  # raw places by table position
    nb = g // n
    blk_table = (idx[::n] // n) % nt
    keys, svals, mvals = [], [], []
    for p in range(n):
        for q in range(p + 1, n):
            sc = 2 * (tp2[:, p] < tp2[:, q]) + (tp2[:, p] == tp2[:, q])
            s_blk = sc.reshape(nb, n).sum(axis=1).astype(np.int64)
            ea, eb = tables[blk_table, p], tables[blk_table, q]
            keep = ea != eb
            flip = ea > eb
            lo_, hi_ = np.where(flip, eb, ea), np.where(flip, ea, eb)
            s_blk = np.where(flip, 2 * n - s_blk, s_blk)
            if spec.control_variate:  # 2 players: this is the deal's one pair
                t.update(_luck_sums(spec, sched, cols, s_blk, lo_, hi_, flip, keep, rec["luck"]))
            keys.append((np.arange(nb) * (e * e) + lo_ * e + hi_)[keep])
            svals.append(s_blk[keep])
            mvals.append(np.full(int(keep.sum()), 2 * n, np.int64))
    if keys:
        k_all = np.concatenate(keys)
        uk, inv = np.unique(k_all, return_inverse=True)
        s_b = _bincount(inv, len(uk), np.concatenate(svals).astype(np.float64))
        m_b = _bincount(inv, len(uk), np.concatenate(mvals).astype(np.float64))
        pair = uk % (e * e)
        t["blk_n"] = _bincount(pair, e * e).reshape(e, e)
        t["blk_s"] = _bincount(pair, e * e, s_b.astype(np.float64)).reshape(e, e)
        t["blk_m"] = _bincount(pair, e * e, m_b.astype(np.float64)).reshape(e, e)
        t["blk_ss"] = _bincount(pair, e * e, (s_b * s_b).astype(np.float64)).reshape(e, e)
        t["blk_mm"] = _bincount(pair, e * e, (m_b * m_b).astype(np.float64)).reshape(e, e)
        t["blk_sm"] = _bincount(pair, e * e, (s_b * m_b).astype(np.float64)).reshape(e, e)

    # Plackett-Luce choice events: (table, set of table positions still in, who went out)
    tbl = (idx // n) % nt
    bits = (1 << np.arange(n)).astype(np.int64)
    ev = []
    for k in range(1, n):
        is_k = tpp == k
        has = is_k.any(axis=1)
        w = is_k.argmax(axis=1)
        rem = ((tpp == 0) | (tpp >= k)).astype(np.int64) @ bits
        ev.append(((tbl * (1 << n) + rem) * n + w)[has])
    uk, cnt = np.unique(np.concatenate(ev), return_counts=True)
    t["pl_keys"], t["pl_counts"] = uk.astype(np.int64), cnt.astype(np.int64)
    # pairs of events in the same deal (for the cluster-robust rating errors): every two
    # events i < j of one deal's games as the key (min * K + max), K = number of event keys
    n_keys = nt * (1 << n) * n
    evg = np.full((g, n - 1), -1, np.int64)
    for k in range(1, n):
        is_k = tpp == k
        has = is_k.any(axis=1)
        rem = ((tpp == 0) | (tpp >= k)).astype(np.int64) @ bits
        evg[:, k - 1] = np.where(has, (tbl * (1 << n) + rem) * n + is_k.argmax(axis=1), -1)
    evb = evg.reshape(nbk, n * (n - 1))
    pk = []
    for i in range(evb.shape[1]):
        for j in range(i + 1, evb.shape[1]):
            a, b = evb[:, i], evb[:, j]
            ok = (a >= 0) & (b >= 0)
            pk.append((np.minimum(a, b) * n_keys + np.maximum(a, b))[ok])
    if pk:
        uk2, cnt2 = np.unique(np.concatenate(pk), return_counts=True)
        t["pl_pair_keys"], t["pl_pair_counts"] = uk2.astype(np.int64), cnt2.astype(np.int64)

    if spec.rounds > 1:
        kb = spec.match_block
        sm = g // kb
        tot2 = eff2.reshape(sm, spec.rounds, spec.block, n).sum(axis=1).reshape(-1, n)
        mseat = seating.reshape(sm, spec.rounds, spec.block, n)[:, 0].reshape(-1)
        less = (tot2[:, None, :] < tot2[:, :, None]).sum(axis=2)  # others with a lower total
        eq = (tot2[:, None, :] == tot2[:, :, None]).sum(axis=2)  # including itself
        rank2 = (2 * less + eq + 1).ravel()
        lessf, eqf = less.ravel(), eq.ravel()
        greater = n - lessf - eqf
        t["m_count"] = _bincount(mseat, e)
        t["m_wins"] = _bincount(mseat[(lessf == 0) & (eqf == 1)], e)
        t["m_shared"] = _bincount(mseat[(lessf == 0) & (eqf > 1)], e)
        t["m_losses"] = _bincount(mseat[(greater == 0) & (eqf == 1)], e)
        t["m_rank2_sum"] = _bincount(mseat, e, rank2.astype(np.float64))
        t["m_rank2_sq"] = _bincount(mseat, e, (rank2 * rank2).astype(np.float64))
        t["m_total2_sum"] = _bincount(mseat, e, tot2.ravel().astype(np.float64))
        # clusters: one table's P rotations in one match block share the K deals
        ncl = sm * nt
        mcl = np.repeat(np.arange(ncl, dtype=np.int64), n * n)
        cc = _cluster_counts(
            mcl,
            mseat,
            ncl,
            e,
            np.tile(strata, sm),
            spec.n_strata,
            {
                "win": ((lessf == 0) & (eqf == 1)).astype(np.int64),
                "loss": ((greater == 0) & (eqf == 1)).astype(np.int64),
                "rank2": rank2.astype(np.int64),
            },
        )
        t["m_clusters"], t["m_m"], t["m_mm"] = cc["clusters"], cc["m"], cc["mm"]
        for k in ("win", "loss", "rank2"):
            t[f"m_{k}_s"], t[f"m_{k}_ss"], t[f"m_{k}_sm"] = (
                cc[f"{k}_s"],
                cc[f"{k}_ss"],
                cc[f"{k}_sm"],
            )
    return t


def merge(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The sum of two tallies (commutative and associative: integer sums, and the sparse
    Plackett-Luce events are re-keyed with :func:`numpy.unique`, which sorts)."""
    out = {}
    for k in a:
        if k in SPARSE_KEYS or k in SPARSE_KEYS.values():
            continue
        out[k] = a[k] + b[k]
    for kk, kc in SPARSE_KEYS.items():
        keys = np.concatenate([a[kk], b[kk]])
        counts = np.concatenate([a[kc], b[kc]])
        uk, inv = np.unique(keys, return_inverse=True)
        out[kk] = uk.astype(np.int64)
        out[kc] = (
            np.bincount(inv.ravel(), weights=counts, minlength=len(uk)).round().astype(np.int64)
            if len(uk)
            else np.zeros(0, np.int64)
        )
    return out


SPARSE_KEYS = {"pl_keys": "pl_counts", "pl_pair_keys": "pl_pair_counts"}
"""The tally's sparse counters: sorted int64 keys and their counts, of any length."""
RAGGED = tuple(name for pair in SPARSE_KEYS.items() for name in pair)
"""The tally's arrays whose length varies from chunk to chunk (:data:`SPARSE_KEYS`, keys and
counts)."""


def sparse_problem(arrays: dict[str, np.ndarray], prefix: str = "") -> str | None:
    """Why the sparse counters (:data:`SPARSE_KEYS`, named ``prefix + name`` in ``arrays``)
    of a stored tally are unusable (keys and counts of different lengths), or None."""
    for kk, kc in SPARSE_KEYS.items():
        if arrays[prefix + kk].shape != arrays[prefix + kc].shape:
            return f"{prefix}{kk} and {prefix}{kc} differ in length"
    return None
