"""``swaps`` on the run machinery (:mod:`shedsim.runs.execute`): its spec, run store and
resume. The analyses are :mod:`shedsim.analysis.swaps`'s.

The plan, in order: (a) the chunks of games with the strategy's swap; (a, b) the chunks of
the same deals without swaps (one play serves (a)'s dealt counts and (b)'s value table);
(c) the chunks of the swap-policy tournament; (d) the sample deals in batches of
:data:`REGRET_BATCH` (each choice scored by rollouts: work that is not a chunk of games,
:meth:`SwapsJob.call`). Each chunk is stored reduced (per-rank sums, per-multiset sums, a
tournament tally, the regret rows); the results are computed from the stored chunks
only, so they do not depend on workers, interruptions or sessions.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from collections.abc import Sequence

import numpy as np

from shedsim.analysis import swaps as SW
from shedsim.analysis import swaps_report
from shedsim.runs.execute import Job
from shedsim.runs.store import RunStore
from shedsim.runs.study import Check, Study, marked, study_errors

FORMAT = 1
REGRET_BATCH = SW.REGRET_BATCH
"""Sample deals per chunk of (d) (as :func:`shedsim.analysis.swaps.regret`)."""
VALUE_COLUMNS = ("n", "losses", "p2", "clusters", "nn", "l_ss", "l_sm", "p_ss", "p_sm")
"""The columns of :func:`shedsim.analysis.swaps.reduce_values`' table."""
REGRET_COLUMNS = {
    "deal": "i",
    "visible": "U",
    "choices": "i",
    "policy_choice": "U",
    "best_choice": "U",
    "worst_choice": "U",
    "policy_place": "f",
    "best_place": "f",
    "worst_place": "f",
    "policy_loss": "f",
    "best_loss": "f",
    "regret": "f",
    "regret_se": "f",
    "policy_is_best": "b",
}
"""The columns of a regret row (:func:`shedsim.analysis.swaps._regret_deals`) and their dtype
kinds."""


class SwapsStore(RunStore):
    """A swaps run directory; raises :class:`shedsim.analysis.swaps.SwapStudyError`."""

    Error = SW.SwapStudyError
    what = "swaps"

    def check_chunk(
        self, key: str, i: int, template: dict[str, np.ndarray], ragged=(), option: str = "--resume"
    ) -> dict[str, np.ndarray]:
        """:meth:`shedsim.runs.store.RunStore.check_chunk`; a chunk of the swap-policy
        tournament (c) must also have as many Plackett-Luce counts as keys."""
        from shedsim.analysis.tournament import sparse_problem

        arrays = super().check_chunk(key, i, template, ragged, option)
        problem = sparse_problem(arrays, "c_") if "c_pl_keys" in template else None
        if problem:
            raise self.Error(
                f"{option}: chunk file {str(self.chunk_path(i))!r} is damaged ({problem}); "
                f"delete it to play that chunk again"
            )
        return arrays


def identity(spec: SW.StudySpec, hashes: dict[str, str]) -> dict[str, Any]:
    """What decides the study's results (hashed into the key)."""
    return {
        "format": FORMAT,
        "command": "swaps",
        "rules": spec.rules.to_dict(),
        "players": spec.players,
        "strategy": spec.strategy,
        "games": spec.games,
        "seed": spec.seed,
        "policies": [[lab, src] for lab, src in spec.policies],
        "deals": spec.deals,
        "rollouts": spec.rollouts,
        "seat": spec.seat,
        "min_games": spec.min_games,
        "chunk_size": spec.chunk_size,
        "strategy_hashes": dict(sorted(hashes.items())),
    }


def strategy_hashes(spec: SW.StudySpec) -> dict[str, str]:
    """Source hash of every strategy the study plays or swaps with."""
    from shedsim.plugins import compiled_strategy, discover

    known = discover(list(spec.strategy_paths))
    out = {}
    for s in [spec.strategy] + [src for _, src in spec.policies if src is not None]:
        st = compiled_strategy(known, s, "the swap study")
        out[st.name] = st.source_hash
    return out


class SwapsJob(Job):
    """The swap study as the run machinery plays it (see the module docstring)."""

    command = "swaps"

    def __init__(self, spec: SW.StudySpec, rules_input: dict[str, Any] | None = None) -> None:
        from shedsim.analysis import tournament as T

        self.spec = spec
        hashes = strategy_hashes(spec)
        ident = identity(spec, hashes)
        self.key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
        self.tspec = SW.policy_spec(spec)
        rs_swap, rs_keep, rs_pol = spec.run_spec(False), spec.run_spec(True), self.tspec.run_spec()
        self.parts: list[tuple[str, int]] = []
        self.tasks = []
        for part, rs, n in (
            ("a", rs_swap, rs_swap.n_chunks()),
            ("b", rs_keep, rs_keep.n_chunks()),
            ("c", rs_pol, self.tspec.n_chunks),
        ):
            for c in range(n):
                self.parts.append((part, c))
                self.tasks.append((rs, c))
        for a in range(0, spec.deals, REGRET_BATCH):
            self.parts.append(("d", a))
            self.tasks.append((rs_swap, a))  # (d) is no chunk of games: see call()
        self.spec_json = {
            **ident,
            "rules_input": rules_input
            or {"rules": spec.rules.name, "house": list(spec.rules.house)},
            "strategy_paths": list(spec.strategy_paths),
            "n_chunks": len(self.tasks),
            "key": self.key,
        }
        self.strategies = [spec.strategy]
        self.ragged = (
            tuple(f"b_{c}" for c in ("packed", *VALUE_COLUMNS))
            + tuple(f"c_{c}" for c in T.RAGGED)
            + tuple(f"d_{c}" for c in REGRET_COLUMNS)
        )
        self._T = T

    def chunk_games(self, k: int) -> int:
        part, c = self.parts[k]
        if part == "d":
            return min(self.spec.deals, c + REGRET_BATCH) - c
        rs, _ = self.tasks[k]
        a, b = rs.chunk_bounds(c)
        return b - a

    def call(self, k: int):
        part, c = self.parts[k]
        if part == "d":
            return SW._regret_deals, (self.spec, c, min(self.spec.deals, c + REGRET_BATCH))
        from shedsim.runs.simulate import play_chunk

        rs, _ = self.tasks[k]
        keep = {"a": ("face_up", "dealt"), "b": ("face_up", "places"), "c": self._T.RECORD_KEEP}[
            part
        ]
        return play_chunk, (rs, *rs.chunk_bounds(c), keep)

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        part, c = self.parts[k]
        if part == "d":
            cols = {name: [row[name] for row in result] for name in REGRET_COLUMNS}
            return {
                f"d_{name}": np.array(
                    v,
                    dtype={"i": np.int64, "U": np.str_, "f": np.float64, "b": np.bool_}[
                        REGRET_COLUMNS[name]
                    ],
                )
                for name, v in cols.items()
            }
        rs, _ = self.tasks[k]
        a, b = rs.chunk_bounds(c)
        rec = result.records
        if part == "a":
            return {
                f"a_{key}": np.asarray(v, np.int64)
                for key, v in SW.reduce_chosen(a, b, rec).items()
            }
        if part == "b":
            g = SW.reduce_values(a, b, rec, self.spec.players)
            out = {
                "b_dealt": np.asarray(SW.reduce_dealt(a, b, rec), np.int64),
                "b_packed": g.index.to_numpy(np.int64),
            }
            out.update({f"b_{col}": g[col].to_numpy(np.int64) for col in VALUE_COLUMNS})
            return out
        tally = self._T.aggregate_chunk(self.tspec, a, b, rec)
        return {f"c_{key}": v for key, v in tally.items()}

    def template(self, k: int) -> dict[str, np.ndarray]:
        part, _ = self.parts[k]
        z13 = np.zeros(13, np.int64)
        if part == "a":
            return {f"a_{key}": z13 for key in ("clusters", "s", "m", "ss", "mm", "sm")}
        if part == "b":
            return {
                "b_dealt": z13,
                "b_packed": np.zeros(0, np.int64),
                **{f"b_{col}": np.zeros(0, np.int64) for col in VALUE_COLUMNS},
            }
        if part == "c":
            return {f"c_{key}": v for key, v in self._T.empty_tally(self.tspec).items()}
        return {
            f"d_{name}": np.zeros(
                0, {"i": np.int64, "U": np.str_, "f": np.float64, "b": np.bool_}[kind]
            )
            for name, kind in REGRET_COLUMNS.items()
        }

    def results(self, store: RunStore) -> SW.StudyResult:
        """The study's results from the stored chunks (all of them must be done)."""
        import pandas as pd

        T = self._T
        chosen, dealt, values = [], [], []
        total = T.empty_tally(self.tspec)
        rows: dict[str, list[np.ndarray]] = {name: [] for name in REGRET_COLUMNS}
        for k, (part, _) in enumerate(self.parts):
            z = store.load_chunk(k)
            if part == "a":
                chosen.append({key[2:]: v for key, v in z.items()})
            elif part == "b":
                dealt.append(z["b_dealt"])
                g = pd.DataFrame(
                    {col: z[f"b_{col}"] for col in VALUE_COLUMNS},
                    index=pd.Index(z["b_packed"], name="packed"),
                )
                values.append(g)
            elif part == "c":
                total = T.merge(total, {key[2:]: v for key, v in z.items()})
            else:
                for name in REGRET_COLUMNS:
                    rows[name].append(z[f"d_{name}"])
        by_rank = SW.finish_by_rank(chosen, dealt)
        table, all_rows = SW.finish_values(self.spec, values)
        pol = T.analyse(self.tspec, total)
        reg = None
        if self.spec.deals > 0:
            reg = pd.DataFrame(
                {name: [x.item() for x in np.concatenate(v)] for name, v in rows.items()}
            )
        return SW.StudyResult(
            by_rank,
            table,
            all_rows,
            pol,
            self.tspec,
            reg,
            SW.regret_summary(reg) if reg is not None else {},
        )


def spec_from_store(
    store: SwapsStore, strategy_paths: tuple[str, ...] | None = None
) -> tuple[SW.StudySpec, dict]:
    """Rebuild the study spec saved in ``store`` (``--resume``) and its rules input; the
    rules, strategies and their sources must be unchanged and spec.json unedited. Raises
    :class:`shedsim.analysis.swaps.SwapStudyError`."""
    from shedsim.rules.ruleset import RulesError, build

    d = store.read_spec()
    where = repr(str(store.spec_path()))
    store.check_command(d, FORMAT)
    try:
        ri = d["rules_input"]
        rules = build(ri["rules"], list(ri.get("house", [])), None)
        spec = SW.StudySpec(
            rules,
            int(d["players"]),
            str(d["strategy"]),
            games=int(d["games"]),
            seed=int(d["seed"]),
            policies=tuple(
                (str(lab), None if src is None else str(src)) for lab, src in d["policies"]
            ),
            deals=int(d["deals"]),
            rollouts=int(d["rollouts"]),
            seat=int(d["seat"]),
            min_games=int(d["min_games"]),
            chunk_size=int(d["chunk_size"]),
            strategy_paths=tuple(d.get("strategy_paths", []))
            if strategy_paths is None
            else strategy_paths,
        )
        SW.check(spec)
        job = SwapsJob(spec, ri)
    except SW.SwapStudyError as e:
        raise SW.SwapStudyError(f"--resume: {where}: {e}") from None
    except (KeyError, TypeError, ValueError, RulesError) as e:
        raise SW.SwapStudyError(
            f"--resume: {where} is damaged or not a swaps spec ({type(e).__name__}: {e})"
        ) from None
    if job.key != d["key"]:
        raise SW.SwapStudyError(
            f"--resume: the stored specification {where} does not match what it rebuilds to "
            f"(edited, a strategy's source or the rules changed since); start a new run"
        )
    store.verify_checksum(d)
    return spec, ri


OUTPUTS = SW.OUTPUTS
"""Every name a swaps run may write besides the run store's own."""
DEFAULTS = {
    "rules": "shithead",
    "players": 3,
    "games": 100_000,
    "deals": 200,
    "rollouts": 200,
    "seat": 0,
    "min_games": 200,
    "seed": 0,
}
"""The value of each option not given (the strategy's:
:func:`shedsim.analysis.swaps.default_strategy`)."""


def policies_of(swap_policy: Sequence[str] | None) -> tuple[tuple[str, str | None], ...]:
    """The swap policies of (c): the built-in ones
    (:func:`shedsim.analysis.swaps.default_policies`),
    then each ``--swap-policy`` (``SPEC`` or ``LABEL=SPEC``)."""
    policies = list(SW.default_policies())
    for item in swap_policy or []:
        eq, colon = item.find("="), item.find(":")
        if eq > 0 and (colon < 0 or eq < colon):  # LABEL=SPEC (a spec's own "=" follows its ":")
            policies.append((item[:eq].strip(), item[eq + 1 :].strip()))
        else:
            policies.append((item.strip(), item.strip()))
    return tuple(policies)


class SwapsStudy(Study):
    """``swaps`` as a :class:`shedsim.runs.study.Study`; every option None when not given
    (:data:`DEFAULTS`)."""

    command = "swaps"
    outputs = OUTPUTS
    partial_reports = False

    def __init__(
        self,
        rules: str | None = None,
        house: Sequence[str] | None = None,
        players: int | None = None,
        strategy: str | None = None,
        games: int | None = None,
        swap_policy: Sequence[str] | None = None,
        deals: int | None = None,
        rollouts: int | None = None,
        seat: int | None = None,
        min_games: int | None = None,
        seed: int | None = None,
        strategy_path: Sequence[str | Path] | None = None,
    ) -> None:
        self.given = {
            "rules": rules,
            "players": players,
            "games": games,
            "deals": deals,
            "rollouts": rollouts,
            "seat": seat,
            "min_games": min_games,
            "seed": seed,
        }
        self.house, self.strategy, self.swap_policy = house, strategy, swap_policy
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.strategy_path = strategy_path

    def value(self, key: str) -> Any:
        v = self.given[key]
        return DEFAULTS[key] if v is None else v

    def plan(self, store: SwapsStore) -> SwapsJob:
        from shedsim.analysis import tournament as T
        from shedsim.rules.ruleset import RulesError, build

        with study_errors(SW.SwapStudyError, RulesError, T.TournamentError):
            rs = build(self.value("rules"), list(self.house or []), None)
            spec = SW.StudySpec(
                rs,
                self.value("players"),
                self.strategy or SW.default_strategy(),
                games=self.value("games"),
                seed=self.value("seed"),
                policies=policies_of(self.swap_policy),
                deals=self.value("deals"),
                rollouts=self.value("rollouts"),
                seat=self.value("seat"),
                min_games=self.value("min_games"),
                strategy_paths=self.paths,
            )
            SW.check(spec)
            return SwapsJob(spec, {"rules": self.value("rules"), "house": list(self.house or [])})

    def store(self, root: Path) -> SwapsStore:
        return SwapsStore(root)

    def from_store(self, store: SwapsStore) -> SwapsJob:
        from shedsim.rules.ruleset import RulesError

        with study_errors(SW.SwapStudyError, RulesError):
            spec, rules_input = spec_from_store(store, self.paths if self.strategy_path else None)
            return SwapsJob(spec, rules_input)

    def resume_checks(self, job: SwapsJob) -> list[Check]:
        from shedsim.rules.ruleset import RulesError, build

        spec = job.spec
        rules = None
        if self.given["rules"] is not None or self.house:
            with study_errors(RulesError):
                rules = build(
                    self.given["rules"] or job.spec_json["rules_input"]["rules"],
                    list(self.house or []),
                    None,
                ).to_dict()
        policies = None if self.swap_policy is None else policies_of(self.swap_policy)
        return [
            Check(
                "rules",
                rules,
                spec.rules.to_dict(),
                shown="",
                label=marked("rules") + "/" + marked("house"),
            ),
            Check("strategy", self.strategy, spec.strategy),
            Check("swap_policy", policies, tuple(spec.policies), shown=""),
            *(
                Check(k, self.given[k], getattr(spec, k))
                for k in ("players", "games", "deals", "rollouts", "seat", "min_games", "seed")
            ),
        ]

    def analyse(self, job: SwapsJob, store: SwapsStore, outcome: Any) -> SW.StudyResult:
        return job.results(store)

    def run_info(self, job: SwapsJob, res: SW.StudyResult, outcome: Any) -> dict[str, Any]:
        spec, rs = job.spec, job.spec.rules
        return dict(
            command="shedsim swaps",
            title=f"Swap-phase study: {rs.name}, {spec.players} players, {spec.strategy}",
            rules=rs.name,
            house=list(rs.house),
            players=spec.players,
            strategy=spec.strategy,
            games=spec.games,
            policy_games=int(res.policies.info["games"]),
            deals=spec.deals,
            rollouts=spec.rollouts,
            seat=spec.seat,
            min_games=spec.min_games,
            swap_policies={lab: (src or "keep as dealt") for lab, src in spec.policies},
            face_up_multisets={"seen": len(res.values_all), "in_table": len(res.values)},
            regret=res.regret_summary,
            headline=swaps_report.headline(spec, res),
            definitions=SW.DEFINITIONS,
        )

    def write(self, job: SwapsJob, res: SW.StudyResult, root: Path, plots: bool) -> list[str]:
        return swaps_report.write_files(job.spec, res, root, plots)
