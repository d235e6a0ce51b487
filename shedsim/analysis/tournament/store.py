"""A tournament's directory and its run: the run store (``spec.json``, one tally per
finished chunk, ``--save-games``'s Parquet files), the spec rebuilt for ``--resume``, and the
:class:`TournamentJob` the run machinery plays (:mod:`shedsim.runs.execute`: workers,
signals, resume).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from collections.abc import Callable

import numpy as np

from shedsim.analysis.tournament.plan import FORMAT, TournamentError, TournamentSpec, plan
from shedsim.analysis.tournament.tally import (
    RAGGED,
    aggregate_chunk,
    empty_tally,
    merge,
    record_keep,
    sparse_problem,
)
from shedsim.base import atomic
from shedsim.runs.execute import Job, Outcome, play
from shedsim.runs.simulate import schedule_games
from shedsim.runs.store import RunStore


class Store(RunStore):
    """A tournament's directory (:class:`shedsim.runs.store.RunStore`): ``spec.json``,
    ``chunks/NNNNN.npz`` (one tally per finished chunk, written atomically),
    ``games/NNNNN.parquet`` (``--save-games``). Raises :class:`TournamentError`."""

    Error = TournamentError
    what = "tournament"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.games = self.root / "games"

    def check_chunk(
        self, key: str, i: int, template: dict[str, np.ndarray], ragged=(), option: str = "--resume"
    ) -> dict[str, np.ndarray]:
        """:meth:`shedsim.runs.store.RunStore.check_chunk`, and the sparse Plackett-Luce
        events must have as many counts as keys; a run with bots whose chunk lacks
        ``still_in`` was started by a shedsim that counted forfeited games as unfinished."""
        if "still_in" in template:
            try:
                with np.load(self.chunk_path(i), allow_pickle=False) as z:
                    old = "forfeits" in z.files and "still_in" not in z.files
            except Exception:  # noqa: BLE001 - a damaged file: the check below names it
                old = False
            if old:
                raise TournamentError(
                    f"{option}: chunk file {str(self.chunk_path(i))!r} was written by an earlier "
                    "shedsim, which counted the games a bot forfeited as unfinished; finish the "
                    "run with that version, or start a new run"
                )
        arrays = super().check_chunk(key, i, template, ragged, option)
        problem = sparse_problem(arrays)
        if problem:
            raise TournamentError(
                f"{option}: chunk file {str(self.chunk_path(i))!r} is damaged ({problem}); "
                f"delete it to play that chunk again"
            )
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

    def save_games(
        self, spec: TournamentSpec, i: int, start: int, stop: int, rec: dict[str, np.ndarray]
    ) -> None:
        """Per-game records of chunk ``i`` as Parquet (one file per chunk, atomic)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        sched = schedule_games(spec.run_spec(), start, stop)
        n = spec.players
        cols: dict[str, Any] = {
            "game": sched["index"],
            "deal": sched["deal"],
            "table": ((sched["index"] // n) % len(spec.tables)).astype(np.int32),
            "rotation": (sched["index"] % n).astype(np.int8),
            "dealer": sched["dealer"].astype(np.int8),
            "start": rec["start"],
            "moves": rec["moves"],
            "unfinished": rec["unfinished"],
        }
        for s in range(n):
            cols[f"entry_{s}"] = sched["seating"][:, s].astype(np.int16)
        for name in ("places", "pickups", "burns", "dealt", "face_up"):
            if name in rec:
                for s in range(n):
                    cols[f"{name.rstrip('s') if name == 'places' else name}_{s}"] = (
                        np.ascontiguousarray(rec[name][:, s])
                    )
        table = pa.table(cols)
        meta = {
            b"shedsim.labels": json.dumps(list(spec.labels)).encode(),
            b"shedsim.entries": json.dumps(list(spec.entries)).encode(),
        }
        table = table.replace_schema_metadata(meta)
        atomic.write_with(self.game_path(i), lambda f: pq.write_table(table, f))


_SPEC_FIELDS = {
    "rules": dict,
    "rules_input": dict,
    "players": int,
    "entries": list,
    "labels": list,
    "seed": int,
    "games_requested": int,
    "rounds": int,
    "chunk_size": int,
    "strategy_hashes": dict,
    "key": str,
}


def spec_from_store(store: Store, strategy_paths: tuple[str, ...] | None = None) -> TournamentSpec:
    """Rebuild the spec saved in ``store`` (for ``--resume``), checking that it is a
    shedsim spec of this format, that the rules and every strategy's source are unchanged
    and that it rebuilds to the stored key. Raises :class:`TournamentError`."""
    from shedsim.rules.ruleset import RulesError, build

    d = store.read_spec()
    where = repr(str(store.spec_path()))
    store.check_command(d, FORMAT)
    bad = [
        k
        for k, typ in _SPEC_FIELDS.items()
        if not isinstance(d.get(k), typ) or (typ is int and isinstance(d.get(k), bool))
    ]
    bad += [
        k
        for k in ("entries", "labels")
        if k not in bad and not all(isinstance(x, str) for x in d[k])
    ]
    if bad:
        raise TournamentError(
            f"--resume: {where} is damaged or not a shedsim tournament spec "
            f"(missing or invalid: {', '.join(bad)})"
        )
    ri = d["rules_input"]
    try:
        rules = build(ri.get("rules", "shithead"), ri.get("house", []), ri.get("rules_file"))
    except (RulesError, TypeError, ValueError) as e:
        raise TournamentError(f"--resume: the stored rules no longer build: {e}") from None
    if rules.to_dict() != d["rules"]:
        raise TournamentError(
            "--resume: the rule set differs from the one the run started with "
            "(the rules file or a preset changed); start a new run"
        )
    paths = tuple(d.get("strategy_paths", [])) if strategy_paths is None else strategy_paths
    try:
        spec = plan(
            rules,
            d["players"],
            list(zip(d["labels"], d["entries"])),
            d["games_requested"],
            seed=d["seed"],
            rounds=d["rounds"],
            chunk_size=d["chunk_size"],
            strategy_paths=paths,
            rules_input=ri,
            save_games=bool(d.get("save_games", False)),
            seat_orders=d.get("seat_orders", "all"),
            bot_time=tuple(d.get("bot_time", (1000, None))),
            deals=d.get("deals"),
            control_variate=d.get("control_variate", False) is True,
        )
    except (TournamentError, RulesError) as e:
        msg = str(e)
        raise TournamentError(
            msg if msg.startswith("--resume") else f"--resume: {where}: {msg}"
        ) from None
    except (TypeError, ValueError, KeyError) as e:
        raise TournamentError(f"--resume: {where} is damaged ({type(e).__name__}: {e})") from None
    if spec.strategy_hashes != d["strategy_hashes"]:
        changed = [
            n
            for n in spec.strategy_hashes
            if spec.strategy_hashes[n] != d["strategy_hashes"].get(n)
        ]
        raise TournamentError(
            f"--resume: strategy source changed since the run started ({', '.join(changed)}); "
            f"results would mix two versions; start a new run"
        )
    if spec.deal_set is not None and spec.deal_set.sha256 != d.get("deals_sha256"):
        raise TournamentError(
            f"--resume: the deal set {spec.deal_set.path} changed since the run started "
            f"(its sha256 differs); start a new run"
        )
    if spec.key() != d["key"]:
        raise TournamentError(
            f"--resume: the stored specification {where} does not match what it rebuilds to "
            f"(edited, or written by another version); start a new run"
        )
    store.verify_checksum(d)
    return spec


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
        self.keep = record_keep(spec)
        self.strategies = [
            f"{lab}={e}" if lab != e else lab for lab, e in zip(spec.labels, spec.entries)
        ]

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
                raise TournamentError(
                    f"--resume: games file {str(g)!r} is damaged ({e}); delete it "
                    f"and its chunk file {str(store.chunk_path(k))!r} to play that chunk again"
                ) from None
        return True

    def replay_hint(self, store: Store, game: int) -> str | None:
        import shlex

        return f"shedsim trace --from {shlex.quote(str(store.root))} --game {game}"


RunOutcome = Outcome
"""What :func:`run` did (:class:`shedsim.runs.execute.Outcome`)."""


def run(
    spec: TournamentSpec,
    store: Store,
    workers: int = 1,
    backend: str = "loky",
    resume: bool = False,
    stop_after: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> Outcome:
    """Play the chunks that ``store`` lacks, storing each chunk's tally as it arrives
    (:func:`shedsim.runs.execute.play` with a :class:`TournamentJob`).

    ``stop_after`` plays at most that many chunks and stops as if interrupted (tests of
    resume). Ctrl-C (KeyboardInterrupt) also stops: every finished chunk is kept, and the
    outcome says ``interrupted``. Raises :class:`shedsim.runs.simulate.SimulationError` when a
    strategy fails, :class:`shedsim.base.atomic.WriteError` (naming the file) when a chunk
    cannot be stored (disk full: the chunks stored before it are kept), and, with
    ``resume``, :class:`TournamentError` for a damaged or foreign chunk file.
    """
    return play(
        TournamentJob(spec),
        store,
        workers=workers,
        backend=backend,
        resume=resume,
        stop_after=stop_after,
        on_progress=on_progress,
        scheduler=scheduler,
    )
