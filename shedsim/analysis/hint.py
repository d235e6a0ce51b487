"""``shedsim hint``: rank every legal move of a position by playouts, using only what the
seat can see.

:func:`rank_moves` is the engine (``shedsim play`` and traces can reuse it); the CLI in
:mod:`shedsim.cli.hint` only reads options, calls it and prints.

Method.

* **Information.** The seat's observation is :func:`shedsim.rules.engine.public_array` of the
  position with that seat to move: its own hand, every face-up row, the pile, the
  counts, the cards seen picked up and the burned cards whose ranks are known
  (docs/reference/rules.md#observation). Nothing else of the position is read. Each sample re-deals
  every card the
  seat has not seen (the deck minus what it saw) into the places it cannot see (other
  hands beyond their known cards, every face-down slot, the stock), uniformly at random
  (:func:`shedsim.kernel.policies.determinise_any`, the ``mc`` strategy's determinisation
  generalised to positions that list only some cards). So the answer cannot depend on a
  hidden card: two positions that look the same to the seat give the same figures.
* **Playouts.** In each sample every candidate move is played and the game finished by
  the playout policy (any compiled strategy, for every seat), at most ``cap`` moves.
  Every move of a sample shares its determinisation and the policy's random stream
  (common random numbers), so the differences between moves are paired.
* **Figures.** Per move: the seat's expected place (1 = first out) with a Student t
  interval, the probability of losing (last place) and of going out first, each with a
  Wilson interval (:mod:`shedsim.stats`), all 95%.
* **Objective.** Moves are ranked by what the rule set's scoring rewards
  (:func:`shedsim.rules.scoring.objective_of`): P(lose) where only losing is scored
  (duel, family, shithead), expected place where places are (nines, palace); or by the
  ``objective`` asked for (``lose``, ``place`` or ``first``). The other figures break ties.
* **Racing.** Samples come in rounds; after each round a move is dropped when its paired
  difference in the objective (a loss, the place, or going out first, per sample) to the
  current best move is above zero with confidence (successive
  elimination, Even-Dar, Mannor and Mansour, JMLR 7, 2006, with normal-approximation
  bounds at level ``0.05 / (moves * rounds)``, a union bound over every test the race can
  make; none before ``MIN_RACE`` samples). The race ends when one move is left
  ("separated"), when the moves left gave the same result for the objective in every one
  of at least ``MIN_TIED`` samples ("tied"), or at the budget of samples per move
  ("budget").
* **Solved end games.** With two seats still in, the stock empty and no face-down card
  left, nothing is hidden from a player who tracked the cards and nothing is left to
  chance, once the seat knows the other hand (the position tracked the cards: it lists the
  burned cards, or the other hand's cards were seen picked up,
  :func:`shedsim.analysis.endgame.perfect_information`). Such a position is solved exactly
  instead (:func:`shedsim.analysis.endgame.solve`: retrograde analysis of every reachable
  position, a transposition table merging repeats), and no playout is run ("solved").
  Each move's value is ``win``, ``draw`` or ``loss`` with the moves to the end under best
  play; the moves are ranked wins soonest, draws, losses latest. A position too big for
  the search, or whose end a stop rule could come before, is ranked by playouts with a
  note saying why.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from shedsim.rules.engine import GameState, Move, StrategyError, legal_moves, public_array
from shedsim.analysis.hint_words import explain, move_effect  # noqa: F401 - re-exported (the reason in words)
from shedsim.analysis.endgame import DRAW, LOSS, MAX_POSITIONS, WIN, NotSolved
from shedsim.analysis.endgame import Solution, end_game, solve
from shedsim.analysis.hint_result import (  # noqa: F401 - re-exported: what rank_moves returns
    FACTS,
    STOP_BUDGET,
    STOP_SEARCH,
    STOP_SEPARATED,
    STOP_SINGLE,
    STOP_SOLVED,
    STOP_TIED,
    HintError,
    HintResult,
    Interval,
    MoveFigures,
)

DEFAULT_BUDGET_FAST = 4000
DEFAULT_BUDGET = 2000
DEFAULT_BUDGET_SEARCH = 500
"""The default budget of a policy whose ``TRAITS['cost']`` is ``slow`` (a search at every
decision: hundreds of times slower a playout than a fast one); ``fast`` ones get
:data:`DEFAULT_BUDGET_FAST`, ``moderate`` ones :data:`DEFAULT_BUDGET`."""
BUDGETS = {"fast": DEFAULT_BUDGET_FAST, "moderate": DEFAULT_BUDGET, "slow": DEFAULT_BUDGET_SEARCH}
DEFAULT_BATCH = 100
DEFAULT_CAP = 400
MAX_CAP = 10_000_000
"""The longest playout cap (moves): the largest ``max_moves`` a rule set takes, which keeps
the kernel's move counter inside its 64-bit integers."""
MIN_TIED = 400
MIN_RACE = 30
"""No move is dropped before this many samples (the normal approximation needs a few dozen)."""
LEVEL = 0.05


class PolicyCrash(StrategyError):
    """The playout policy failed: it made an illegal move (or returned a code that is no
    move), wrote into the observation, the rules or its parameters (it decides on copies,
    compared after every sample: the hint is not computed on changed rules), or, a
    compiled plugin from outside ``strategies/``, crashed the process playing the
    playouts (a segmentation fault: numba checks no bounds) or raised. The message names
    the policy, the sample and the seed. The playouts of a plugin from outside run in a
    forked child (:func:`shedsim.base.isolate.call`), so the caller survives."""


def default_policy() -> str:
    """The default playout policy: the cheapest built-in strategy that searches, slow ones
    left out (:func:`shedsim.plugins.select`, role ``policy``: ``heuristic``), the
    strongest that answers in seconds. Raises :class:`HintError` when none qualifies."""
    from shedsim.plugins import PluginError, choice

    try:
        return choice("policy")[0]
    except PluginError as e:
        raise HintError(f"--policy: {e}") from None


def _policy(spec: str, strategy_paths: tuple[str, ...]):
    from shedsim.plugins import PluginError, compiled_strategy, discover, parse_spec

    try:
        known = discover(list(strategy_paths))
        strat = compiled_strategy(known, spec, "hint")
        _, overrides = parse_spec(spec)
        return strat, strat.params_array(overrides)
    except PluginError as e:
        raise HintError(f"--policy: {e}") from None


def search_policy() -> str:
    """The strategy ``hint --search`` searches with by default: the strongest player, as the
    built-in strategies' traits say (:func:`shedsim.plugins.select`, role ``strongest``).
    Raises :class:`HintError` when none qualifies."""
    from shedsim.plugins import PluginError, choice

    try:
        return choice("strongest")[0]
    except PluginError as e:
        raise HintError(f"--search: {e}") from None


def observed_state(state: GameState, seat: int | None = None) -> GameState:
    """A copy of ``state`` with ``seat`` (default: the seat to move) to move. Raises
    :class:`HintError` when the game is over or the seat is out or out of range."""
    if state.finished or state.unfinished:
        raise HintError("the game in this position is already over")
    s = state.to_move if seat is None else seat
    if not 0 <= s < state.players:
        raise HintError(f"--seat: must be 0 to {state.players - 1}, got {s}")
    if state.seats[s].out:
        raise HintError(f"--seat: seat {s} is already out")
    st = state.copy()
    st.to_move = s
    return st


def _facts(kernel_facts: np.ndarray) -> dict[str, float]:
    return {name: float(kernel_facts[:, i].mean()) for i, name in enumerate(FACTS)}


def _failure_words(status: np.ndarray) -> str:
    """What a playout policy did wrong, from the playout kernel's ``status`` (int64[8],
    :func:`shedsim.kernel._playout.run_samples`): an illegal move (a code that is no move
    at all is named as such), a write into the observation, the rules, its parameters or a
    random stream it does not own."""
    from shedsim import layout as L
    from shedsim.rules.engine import MoveSyntaxError

    kind, seat, value = int(status[1]), int(status[2]), int(status[3])
    if kind == 3:
        if seat == 1:
            return (
                f"wrote into the rules array (entry {value}, {L.entry_name('R_', value)}) "
                "during a playout"
            )
        return f"wrote into its parameters array (parameter {value}) during a playout"
    if value == L.OBS_WRITTEN:
        return f"wrote into the observation array (the playout's own state) for seat {seat}"
    if value - L.RNG_WRITTEN in L.STREAM_NAMES:
        k = value - L.RNG_WRITTEN
        return (
            f"wrote into {L.STREAM_NAMES[k]} (rng[{k - L.S_LENT}], past its own stream rng[0]) "
            f"for seat {seat}"
        )
    try:
        move = f"the illegal move {Move.from_code(value)}"
    except MoveSyntaxError:
        move = f"the code {value}, which is no move"
    return f"returned {move} for seat {seat} in a playout"


def budget_problem(option: str, budget: int, n_moves: int, up_to: bool = False) -> str | None:
    """Why ``budget`` samples of each of ``n_moves`` moves (``up_to``: at most that many)
    do not fit in memory (every sample's place, float64, and its facts, int8[N_FACTS], are
    kept for the intervals and ``why``), as a sentence naming ``option``; None when they
    fit (:func:`shedsim.runs.limits.memory_problem`)."""
    from shedsim.kernel.playouts import N_FACTS
    from shedsim.runs.limits import memory_problem

    return memory_problem(
        option,
        budget,
        "samples per move",
        n_moves * (8 + N_FACTS),
        f"for {'up to ' if up_to else ''}{n_moves} move(s)",
    )


def rank_moves(
    state: GameState,
    seat: int | None = None,
    policy: str | None = None,
    budget: int | None = None,
    seed: int = 0,
    batch: int = DEFAULT_BATCH,
    cap: int = DEFAULT_CAP,
    strategy_paths: tuple[str, ...] = (),
    progress: Callable[[int, int], None] | None = None,
    why: bool = False,
    objective: str | None = None,
    objective_option: str = "--objective",
    solve_limit: int = MAX_POSITIONS,
    search: bool | None = None,
    iterations: int | None = None,
) -> HintResult:
    """Rank every legal move of ``seat`` (default: the seat to move) in ``state``: by the
    strongest player's search (``search``; the default when neither ``policy`` nor
    ``budget`` is given, or when ``iterations`` is) or by playouts (``search=False``; the
    default when a ``policy`` or a ``budget`` is given).

    ``policy``: the compiled strategy that plays every seat after the move (``NAME`` or
    ``NAME:param=v``; default :func:`default_policy`);
    ``budget``: the most samples per move (default: by the policy's ``TRAITS['cost']``,
    :data:`BUDGETS`); ``batch``: samples per
    round of the race; ``cap``: the most moves of a playout after the candidate;
    ``seed``: the run seed (same seed, same figures); ``progress(done, budget)`` is
    called after each round; ``why`` adds :func:`explain`'s text; ``objective``: ``lose``,
    ``place`` or ``first`` (default: what the rule set's scoring rewards,
    :func:`shedsim.rules.scoring.objective_of`), named ``objective_option`` in messages
    and in the ranking's words. Only the seat's observation is read (see
    the module docstring). An end game (two seats still in, the stock empty, no face-down
    card) in which the seat knows the other hand (it saw every card of it, or every other
    card: :func:`shedsim.analysis.endgame.perfect_information`) is solved exactly instead
    (:func:`shedsim.analysis.endgame.solve`), searching at most ``solve_limit`` positions
    (0: never); the result is then ``stopped`` ``solved``, every move carries its exact
    value (``MoveFigures.solved``) and exact figures, and no playout is run. When such an
    end game cannot be solved (the other hand not known, too many positions, a stop rule
    within reach) the moves are ranked as they would be otherwise and ``note`` says why.
    With ``search`` the moves are ranked by the root search of ``policy`` (default: the
    strongest player,
    :func:`search_policy`) instead of by playouts, ``iterations`` iterations (default
    :data:`shedsim.analysis.hint_search.DEFAULT_ITERATIONS`;
    :mod:`shedsim.analysis.hint_search`): ``stopped`` is ``searched``, each move's
    ``samples`` its visits, its figures the search's estimates without interval (``lo``
    and ``hi`` are NaN), and ``budget``, ``batch`` and ``cap`` are not used. Raises
    :class:`HintError` for an unknown policy or objective, a search policy without a root
    search, iterations outside 1 to
    :data:`shedsim.analysis.hint_search.MAX_ITERATIONS`, a seat that cannot move, a
    budget, batch or cap below 1, a ``solve_limit`` below 0, a cap above :data:`MAX_CAP` or
    a budget whose samples do not fit in memory, and
    :class:`PolicyCrash` when the policy fails (an illegal move, a write into the rules,
    its parameters or the observation; a plugin that crashes or raises).
    """
    from shedsim.kernel.playouts import N_FACTS
    from shedsim.kernel.playouts import playout_module
    from shedsim.seeding import game_keys
    from shedsim.stats import t_interval, wilson

    from shedsim import layout as L
    from shedsim.rules.scoring import ObjectiveError, per_sample, resolve

    t0 = time.perf_counter()
    try:
        objective, objective_source = resolve(objective, state.rules, objective_option)
    except ObjectiveError as e:
        raise HintError(str(e)) from None
    from shedsim.analysis import hint_search as HS

    if search is None:  # the strongest player's search, unless playouts are asked for
        search = (policy is None and budget is None) or iterations is not None
    if not search and iterations is not None:
        raise HintError("--iterations: only with --search (the playouts' count is --budget)")
    if policy is None:
        policy = search_policy() if search else default_policy()
    strat, params = _policy(policy, strategy_paths)
    if search:
        if not hasattr(getattr(strat.module, "root_search", None), "py_func"):
            raise HintError(
                f"--policy: {policy!r} has no root search for --search (its module defines no "
                f"numba root_search); search with {search_policy()}, or rank by its playouts "
                f"with --playouts"
            )
        if budget is not None:
            raise HintError(
                "--budget: the samples per move of playouts; a search's work is --iterations "
                "(or rank by playouts with --playouts)"
            )
        from shedsim.plugins import parse_spec

        fixed = sorted({"iterations", "stop"} & set(parse_spec(policy)[1]))
        if fixed:
            raise HintError(
                f"--policy {policy!r}: {', '.join(fixed)} is the hint's to set with --search "
                f"(the search runs --iterations iterations, every one of them); give "
                f"--iterations instead"
            )
        if iterations is None:
            iterations = HS.DEFAULT_ITERATIONS
        if (
            isinstance(iterations, bool)
            or not isinstance(iterations, int)
            or not 1 <= iterations <= HS.MAX_ITERATIONS
        ):
            raise HintError(
                f"--iterations: must be a whole number from 1 to {HS.MAX_ITERATIONS:,}, "
                f"got {iterations!r}"
            )
    if budget is None:  # a search's budget is its iterations (what a solved result shows)
        budget = iterations if search else BUDGETS[strat.traits.cost]
    for name, v in (("--budget", budget), ("--batch", batch), ("--cap", cap)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise HintError(f"{name}: must be a positive integer, got {v!r}")
    if isinstance(solve_limit, bool) or not isinstance(solve_limit, int) or solve_limit < 0:
        raise HintError(f"--solve-limit: must be a whole number of positions, got {solve_limit!r}")
    if cap > MAX_CAP:
        raise HintError(
            f"--cap: at most {MAX_CAP:,} moves (the longest move cap a rule set takes), got {cap:,}"
        )
    st = observed_state(state, seat)
    me = st.to_move
    n_players = st.players
    legal = legal_moves(st)
    if not legal:
        raise HintError(f"seat {me} has no legal move in this position")
    note = None
    if end_game(st) and solve_limit:
        try:
            solution = solve(st, max_positions=solve_limit)
        except NotSolved as e:
            note = f"not solved exactly: {e}; ranked by {'search' if search else 'playouts'}"
        else:
            result = _solved_result(st, solution, policy, seed, budget, objective)
            result.objective_source = objective_source
            if why:
                result.why = _solved_why(solution)
            result.seconds = time.perf_counter() - t0
            return result
    # one flip stands for all: every face-down slot is unseen to the seat too
    reps: list[Move] = []
    same: dict[str, str] = {}
    for m in legal:
        if m.kind == "flip" and m.slot > 0:
            same[str(m)] = "flip 1"
        else:
            reps.append(m)
    if search:
        figures, done = HS.searched(st, strat, params, reps, iterations, seed, objective)
        result = HintResult(
            me,
            n_players,
            policy,
            seed,
            iterations,
            done,
            STOP_SEARCH,
            _with_same(figures, same),
            0.0,
            objective=objective,
            objective_source=objective_source,
        )
        result.note = note
        if why:
            result.why = HS.search_why(result)
        result.seconds = time.perf_counter() - t0
        return result
    obs = public_array(st)
    rules_array = st.rules.compile(n_players)
    codes = np.array([m.code for m in reps], np.int64)
    n_moves = len(reps)
    samples_cap = budget if n_moves > 1 else min(budget, batch)
    problem = budget_problem("--budget", samples_cap, n_moves)
    if problem:
        raise HintError(problem)
    places = np.zeros((samples_cap, n_moves), np.float64)
    facts = np.zeros((samples_cap, n_moves, N_FACTS), np.int8)
    active = np.ones(n_moves, np.bool_)
    dropped = np.full(n_moves, -1, np.int64)
    rounds = max(1, math.ceil(samples_cap / batch))
    from scipy.stats import norm

    z = float(norm.ppf(1 - LEVEL / (2 * max(1, n_moves - 1) * rounds)))
    mod = playout_module(strat)
    status = np.zeros(8, np.int64)
    streams = np.zeros(
        L.S_SIZE, np.uint64
    )  # the playouts' random streams (a beat word: see run_samples)
    done = 0
    stopped = STOP_SINGLE if n_moves == 1 else STOP_BUDGET
    while done < samples_cap:
        k = min(batch, samples_cap - done)
        dk, sk = game_keys(seed, np.arange(done, done + k))
        keys = np.ascontiguousarray(np.stack([dk, sk], axis=1), np.uint64)
        sample_args = (
            rules_array,
            obs,
            codes,
            active,
            keys,
            params,
            cap,
            places[done : done + k],
            facts[done : done + k],
            status,
            streams,
        )
        if strat.outside:  # a plugin that crashes or never decides cannot take this process with it
            from shedsim.base.isolate import ChildTimeout, call, crash_words
            from shedsim.base.isolate import decision_timeout

            try:
                got, error, code = call(
                    mod.run_samples,
                    *sample_args,
                    beat=(streams, L.S_BEAT),
                    beat_s=decision_timeout(),
                )
            except ChildTimeout as e:
                raise PolicyCrash(
                    f"policy {policy!r} in samples {done + 1}-{done + k} of the moves of seat {me} "
                    f"(--seed {seed}): {e} It plays every seat in the playouts: check it, or use "
                    f"another --policy"
                ) from None
            if code != 0 or error is not None:
                what = (
                    f"crashed the process playing the playouts ({crash_words(code)})"
                    if code
                    else f"raised {error}"
                )
                raise PolicyCrash(
                    f"policy {policy!r} {what} in samples {done + 1}-{done + k} of the moves "
                    f"of seat {me} "
                    f"(--seed {seed}); it plays every seat in the playouts: check it, or use "
                    f"another --policy"
                )
        else:
            got = mod.run_samples(*sample_args)
        if got < k:
            if status[1] == 1:
                raise HintError(
                    "no deal of the unseen cards fits this position (more hidden places "
                    "than unseen cards)"
                )
            raise PolicyCrash(
                f"policy {policy!r} {_failure_words(status)} in sample {done + got + 1} of the "
                f"moves of seat {me} (--seed {seed}); it plays every seat in the playouts: check "
                f"it, or use another --policy"
            )
        done += k
        if progress is not None:
            progress(done, samples_cap)
        if n_moves == 1 or done < MIN_RACE:
            continue
        idx = np.flatnonzero(active)
        cost = per_sample(places[:done], n_players, objective)  # lower is better
        means = cost[:, idx].mean(axis=0)
        best = idx[int(np.argmin(means))]
        diffs = cost[:, idx] - cost[:, best][:, None]
        dmean = diffs.mean(axis=0)
        dsd = diffs.std(axis=0, ddof=1)
        lower = dmean - z * dsd / math.sqrt(done)
        for pos, j in enumerate(idx):
            if j != best and lower[pos] > 0:
                active[j] = False
                dropped[j] = done
        if active.sum() == 1:
            stopped = STOP_SEPARATED
            break
        if done >= MIN_TIED and np.all(diffs[:, active[idx]] == 0):
            stopped = STOP_TIED
            break
    # figures
    figs: dict[str, MoveFigures] = {}
    for j, m in enumerate(reps):
        n = done if dropped[j] < 0 else int(dropped[j])
        p = places[:n, j]
        mean, lo, hi = t_interval(n, p.sum(), (p * p).sum())
        if n > 1 and np.all(p == p[0]):
            lo = hi = mean
        lose = int((p == n_players).sum())
        first = int((p == 1).sum())
        llo, lhi = wilson(lose, n)
        flo, fhi = wilson(first, n)
        figs[str(m)] = MoveFigures(
            str(m),
            n,
            Interval(float(mean), float(lo), float(hi)),
            Interval(lose / n, float(llo), float(lhi)),
            Interval(first / n, float(flo), float(fhi)),
            None if dropped[j] < 0 else int(dropped[j]),
            None,
            _facts(facts[:n, j]),
        )
    keys = {
        "lose": lambda f: (f.p_lose.value, f.place.value, -f.p_first.value),
        "place": lambda f: (f.place.value, f.p_lose.value, -f.p_first.value),
        "first": lambda f: (-f.p_first.value, f.place.value, f.p_lose.value),
    }[objective]
    order = sorted(
        figs.values(),
        key=lambda f: (f.dropped_after is not None, -(f.dropped_after or 0), *keys(f)),
    )
    out = _with_same(order, same)
    result = HintResult(
        me,
        n_players,
        policy,
        seed,
        budget,
        done,
        stopped,
        out,
        0.0,
        objective=objective,
        objective_source=objective_source,
    )
    result.note = note
    if why:
        result.why = explain(st, result, places[:done], {str(m): j for j, m in enumerate(reps)})
    result.seconds = time.perf_counter() - t0
    return result


def _with_same(order: list[MoveFigures], same: dict[str, str]) -> list[MoveFigures]:
    """``order`` with, after each move, the moves that share its figures (``same``: move to
    the move standing for it: the other face-down flips)."""
    out: list[MoveFigures] = []
    for f in order:
        out.append(f)
        for m, rep in same.items():
            if rep == f.move:
                out.append(
                    MoveFigures(
                        m,
                        f.samples,
                        f.place,
                        f.p_lose,
                        f.p_first,
                        f.dropped_after,
                        rep,
                        dict(f.facts),
                    )
                )
    return out


def _solved_result(
    st: GameState, solution: Solution, policy: str, seed: int, budget: int, objective: str
) -> HintResult:
    """The :class:`HintResult` of a solved position: each move's figures are its exact
    value's (a win: the better of the two places left; a loss: the last place; a draw: the
    two seats share the places left, as ``stalemate:share`` scores a stopped game), every
    interval a point, no sample."""
    n = st.players
    first = len(st.places) + 1  # the better of the two places left
    moves = []
    for v in solution.values:
        place = {WIN: first, LOSS: n, DRAW: first + 0.5}[v.result]
        p_lose = 1.0 if v.result == LOSS else 0.0
        p_first = 1.0 if v.result == WIN and first == 1 else 0.0
        moves.append(
            MoveFigures(
                v.move,
                0,
                Interval(place, place, place),
                Interval(p_lose, p_lose, p_lose),
                Interval(p_first, p_first, p_first),
                solved=v,
            )
        )
    result = HintResult(
        solution.seat, n, policy, seed, budget, 0, STOP_SOLVED, moves, 0.0, objective=objective
    )
    result.solution = solution
    return result


def _solved_why(solution: Solution) -> str:
    """``--why`` of a solved position: the verdict and every other move's value."""
    best, rest = solution.values[0], solution.values[1:]
    text = f"{best.move[:1].upper()}{best.move[1:]} {best.words()} against best play"
    text += ", whatever the other seat does." if best.result == WIN else "."
    if rest:
        text += " The other moves: " + "; ".join(f"{v.move} {v.words()}" for v in rest) + "."
    text += (
        " Exact: every position reachable from here was searched (two seats, the stock empty, "
        "no face-down card: nothing is hidden from a player who tracked the cards)."
    )
    return text


def warm_up(policy: str | None = None, search: bool = False) -> None:
    """Compile (or load from numba's cache) the playout kernel of ``policy`` by ranking the
    moves of one dealt position with one sample, or with ``search`` the root search of
    ``policy`` (default :func:`search_policy`) with a few iterations (``shedsim compile``
    calls both; default policy: :func:`default_policy`)."""
    from shedsim.rules.engine import deal
    from shedsim.rules.ruleset import build

    state, _ = deal(build("shithead"), 2, 1)
    if search:
        rank_moves(state, policy=policy, search=True, iterations=10)
    else:
        rank_moves(state, policy=policy, budget=1, batch=1)


__all__ = [
    "HintError",
    "HintResult",
    "MoveFigures",
    "Interval",
    "rank_moves",
    "explain",
    "move_effect",
    "observed_state",
    "warm_up",
    "default_policy",
    "DEFAULT_BUDGET_FAST",
    "DEFAULT_BUDGET",
    "DEFAULT_BUDGET_SEARCH",
    "BUDGETS",
    "FACTS",
]
