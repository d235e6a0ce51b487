"""``compare-rules`` on the run machinery (:mod:`shedsim.runs.execute`): its spec, run store
and resume. The statistics are :mod:`shedsim.analysis.compare`'s.

Chunk k of the run is chunk ``k // V`` of variant ``k % V`` (V variants): the plan goes
chunk by chunk through all variants, so an interrupted run has played about the same deals
in every variant, and its partial results compare the deals finished in all of them
(the longest prefix of chunks done everywhere). Each chunk is stored as its per-deal
arrays (:class:`shedsim.analysis.compare.Tally` fields for the chunk's deals); the final
tallies are those arrays put back in place, so the results do not depend on the order in
which chunks finished, the number of workers, or how many sessions the run took.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Sequence

import numpy as np

from shedsim.analysis import compare as C
from shedsim.runs.execute import Job
from shedsim.runs.simulate import RunSpec, schedule_games
from shedsim.runs.store import RunStore
from shedsim.runs.study import Check, Study, marked, study_errors

FORMAT = 1
FIELDS = ("lengths", "unfinished", "pickups", "burns", "starter_lost", "losses", "ends")
"""The :class:`shedsim.analysis.compare.Tally` arrays stored per chunk (per deal)."""
OUTPUTS = ("variants.csv", "effects.csv", "lengths.csv", "forest.png", "lengths.png", "run.json")
"""Every name compare-rules may write in its directory besides the run store's own."""


class CompareStore(RunStore):
    """A compare-rules run directory (:class:`shedsim.runs.store.RunStore`); raises
    :class:`shedsim.analysis.compare.CompareError`."""

    Error = C.CompareError
    what = "compare-rules"


@dataclass
class CompareSpec:
    """Everything that decides a comparison's results (stored as ``DIR/spec.json``).

    ``rules``, ``house`` and ``each_toggle`` are the options the variants were built from
    (:func:`shedsim.analysis.compare.plan_variants`); ``games`` is ``games_requested``
    rounded up to whole blocks; ``chunk_size`` is games per chunk of each variant."""

    rules: tuple[str, ...]
    house: tuple[str, ...]
    each_toggle: bool
    players: int
    entries: tuple[tuple[str, str], ...]
    seed: int
    games_requested: int
    games: int
    block: int
    chunk_size: int
    strategy_paths: tuple[str, ...] = ()
    strategy_hashes: dict[str, str] = field(default_factory=dict)
    plan: C.Plan | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(lab for lab, _ in self.entries)

    @property
    def bot_cwd(self) -> str:
        """Where a bot entry (``bot:COMMAND``) is started: the directory the command was given
        in."""
        import os

        return os.getcwd() if any(s.startswith("bot:") for _, s in self.entries) else ""

    @property
    def n_chunks(self) -> int:
        """Chunks per variant."""
        return max(1, math.ceil(self.games / self.chunk_size))

    def run_specs(self) -> list[RunSpec]:
        """Variant i's :class:`RunSpec`: the tournament schedule on strategy stream i."""
        specs = tuple(s for _, s in self.entries)
        return [
            RunSpec(
                v.rules,
                self.players,
                specs,
                self.labels,
                seed=self.seed,
                games=self.games,
                schedule="tournament",
                strategy_paths=tuple(self.strategy_paths),
                chunk_size=self.chunk_size,
                stream=i,
                bot_cwd=self.bot_cwd,
            )
            for i, v in enumerate(self.plan.variants)
        ]

    def identity(self) -> dict[str, Any]:
        """The fields that decide results (hashed into the key; compared on resume)."""
        return {
            "format": FORMAT,
            "command": "compare-rules",
            "players": self.players,
            "variants": [
                {"label": v.label, "rules": v.rules.to_dict()} for v in self.plan.variants
            ],
            "entries": [s for _, s in self.entries],
            "labels": list(self.labels),
            "seed": self.seed,
            "games": self.games,
            "chunk_size": self.chunk_size,
            "strategy_hashes": dict(sorted(self.strategy_hashes.items())),
        }

    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        d = self.identity()
        d.update(
            {
                "rules_options": list(self.rules),
                "house": list(self.house),
                "each_toggle": self.each_toggle,
                "games_requested": self.games_requested,
                "block": self.block,
                "chunks_per_variant": self.n_chunks,
                "n_chunks": self.n_chunks * len(self.plan.variants),
                "strategy_paths": list(self.strategy_paths),
                "key": self.key(),
            }
        )
        return d


def plan(
    rules: list[str],
    house: list[str],
    players: int,
    each_toggle: bool,
    entries: list[tuple[str, str]],
    games: int,
    seed: int = 0,
    strategy_paths: tuple[str, ...] = (),
    chunk_size: int | None = None,
) -> CompareSpec:
    """Check every option and build the spec, before any game is played. Raises
    :class:`shedsim.analysis.compare.CompareError` naming the option."""
    from shedsim.plugins import PluginError, compiled_strategy, discover

    p = C.plan_variants(list(rules), list(house), players, each_toggle)
    C.check_entries(entries, strategy_paths)
    if len({lab for lab, _ in entries}) != len(entries):
        raise C.CompareError(
            f"--strategies: labels must be distinct, got {', '.join(lab for lab, _ in entries)}"
        )
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise C.CompareError(f"--games: must be at least 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise C.CompareError(f"--seed: must be a non-negative integer, got {seed!r}")
    try:
        known = discover(list(strategy_paths))
        hashes = {}
        for _, s in entries:
            if s.startswith(
                "bot:"
            ):  # a bot's code is not shedsim's to hash: its command is in the entries
                continue
            st = compiled_strategy(known, s, "compare-rules")
            hashes[st.name] = st.source_hash
    except PluginError as e:
        raise C.CompareError(f"--strategies: {e}") from None
    total, block = C.round_games(games, players, len(entries))
    chunk = (
        C.chunk_size_for(total, block)
        if chunk_size is None
        else max(players, math.ceil(chunk_size / players) * players)
    )
    from shedsim.runs.store import plan_size_problem

    too_big = plan_size_problem(
        len(p.variants) * max(1, math.ceil(total / chunk)), len(p.variants) * total, chunk
    )
    if too_big:
        raise C.CompareError(too_big)
    return CompareSpec(
        tuple(rules),
        tuple(p.house),
        each_toggle,
        players,
        tuple(entries),
        seed,
        games,
        total,
        block,
        chunk,
        tuple(strategy_paths),
        hashes,
        p,
    )


def spec_from_store(
    store: CompareStore, strategy_paths: tuple[str, ...] | None = None
) -> CompareSpec:
    """Rebuild the spec saved in ``store`` (``--resume``): the variants, strategies and
    their sources must be unchanged, it must rebuild to the stored key, and spec.json must
    carry its checksum. Raises :class:`shedsim.analysis.compare.CompareError`."""
    d = store.read_spec()
    where = repr(str(store.spec_path()))
    store.check_command(d, FORMAT)
    try:
        spec = plan(
            list(d["rules_options"]),
            list(d["house"]),
            int(d["players"]),
            bool(d["each_toggle"]),
            [(str(a), str(b)) for a, b in zip(d["labels"], d["entries"], strict=True)],
            int(d["games_requested"]),
            seed=int(d["seed"]),
            strategy_paths=tuple(d.get("strategy_paths", []))
            if strategy_paths is None
            else strategy_paths,
            chunk_size=int(d["chunk_size"]),
        )
    except C.CompareError as e:
        raise C.CompareError(f"--resume: {where}: {e}") from None
    except (KeyError, TypeError, ValueError) as e:
        raise C.CompareError(
            f"--resume: {where} is damaged or not a compare-rules spec ({type(e).__name__}: {e})"
        ) from None
    if spec.strategy_hashes != d.get("strategy_hashes"):
        raise C.CompareError(
            "--resume: a strategy's source changed since the run started; results would mix "
            "two versions; start a new run"
        )
    if spec.key() != d["key"]:
        raise C.CompareError(
            f"--resume: the stored specification {where} does not match what it rebuilds to "
            f"(edited, or the rules changed since); start a new run"
        )
    store.verify_checksum(d)
    return spec


class CompareJob(Job):
    """A comparison as the run machinery plays it: chunk k = chunk ``k // V`` of variant
    ``k % V``; each reduced to its deals' :data:`FIELDS` arrays."""

    command = "compare-rules"

    def __init__(self, spec: CompareSpec) -> None:
        self.spec = spec
        self.key = spec.key()
        self.spec_json = spec.to_json()
        self.run_specs = spec.run_specs()
        v = len(self.run_specs)
        self.tasks = [(self.run_specs[k % v], k // v) for k in range(v * spec.n_chunks)]
        self.keep = C.KEEP
        self.strategies = [lab if lab == e else f"{lab}={e}" for lab, e in spec.entries]
        self.max_moves = max(x.rules.max_moves for x in spec.plan.variants)

    @property
    def variants(self) -> int:
        return len(self.run_specs)

    def _empty(self, deals: int) -> C.Tally:
        return C.Tally.empty(deals, self.spec.players, len(self.spec.entries), self.max_moves)

    def reduce(self, k: int, result, store) -> dict[str, np.ndarray]:
        s, c = self.tasks[k]
        a, b = s.chunk_bounds(c)
        t = self._empty((b - a) // self.spec.players)
        t.add_chunk(0, b - a, result.records, schedule_games(s, a, b)["seating"])
        return {f: getattr(t, f) for f in FIELDS}

    def template(self, k: int) -> dict[str, np.ndarray]:
        s, c = self.tasks[k]
        a, b = s.chunk_bounds(c)
        t = self._empty((b - a) // self.spec.players)
        return {f: getattr(t, f) for f in FIELDS}

    def complete_prefix(self, done: list[int]) -> int:
        """How many chunks (per variant) from the first are done in every variant."""
        have = set(done)
        m = 0
        while m < self.spec.n_chunks and all(
            m * self.variants + i in have for i in range(self.variants)
        ):
            m += 1
        return m

    def tallies(self, store: CompareStore, done: list[int]) -> list[C.Tally] | None:
        """The tallies of the deals finished in every variant (the first chunks up to
        :meth:`complete_prefix`), read from ``store``; None when no deal is."""
        m = self.complete_prefix(done)
        if m == 0:
            return None
        s0 = self.run_specs[0]
        deals = s0.chunk_bounds(m - 1)[1] // self.spec.players
        out = [self._empty(deals) for _ in range(self.variants)]
        for c in range(m):
            a, b = s0.chunk_bounds(c)
            sl = slice(a // self.spec.players, b // self.spec.players)
            for i, t in enumerate(out):
                arrays = store.load_chunk(c * self.variants + i, FIELDS)
                for f in FIELDS:
                    getattr(t, f)[sl] = arrays[f]
                t.done[sl] = True
        return out


def analyse(
    job: CompareJob,
    tallies: list[C.Tally],
    play_s: float,
    played: int,
    games_per_s: float | None = None,
) -> C.ComparisonResult:
    """The comparison of ``tallies`` (:func:`shedsim.analysis.compare.analyse`) with the run's
    figures in ``info`` as :func:`shedsim.analysis.compare.compare` gives them."""
    spec = job.spec
    res = C.analyse(spec.plan, list(spec.entries), tallies, spec.strategy_paths)
    # games: per variant, those in the results (the deals finished in every variant: fewer
    # than planned when the run was interrupted)
    res.info.update(
        games_requested=spec.games_requested,
        games=int(tallies[0].done.sum()) * spec.players,
        block=spec.block,
        chunk_size=spec.chunk_size,
        seed=spec.seed,
        play_s=round(play_s, 3),
        games_per_s=(
            round(games_per_s, 1)
            if games_per_s is not None
            else round(played / play_s, 1)
            if play_s > 0
            else None
        ),
        strategy_paths=list(spec.strategy_paths),
    )
    return res


def write_outputs(res: C.ComparisonResult, out: Path, plots: bool = True) -> list[str]:
    """:func:`shedsim.analysis.compare.write_outputs`."""
    return C.write_outputs(res, out, plots=plots)


class CompareStudy(Study):
    """``compare-rules`` as a :class:`shedsim.runs.study.Study`; every option None when not
    given (``rules`` and ``house`` lists, ``strategies`` a list of entries or one
    comma-separated string; defaults: :mod:`shedsim.analysis.compare`'s)."""

    command = "compare-rules"
    outputs = OUTPUTS
    needs = "a deal finished in every variant"

    def __init__(
        self,
        rules: Sequence[str] | None = None,
        house: Sequence[str] | None = None,
        each_toggle: bool | None = None,
        players: int | None = None,
        strategies: str | Sequence[str] | None = None,
        games: int | None = None,
        seed: int | None = None,
        strategy_path: Sequence[str | Path] | None = None,
    ) -> None:
        self.rules, self.house, self.each_toggle = rules, house, each_toggle or None
        self.players, self.strategies, self.games, self.seed = players, strategies, games, seed
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.strategy_path = strategy_path
        self._games_done = 0

    def plan(self, store: CompareStore) -> CompareJob:
        from shedsim.analysis import tournament as T
        from shedsim.analysis.tournament_run import entries_of

        with study_errors(C.CompareError, T.TournamentError):
            entries = entries_of("@compare" if self.strategies is None else self.strategies)
            spec = plan(
                list(self.rules or []),
                list(self.house or []),
                C.DEFAULT_PLAYERS if self.players is None else self.players,
                bool(self.each_toggle),
                entries,
                C.DEFAULT_GAMES if self.games is None else self.games,
                seed=0 if self.seed is None else self.seed,
                strategy_paths=self.paths,
            )
        return CompareJob(spec)

    def store(self, root: Path) -> CompareStore:
        return CompareStore(root)

    def from_store(self, store: CompareStore) -> CompareJob:
        with study_errors(C.CompareError):
            return CompareJob(spec_from_store(store, self.paths if self.strategy_path else None))

    def resume_checks(self, job: CompareJob) -> list[Check]:
        from shedsim.analysis import tournament as T
        from shedsim.analysis.tournament_run import entries_of

        spec = job.spec
        variants = None
        if self.rules or self.house or self.each_toggle:
            try:
                p = C.plan_variants(
                    list(self.rules or spec.rules),
                    list(self.house or spec.house),
                    spec.players,
                    bool(self.each_toggle or spec.each_toggle),
                )
                variants = [(v.label, v.rules.to_dict()) for v in p.variants]
            except C.CompareError:  # options that, with the stored ones, plan nothing
                variants = []
        stored = ", ".join(v.label for v in spec.plan.variants)
        asked = ", ".join(label for label, _ in variants or [])
        shown = (
            f" ({asked} vs stored {stored})" if asked else f" (the stored run compares {stored})"
        )
        entries = None
        if self.strategies is not None:
            with study_errors(T.TournamentError):
                entries = entries_of(self.strategies)
        return [
            Check(
                "rules",
                variants,
                [(v.label, v.rules.to_dict()) for v in spec.plan.variants],
                shown=shown,
                label="/".join(marked(f) for f in ("rules", "house", "each_toggle")),
            ),
            Check("players", self.players, spec.players),
            Check("strategies", entries, list(spec.entries), shown=""),
            Check(
                "games",
                self.games,
                spec.games_requested,
                same=lambda g, _: g in (spec.games_requested, spec.games),
            ),
            Check("seed", self.seed, spec.seed),
        ]

    def notes(self, job: CompareJob, resume: bool) -> list[str]:
        spec = job.spec
        plan_ = spec.plan
        out = [f"[yellow]note:[/] skipped {s['variant']}: {s['reason']}" for s in plan_.skipped]
        base = plan_.variants[0]
        out.append(
            f"baseline {base.label}; {len(plan_.variants)} variants at {spec.players} players; "
            + ", ".join(
                f"{v.label} ({'paired' if C.deal_alike(base.rules, v.rules) else 'unpaired'})"
                for v in plan_.variants[1:]
            )
        )
        if spec.games != spec.games_requested:
            out.append(
                f"[yellow]note:[/] --games {spec.games_requested:,} rounded up to "
                f"{spec.games:,} per variant: "
                f"whole blocks of {spec.block:,} games (every table x every rotation)"
            )
        return out

    def analyse(
        self, job: CompareJob, store: CompareStore, outcome: Any
    ) -> C.ComparisonResult | None:
        tallies = job.tallies(store, outcome.done)
        if tallies is None:
            return None
        self._games_done = int(tallies[0].done.sum()) * job.spec.players
        return analyse(job, tallies, outcome.play_s, outcome.played_now, outcome.games_per_s())

    def games_done(self, job: CompareJob, res: C.ComparisonResult) -> int:
        return self._games_done

    def in_results(self, job: CompareJob, res: C.ComparisonResult) -> str:
        return f"of the {self._games_done:,} games per variant finished in every variant"

    def run_info(self, job: CompareJob, res: C.ComparisonResult, outcome: Any) -> dict[str, Any]:
        from shedsim.runs.runinfo import command_line

        extra = C.run_info(res, {"argv": command_line(), "each_toggle": job.spec.each_toggle})
        for k in (
            "play_s",
            "games_per_s",
        ):  # this session's; Session.run_info gives them over all sessions
            extra.pop(k, None)
        return {**extra, "store_spec": job.spec_json, "games_in_results": self._games_done}

    def write(self, job: CompareJob, res: C.ComparisonResult, root: Path, plots: bool) -> list[str]:
        return write_outputs(res, root, plots=plots)
