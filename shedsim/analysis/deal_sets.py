"""The deals of a finished or interrupted tournament, for ``shedsim deals export --from-run``.

A tournament's ``spec.json`` decides every deal (the seed, or the ``--deals`` file it played):
deal index d of the run is dealt by seat ``d % players`` from the deal key of ``(seed, d)``
(:func:`shedsim.runs.simulate.schedule_games`), or is deal ``(d // tables) % K`` of its deal
set (:meth:`shedsim.runs.simulate.RunSpec.decks`). The filter ``lost_by`` needs the run's
per-game records (``--save-games``: ``games/*.parquet``, with each game's deal, seating and
places); without them only the unfiltered deals can be exported.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedsim.rules.deals import Deal, DealsError, from_state


def _spec(run_dir: Path):
    from shedsim.analysis.tournament import Store, TournamentError, spec_from_store

    if not (run_dir / "spec.json").is_file():
        raise DealsError(
            f"--from-run: {run_dir} holds no spec.json (not a shedsim tournament directory)"
        )
    try:
        return spec_from_store(Store(run_dir))
    except TournamentError as e:
        raise DealsError(f"--from-run: {run_dir}: {str(e).removeprefix('--resume: ')}") from None


def run_deals(run_dir: str | Path, lost_by: str | None = None):
    """``(rules, players, deals, note)`` of the tournament in ``run_dir``: every deal index it
    played (its blocks), or with ``lost_by`` (an entry's label) the deal indices on which that
    entry took last place in every game it played of that deal (every rotation); ``note``
    says what was selected. Raises :class:`shedsim.rules.deals.DealsError` naming the option:
    not a tournament directory, an unknown label, or ``lost_by`` without ``--save-games``."""
    run_dir = Path(run_dir)
    spec = _spec(run_dir)
    n = spec.players
    n_deals = spec.games // n
    indices = np.arange(n_deals, dtype=np.int64)
    note = f"every deal of the run in {run_dir} ({n_deals})"
    if lost_by is not None:
        if lost_by not in spec.labels:
            raise DealsError(
                f"--lost-by: no entry labelled {lost_by!r} in {run_dir} "
                f"(entries: {', '.join(spec.labels)})"
            )
        indices = _lost_deals(run_dir, spec, spec.labels.index(lost_by))
        note = (
            f"the deals of the run in {run_dir} that {lost_by} lost under every rotation "
            f"({len(indices)})"
        )
    return spec.rules, n, [deal_of(spec, int(d)) for d in indices], note


def deal_of(spec, d: int) -> Deal:
    """Deal index ``d`` of tournament ``spec`` (a
    :class:`shedsim.analysis.tournament.TournamentSpec`)."""
    if spec.deal_set is not None:
        k = len(spec.deal_set.deals)
        return spec.deal_set.deals[(d // len(spec.tables)) % k]
    from shedsim.rules.engine import deal
    from shedsim.seeding import game_keys

    dk, _ = game_keys(spec.seed, np.array([d]), np.array([d]))
    return from_state(deal(spec.rules, spec.players, int(dk[0]), d % spec.players)[0])


def _lost_deals(run_dir: Path, spec, entry: int) -> np.ndarray:
    """Deal indices on which ``entry`` was seated and placed last (place = players) in every
    game."""
    import pandas as pd

    files = sorted((run_dir / "games").glob("[0-9][0-9][0-9][0-9][0-9].parquet"))
    if not files:
        raise DealsError(
            f"--lost-by: {run_dir} has no per-game records (games/*.parquet); run the tournament "
            f"with --save-games to filter its deals"
        )
    n = spec.players
    lost = []
    for f in files:
        g = pd.read_parquet(
            f,
            columns=["deal"] + [f"entry_{s}" for s in range(n)] + [f"place_{s}" for s in range(n)],
        )
        seated = np.zeros(len(g), bool)
        last = np.zeros(len(g), bool)
        for s in range(n):
            here = g[f"entry_{s}"].to_numpy() == entry
            seated |= here
            last |= here & (g[f"place_{s}"].to_numpy() == n)
        per = pd.DataFrame({"deal": g["deal"].to_numpy()[seated], "last": last[seated]})
        lost.append(per.groupby("deal")["last"].all())
    every = pd.concat(lost).groupby(level=0).all() if lost else pd.Series(dtype=bool)
    return np.sort(every.index[every.to_numpy()].to_numpy(np.int64))
