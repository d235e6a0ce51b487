"""The swap-phase study: which cards belong face up (``shedsim swaps``).

Before play each player chooses which ``table_size`` of their visible cards (hand plus
face-up, docs/reference/rules.md#swap) lie face up. Four analyses, all on the compiled
kernel and all reproducible from ``(seed, game index)`` for any number of workers:

(a) :func:`by_rank`: what a strategy S puts face up compared with what it was dealt, by
    rank. The same deals are played twice: once keeping the face-up cards as dealt, once
    with S's swap.
(b) :func:`face_up_values`: loss rate and mean place by face-up rank multiset. Every seat
    plays S but keeps its face-up cards *as dealt* (no swap), so the face-up multiset is a
    random draw independent of the seat's skill and of which cards it holds in hand beyond
    the deck's composition: the table measures what a face-up row is worth to S's play.
(c) :func:`compare_policies`: swap policies head to head with the play policy held fixed
    (every entry plays S and differs only in its swap): a tournament with paired deals,
    every table in every seating order and rotation (:mod:`shedsim.analysis.tournament`).
(d) :func:`regret`: for a sample of deals, every distinct face-up choice of one seat
    (``C(6, 3) = 20`` when its six visible cards are distinct ranks) evaluated by
    ``rollouts`` games in which everything the seat cannot see (other seats, face-down
    cards, stock order) is re-dealt at random given its visible cards
    (:func:`shedsim.kernel.core.deal_given`). The choices of one deal share their rollouts'
    deals and strategy streams (common random numbers). Regret = S's choice's mean place
    minus the best choice's, in places.

Definitions: a *loss* is last place (the Idiot); nobody loses an unfinished game. Places
of seats still in at the move cap share the remaining places (each gets their mean),
as in the tournament (:func:`shedsim.rules.scoring.effective_places2`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import numpy as np

from shedsim.analysis.swap_policies import compare_policies, policy_spec  # noqa: F401 - re-exported: part (c)
from shedsim.base.isolate import crash_words
from shedsim.output import charts
from shedsim.output.charts import swaps as swap_charts
from shedsim.rules.cards import RANKS, pack, rank_name, unpack
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.simulate import RunSpec, run_chunks

SHIFTS = 4 * (np.arange(2, 15, dtype=np.int64) - 2)
"""Bit offset of each rank's 4-bit count in a packed multiset (ranks 2..14)."""


def default_policies() -> tuple[tuple[str, str | None], ...]:
    """The built-in swap policies of (c): label and the strategy whose swap function is used
    (None: keep the face-up cards as dealt). ``("no swap", None)``, then each face-up rule
    a built-in strategy declares in its ``TRAITS['swap']``, labelled by the rule
    (:data:`shedsim.plugin_meta.SWAP_RULES`: ``greedy-high``, the strongest cards face up;
    ``expert-table``, a face-up value table; ``random``, a uniform draw), played by the
    first strategy that declares it (:func:`shedsim.plugins.swap_policies`). Raises
    :class:`SwapStudyError` when the built-in plugins cannot be read."""
    from shedsim.plugins import PluginError, discover, swap_policies

    try:
        return (("no swap", None), *swap_policies(discover([])))
    except PluginError as e:  # pragma: no cover - the built-in directory always exists
        raise SwapStudyError(f"--swap-policy: {e}") from None


class SwapStudyError(ValueError):
    """An option of the swap study that cannot be used; the message names the option."""


def default_strategy() -> str:
    """The default play policy S: the reference opponent the built-in strategies' traits
    select (:func:`shedsim.plugins.select`, role ``reference``: ``greedy``). Raises
    :class:`SwapStudyError` when none qualifies."""
    from shedsim.plugins import PluginError, choice

    try:
        return choice("reference")[0]
    except PluginError as e:
        raise SwapStudyError(f"--strategy: {e}") from None


def rank_counts(packed: np.ndarray) -> np.ndarray:
    """Rank counts of packed multisets: ``int64[n]`` -> ``int64[n, 13]`` (column 0 = rank 2)."""
    p = np.asarray(packed, dtype=np.int64)
    return (p[..., None] >> SHIFTS) & 15


def multiset_name(packed: int) -> str:
    """A face-up multiset as text, highest rank first (``"A 10 10"``)."""
    return " ".join(rank_name(r) for r in sorted(unpack(int(packed)), reverse=True))


def seat_places2(places: np.ndarray, players: int) -> np.ndarray:
    """Twice the effective place of every seat (int64[n, P]); see the module doc."""
    from shedsim.rules.scoring import effective_places2

    return effective_places2(np.asarray(places)).astype(np.int64)


REGRET_BATCH = 10
"""Sample deals of the regret study (d) per chunk of work."""


@dataclass(frozen=True)
class StudySpec:
    """What the study plays. ``strategy`` is a spec (``NAME`` or ``NAME:param=v``);
    ``games`` the games of each of (a)/(b) and of (c); ``deals``/``rollouts`` size (d);
    ``policies`` the swap policies of (c) (default :func:`default_policies`)."""

    rules: RuleSet
    players: int
    strategy: str
    games: int = 100_000
    seed: int = 0
    policies: tuple[tuple[str, str | None], ...] | None = None
    deals: int = 200
    rollouts: int = 200
    seat: int = 0
    min_games: int = 200
    strategy_paths: tuple[str, ...] = ()
    chunk_size: int = 20_000

    def __post_init__(self) -> None:
        if self.policies is None:
            object.__setattr__(self, "policies", default_policies())

    def run_spec(self, keep_dealt: bool) -> RunSpec:
        """Every seat plays ``strategy``; ``keep_dealt``: nobody swaps."""
        return RunSpec(
            self.rules,
            self.players,
            (self.strategy,),
            (self.strategy,),
            seed=self.seed,
            games=self.games,
            schedule="same",
            strategy_paths=self.strategy_paths,
            chunk_size=self.chunk_size,
            swap_from=(-1,) if keep_dealt else None,
        )


def check(spec: StudySpec) -> None:
    """Check every option before anything is played. Raises :class:`SwapStudyError` naming
    the option, or :class:`shedsim.rules.RulesError` for players outside the rule set's range."""
    from shedsim.plugins import PluginError, compiled_strategy, discover

    spec.rules.check_players(spec.players)
    if spec.games < 1:
        raise SwapStudyError(f"--games: must be at least 1, got {spec.games}")
    from shedsim.runs.store import MAX_CHUNKS, plan_size_problem

    chunk = max(1, spec.chunk_size or 1)
    too_big = plan_size_problem(
        3 * -(-spec.games // chunk), 3 * spec.games, chunk
    )  # parts (a), (b), (c)
    if too_big:
        raise SwapStudyError(too_big)
    if spec.deals < 0 or spec.rollouts < 1:
        raise SwapStudyError("--deals must be at least 0 and --rollouts at least 1")
    regret_chunks = -(-spec.deals // REGRET_BATCH)
    if 3 * -(-spec.games // chunk) + regret_chunks > MAX_CHUNKS:
        raise SwapStudyError(
            f"--deals: {spec.deals:,} sample deals would take {regret_chunks:,} chunks of "
            f"{REGRET_BATCH} deals; with the other parts one run holds at most {MAX_CHUNKS:,} "
            f"chunks: give fewer --deals (or fewer --games)"
        )
    from shedsim.runs.limits import game_bytes, memory_problem

    if (
        spec.deals > 0
    ):  # a sample deal plays every face-up choice x --rollouts games in one kernel call
        choices = math.comb(spec.rules.hand_size + spec.rules.table_size, spec.rules.table_size)
        problem = memory_problem(
            "--rollouts",
            spec.rollouts,
            "rollouts",
            choices * game_bytes(spec.players),
            f"at once (a sample deal plays up to {choices} face-up choices x --rollouts games "
            f"in one kernel call)",
        )
        if problem:
            raise SwapStudyError(problem)
    if not 0 <= spec.seat < spec.players:
        raise SwapStudyError(f"--seat: must be 0..{spec.players - 1}, got {spec.seat}")
    if spec.rules.table_size + spec.rules.hand_size > 12:
        raise SwapStudyError("the swap study needs hand size + table size <= 12")
    try:
        known = discover(list(spec.strategy_paths))
        for s in [spec.strategy] + [p for _, p in spec.policies if p is not None]:
            compiled_strategy(known, s, "the swap study")
    except PluginError as e:
        raise SwapStudyError(f"--strategy/--swap-policy: {e}") from None
    labels = [lab for lab, _ in spec.policies]
    if len(set(labels)) != len(labels):
        raise SwapStudyError(f"--swap-policy: a policy is named twice ({', '.join(labels)})")


# ---------------------------------------------------------------------- (a) and (b)
def _play(
    rs: RunSpec,
    workers: int,
    keep: tuple[str, ...],
    reduce: Callable[[int, int, dict], Any],
    progress: Callable[[int], None] | None = None,
) -> list[Any]:
    """Play every chunk of ``rs`` and reduce each one as it arrives (chunk order)."""
    out: dict[int, Any] = {}

    def on_result(c: int, r) -> None:
        a, b = rs.chunk_bounds(c)
        out[c] = reduce(a, b, r.records)
        r.records.clear()
        if progress:
            progress(b - a)

    run_chunks(rs, list(range(rs.n_chunks())), workers=workers, on_result=on_result, keep=keep)
    return [out[c] for c in sorted(out)]


def reduce_chosen(a: int, b: int, rec: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """(a) One chunk of games with ``spec.strategy``'s swap -> per-rank cluster sums
    (:func:`shedsim.stats.cluster_sums` of face-up cards over visible cards, one
    cluster per game; int64[13] each)."""
    from shedsim.stats import cluster_sums

    up = rank_counts(rec["face_up"]).sum(axis=1)  # [games, 13]
    vis = rank_counts(rec["dealt"]).sum(axis=1)
    return cluster_sums(up, vis)


def reduce_dealt(a: int, b: int, rec: dict[str, np.ndarray]) -> np.ndarray:
    """(a) One chunk of games without swaps -> face-up cards as dealt per rank (int64[13])."""
    return rank_counts(rec["face_up"]).sum(axis=(0, 1))


def finish_by_rank(chosen: list[dict[str, np.ndarray]], dealt: list[np.ndarray]):
    """(a) The by-rank table from the chunks' :func:`reduce_chosen` and :func:`reduce_dealt`
    parts (see :func:`by_rank`)."""
    import pandas as pd

    from shedsim.stats import cluster_rate

    cs = {k: np.sum([c[k] for c in chosen], axis=0) for k in chosen[0]}
    chosen_up, visible = cs["s"], cs["m"]
    dealt_up = np.sum(dealt, axis=0)
    cr = cluster_rate(**cs)
    lo, hi = cr.lo, cr.hi
    with np.errstate(invalid="ignore", divide="ignore"):
        return pd.DataFrame(
            {
                "rank": [rank_name(r) for r in RANKS],
                "visible": visible,
                "dealt_up": dealt_up,
                "chosen_up": chosen_up,
                "dealt_share": dealt_up / dealt_up.sum(),
                "chosen_share": chosen_up / chosen_up.sum(),
                "keep_up_rate": chosen_up / visible,
                "keep_up_lo": lo,
                "keep_up_hi": hi,
            }
        )


def by_rank(spec: StudySpec, workers: int = 1, progress=None):
    """(a) What ``spec.strategy`` puts face up against what it was dealt, by rank.

    Returns a DataFrame, one row per rank (2..A): ``visible`` (cards of that rank among
    the seats' visible cards, over all seat-games), ``dealt_up`` / ``chosen_up`` (face up
    as dealt / after the strategy's swap), their shares of all face-up cards
    (``dealt_share``, ``chosen_share``, in [0, 1]) and ``keep_up_rate`` = chosen_up /
    visible (how often a visible card of that rank ends face up) with a 95% interval that
    treats each game as one cluster (the cards of one game, one seat's above all, are
    not independent choices): :func:`shedsim.stats.cluster_rate`.
    """
    chosen = _play(spec.run_spec(False), workers, ("face_up", "dealt"), reduce_chosen, progress)
    dealt = _play(spec.run_spec(True), workers, ("face_up",), reduce_dealt, progress)
    return finish_by_rank(chosen, dealt)


def reduce_values(a: int, b: int, rec: dict[str, np.ndarray], players: int):
    """(b) One chunk of games without swaps -> a DataFrame indexed by face-up multiset
    (packed) of per-game cluster sums: seat-games ``n``, ``losses``, twice the places
    ``p2``, ``clusters`` and the squares and products :func:`finish_values` needs (int64)."""
    import pandas as pd

    n = players
    up = rec["face_up"].ravel()
    game = np.repeat(np.arange(a, b, dtype=np.int64), n)
    p2 = seat_places2(rec["places"], n).ravel()
    loss = (np.asarray(rec["places"]).ravel() == n).astype(np.int64)
    # per (multiset, game): seat-games, losses, summed places; then the sums over games
    per = (
        pd.DataFrame({"packed": up, "game": game, "n": 1, "losses": loss, "p2": p2})
        .groupby(["packed", "game"])
        .sum()
    )
    per["clusters"] = 1
    per["nn"] = per["n"] ** 2
    per["l_ss"], per["l_sm"] = per["losses"] ** 2, per["losses"] * per["n"]
    per["p_ss"], per["p_sm"] = per["p2"] ** 2, per["p2"] * per["n"]
    return per.groupby(level="packed").sum()


def finish_values(spec: StudySpec, parts: list):
    """(b) The face-up value tables from the chunks' :func:`reduce_values` parts (see
    :func:`face_up_values`)."""
    import pandas as pd

    from shedsim.stats import cluster_mean, cluster_rate
    from shedsim.stats import not_worse_than_best

    n = spec.players
    g = pd.concat(parts).groupby(level=0).sum().sort_index()
    k = g["n"].to_numpy(np.int64)
    col = {c: g[c].to_numpy(np.float64) for c in g.columns}
    cr = cluster_rate(col["clusters"], col["losses"], k, col["l_ss"], col["nn"], col["l_sm"])
    lo, hi = cr.lo, cr.hi
    mean, mlo, mhi, mse = cluster_mean(
        col["clusters"],
        col["p2"] / 2.0,
        k,
        col["p_ss"] / 4.0,
        col["nn"],
        col["p_sm"] / 2.0,
        bounds=(1.0, float(n)),
    )
    packed = g.index.to_numpy(np.int64)
    rows = pd.DataFrame(
        {
            "face_up": [multiset_name(p) for p in packed],
            "packed": packed,
            "low": [min(unpack(int(p))) for p in packed],
            "high": [max(unpack(int(p))) for p in packed],
            "seat_games": k,
            "losses": g["losses"].to_numpy(np.int64),
            "loss_rate": g["losses"].to_numpy() / k,
            "loss_lo": lo,
            "loss_hi": hi,
            "mean_place": mean,
            "place_lo": mlo,
            "place_hi": mhi,
            "loss_se": cr.se,
            "place_se": mse,
        }
    )
    figure, _ = value_figure(spec)
    order = [figure, "mean_place" if figure == "loss_rate" else "loss_rate", "packed"]
    rows = rows.sort_values(order, kind="stable").reset_index(drop=True)
    seen = (rows["seat_games"] >= spec.min_games).to_numpy()
    se = rows["loss_se" if figure == "loss_rate" else "place_se"].to_numpy(np.float64)
    cost = rows[figure].to_numpy(np.float64)
    for name, sign in (("in_best_set", 1.0), ("in_worst_set", -1.0)):
        flag = np.zeros(len(rows), np.bool_)
        flag[seen] = not_worse_than_best(sign * cost[seen], se[seen])
        rows[name] = flag
    return rows[seen].reset_index(drop=True), rows


def value_figure(spec: StudySpec) -> tuple[str, str]:
    """The column of the face-up value table that ranks face-up rows, and its name: the
    loss rate where the rules score only losing, the mean place where they score places
    (:func:`shedsim.rules.scoring.objective_of`; going out first has no column here, so
    the mean place stands for it)."""
    from shedsim.rules.scoring import objective_of

    return (
        ("loss_rate", "loss rate")
        if objective_of(spec.rules) == "lose"
        else ("mean_place", "mean place")
    )


def face_up_values(spec: StudySpec, workers: int = 1, progress=None):
    """(b) Loss rate and mean place by face-up rank multiset, nobody swapping.

    Returns ``(table, all_rows)``: DataFrames with one row per multiset, ``face_up``
    (text, highest first), ``packed`` (int64), ``low``/``high`` (lowest and highest rank),
    ``seat_games``, ``losses``, ``loss_rate`` and ``mean_place`` (1 = first out) with 95%
    intervals that treat each game as one cluster (two seats of one game may hold the
    same multiset, and their places are not independent):
    :func:`shedsim.stats.cluster_rate` and :func:`~shedsim.stats.cluster_mean`.
    ``loss_se``/``place_se`` are the standard errors. Sorted best first by what the rules
    score (:func:`value_figure`: loss rate, or mean place). ``table`` keeps multisets seen
    in at least ``spec.min_games`` seat-games; among them ``in_best_set`` marks those not
    significantly worse than any other (and ``in_worst_set`` those not significantly
    better than any other) by :func:`shedsim.stats.not_worse_than_best`: the
    best (worst) row is among them with 95% confidence, whereas the top row alone is the
    minimum of many noisy ones.
    """
    parts = _play(
        spec.run_spec(True),
        workers,
        ("face_up", "places"),
        lambda a, b, rec: reduce_values(a, b, rec, spec.players),
        progress,
    )
    return finish_values(spec, parts)


# ---------------------------------------------------------------------- (d)
def face_up_choices(visible: int, table_size: int) -> list[int]:
    """Every distinct face-up multiset of ``table_size`` cards from packed ``visible``
    (sorted packed ints; 20 when six visible cards are all different ranks)."""
    cards = unpack(int(visible))
    return sorted({pack(c) for c in itertools.combinations(cards, table_size)})


def _regret_failure(spec: StudySpec, err, where: str):
    """A :class:`shedsim.runs.simulate.SimulationError` for a strategy that failed in the
    regret study (d), whose games (conditioned deals, forced face-up cards) the reference
    engine cannot replay: the failure, the strategy and where."""
    from shedsim.runs.simulate import SimulationError

    what = (
        f"the process playing the games crashed ({crash_words(err.returned)})"
        if err.kind == "crashed"
        else f"a strategy failed ({err})"
    )
    return SimulationError(
        f"{what} in the regret study (d), {where}, with strategy {spec.strategy!r} at every "
        f"seat [run seed {spec.seed}]"
    )


def _regret_deals(spec: StudySpec, first: int, stop: int) -> list[dict[str, Any]]:
    """Evaluate every face-up choice of ``spec.seat`` in sample deals ``first..stop-1``."""
    from shedsim.seeding import game_keys
    from shedsim.runs.simulate import loaded_kernel
    from shedsim.kernel.build import KernelError

    rs = spec.run_spec(False)
    _, k, ids, params = loaded_kernel(rs)
    ra = spec.rules.compile(spec.players)
    n, seat, R = spec.players, spec.seat, spec.rollouts
    idx = np.arange(first, stop, dtype=np.int64)
    # the sample deals: ordinary deals of a run of its own (seed, stream 1), S swapping everywhere
    dk, sk = game_keys(spec.seed, idx, stream=1)
    dealers = idx % n
    try:
        base = k.play(ra, ids, params, np.zeros((len(idx), n), np.int64), dk, sk, dealers)
    except KernelError as e:
        raise _regret_failure(spec, e, f"sample deal {int(idx[e.game])}") from None
    out = []
    for j, d in enumerate(idx):
        visible = int(base["dealt"][j, seat])
        choice = int(base["face_up"][j, seat])
        options = face_up_choices(visible, spec.rules.table_size)
        m = len(options)
        # rollouts: stream 2, game index d * R + i, shared by every option (common random numbers)
        ridx = d * R + np.arange(R, dtype=np.int64)
        rdk, rsk = game_keys(spec.seed, ridx, stream=2)
        forced = np.zeros((m * R, n), np.int64)
        forced[:, seat] = np.repeat(options, R)
        try:
            rec = k.play(
                ra,
                ids,
                params,
                np.zeros((m * R, n), np.int64),
                np.tile(rdk, m),
                np.tile(rsk, m),
                np.full(m * R, dealers[j]),
                forced_up=forced,
                given_seat=np.full(m * R, seat),
                given_visible=np.full(m * R, visible),
            )
        except KernelError as e:
            raise _regret_failure(
                spec,
                e,
                f"rollout {e.game % R} of face-up choice "
                f"{multiset_name(options[e.game // R])} in sample deal {int(d)}",
            ) from None
        p2 = seat_places2(rec["places"], n)[:, seat].reshape(m, R) / 2.0
        loss = (rec["places"][:, seat] == n).reshape(m, R)
        mean = p2.mean(axis=1)
        best = int(np.argmin(mean))
        mine = options.index(choice)
        diff = p2[mine] - p2[best]  # paired over rollouts
        se = float(diff.std(ddof=1) / math.sqrt(R)) if R > 1 else float("nan")
        out.append(
            {
                "deal": int(d),
                "visible": multiset_name(visible),
                "choices": m,
                "policy_choice": multiset_name(choice),
                "best_choice": multiset_name(options[best]),
                "worst_choice": multiset_name(options[int(np.argmax(mean))]),
                "policy_place": float(mean[mine]),
                "best_place": float(mean[best]),
                "worst_place": float(mean.max()),
                "policy_loss": float(loss[mine].mean()),
                "best_loss": float(loss[best].mean()),
                "regret": float(mean[mine] - mean[best]),
                "regret_se": se,
                "policy_is_best": bool(mean[mine] <= mean[best]),
            }
        )
    return out


def regret(spec: StudySpec, workers: int = 1, progress=None, batch: int = REGRET_BATCH):
    """(d) Per sample deal: the distinct face-up choices of ``spec.seat``, each evaluated by
    ``spec.rollouts`` re-deals given its visible cards; the strategy's own choice against
    the best and worst.

    Returns a DataFrame, one row per deal: ``visible``, ``choices`` (distinct options),
    ``policy_choice``/``best_choice``/``worst_choice`` (text), mean places
    (``policy_place``, ``best_place``, ``worst_place``; 1 = first out), loss rates,
    ``regret`` = policy_place - best_place (places, >= 0) with ``regret_se`` (standard
    error of the paired difference over rollouts) and ``policy_is_best``. The best choice
    is picked on the same rollouts it is scored on, so with few rollouts the regret is
    biased upward by selection noise (the winner's curse); ``regret_se`` shows its size.
    """
    import pandas as pd
    from joblib import Parallel, delayed

    from shedsim.runs.simulate import backend_config

    bounds = [(a, min(spec.deals, a + batch)) for a in range(0, spec.deals, batch)]
    rows: list[dict[str, Any]] = []
    if workers <= 1:
        for a, b in bounds:
            rows += _regret_deals(spec, a, b)
            if progress:
                progress(b - a)
    else:
        with backend_config("loky", workers):
            gen = Parallel(return_as="generator")(
                delayed(_regret_deals)(spec, a, b) for a, b in bounds
            )
            for (a, b), part in zip(bounds, gen):
                rows += part
                if progress:
                    progress(b - a)
    return pd.DataFrame(rows)


def regret_summary(df) -> dict[str, float]:
    """Share of deals where the policy's choice is the best (95% Wilson interval) and the
    mean regret in places (95% t interval over deals)."""
    from shedsim.stats import t_interval, wilson

    n = len(df)
    if n == 0:
        return {"deals": 0}
    k = int(df["policy_is_best"].sum())
    lo, hi = wilson(np.array([k]), np.array([n]))
    r = df["regret"].to_numpy(float)
    m, mlo, mhi = t_interval(np.array([n]), np.array([r.sum()]), np.array([(r * r).sum()]))
    return {
        "deals": n,
        "best_share": k / n,
        "best_lo": float(lo[0]),
        "best_hi": float(hi[0]),
        "mean_regret": float(m[0]),
        "regret_lo": float(mlo[0]),
        "regret_hi": float(mhi[0]),
        "mean_choices": float(df["choices"].mean()),
    }


@dataclass
class StudyResult:
    """Everything :func:`study` computed (DataFrames) and its headline numbers."""

    by_rank: Any
    values: Any
    values_all: Any
    policies: Any
    policy_spec: Any
    regret: Any
    regret_summary: dict[str, float] = field(default_factory=dict)


def study(
    spec: StudySpec, workers: int = 1, progress: Callable[[str, int], None] | None = None
) -> StudyResult:
    """Run (a) to (d). ``progress(part, games)`` is called as work finishes."""
    check(spec)
    pr = (lambda part: lambda k: progress(part, k)) if progress else (lambda part: None)
    a = by_rank(spec, workers, pr("a"))
    values, values_all = face_up_values(spec, workers, pr("b"))
    pol, tspec = compare_policies(spec, workers, pr("c"))
    reg = regret(spec, workers, pr("d")) if spec.deals > 0 else None
    return StudyResult(
        a, values, values_all, pol, tspec, reg, regret_summary(reg) if reg is not None else {}
    )


# ---------------------------------------------------------------------- outputs
DEFINITIONS = {
    "loss": "last place (the Idiot); nobody loses an unfinished game",
    "mean_place": "1 = first out; seats still in at the move cap share the remaining places",
    "keep_up_rate": "(a) share of visible cards of the rank that the strategy puts face up",
    "dealt_share / chosen_share": (
        "(a) share of all face-up cards that are of the rank, as dealt / after the swap"
    ),
    "face_up_values": "(b) every seat plays the strategy but keeps its face-up cards as dealt (a "
    "random draw); "
    "loss rate (Wilson) and mean place (t) per face-up rank multiset seen often enough",
    "policies": "(c) swap policies head to head, every entry playing the same strategy: "
    "tournament with paired "
    "deals, every seating order and rotation; head to head cluster-robust over deals, "
    "Holm-corrected",
    "regret": "(d) mean place of the strategy's face-up choice minus that of the best of all "
    "distinct choices, "
    "each scored by re-dealing everything the seat cannot see (common random numbers across "
    "choices); "
    "the best is picked on the same rollouts, so small samples overstate regret",
}


TABLES = (
    "by_rank.csv",
    "face_up_values.csv",
    "policies.csv",
    "policies_head_to_head.csv",
    "regret.csv",
)
"""The study's tables (``regret.csv`` only with a regret study)."""
OUTPUTS = TABLES + charts.names(swap_charts.CHARTS) + ("run.json",)
"""Every file the study may write (a rerun removes those it does not write again)."""
