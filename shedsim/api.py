"""The Python API: every study the command line runs, as a function that returns a result.

Each function takes the command's options by their Python names (``--rules-file`` is
``rules_file``; ``None``: the command's default) and the execution options of
:class:`shedsim.runs.study.RunOptions` as keywords (``out``, ``resume``, ``force``,
``workers``, ``backend``, ``scheduler``, ``quiet``, ``no_plots``; or ``options=RunOptions(...)``).
Nothing is written unless ``out=`` is given; then the directory holds exactly what the
command writes (its CSVs, charts, run.json and run store), and ``resume=`` continues it.
The same seed gives the same numbers as the command line.

A result's tables are pandas DataFrames with the columns of the CSVs of the same name
(``r.summary`` is ``summary.csv``), its charts are methods that return matplotlib figures,
``r.info`` is run.json's content, ``r.headline`` the findings in words. Problems are raised
as :class:`shedsim.runs.study.StudyError` naming the parameter (``e.field``)::

    import shedsim
    r = shedsim.tournament(["greedy", "random"], players=2, games=2000, seed=1)
    print(r.summary)
    r.plot_rates().savefig("rates.png")

The result objects are :mod:`shedsim.api_results`' (re-exported here). Every import below the
module level is lazy: ``import shedsim`` stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from collections.abc import Sequence

from shedsim.api_results import (  # noqa: F401 (re-exported: the result of each function)
    Result,
    TournamentResult,
    CompareResult,
    SwapsResult,
    SprtResult,
    GauntletResult,
    TipsResult,
    TuneResult,
)
from shedsim.runs.study import RunOptions, StudyError, StudyRun  # noqa: F401 (standard library only)


def _run(study: Any, options: RunOptions | None, run: dict[str, Any]) -> StudyRun:
    from shedsim.runs.study import run_study

    return run_study(study, RunOptions.of(options, **run))


# ------------------------------------------------------------------ tournament
def tournament(
    strategies: str | Sequence[str] | None = None,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    *,
    rules: str | None = None,
    house: Sequence[str] | None = None,
    rules_file: str | Path | None = None,
    rounds: int | None = None,
    seat_orders: str | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    chunk_size: int | None = None,
    save_games: bool | None = None,
    bot_time: tuple[int, int | None] = (1000, None),
    options: RunOptions | None = None,
    deals: str | Path | None = None,
    control_variate: bool | None = None,
    **run: Any,
) -> TournamentResult:
    """A fair tournament between strategies (``shedsim tournament``): every table of
    ``players`` seats drawn from the entries, in every seating order, under every rotation,
    on paired deals. ``strategies``: a list of entries (``NAME``, ``NAME:param=v``,
    ``LABEL=SPEC``, ``@ROLE``) or one comma-separated string; defaults: the default field,
    4 players, 200,000 games (rounded up to whole blocks), seed 0, shithead. An entry
    ``LABEL=bot:COMMAND`` is a bot (docs/reference/bots.md); ``bot_time``: its milliseconds
    per move and per game (None: no game budget). ``deals``: a deal-set file
    (docs/reference/deals.md) played instead of shuffled deals (``games`` is then not given).
    ``control_variate``: also measure each game's luck and report the head to head less it
    (2 players; docs/explanation/statistics.md#control-variates); None: on where it can be
    used and a search strategy is seated.

    >>> r = tournament(["greedy", "random"], players=2, games=96, seed=1)
    >>> list(r.summary["strategy"]), int(r.summary["games"].sum())
    (['greedy', 'random'], 192)
    """
    from shedsim.analysis.tournament_run import TournamentStudy

    study = TournamentStudy(
        strategies,
        players,
        games,
        seed,
        rules,
        house,
        rules_file,
        rounds,
        seat_orders,
        strategy_path,
        chunk_size,
        save_games,
        bot_time,
        deals,
        control_variate,
    )
    return TournamentResult(_run(study, options, run))


# ------------------------------------------------------------------ compare-rules
def compare_rules(
    rules: Sequence[str] | None = None,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    *,
    house: Sequence[str] | None = None,
    each_toggle: bool | None = None,
    strategies: str | Sequence[str] | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    options: RunOptions | None = None,
    **run: Any,
) -> CompareResult:
    """Compare rule variants (``shedsim compare-rules``): the same strategies on the same
    schedule and seed in every variant, each against the first (the baseline). ``rules``:
    the variants (``"shithead"``, ``"shithead+skip8"``, a rules file); ``each_toggle``: with
    one variant, it against it plus every house toggle. Defaults: 4 players, 100,000 games
    per variant, seed 0, the ``@compare`` strategies.

    >>> r = compare_rules(["shithead", "shithead+skip8"], players=2, games=40,
    ...                   strategies=["random", "greedy"])
    >>> list(r.variants["variant"])
    ['shithead', 'shithead+skip8']
    """
    from shedsim.analysis.compare_run import CompareStudy

    return CompareResult(
        _run(
            CompareStudy(
                rules, house, each_toggle, players, strategies, games, seed, strategy_path
            ),
            options,
            run,
        )
    )


# ------------------------------------------------------------------ swaps
def swaps(
    rules: str | None = None,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    *,
    house: Sequence[str] | None = None,
    strategy: str | None = None,
    swap_policy: Sequence[str] | None = None,
    deals: int | None = None,
    rollouts: int | None = None,
    seat: int | None = None,
    min_games: int | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    options: RunOptions | None = None,
    **run: Any,
) -> SwapsResult:
    """Study the swap phase (``shedsim swaps``): which cards belong face up, by rank (a), a
    face-up value table (b), swap policies head to head (c) and the regret of the
    strategy's choice on sample deals (d). Defaults: shithead, 3 players, 100,000 games,
    200 deals of 200 rollouts, seed 0, the reference strategy.

    >>> r = swaps(players=3, games=300, deals=0, min_games=5)
    >>> "no swap" in set(r.policies["strategy"]), r.regret is None
    (True, True)
    """
    from shedsim.analysis.swaps_run import SwapsStudy

    return SwapsResult(
        _run(
            SwapsStudy(
                rules,
                house,
                players,
                strategy,
                games,
                swap_policy,
                deals,
                rollouts,
                seat,
                min_games,
                seed,
                strategy_path,
            ),
            options,
            run,
        )
    )


# ------------------------------------------------------------------ sprt
def sprt(
    a: str | None = None,
    b: str | None = None,
    *,
    rules: str | None = None,
    house: Sequence[str] | None = None,
    rules_file: str | Path | None = None,
    players: int | None = None,
    seed: int | None = None,
    unpaired: bool | None = None,
    compare_pairing: bool | None = None,
    games: int | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    elo0: float | None = None,
    elo1: float | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    max_games: int | None = None,
    min_games: int | None = None,
    llr: str | None = None,
    batch: int | None = None,
    options: RunOptions | None = None,
    deals: str | Path | None = None,
    control_variate: bool | None = None,
    **run: Any,
) -> SprtResult:
    """Is strategy ``a`` stronger than ``b`` (``shedsim sprt``)? Play them head to head on
    paired deals until a sequential probability ratio test decides (H1: ``a`` stronger by
    at least ``elo1``; H0: by ``elo0`` at most). The batches are played on the workers and
    fed to the test in order, so the decision is the same for any ``workers``. Defaults:
    shithead, 2 players, seed 0, elo0 0, elo1 5, alpha = beta = 0.05, at most 200,000 games.
    ``compare_pairing``: measure instead what pairing buys, ``games`` games per design.
    ``deals``: a deal-set file (docs/reference/deals.md) whose deals are played, each under
    every rotation, instead of shuffled deals (at most every deal once: no ``max_games``).
    ``control_variate``: test the pair scores less each game's luck at its chance events
    (docs/explanation/statistics.md#control-variates; 2 players, ``llr="normal"``).

    >>> r = sprt("greedy", "random", max_games=4000)
    >>> r.decision
    'H1'
    """
    from shedsim.analysis.sprt_study import SprtStudy

    study = SprtStudy(
        a,
        b,
        rules,
        house,
        rules_file,
        players,
        seed,
        unpaired,
        compare_pairing,
        games,
        strategy_path,
        deals,
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        min_games=min_games,
        llr=llr,
        batch=batch,
        control_variate=control_variate,
    )
    return SprtResult(_run(study, options, run))


# ------------------------------------------------------------------ gauntlet
def gauntlet(
    candidate: str | None = None,
    opponents: str | Sequence[str] | None = None,
    *,
    rules: str | None = None,
    house: Sequence[str] | None = None,
    rules_file: str | Path | None = None,
    players: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    sprt: tuple[float, float] | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    batch: int | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    bot_time: tuple[int, int | None] | None = None,
    options: RunOptions | None = None,
    deals: str | Path | None = None,
    **run: Any,
) -> GauntletResult:
    """Play ``candidate`` against each of ``opponents`` in turn, head to head on paired deals
    (``shedsim gauntlet``): ``games`` games each (default 2000), or with ``sprt = (elo0,
    elo1)`` until that opponent's SPRT decides. Every opponent meets the same deals. Defaults:
    shithead, 2 players, seed 0, alpha = beta = 0.05. ``deals``: a deal-set file
    (docs/reference/deals.md) whose deals every opponent plays, each under every rotation,
    instead of shuffled deals (``games`` is then not given).

    >>> r = gauntlet("greedy", "random,aggressive", games=200)
    >>> list(r.table.opponent)
    ['random', 'aggressive', 'total']
    """
    from shedsim.analysis.gauntlet_run import GauntletStudy

    study = GauntletStudy(
        candidate,
        opponents,
        rules,
        house,
        rules_file,
        players,
        games,
        seed,
        sprt,
        alpha,
        beta,
        batch,
        strategy_path,
        bot_time,
        deals,
    )
    return GauntletResult(_run(study, options, run))


# ------------------------------------------------------------------ tips
def tips(
    rules: Sequence[str] | None = None,
    players: Sequence[int] | None = None,
    games: int | None = None,
    seed: int | None = None,
    *,
    tip: Sequence[str] | None = None,
    base: str | None = None,
    opponents: str | None = None,
    house: Sequence[str] | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    options: RunOptions | None = None,
    **run: Any,
) -> TipsResult:
    """Do the beginner tips work (``shedsim tips``)? Each tip (a parameter of the base
    strategy) followed against ignored, on the same paired deals, in every rule set where it
    applies and at every player count. Defaults: every preset, 2 and 4 players, every tip,
    40,000 games per variant and cell, seed 0. The table is the same for any ``workers``.

    >>> r = tips(["shithead"], [2], games=100, tip=["save_specials"])
    >>> list(r.tips["tip"]), list(r.tips["players"])
    (['save_specials'], [2])
    """
    from shedsim.analysis.tips_run import TipsStudy

    return TipsResult(
        _run(
            TipsStudy(rules, players, tip, games, base, opponents, seed, house, strategy_path),
            options,
            run,
        )
    )


# ------------------------------------------------------------------ tune
def tune(
    strategy: str | None = None,
    field: str | Sequence[str] | None = None,
    *,
    rules: str | None = None,
    house: Sequence[str] | None = None,
    rules_file: str | Path | None = None,
    players: int | None = None,
    budget: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    param: Sequence[str] | None = None,
    sampler: str | None = None,
    confirm_games: int | None = None,
    storage: str | None = None,
    study_name: str | None = None,
    strategy_path: Sequence[str | Path] | None = None,
    options: RunOptions | None = None,
    **run: Any,
) -> TuneResult:
    """Tune a strategy's integer parameters against a field of opponents (``shedsim tune``,
    optuna). The study is kept in ``out`` (``study.db``) or ``storage``: calling again with the
    same options resumes it; without either, in a temporary directory. Each trial's games
    are played on the workers; the scores are the same for any ``workers``. Defaults: the
    tunable built-in strategy against the reference opponent and itself, shithead, 2
    players, 50 trials of 4,000 games per field entry, seed 0, a confirmation of 20,000 games.

    >>> r = tune(budget=2, games=100, confirm_games=100, param=["track=0:50"])
    >>> len(r.trials), sorted(r.best)
    (2, ['track'])
    """
    from shedsim.analysis.tune_run import TuneStudy

    return TuneResult(
        _run(
            TuneStudy(
                strategy,
                field,
                rules,
                house,
                rules_file,
                players,
                budget,
                games,
                seed,
                param,
                sampler,
                confirm_games,
                storage,
                study_name,
                strategy_path,
            ),
            options,
            run,
        )
    )


# ------------------------------------------------------------------ positions and hint
_SEAT_KEYS = ("hand", "face_up", "face_down", "out", "known")


class Position:
    """A position of a game, built in code or read from a position (scenario) file: the
    seats' ``hand``, ``face_up`` and ``face_down`` cards (face-down in slot order), whether
    each is ``out`` and its ``known`` cards (hand cards the other seats have seen), the
    ``pile`` (bottom first), the ``stock`` (top first), the number of ``burned`` cards or
    the ``burned_cards`` themselves (then ``burned`` defaults to their count), the seat
    ``to_move``, the ``rules`` (a preset or a rules
    TOML file) with ``house`` toggles, and ``moves`` to apply first; other keys of a
    position file (``dealer``, ``direction``, ``deterministic``) as keywords. Cards are
    written as in position files (``"K"``, ``"10"``, ``"2"``). Checked when it is used
    (:meth:`state`): a problem raises :class:`StudyError` naming the file's field
    (``seats.0.hand``).

    >>> p = Position(seats=[{"hand": ["K", "4"], "face_up": ["8"], "face_down": ["6"]},
    ...                     {"hand": ["9"], "face_up": ["3"], "face_down": ["A"]}],
    ...              pile=["7"], burned=40, rules="family")
    >>> p.state().to_move, len(p.state().seats)
    (0, 2)
    """

    def __init__(
        self,
        seats: Sequence[dict[str, Any]],
        *,
        pile: Sequence[str] = (),
        stock: Sequence[str] = (),
        burned: int | None = None,
        burned_cards: Sequence[str] | None = None,
        to_move: int = 0,
        rules: str = "shithead",
        house: Sequence[str] = (),
        moves: Sequence[str] = (),
        **more: Any,
    ) -> None:
        self.data: dict[str, Any] = {
            "rules": rules,
            "house": list(house),
            "to_move": to_move,
            "pile": list(pile),
            "stock": list(stock),
            "moves": list(moves),
            "seats": [dict(s) for s in seats],
            **more,
        }
        if burned is not None or burned_cards is None:
            self.data["burned"] = 0 if burned is None else burned
        if burned_cards is not None:
            self.data["burned_cards"] = list(burned_cards)
        self.path: Path | None = None

    @classmethod
    def read(cls, path: str | Path) -> Position:
        """The position of a position (scenario) file, after its ``moves``. Raises
        :class:`StudyError` for a file that cannot be read."""
        from shedsim.rules.files import FileProblem, read_toml

        try:
            data = read_toml(Path(path))
        except FileProblem as e:
            raise StudyError(f": {path}: {e}", field="position") from None
        pos = cls.__new__(cls)
        pos.data, pos.path = data, Path(path)
        return pos

    def state(self) -> Any:
        """The position as the engine holds it (:class:`shedsim.rules.engine.GameState`),
        after the moves. Raises :class:`StudyError` naming the field at fault."""
        from shedsim.rules.scenario import ScenarioError, parse_scenario, play_moves

        where = str(self.path) if self.path else ""
        try:
            return play_moves(parse_scenario(self.data, where))[0]
        except (
            ScenarioError
        ) as e:  # "position: FILE: seats.0.hand: ..." (no FILE for one built in code)
            raise StudyError(": " + (str(e) if where else str(e)[2:]), field="position") from None

    def __repr__(self) -> str:
        seats = len(self.data.get("seats") or [])
        return (
            f"<Position {self.data.get('rules')}, {seats} "
            f"seats{', ' + str(self.path) if self.path else ''}>"
        )


class HintResult:
    """The moves of a position ranked by playouts, or solved exactly: ``moves`` (a
    DataFrame, best first: the move, its expected place, P(lose) and P(first) with 95%
    intervals, its samples, ``dropped_after``/``same_as``, and for a solved position its
    exact ``result``, ``win``, ``draw`` or ``loss``, and ``moves_to_end`` under best play,
    else None), ``best`` (the top move), ``searched`` (ranked by the strongest player's
    search: ``samples`` are visits, the intervals NaN), ``solved`` (whether the values are
    exact: an end game of two seats with the stock empty and no face-down card), ``note``
    (why such an end game was not solved, else None), ``stopped`` and ``stop_text`` (how
    the race ended, or the verdict: ``solved: play 7x2 wins against every reply ...``),
    ``why`` (with ``why=True``) and ``raw`` (:class:`shedsim.analysis.hint.HintResult`)."""

    def __init__(self, raw: Any) -> None:
        import pandas as pd

        self.raw = raw
        rows = []
        for m in raw.moves:
            rows.append(
                {
                    "move": m.move,
                    "expected_place": m.place.value,
                    "place_lo": m.place.lo,
                    "place_hi": m.place.hi,
                    "p_lose": m.p_lose.value,
                    "p_lose_lo": m.p_lose.lo,
                    "p_lose_hi": m.p_lose.hi,
                    "p_first": m.p_first.value,
                    "p_first_lo": m.p_first.lo,
                    "p_first_hi": m.p_first.hi,
                    "samples": m.samples,
                    "dropped_after": m.dropped_after,
                    "same_as": m.same_as,
                    "result": None if m.solved is None else m.solved.result,
                    "moves_to_end": None if m.solved is None else m.solved.moves,
                }
            )
        self.moves = pd.DataFrame(rows)
        self.best: str = raw.moves[0].move
        self.stopped: str = raw.stopped
        self.stop_text: str = raw.stop_text()
        self.why: str | None = raw.why
        self.objective: str = raw.objective
        self.solved: bool = raw.solved
        self.searched: bool = raw.searched
        self.note: str | None = raw.note

    def __repr__(self) -> str:
        return f"<HintResult best {self.best!r} of {len(self.moves)} moves, {self.stopped}>"


def hint(
    position: Position | str | Path,
    seat: int | None = None,
    *,
    policy: str | None = None,
    budget: int | None = None,
    batch: int = 100,
    seed: int = 0,
    cap: int = 400,
    objective: str | None = None,
    why: bool = False,
    strategy_path: Sequence[str | Path] | None = None,
    solve_limit: int | None = None,
    search: bool | None = None,
    iterations: int | None = None,
) -> HintResult:
    """Which move is best here (``shedsim hint``)? Every legal move of ``seat`` (default:
    the seat to move) ranked, from what the seat can see, by the strongest player's search
    (the default: ``search`` True or None with neither ``policy`` nor ``budget``; each
    move's ``samples`` are then its visits and its intervals NaN) or by playouts
    (``search=False``, or a ``policy`` or ``budget`` given); ``position``: a
    :class:`Position` or a position file's path. The options are the command's
    (``policy``, ``budget``, ``batch``, ``seed``, ``cap``, ``objective``, ``why``,
    ``solve_limit``: the most positions of an exact end-game search, 0 never, default
    :data:`shedsim.analysis.endgame.MAX_POSITIONS`; ``iterations`` of the search).
    Raises :class:`StudyError` naming the parameter (exit code 1: the policy failed).

    >>> p = Position(seats=[{"hand": ["K", "4"], "face_up": ["8"], "face_down": ["6"]},
    ...                     {"hand": ["9"], "face_up": ["3"], "face_down": ["A"]}],
    ...              pile=["7"], burned=40, rules="family")
    >>> r = hint(p, policy="greedy", budget=20)
    >>> sorted(r.moves["move"])
    ['pickup', 'play Kx1']
    """
    from shedsim.analysis.endgame import MAX_POSITIONS
    from shedsim.analysis.hint import HintError, PolicyCrash, rank_moves

    pos = position if isinstance(position, Position) else Position.read(position)
    state = pos.state()
    paths = tuple(str(p) for p in strategy_path or ())
    try:
        raw = rank_moves(
            state,
            seat,
            policy,
            budget,
            seed,
            batch,
            cap,
            paths,
            why=why,
            objective=objective,
            solve_limit=MAX_POSITIONS if solve_limit is None else solve_limit,
            search=search,
            iterations=iterations,
        )
    except HintError as e:
        raise StudyError(str(e)) from None
    except PolicyCrash as e:
        raise StudyError(str(e), code=1, field="policy") from None
    return HintResult(raw)


# ------------------------------------------------------------------ train
def train(
    rules: Any = None,
    *,
    house: Sequence[str] = (),
    rules_file: str | Path | None = None,
    teacher: str | None = None,
    games: int | None = None,
    every: int | None = None,
    hidden: int = 32,
    l2: float = 0.1,
    epochs: int = 30,
    seed: int = 0,
    workers: int = 1,
    data: str | Path | None = None,
    out: str | Path | None = None,
    weights: str | Path | None = None,
    progress: Any = None,
) -> Any:
    """Train the search's learned value (``shedsim train``): ``games`` 2-player self-play
    games of ``teacher`` (default 20000 of the strongest player at 50 iterations without the
    value), one in ``every`` decisions kept, then the fit; or the positions of an earlier run's
    ``data`` file. ``rules``: a preset's name (default shithead) or a
    :class:`shedsim.rules.ruleset.RuleSet`. Writes nothing unless ``out`` (the run's files and
    weights) or ``weights`` is given. Returns a :class:`shedsim.analysis.learn.run.TrainRun`
    (``curve``, a DataFrame; ``summary``; ``result.weights``). Raises :class:`StudyError`
    naming the parameter.

    >>> r = train(games=30, teacher="champion:iterations=5", epochs=2)  # doctest: +SKIP
    >>> list(r.curve.columns)  # doctest: +SKIP
    ['epoch', 'train_loss', 'held_out_loss', 'held_out_accuracy']
    """
    from shedsim.analysis.learn.run import train as run_train
    from shedsim.rules.ruleset import RulesError, RuleSet, build

    if not isinstance(rules, RuleSet):
        try:
            rules = build(rules or "shithead", list(house), rules_file)
        except RulesError as e:
            raise StudyError(str(e), field="rules") from None
    return run_train(
        rules, teacher=teacher, games=games, every=every, hidden=hidden, l2=l2, epochs=epochs,
        seed=seed, workers=workers, data=None if data is None else Path(data),
        out=None if out is None else Path(out), weights=None if weights is None else Path(weights),
        progress=progress,
    )  # fmt: skip


__all__ = [
    "CompareResult",
    "HintResult",
    "Position",
    "Result",
    "TuneResult",
    "hint",
    "tune",
    "TipsResult",
    "tips",
    "SprtResult",
    "sprt",
    "SwapsResult",
    "swaps",
    "RunOptions",
    "StudyError",
    "TournamentResult",
    "compare_rules",
    "tournament",
    "train",
]
