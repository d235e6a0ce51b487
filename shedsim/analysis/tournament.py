"""Tournaments: planning, streaming aggregation, the run store, resume, analysis.

Flow (DESIGN.md): a :class:`TournamentSpec` says what to play; the schedule is
:func:`shedsim.runs.simulate.schedule_games` with ``schedule="tournament"`` (every table of
``players`` seats drawn from the entries, every rotation of each table, paired deals);
chunks of consecutive games are played by the run machinery (:mod:`shedsim.runs.execute`:
workers, run store, resume, signals); each finished chunk is reduced at once by :func:`aggregate_chunk` to a few small integer
arrays (counters), written to ``DIR/chunks/NNNNN.npz`` (atomically) and its records are
dropped, so memory does not grow with ``--games``. The final results are the sum of the
chunk files (integer addition: the same whatever the order, the number of workers, or how
many sessions a resumed run took), analysed by :func:`analyse` with :mod:`shedsim.stats`.

Definitions used in every output (see README-tournament.md):

* A strategy's **games** count seat-games: a strategy seated twice at a table (possible
  when there are fewer entries than seats) plays two seat-games in that game.
* **Win** = place 1 (first out). **Loss** = last place (the Idiot / Shithead).
* **Unfinished** games (stopped before one player was left: a proven loop, stalled by
  the no-progress rule ``stall:N``, or the move cap; :mod:`shedsim.rules.engine`) are counted,
  never dropped, and how each ended is counted too (``stalled``, ``loops``, ``capped``):
  a seat that went out before the stop keeps its place (so a win can happen in an
  unfinished game); under ``stalemate:share`` (the default) the seats still in share the
  remaining places, each getting their mean, for mean place and for head-to-head (two
  seats still in are a tie), and **nobody lost** an unfinished game; under
  ``stalemate:most_cards`` the kernel has placed them by cards held, and the last is
  the loser.
* **Matches** (``rounds`` > 1): the K games of one table and one rotation with K
  consecutive deals of that table (game g and g + j * block for j < K); a seat's match
  score is its summed places (as palace scores), lowest total wins; tied totals share the
  mean of their ranks.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from shedsim.base import atomic
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.execute import Job, Outcome, play, versions, write_run_json  # noqa: F401 (re-exported)
from shedsim.runs.simulate import RunSpec, schedule_games, tournament_tables  # noqa: F401 (re-exported)
from shedsim.runs.store import RunStore, plan_size_problem

FORMAT = 2
"""Version of spec.json and the chunk tallies (2: per-deal cluster sums added)."""
END_LABELS = ("finished", "stalled", "loop", "cap")
"""How games ended, in ``layout.END_*`` order (``run.json``'s ``ends``)."""
DEFAULT_GAMES = 200_000
DEFAULT_PLAYERS = 4
DEFAULT_RULES = "shithead"
DEFAULT_OUT = "reports/latest"
TARGET_CHUNK = 20_000
MAX_LENGTH_BINS = 10_000

OUTPUTS = ("summary.csv", "head_to_head.csv", "seats.csv", "lengths.csv", "matches.csv", "rates.png", "places.png",
           "head_to_head.png", "lengths.png", "seats.png", "run.json", "games")
"""Every name a tournament may write in its directory (besides the run store's own,
:data:`shedsim.runs.store.STORE_FILES`): what ``--out --force`` refuses to find there."""

RECORD_KEEP = ("places", "start", "moves", "unfinished", "end", "pickups", "burns")
SAVE_KEEP = RECORD_KEEP + ("dealt", "face_up")


class TournamentError(ValueError):
    """A tournament option that cannot be used; the message names the option."""


# ---------------------------------------------------------------------- entries
_LABEL_RE = re.compile(r"^[A-Za-z0-9_.#+-]+$")
_PARAM_RE = re.compile(r"^\s*[A-Za-z_]\w*\s*=\s*-?\d+\s*$")


def parse_entries(text: str) -> list[tuple[str, str]]:
    """Read ``--strategies``: comma-separated ``SPEC`` or ``LABEL=SPEC`` items, where SPEC
    is ``NAME`` or ``NAME:param=v[,param=v]``. Returns ``(label, spec)`` pairs.

    A piece ``param=INTEGER`` right after a spec with parameters continues that spec
    (``mc:rollouts=64,cap=200``). Without a label, the spec is the label; a spec entered
    again gets ``#2``, ``#3``, ... (``greedy,greedy`` gives ``greedy`` and ``greedy#2``:
    an A/A test). A piece ``@ROLE`` stands for the built-in strategies that role selects
    by their traits (:data:`shedsim.plugins.ROLES`: ``@default`` is the default field,
    ``@ladder`` every built-in strategy but variants, ``@reference``, ...). Raises
    :class:`TournamentError`.
    """
    pieces = [p.strip() for p in text.split(",")]
    items: list[list[str | None]] = []  # [label, spec]
    for p in pieces:
        if not p:
            continue
        if p.startswith("@"):
            items += [[None, name] for name in _role_names(p)]
            continue
        if items and _PARAM_RE.match(p) and ":" in (items[-1][1] or ""):
            items[-1][1] = f"{items[-1][1]},{p.replace(' ', '')}"
            continue
        eq, colon = p.find("="), p.find(":")
        if eq > 0 and (colon < 0 or eq < colon):
            label, spec = p[:eq].strip(), p[eq + 1:].strip()
            if not _LABEL_RE.match(label):
                raise TournamentError(f"--strategies: label {label!r} may hold only letters, digits and _ . # + -")
            items.append([label, spec])
        else:
            items.append([None, p])
    if not items:
        raise TournamentError("--strategies: name at least two strategies")
    out: list[tuple[str, str]] = []
    used: set[str] = {str(lab) for lab, _ in items if lab is not None}
    seen: dict[str, int] = {}
    for lab, spec in items:
        assert spec is not None
        if not spec:
            raise TournamentError(f"--strategies: label {lab!r} has no strategy")
        if lab is None:
            base = spec
            seen[base] = seen.get(base, 0) + 1
            lab = base if seen[base] == 1 else f"{base}#{seen[base]}"
            while lab in used:
                seen[base] += 1
                lab = f"{base}#{seen[base]}"
        elif any(lab == o for o, _ in out):
            raise TournamentError(f"--strategies: label {lab!r} is used twice")
        used.add(lab)
        out.append((lab, spec))
    return out


def _role_names(piece: str) -> list[str]:
    """The names ``@ROLE`` stands for (:func:`shedsim.plugins.select` among the built-in
    strategies). Raises :class:`TournamentError` for an unknown role."""
    from shedsim.plugins import ROLES, PluginError, choice
    role = piece[1:].strip()
    if role not in ROLES:
        raise TournamentError(f"--strategies: {piece!r} names no selection; use one of "
                              f"{', '.join('@' + r for r in ROLES)}")
    try:
        return choice(role)
    except PluginError as e:
        raise TournamentError(f"--strategies: {piece}: {e}") from None


def default_strategies(extra_paths: tuple[str, ...] = ()) -> list[str]:
    """The default field, by name: every built-in compiled strategy that is neither slow
    (``TRAITS['cost']``) nor a variant of another (:func:`shedsim.plugins.select`, role
    ``default``). Plugins from ``extra_paths`` are never in it. Raises
    :class:`TournamentError` when no built-in strategy qualifies or a path is not a directory."""
    from shedsim.plugins import PluginError, discover, select
    try:
        return select(discover(list(extra_paths)), "default")
    except PluginError as e:
        raise TournamentError(str(e)) from None


# ---------------------------------------------------------------------- seating orders
SEAT_ORDERS = ("all", "sorted")
MAX_ARRANGED_TABLES = 20_000
MAX_STRATA = 500
"""Above this many table combinations the intervals use one stratum (the tally keeps a few
counters per entry and stratum)."""
"""Above this many tables ``--seat-orders all`` falls back to ``sorted`` (and says so)."""


def _necklaces(table: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct cyclic order of ``table`` (a multiset), up to rotation, each written
    from its smallest rotation, sorted."""
    import itertools
    out = set()
    for p in set(itertools.permutations(table)):
        out.add(min(p[i:] + p[:i] for i in range(len(p))))
    return sorted(out)


def arranged_count(n_entries: int, players: int) -> int:
    """How many tables ``--seat-orders all`` gives (computed without listing them when large)."""
    base = tournament_tables(n_entries, players)
    if n_entries >= players:
        return len(base) * math.factorial(players - 1)
    if len(base) * math.factorial(players - 1) <= 4 * MAX_ARRANGED_TABLES:
        return len(arranged_tables(n_entries, players))
    return len(base) * math.factorial(players - 1)


_ARRANGED: dict[tuple[int, int], list[tuple[int, ...]]] = {}


def arranged_tables(n_entries: int, players: int) -> list[tuple[int, ...]]:
    """The tables of :func:`shedsim.runs.simulate.tournament_tables`, each in every distinct
    cyclic seating order (who sits after whom). The plain tables are sorted, so each
    entry always has the same neighbours (at 4 players and 4 entries: random always
    plays just before greedy); turn order matters in this game, so a fair schedule must
    vary it. Rotations (already in the schedule) then move every order round the seats."""
    key = (n_entries, players)
    if key not in _ARRANGED:
        _ARRANGED[key] = [n for t in tournament_tables(n_entries, players) for n in _necklaces(t)]
    return _ARRANGED[key]


@dataclass(frozen=True)
class ArrangedRunSpec(RunSpec):
    """A :class:`shedsim.runs.simulate.RunSpec` whose tables are :func:`arranged_tables`
    (``schedule_games`` and ``play_chunk`` read ``spec.tables()``)."""

    def tables(self) -> list[tuple[int, ...]]:
        return arranged_tables(self.seated or len(self.entries), self.players)


# ---------------------------------------------------------------------- the plan
@dataclass
class TournamentSpec:
    """Everything that decides a tournament's results (stored as ``DIR/spec.json``).

    ``games`` is ``games_requested`` rounded up to whole match blocks (``rounds`` x
    ``players`` x number of tables); ``chunk_size`` is a whole number of match blocks, so
    no match and no deal's rotations are split between chunks.
    """

    rules: RuleSet
    rules_input: dict[str, Any]
    players: int
    entries: tuple[str, ...]
    labels: tuple[str, ...]
    seed: int
    games_requested: int
    games: int
    rounds: int
    chunk_size: int
    strategy_paths: tuple[str, ...] = ()
    strategy_hashes: dict[str, str] = field(default_factory=dict)
    save_games: bool = False
    seat_orders: str = "all"
    swap_sources: tuple[str, ...] = ()
    """Strategy specs that never sit at a table but lend their swap functions (the swap
    study's head-to-head of swap policies, :mod:`shedsim.analysis.swaps`)."""
    swap_from: tuple[int, ...] | None = None
    """Per seated entry, the index (into ``entries + swap_sources``) of the entry whose swap
    decides its face-up cards, -1 = keep them as dealt; None = its own swap."""

    @property
    def tables(self) -> list[tuple[int, ...]]:
        return self.run_spec().tables()

    @property
    def table_strata(self) -> np.ndarray:
        """int64[tables]: the stratum of each table for the intervals (its combination of
        entries: the seating orders of one combination share a stratum; every stratum is
        played equally often by design). One stratum for all when there would be more
        than :data:`MAX_STRATA`."""
        combos: dict[tuple[int, ...], int] = {}
        out = np.array([combos.setdefault(tuple(sorted(t)), len(combos)) for t in self.tables], np.int64)
        return out if len(combos) <= MAX_STRATA else np.zeros(len(out), np.int64)

    @property
    def n_strata(self) -> int:
        return int(self.table_strata.max()) + 1

    @property
    def block(self) -> int:
        """Games per block: every table under every rotation."""
        return self.players * len(self.tables)

    @property
    def match_block(self) -> int:
        return self.rounds * self.block

    @property
    def n_chunks(self) -> int:
        return max(1, math.ceil(self.games / self.chunk_size))

    def chunk_bounds(self, i: int) -> tuple[int, int]:
        return i * self.chunk_size, min(self.games, (i + 1) * self.chunk_size)

    @property
    def length_bin(self) -> int:
        """Width (moves) of the stored game-length histogram bins (1 up to 10,000 moves)."""
        return max(1, math.ceil((self.rules.max_moves + 1) / MAX_LENGTH_BINS))

    def run_spec(self) -> RunSpec:
        cls = ArrangedRunSpec if self.seat_orders == "all" else RunSpec
        extra = tuple(self.swap_sources)
        return cls(self.rules, self.players, self.entries + extra, self.labels + extra, seed=self.seed,
                   games=self.games, schedule="tournament", strategy_paths=self.strategy_paths,
                   chunk_size=self.chunk_size,
                   swap_from=None if self.swap_from is None else tuple(self.swap_from) + (-1,) * len(extra),
                   seated=len(self.entries) if extra else 0)

    def identity(self) -> dict[str, Any]:
        """The fields that decide results (compared on resume; hashed into each chunk)."""
        return {"format": FORMAT, "rules": self.rules.to_dict(), "players": self.players,
                "entries": list(self.entries), "labels": list(self.labels), "seed": self.seed,
                "games": self.games, "rounds": self.rounds, "chunk_size": self.chunk_size,
                "seat_orders": self.seat_orders, "strategy_hashes": dict(sorted(self.strategy_hashes.items())),
                **({"swap_sources": list(self.swap_sources), "swap_from": list(self.swap_from)}
                   if self.swap_from is not None else {})}

    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        d = self.identity()
        d.update({"rules_input": self.rules_input, "games_requested": self.games_requested,
                  "strategy_paths": list(self.strategy_paths), "save_games": self.save_games,
                  "tables": [list(t) for t in self.tables], "block": self.block,
                  "n_chunks": self.n_chunks, "key": self.key()})
        return d


def auto_chunk_size(games: int, match_block: int) -> int:
    """About ``games / 16`` games (at most :data:`TARGET_CHUNK`), rounded to whole match
    blocks: enough chunks to share between workers and show progress, few enough that
    per-chunk overhead stays small. Depends on the games only, never on the workers."""
    target = min(TARGET_CHUNK, max(1, math.ceil(games / 16)))
    return max(1, round(target / match_block)) * match_block


def plan(rules: RuleSet, players: int, strategies: list[tuple[str, str]], games: int, seed: int = 0,
         rounds: int = 1, chunk_size: int | None = None, strategy_paths: tuple[str, ...] = (),
         rules_input: dict[str, Any] | None = None, save_games: bool = False,
         seat_orders: str = "all") -> TournamentSpec:
    """Check every option and build the spec, before any game is played.

    Raises :class:`TournamentError` (or :class:`shedsim.rules.RulesError`) naming the
    option: unknown strategy or parameter, plain-Python strategy, fewer than two entries,
    players outside the rule set's range, games < 1, rounds outside 1-10.

    ``seat_orders="all"`` plays every table in every cyclic seating order
    (:func:`arranged_tables`); when that would exceed :data:`MAX_ARRANGED_TABLES` tables
    it falls back to ``"sorted"`` (the plain tables); ``spec.seat_orders`` says which.
    """
    from shedsim.plugins import PluginError, compiled_strategy, discover
    rules.check_players(players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise TournamentError(f"--games: must be at least 1, got {games!r}")
    if not 1 <= rounds <= 10:
        raise TournamentError(f"--rounds: must be 1-10, got {rounds}")
    if seed < 0:
        raise TournamentError(f"--seed: must be non-negative, got {seed}")
    if len(strategies) < 2:
        raise TournamentError("--strategies: a tournament needs at least two entries "
                              "(enter one strategy twice, e.g. greedy,greedy, for an A/A test)")
    try:
        known = discover(list(strategy_paths))
        hashes = {}
        for label, spec in strategies:
            s = compiled_strategy(known, spec, "a tournament")
            hashes[s.name] = s.source_hash
    except PluginError as e:
        raise TournamentError(f"--strategies: {e}") from None
    if seat_orders not in SEAT_ORDERS:
        raise TournamentError(f"--seat-orders: one of {', '.join(SEAT_ORDERS)}; got {seat_orders!r}")
    if seat_orders == "all" and arranged_count(len(strategies), players) > MAX_ARRANGED_TABLES:
        seat_orders = "sorted"
    n_tables = (len(arranged_tables(len(strategies), players)) if seat_orders == "all"
                else len(tournament_tables(len(strategies), players)))
    mblock = rounds * players * n_tables
    total = math.ceil(games / mblock) * mblock
    if chunk_size is None:
        chunk_size = auto_chunk_size(total, mblock)
    else:
        if chunk_size < 1:
            raise TournamentError(f"--chunk-size: must be at least 1, got {chunk_size}")
        chunk_size = math.ceil(chunk_size / mblock) * mblock
    too_big = plan_size_problem(math.ceil(total / chunk_size), total, chunk_size)
    if too_big:
        raise TournamentError(too_big)
    return TournamentSpec(rules=rules, rules_input=rules_input or {"rules": rules.name, "house": list(rules.house)},
                          players=players, entries=tuple(s for _, s in strategies),
                          labels=tuple(lab for lab, _ in strategies), seed=seed, games_requested=games,
                          games=total, rounds=rounds, chunk_size=chunk_size,
                          strategy_paths=tuple(strategy_paths), strategy_hashes=hashes, save_games=save_games,
                          seat_orders=seat_orders)


# ---------------------------------------------------------------------- aggregation
def empty_tally(spec: TournamentSpec) -> dict[str, np.ndarray]:
    """Zeroed counters of one tally (the shapes :func:`aggregate_chunk` returns)."""
    e, n = len(spec.entries), spec.players
    nb = spec.rules.max_moves // spec.length_bin + 1
    z = lambda *shape: np.zeros(shape, np.int64)  # noqa: E731
    t = {
        "games": z(), "unfinished": z(), "moves_sum": z(), "moves_sq": z(),
        "seat_games": z(e), "wins": z(e), "losses": z(e), "place_hist": z(e, n + 1),
        "place2_sum": z(e), "place2_sq": z(e), "unfinished_games": z(e), "pickups": z(e), "burns": z(e),
        "seat_wins": z(n), "seat_losses": z(n), "seat_place2": z(n),
        "off_wins": z(n), "off_losses": z(n), "off_place2": z(n),
        "lengths": z(nb), "len_stalled": z(nb), "len_loop": z(nb), "ends": z(4), "end_games": z(e, 4),
        "ahead": z(e, e), "ties": z(e, e),
        "blk_n": z(e, e), "blk_s": z(e, e), "blk_m": z(e, e), "blk_ss": z(e, e), "blk_mm": z(e, e), "blk_sm": z(e, e),
        "pl_keys": z(0), "pl_counts": z(0), "pl_pair_keys": z(0), "pl_pair_counts": z(0),
        "m_count": z(e), "m_wins": z(e), "m_shared": z(e), "m_losses": z(e),
        "m_rank2_sum": z(e), "m_rank2_sq": z(e), "m_total2_sum": z(e),
    }
    # per-deal cluster sums (sum over deals of squares and cross products of a deal's counts),
    # for the cluster-robust intervals of analyse(): see stats.cluster_sums
    ns = spec.n_strata
    t.update({k: z(e, ns) for k in CLUSTER_ENTRY_KEYS})
    t.update({k: z(n) for k in CLUSTER_SEAT_KEYS})
    t.update({k: z(e, ns) for k in CLUSTER_MATCH_KEYS})
    return t


CLUSTER_ENTRY_KEYS = ("e_deals", "e_m", "e_mm", "win_s", "win_ss", "win_sm", "loss_s", "loss_ss", "loss_sm",
                      "p2_s", "p2_ss", "p2_sm")
"""Per entry and stratum (table combination, :attr:`TournamentSpec.table_strata`), over deals
(the P rotations of one deal, the unit of independence): deals the entry played, its
seat-games and their squares summed per deal, and for wins, losses and twice the place the
count, the sum over deals of the squared per-deal count and of its product with the seat-games."""
CLUSTER_SEAT_KEYS = ("seat_win_ss", "seat_loss_ss", "seat_p2_ss", "off_win_ss", "off_loss_ss", "off_p2_ss")
"""Per seat (and per seat counted from the starter), the sum over deals of the squared per-deal
count of wins, losses and twice the place (every deal gives each seat P games)."""
CLUSTER_MATCH_KEYS = ("m_clusters", "m_m", "m_mm", "m_win_s", "m_win_ss", "m_win_sm", "m_loss_s", "m_loss_ss",
                      "m_loss_sm", "m_rank2_s", "m_rank2_ss", "m_rank2_sm")
"""As :data:`CLUSTER_ENTRY_KEYS` for matches (``--rounds``), whose clusters are one table's
P rotations on the same K deals."""


def _cluster_counts(cluster: np.ndarray, entry: np.ndarray, n_clusters: int, e: int, stratum: np.ndarray,
                    ns: int, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
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


def effective_places2(places: np.ndarray) -> np.ndarray:
    """Twice each seat's place (int64[n, P]); seats still in at the move cap (place 0)
    share the remaining places: with k seats still in, each gets ``2P - k + 1`` (twice the
    mean of places P-k+1..P)."""
    p = places.shape[1]
    pl = places.astype(np.int64)
    k = (pl == 0).sum(axis=1, keepdims=True)
    return np.where(pl > 0, 2 * pl, 2 * p - k + 1)


def aggregate_chunk(spec: TournamentSpec, start: int, stop: int, rec: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
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
    cc = _cluster_counts(deal_of, sf, nbk, e, deal_stratum, spec.n_strata,
                         {"win": won.astype(np.int64), "loss": lost.astype(np.int64), "p2": ef})
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
    t["ends"] = _bincount(end, 4)
    t["end_games"] = _bincount(sf * 4 + np.repeat(end, n), e * 4).reshape(e, 4)

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
    tp2 = np.take_along_axis(eff2, cols, axis=1)       # eff2 by table position
    tpp = np.take_along_axis(places, cols, axis=1)     # raw places by table position
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
        less = (tot2[:, None, :] < tot2[:, :, None]).sum(axis=2)   # others with a lower total
        eq = (tot2[:, None, :] == tot2[:, :, None]).sum(axis=2)    # including itself
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
        cc = _cluster_counts(mcl, mseat, ncl, e, np.tile(strata, sm), spec.n_strata, {
            "win": ((lessf == 0) & (eqf == 1)).astype(np.int64),
            "loss": ((greater == 0) & (eqf == 1)).astype(np.int64), "rank2": rank2.astype(np.int64)})
        t["m_clusters"], t["m_m"], t["m_mm"] = cc["clusters"], cc["m"], cc["mm"]
        for k in ("win", "loss", "rank2"):
            t[f"m_{k}_s"], t[f"m_{k}_ss"], t[f"m_{k}_sm"] = cc[f"{k}_s"], cc[f"{k}_ss"], cc[f"{k}_sm"]
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
        out[kc] = np.bincount(inv.ravel(), weights=counts, minlength=len(uk)).round().astype(np.int64) \
            if len(uk) else np.zeros(0, np.int64)
    return out


SPARSE_KEYS = {"pl_keys": "pl_counts", "pl_pair_keys": "pl_pair_counts"}
"""The tally's sparse counters: sorted int64 keys and their counts, of any length."""
RAGGED = tuple(name for pair in SPARSE_KEYS.items() for name in pair)
"""The tally's arrays whose length varies from chunk to chunk (:data:`SPARSE_KEYS`, keys and counts)."""


def sparse_problem(arrays: dict[str, np.ndarray], prefix: str = "") -> str | None:
    """Why the sparse counters (:data:`SPARSE_KEYS`, named ``prefix + name`` in ``arrays``)
    of a stored tally are unusable (keys and counts of different lengths), or None."""
    for kk, kc in SPARSE_KEYS.items():
        if arrays[prefix + kk].shape != arrays[prefix + kc].shape:
            return f"{prefix}{kk} and {prefix}{kc} differ in length"
    return None


# ---------------------------------------------------------------------- the run store
def _atomic_write_bytes(path: Path, writer: Callable[[Any], None], suffix: str = "") -> None:
    """Write what ``writer(fileobj)`` writes to ``path`` atomically (:mod:`shedsim.base.atomic`)."""
    atomic.write_with(path, writer)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file, fsync and :func:`os.replace`
    (:func:`shedsim.base.atomic.write_text`; raises :class:`shedsim.base.atomic.WriteError`)."""
    atomic.write_text(path, text)


class Store(RunStore):
    """A tournament's directory (:class:`shedsim.runs.store.RunStore`): ``spec.json``,
    ``chunks/NNNNN.npz`` (one tally per finished chunk, written atomically),
    ``games/NNNNN.parquet`` (``--save-games``). Raises :class:`TournamentError`."""

    Error = TournamentError
    what = "tournament"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.games = self.root / "games"

    def check_chunk(self, key: str, i: int, template: dict[str, np.ndarray], ragged=(),
                    option: str = "--resume") -> dict[str, np.ndarray]:
        """:meth:`shedsim.runs.store.RunStore.check_chunk`, and the sparse Plackett-Luce
        events must have as many counts as keys."""
        arrays = super().check_chunk(key, i, template, ragged, option)
        problem = sparse_problem(arrays)
        if problem:
            raise TournamentError(f"{option}: chunk file {str(self.chunk_path(i))!r} is damaged ({problem}); "
                                  f"delete it to play that chunk again")
        return arrays

    def done_chunks(self, spec: TournamentSpec, strict: bool = False) -> list[int]:  # type: ignore[override]
        """Chunk numbers whose tally is stored for this spec (and, with --save-games, whose
        games file is there too); ``strict`` raises :class:`TournamentError` for a damaged
        or foreign file (:func:`shedsim.runs.execute.done_chunks`)."""
        from shedsim.runs.execute import done_chunks
        return done_chunks(TournamentJob(spec), self, strict)

    def load_total(self, spec: TournamentSpec, chunks: list[int]) -> dict[str, np.ndarray]:
        """The sum of the stored tallies of ``chunks`` (one file in memory at a time)."""
        total = empty_tally(spec)
        for i in sorted(chunks):
            total = merge(total, self.load_chunk(i, list(total)))
        return total

    def game_path(self, i: int) -> Path:
        return self.games / f"{i:05d}.parquet"

    def save_games(self, spec: TournamentSpec, i: int, start: int, stop: int, rec: dict[str, np.ndarray]) -> None:
        """Per-game records of chunk ``i`` as Parquet (one file per chunk, atomic)."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        sched = schedule_games(spec.run_spec(), start, stop)
        n = spec.players
        cols: dict[str, Any] = {
            "game": sched["index"], "deal": sched["deal"],
            "table": ((sched["index"] // n) % len(spec.tables)).astype(np.int32),
            "rotation": (sched["index"] % n).astype(np.int8), "dealer": sched["dealer"].astype(np.int8),
            "start": rec["start"], "moves": rec["moves"], "unfinished": rec["unfinished"],
        }
        for s in range(n):
            cols[f"entry_{s}"] = sched["seating"][:, s].astype(np.int16)
        for name in ("places", "pickups", "burns", "dealt", "face_up"):
            if name in rec:
                for s in range(n):
                    cols[f"{name.rstrip('s') if name == 'places' else name}_{s}"] = np.ascontiguousarray(rec[name][:, s])
        table = pa.table(cols)
        meta = {b"shedsim.labels": json.dumps(list(spec.labels)).encode(),
                b"shedsim.entries": json.dumps(list(spec.entries)).encode()}
        table = table.replace_schema_metadata(meta)
        atomic.write_with(self.game_path(i), lambda f: pq.write_table(table, f))


_SPEC_FIELDS = {"rules": dict, "rules_input": dict, "players": int, "entries": list, "labels": list, "seed": int,
                "games_requested": int, "rounds": int, "chunk_size": int, "strategy_hashes": dict, "key": str}


def spec_from_store(store: Store, strategy_paths: tuple[str, ...] | None = None) -> TournamentSpec:
    """Rebuild the spec saved in ``store`` (for ``--resume``), checking that it is a
    shedsim spec of this format, that the rules and every strategy's source are unchanged
    and that it rebuilds to the stored key. Raises :class:`TournamentError`."""
    from shedsim.rules.ruleset import RulesError, build
    d = store.read_spec()
    where = repr(str(store.spec_path()))
    store.check_command(d, FORMAT)
    bad = [k for k, typ in _SPEC_FIELDS.items()
           if not isinstance(d.get(k), typ) or (typ is int and isinstance(d.get(k), bool))]
    bad += [k for k in ("entries", "labels") if k not in bad and not all(isinstance(x, str) for x in d[k])]
    if bad:
        raise TournamentError(f"--resume: {where} is damaged or not a shedsim tournament spec "
                              f"(missing or invalid: {', '.join(bad)})")
    ri = d["rules_input"]
    try:
        rules = build(ri.get("rules", "shithead"), ri.get("house", []), ri.get("rules_file"))
    except (RulesError, TypeError, ValueError) as e:
        raise TournamentError(f"--resume: the stored rules no longer build: {e}") from None
    if rules.to_dict() != d["rules"]:
        raise TournamentError("--resume: the rule set differs from the one the run started with "
                              "(the rules file or a preset changed); start a new run")
    paths = tuple(d.get("strategy_paths", [])) if strategy_paths is None else strategy_paths
    try:
        spec = plan(rules, d["players"], list(zip(d["labels"], d["entries"])), d["games_requested"],
                    seed=d["seed"], rounds=d["rounds"], chunk_size=d["chunk_size"], strategy_paths=paths,
                    rules_input=ri, save_games=bool(d.get("save_games", False)),
                    seat_orders=d.get("seat_orders", "all"))
    except (TournamentError, RulesError) as e:
        msg = str(e)
        raise TournamentError(msg if msg.startswith("--resume") else f"--resume: {where}: {msg}") from None
    except (TypeError, ValueError, KeyError) as e:
        raise TournamentError(f"--resume: {where} is damaged ({type(e).__name__}: {e})") from None
    if spec.strategy_hashes != d["strategy_hashes"]:
        changed = [n for n in spec.strategy_hashes if spec.strategy_hashes[n] != d["strategy_hashes"].get(n)]
        raise TournamentError(f"--resume: strategy source changed since the run started ({', '.join(changed)}); "
                              f"results would mix two versions; start a new run")
    if spec.key() != d["key"]:
        raise TournamentError(f"--resume: the stored specification {where} does not match what it rebuilds to "
                              f"(edited, or written by another version); start a new run")
    store.verify_checksum(d)
    return spec


# ---------------------------------------------------------------------- running
class TournamentJob(Job):
    """A tournament as the run machinery plays it (:mod:`shedsim.runs.execute`): chunk k
    is games ``spec.chunk_bounds(k)`` of ``spec.run_spec()``; each is reduced to the
    counters of :func:`empty_tally` (and, with ``--save-games``, its games Parquet file)."""

    command = "tournament"
    ragged = RAGGED

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self.key = spec.key()
        self.spec_json = spec.to_json()
        rs = spec.run_spec()
        self.tasks = [(rs, i) for i in range(spec.n_chunks)]
        self.keep = SAVE_KEEP if spec.save_games else RECORD_KEEP
        self.strategies = [f"{lab}={e}" if lab != e else lab for lab, e in zip(spec.labels, spec.entries)]

    def reduce(self, k: int, result, store: Store) -> dict[str, np.ndarray]:
        start, stop = self.spec.chunk_bounds(k)
        tally = aggregate_chunk(self.spec, start, stop, result.records)
        if self.spec.save_games:
            store.save_games(self.spec, k, start, stop, result.records)
        return tally

    def template(self, k: int) -> dict[str, np.ndarray]:
        return empty_tally(self.spec)

    def extra_dirs(self, store: Store) -> list[Path]:
        return [store.games] if self.spec.save_games else []

    def clear_extra(self, store: Store) -> list[tuple[Path, str]]:
        return [(store.games, "[0-9][0-9][0-9][0-9][0-9].parquet")]

    def chunk_also_done(self, store: Store, k: int, strict: bool) -> bool:
        if not self.spec.save_games:
            return True
        g = store.game_path(k)
        if not g.exists():
            return False
        if strict:
            try:
                import pyarrow.parquet as pq
                pq.read_metadata(g)
            except Exception as e:  # noqa: BLE001
                raise TournamentError(f"--resume: games file {str(g)!r} is damaged ({e}); delete it "
                                      f"and its chunk file {str(store.chunk_path(k))!r} to play that chunk again") from None
        return True


    def replay_hint(self, store: Store, game: int) -> str | None:
        import shlex
        return f"shedsim trace --from {shlex.quote(str(store.root))} --game {game}"


RunOutcome = Outcome
"""What :func:`run` did (:class:`shedsim.runs.execute.Outcome`)."""


def run(spec: TournamentSpec, store: Store, workers: int = 1, backend: str = "loky",
        resume: bool = False, stop_after: int | None = None,
        on_progress: Callable[[int], None] | None = None, scheduler: str | None = None) -> Outcome:
    """Play the chunks that ``store`` lacks, storing each chunk's tally as it arrives
    (:func:`shedsim.runs.execute.play` with a :class:`TournamentJob`).

    ``stop_after`` plays at most that many chunks and stops as if interrupted (tests of
    resume). Ctrl-C (KeyboardInterrupt) also stops: every finished chunk is kept, and the
    outcome says ``interrupted``. Raises :class:`shedsim.runs.simulate.SimulationError` when a
    strategy fails, :class:`shedsim.base.atomic.WriteError` (naming the file) when a chunk
    cannot be stored (disk full: the chunks stored before it are kept), and, with
    ``resume``, :class:`TournamentError` for a damaged or foreign chunk file.
    """
    return play(TournamentJob(spec), store, workers=workers, backend=backend, resume=resume,
                stop_after=stop_after, on_progress=on_progress, scheduler=scheduler)


# ---------------------------------------------------------------------- analysis
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
    from shedsim import stats
    keys = t["pl_keys"]
    sets, winners = _pl_raw(spec, keys)
    n_keys = len(spec.tables) * (1 << spec.players) * spec.players
    pk = t["pl_pair_keys"]
    pa = np.searchsorted(keys, pk // n_keys)
    pb = np.searchsorted(keys, pk % n_keys)
    return stats.plackett_luce_cluster_se(theta, sets, winners, t["pl_counts"], pa, pb, t["pl_pair_counts"])


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


def degenerate_pairs(spec: TournamentSpec) -> list[tuple[str, str]]:
    """Pairs of entries (labels) whose head-to-head comparison cannot fail: the same
    deterministic strategy with the same parameters (:func:`shedsim.plugins.deterministic_identity`),
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
    return (f"degenerate comparison: {names}: the same deterministic strategy, alone at its tables, so every "
            f"rotation of a deal replays the same game and each copy wins exactly half: the share is exactly 0.5 "
            f"(zero-width interval) and this A/A test cannot fail. For an A/A test that can, enter a strategy with "
            f"randomness (e.g. --strategies random,random) or seat another strategy with the copies "
            f"(e.g. --strategies greedy,greedy,expert --players {max(3, players)}).")


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

    from shedsim import stats
    n = players
    # every deal gives each seat (and each seat counted from the starter) n games: clusters of size n
    g_total = int(t["games"])
    n_deals = g_total // n
    parts = []
    for kind, pre, wins, losses, p2 in (("seat", "seat", t["seat_wins"], t["seat_losses"], t["seat_place2"]),
                                        ("from_starter", "off", t["off_wins"], t["off_losses"], t["off_place2"])):
        k = np.full(n, n_deals, np.int64)
        m = np.full(n, g_total, np.int64)
        mm_s = np.full(n, n_deals * n * n, np.int64)
        swr = stats.cluster_rate(k, wins, m, t[f"{pre}_win_ss"], mm_s, n * wins)
        slr = stats.cluster_rate(k, losses, m, t[f"{pre}_loss_ss"], mm_s, n * losses)
        smp = stats.cluster_mean(k, p2 / 2.0, m, t[f"{pre}_p2_ss"] / 4.0, mm_s, n * p2 / 2.0, bounds=(1.0, float(n)))
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append(pd.DataFrame({
                "kind": kind, "seat": np.arange(n), "games": m, "deals": k,
                "wins": wins, "win_rate": wins / m, "win_lo": swr.lo, "win_hi": swr.hi,
                "losses": losses, "loss_rate": losses / m, "loss_lo": slr.lo, "loss_hi": slr.hi,
                "mean_place": smp[0], "place_lo": smp[1], "place_hi": smp[2],
            }))
    seats = pd.concat(parts, ignore_index=True)
    return seats


def analyse(spec: TournamentSpec, t: dict[str, np.ndarray]) -> Results:
    """Statistics from a tally (see :mod:`shedsim.stats` for every formula)."""
    import pandas as pd

    from shedsim import stats
    e, n = len(spec.entries), spec.players
    labels = list(spec.labels)
    games = t["seat_games"]
    # every interval treats a deal (its P rotations share the cards) as one cluster
    # and the table combinations are strata (fixed by the design: within-stratum variance)
    deals, em, mm = t["e_deals"], t["e_m"], t["e_mm"]
    wr = stats.cluster_rate(deals, t["win_s"], em, t["win_ss"], mm, t["win_sm"], strata=True)
    lr = stats.cluster_rate(deals, t["loss_s"], em, t["loss_ss"], mm, t["loss_sm"], strata=True)
    win_lo, win_hi, loss_lo, loss_hi = wr.lo, wr.hi, lr.lo, lr.hi
    mp, mp_lo, mp_hi, _ = stats.cluster_mean(deals, t["p2_s"] / 2.0, em, t["p2_ss"] / 4.0, mm,
                                             t["p2_sm"] / 2.0, bounds=(1.0, float(n)), strata=True)
    if len(t["pl_keys"]):
        sets, winners, counts = _pl_events(spec, t["pl_keys"], t["pl_counts"])
        fit = stats.plackett_luce(sets, winners, counts)
        rating = fit.elo
        rating_se = stats.ELO_PER_THETA * _pl_cluster_se(spec, t, fit.theta)
    else:
        fit = None
        rating = rating_se = np.full(e, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        summary = pd.DataFrame({
            "strategy": labels, "spec": list(spec.entries), "games": games,
            "wins": t["wins"], "win_rate": t["wins"] / games, "win_lo": win_lo, "win_hi": win_hi,
            "losses": t["losses"], "loss_rate": t["losses"] / games, "loss_lo": loss_lo, "loss_hi": loss_hi,
            "mean_place": mp, "place_lo": mp_lo, "place_hi": mp_hi,
            "rating": rating, "rating_se": rating_se,
            "rating_lo": rating - stats.Z95 * rating_se, "rating_hi": rating + stats.Z95 * rating_se,
            "unfinished": t["unfinished_games"], "still_in_at_cap": t["place_hist"][:, 0],
            "pickups_per_game": t["pickups"] / games, "burns_per_game": t["burns"] / games,
        })
    if t["ends"][1:3].any():  # how the unfinished games ended (only when not all at the cap)
        at = summary.columns.get_loc("still_in_at_cap") + 1
        for k, col in enumerate(("stalled", "loops", "capped")):
            summary.insert(at + k, col, t["end_games"][:, k + 1])
    summary["_i"] = np.arange(e)
    summary = summary.sort_values(["rating", "mean_place", "strategy"], ascending=[False, True, True],
                                  kind="mergesort").reset_index(drop=True)
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
        rt = stats.cluster_ratio(t["blk_n"][lo_i, hi_i], t["blk_s"][lo_i, hi_i], t["blk_m"][lo_i, hi_i],
                                 t["blk_ss"][lo_i, hi_i], t["blk_mm"][lo_i, hi_i], t["blk_sm"][lo_i, hi_i])
        flip = ia != lo_i  # the share is stored for the lower entry index; turn it round for a
        share = np.where(flip, 1 - rt.share, rt.share)
        lo = np.where(flip, 1 - rt.hi, rt.lo)
        hi = np.where(flip, 1 - rt.lo, rt.hi)
        comparisons = t["ahead"][ia, ib] + t["ahead"][ib, ia] + t["ties"][ia, ib]
        h2h = pd.DataFrame({
            "a": [labels[i] for i in ia], "b": [labels[i] for i in ib],
            "comparisons": comparisons, "deals": rt.clusters.astype(np.int64),
            "a_ahead": t["ahead"][ia, ib], "b_ahead": t["ahead"][ib, ia], "ties": t["ties"][ia, ib],
            "share_a_ahead": share, "share_lo": lo, "share_hi": hi, "se": rt.se,
            "p_value": rt.p, "p_holm": stats.holm(rt.p),
        })
        share_ab[ia, ib] = share
        share_ab[ib, ia] = 1 - share
    h2h_matrix = pd.DataFrame(share_ab[np.ix_(order, order)], index=[labels[i] for i in order],
                              columns=[labels[i] for i in order])

    # seats: absolute seat number, and seat counted from the starting player
    g_total = int(t["games"])
    seats = seat_table(t, n)

    lengths, length_info = _lengths(spec, t)
    hist = t["place_hist"].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = hist / hist.sum(axis=1, keepdims=True)
    place_shares = pd.DataFrame(shares[order][:, list(range(1, n + 1)) + [0]],
                                index=[labels[i] for i in order],
                                columns=[str(p) for p in range(1, n + 1)] + ["unfinished"])

    matches = None
    if spec.rounds > 1:
        mc = t["m_count"]
        # clusters: one table's rotations on the same K deals
        mk, mm_, mmm = t["m_clusters"], t["m_m"], t["m_mm"]
        mw = stats.cluster_rate(mk, t["m_win_s"], mm_, t["m_win_ss"], mmm, t["m_win_sm"], strata=True)
        ml = stats.cluster_rate(mk, t["m_loss_s"], mm_, t["m_loss_ss"], mmm, t["m_loss_sm"], strata=True)
        wl, wh, xl, xh = mw.lo, mw.hi, ml.lo, ml.hi
        mr, mr_lo, mr_hi, _ = stats.cluster_mean(mk, t["m_rank2_s"] / 2.0, mm_, t["m_rank2_ss"] / 4.0, mmm,
                                                 t["m_rank2_sm"] / 2.0, bounds=(1.0, float(n)), strata=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            matches = pd.DataFrame({
                "strategy": labels, "matches": mc, "rounds": spec.rounds,
                "match_wins": t["m_wins"], "match_win_rate": t["m_wins"] / mc, "match_win_lo": wl, "match_win_hi": wh,
                "shared_first": t["m_shared"],
                "match_losses": t["m_losses"], "match_loss_rate": t["m_losses"] / mc,
                "match_loss_lo": xl, "match_loss_hi": xh,
                "mean_match_place": mr, "match_place_lo": mr_lo, "match_place_hi": mr_hi,
                "mean_total_places": t["m_total2_sum"] / 2.0 / mc,
            })
        matches = matches.iloc[order].reset_index(drop=True)
        matches = matches.sort_values(["mean_match_place", "strategy"], kind="mergesort").reset_index(drop=True)
        matches.insert(0, "rank", np.arange(1, e + 1))

    info = {
        "games": g_total, "unfinished": int(t["unfinished"]),
        "unfinished_share": (int(t["unfinished"]) / g_total) if g_total else None,
        "ends": {name: int(c) for name, c in zip(END_LABELS, t["ends"])},
        "end_shares": {name: (int(c) / g_total if g_total else None) for name, c in zip(END_LABELS, t["ends"])},
        "lengths": length_info,
        "degenerate": [list(p) for p in degenerate_pairs(spec)],
        "rating_fit": None if fit is None else {
            "model": "Plackett-Luce (I-LSR via choix.utils.statdist)", "iterations": fit.iterations,
            "converged": fit.converged, "scale": "Elo points (400/ln 10 per unit log-strength), mean 0",
            "se": "cluster-robust sandwich over deals (the Fisher information around the per-deal scores)"},
    }
    summary = summary.drop(columns="_i")
    return Results(summary, h2h, seats, lengths, matches, h2h_matrix, place_shares, info)


def headline(spec: TournamentSpec, res: Results) -> list[str]:
    """The tournament's findings in words (run.json's ``headline``): the ranking (by rating),
    whether the leader is separated from the second (their head to head, Holm p < 0.05),
    the entries the data cannot tell apart from the best by what the rules score (the
    loss rate where only losing counts, the mean place where places do, the win rate for
    going out first; :func:`shedsim.stats.not_worse_than_best`, standard errors
    from the 95% intervals), saying so when that order differs from the rating's, and the
    share of unfinished games."""
    from shedsim import stats
    from shedsim.rules.scoring import objective_of
    s = res.summary
    if not len(s) or not s["games"].sum():
        return []
    out = ["Ranking by rating (Plackett-Luce strength of the finishing orders): "
           + ", ".join(f"{r.rank}. {r.strategy}" for r in s.itertuples())]
    if len(s) >= 2:
        a, b = s["strategy"].iloc[0], s["strategy"].iloc[1]
        h = res.head_to_head
        row = h[(h["a"] == a) & (h["b"] == b)] if len(h) else h
        if len(row):
            r = row.iloc[0]
            share = f"{r['share_a_ahead']:.1%} [{r['share_lo']:.1%}, {r['share_hi']:.1%}]"
            if r["p_holm"] < 0.05 and r["share_a_ahead"] > 0.5:
                out.append(f"{a} leads: it finishes ahead of {b}, the second, in {share} of their comparisons "
                           f"(Holm p {r['p_holm']:.2g})")
            else:
                out.append(f"{a} and {b} are not separated: {a} finishes ahead of {b} in {share} of their "
                           f"comparisons (Holm p {r['p_holm']:.2g}); the rating's first place is within noise")
    obj = "place" if spec.rounds > 1 else objective_of(spec.rules)
    col, lo, hi, name, sign = {"lose": ("loss_rate", "loss_lo", "loss_hi", "loss rate", 1.0),
                               "place": ("mean_place", "place_lo", "place_hi", "mean place", 1.0),
                               "first": ("win_rate", "win_lo", "win_hi", "win rate", -1.0)}[obj]
    t = s.assign(_k=sign * s[col]).sort_values(["_k", "strategy"], kind="mergesort").reset_index(drop=True)
    best = stats.not_worse_than_best(t["_k"].to_numpy(float), (t[hi] - t[lo]).to_numpy(float) / (2 * stats.Z95),
                                     dependent=True)  # the entries share games

    def fmt(r) -> str:
        if col == "mean_place":
            return f"{r['strategy']} ({r[col]:.3f} [{r[lo]:.3f}, {r[hi]:.3f}])"
        return f"{r['strategy']} ({r[col]:.2%} [{r[lo]:.2%}, {r[hi]:.2%}])"
    top = t.iloc[0]
    tied = [fmt(r) for (_, r), keep in zip(t.iterrows(), best) if keep and r["strategy"] != top["strategy"]]
    scoring = "summed places over each match" if spec.rounds > 1 else spec.rules.scoring
    text = (f"by what {spec.rules.name} scores ({scoring}): the {'highest' if sign < 0 else 'lowest'} {name} is "
            f"{fmt(top)}"
            + (f", not separated from {', '.join(tied)}" if tied else ", separated from every other")
            + " (subset selection, Bonferroni)")
    if top["strategy"] != s["strategy"].iloc[0]:
        text += f"; the rating puts {s['strategy'].iloc[0]} first"
    out.append(text[:1].upper() + text[1:])
    share = res.info.get("unfinished_share")
    if isinstance(share, float) and share > 0:
        out.append(f"{share:.2%} of games unfinished ({describe_ends(res.info['ends'], spec.rules)})")
    return out


def describe_ends(ends: dict[str, int], rules: RuleSet) -> str:
    """One phrase for how a run's games ended, e.g. ``"1,200 unfinished: 900 stalled, 300
    proven loops, 0 at the move cap of 5000 moves"`` (``ends``: ``run.json``'s ``ends``)."""
    unf = ends.get("stalled", 0) + ends.get("loop", 0) + ends.get("cap", 0)
    return (f"{unf:,} unfinished: {ends.get('stalled', 0):,} stalled, {ends.get('loop', 0):,} proven loops, "
            f"{ends.get('cap', 0):,} at the move cap of {rules.max_moves} moves")


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
        for kind, h in (("finished", fin), ("stalled", t["len_stalled"]), ("proven loop", t["len_loop"])):
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

    info = {"mean_moves": round(mean, 4), "sd_moves": round(math.sqrt(max(var, 0.0)), 4) if g > 1 else None,
            "median_moves": quant(0.5), "p90_moves": quant(0.9), "p99_moves": quant(0.99),
            "max_moves_cap": cap, "histogram_bin_moves": bw}
    return df, info


# ---------------------------------------------------------------------- writing
FLOAT_FORMATS = {
    "win_rate": 6, "win_lo": 6, "win_hi": 6, "loss_rate": 6, "loss_lo": 6, "loss_hi": 6,
    "mean_place": 6, "place_lo": 6, "place_hi": 6, "rating": 3, "rating_se": 3, "rating_lo": 3,
    "rating_hi": 3, "pickups_per_game": 4, "burns_per_game": 4, "share_a_ahead": 6, "share_lo": 6,
    "share_hi": 6, "se": 6, "share": 8, "cumulative_share": 8,
    "match_win_rate": 6, "match_win_lo": 6, "match_win_hi": 6, "match_loss_rate": 6,
    "match_loss_lo": 6, "match_loss_hi": 6, "mean_match_place": 6, "match_place_lo": 6,
    "match_place_hi": 6, "mean_total_places": 6,
}
PVALUE_COLUMNS = ("p_value", "p_holm")


def format_frame(df):
    """A copy with every float column as fixed-format text (deterministic CSV bytes):
    rates and places 6 decimals, ratings 3, p-values 4 significant digits in e-notation."""
    out = df.copy()
    for col in out.columns:
        if col in PVALUE_COLUMNS:
            out[col] = [("" if np.isnan(v) else f"{v:.4e}") for v in out[col].astype(float)]
        elif out[col].dtype.kind == "f":
            d = FLOAT_FORMATS.get(col, 6)
            out[col] = [("" if np.isnan(v) else f"{v:.{d}f}") for v in out[col]]
            # "-0.000" and "0.000" must not differ by the sign of a rounding
            out[col] = [s[1:] if s.startswith("-") and float(s) == 0 else s for s in out[col]]
    return out


def write_csv(df, path: Path) -> None:
    atomic_write_text(path, format_frame(df).to_csv(index=False, lineterminator="\n"))


def write_outputs(spec: TournamentSpec, res: Results, out: Path, plots: bool = True) -> list[str]:
    """Write the CSVs and plots into ``out``; returns the file names (``run.json`` is
    written by :func:`write_run_json`). A run with no game (interrupted before its first
    chunk) gets its CSVs but no chart. Every file is written atomically (temp file in
    ``out``, fsync, :func:`os.replace`): a failure (disk full) raises
    :class:`shedsim.base.atomic.WriteError` naming the file and leaves no half-written file."""
    out = Path(out)
    files = []
    for name, df in (("summary.csv", res.summary), ("head_to_head.csv", res.head_to_head),
                     ("seats.csv", res.seats), ("lengths.csv", res.lengths)):
        write_csv(df, out / name)
        files.append(name)
    if res.matches is not None:
        write_csv(res.matches, out / "matches.csv")
        files.append("matches.csv")
    else:
        (out / "matches.csv").unlink(missing_ok=True)
    charts = ("rates.png", "places.png", "head_to_head.png", "lengths.png", "seats.png")
    if plots and not res.info["games"]:
        for name in charts:  # a run with no game yet has nothing to draw; no chart of an older run stays
            (out / name).unlink(missing_ok=True)
    elif plots:
        from shedsim.output import plots as P
        sub = f"{spec.rules.name}, {spec.players} players, {res.info['games']:,} games"
        P.rates(res.summary, out / "rates.png", subtitle=sub)
        P.place_distribution(res.place_shares, out / "places.png", subtitle=sub, ends=res.info["ends"])
        P.head_to_head(res.h2h_matrix, out / "head_to_head.png", subtitle=sub)
        P.game_lengths(res.lengths, out / "lengths.png", subtitle=sub)
        P.seats(res.seats, out / "seats.png", subtitle=sub)
        files += list(charts)
    return sorted(files)
