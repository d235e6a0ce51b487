"""``gauntlet`` on the run machinery (:mod:`shedsim.runs.study`): its spec, run store, resume
and reports. The statistics of a row are :mod:`shedsim.analysis.gauntlet`'s.

The plan is every batch of every opponent, opponent by opponent (chunk ``k`` is batch ``b``
of opponent ``i``: ``--batch`` games rounded up to whole deals, :data:`BATCH` by default);
each chunk stores its units' score codes, unfinished games and forfeits
(:func:`shedsim.analysis.gauntlet.play_batch`). The rows are rebuilt from the stored
batches in plan order (:meth:`GauntletJob.result`), so a resumed run gives the same
``gauntlet.csv`` bytes as an uninterrupted one, for any workers or backend.

With ``--sprt`` each opponent has its own GSPRT (:class:`shedsim.analysis.sprt.Sequential`):
its stored batches are fed in order after every stored chunk, and once it has decided its
later batches are not needed. Those not yet sent to a worker are stored empty
(:class:`_Wanted`); those already in flight are stored as played and never read, so what the
rows hold does not depend on when a worker took a batch.

With ``--deals FILE`` every opponent plays the file's deals, deal ``u`` as unit ``u`` (each
under every rotation; :attr:`shedsim.runs.simulate.RunSpec.deals`): the spec stores the file
and its SHA-256, and ``--resume`` refuses a file whose content changed or another file.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any
from collections.abc import Sequence

import numpy as np

from shedsim.analysis import gauntlet as G
from shedsim.analysis import sprt as S
from shedsim.analysis.matchup import default_batch
from shedsim.analysis.sprt_run import deals_sha256, given_deals, stored_deals
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.execute import Job
from shedsim.runs.store import MAX_CHUNKS, RunStore
from shedsim.runs.study import Check, Study, StudyError, marked, study_errors

FORMAT = 1
BATCH = 2000
"""Games per batch (chunk) unless ``batch`` is given (or a strategy is slow:
:data:`shedsim.analysis.matchup.SLOW_BATCH`); the results do not depend on it...
except through the SPRT, which is checked after every unit whatever the batch."""
ARRAYS = ("codes", "unfinished", "forfeits", "opponent_forfeits")
"""What a stored batch holds per unit (int64[n]; n = 0 for a batch not needed)."""
GAMES = 2000
"""Games per opponent unless ``games`` is given."""


class GauntletStore(RunStore):
    """A gauntlet run directory; raises :class:`shedsim.analysis.gauntlet.GauntletError`."""

    Error = G.GauntletError
    what = "gauntlet"


def play_chunk(
    candidate: str,
    opponent: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    bot_time: tuple[int, int | None],
    stream: int,
    u0: int,
    u1: int,
    wanted: Any = True,
    deals: tuple = (),
    deals_path: str = "",
) -> dict[str, np.ndarray]:
    """Units ``u0..u1-1`` of the candidate against opponent ``stream``
    (:func:`shedsim.analysis.gauntlet.play_batch`), or empty arrays when ``wanted`` is false
    (that opponent's test had decided when the batch was sent); ``deals``: a deal set's deals
    played instead of shuffled ones, from the file ``deals_path``. Module level (picklable);
    the loaded match is kept per process."""
    if not wanted:
        return {k: np.zeros(0, np.int64) for k in ARRAYS}
    from shedsim.analysis.matches import cached_match

    match = cached_match(
        candidate,
        opponent,
        rules,
        players,
        seed,
        strategy_paths,
        owner=f"gauntlet:{stream}",
        bot_time=bot_time,
        stream=stream,
        deals=deals,
        deals_path=deals_path,
    )
    return G.play_batch(match, u0, u1)


class _Wanted:
    """Whether chunk ``k`` is still needed, asked when it is played (in this process) or sent
    to a worker (pickled as that answer): False once its opponent's test has decided."""

    def __init__(self, job: GauntletJob, k: int) -> None:
        self.job, self.k = job, k

    def __bool__(self) -> bool:
        return not self.job.decided_before(self.k)

    def __reduce__(self):
        return bool, (bool(self),)


class GauntletJob(Job):
    """The gauntlet as the run machinery plays it (see the module docstring). ``opponents``:
    ``(label, spec)`` pairs; ``sprt``: ``(elo0, elo1)`` or None; ``rules_input``: how the user
    named the rules (stored to rebuild them on ``--resume``); ``store``: the run's directory;
    ``deal_set``: the :class:`shedsim.rules.deals.DealSet` of ``--deals``, or None."""

    command = "gauntlet"
    ragged = ARRAYS

    def __init__(
        self,
        candidate: str,
        opponents: Sequence[tuple[str, str]],
        rules: RuleSet,
        players: int,
        games: int,
        seed: int,
        sprt: tuple[float, float] | None,
        alpha: float,
        beta: float,
        batch: int,
        strategy_paths: tuple[str, ...],
        bot_time: tuple[int, int | None],
        rules_input: dict[str, Any],
        store: RunStore,
        deal_set: Any = None,
    ) -> None:
        self.candidate, self.opponents = candidate, [(str(a), str(b)) for a, b in opponents]
        self.rules, self.players, self.seed = rules, int(players), int(seed)
        self.n_games, self.batch = int(games), int(batch)
        self.sprt = None if sprt is None else (float(sprt[0]), float(sprt[1]))
        self.alpha, self.beta = float(alpha), float(beta)
        self.paths, self.bot_time = tuple(strategy_paths), (int(bot_time[0]), bot_time[1])
        self.store, self.deal_set = store, deal_set
        self.n_units = self.n_games // self.players
        self.seqs = [
            self.sequential() for _ in self.opponents
        ]  # (the options checked: raises SPRTError)
        per_batch = max(1, -(-self.batch // self.players))
        n_batches = -(-self.n_units // per_batch)
        if n_batches * len(self.opponents) > MAX_CHUNKS:
            raise G.GauntletError(
                f"--games: {len(self.opponents)} opponents of {self.n_games:,} games in batches "
                f"of {per_batch * self.players:,} would take {n_batches * len(self.opponents):,} "
                f"batches (chunks); one run holds at most {MAX_CHUNKS:,} chunks: play fewer games "
                f"or raise --batch"
            )
        batches = [(u, min(u + per_batch, self.n_units)) for u in range(0, self.n_units, per_batch)]
        self.plan = [(i, u0, u1) for i in range(len(self.opponents)) for u0, u1 in batches]
        self.first = [
            i * len(batches) for i in range(len(self.opponents))
        ]  # each opponent's first chunk
        ident = {
            "format": FORMAT,
            "command": "gauntlet",
            "candidate": candidate,
            "opponents": self.opponents,
            "rules": rules.to_dict(),
            "players": self.players,
            "games": self.n_games,
            "seed": self.seed,
            "sprt": None if self.sprt is None else list(self.sprt),
            "alpha": self.alpha,
            "beta": self.beta,
            "batch": self.batch,
            "bot_time": list(self.bot_time),
            "strategy_hashes": strategy_hashes(
                [candidate, *(s for _, s in self.opponents)], self.paths
            ),
            **({"deals_sha256": deal_set.sha256} if deal_set is not None else {}),
        }
        self.key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
        self.tasks = [(None, k) for k in range(len(self.plan))]
        self.spec_json = {
            **ident,
            "rules_input": rules_input,
            "strategy_paths": list(self.paths),
            "n_chunks": len(self.tasks),
            "key": self.key,
            **({"deals": deal_set.path} if deal_set is not None else {}),
        }
        self.strategies = [candidate, *(s for _, s in self.opponents)]
        self.sequential_test = self.sprt is not None
        self._fed = list(self.first)  # per opponent: the next chunk to feed its test
        self._skipped: set[int] = set()

    def sequential(self) -> S.Sequential | None:
        """A fresh GSPRT for one opponent (None without ``sprt``): at most the opponent's
        games, no decision before 100 (or all of them, if fewer)."""
        if self.sprt is None:
            return None
        games = self.n_units * self.players
        return S.Sequential(
            self.players,
            self.sprt[0],
            self.sprt[1],
            self.alpha,
            self.beta,
            games,
            True,
            min_games=min(100, games),
            batch=self.batch,
        )

    def chunk_games(self, k: int) -> int:
        """Chunk ``k``'s games (0 once it was stored empty: not needed, :class:`_Wanted`)."""
        if k in self._skipped:
            return 0
        _, u0, u1 = self.plan[k]
        return (u1 - u0) * self.players

    def warm_spec(self):
        from shedsim.analysis.matches import cached_match

        return cached_match(
            self.candidate,
            self.opponents[0][1],
            self.rules,
            self.players,
            self.seed,
            self.paths,
            bot_time=self.bot_time,
        ).spec

    def call(self, k: int):
        i, u0, u1 = self.plan[k]
        return play_chunk, (
            self.candidate,
            self.opponents[i][1],
            self.rules,
            self.players,
            self.seed,
            self.paths,
            self.bot_time,
            i,
            u0,
            u1,
            _Wanted(self, k) if self.sprt is not None else True,
            *((self.deal_set.deals, self.deal_set.path) if self.deal_set is not None else ()),
        )

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        if not len(result["codes"]):
            self._skipped.add(k)
        return {name: np.asarray(result[name], np.int64) for name in ARRAYS}

    def template(self, k: int) -> dict[str, np.ndarray]:
        return {name: np.zeros(0, np.int64) for name in ARRAYS}

    def decided_before(self, k: int) -> bool:
        """Whether the test of chunk ``k``'s opponent decided on batches before ``k``."""
        i = self.plan[k][0]
        return self.seqs[i] is not None and self.seqs[i].finished and self._fed[i] <= k

    def enough(self, done: list[int]) -> bool:
        """Feed each opponent's test the stored batches that follow those already fed, in plan
        order; True once every opponent's test has decided (or played all its games)."""
        if self.sprt is None:
            return False
        have = set(done)
        ends = [*self.first[1:], len(self.plan)]
        for i, seq in enumerate(self.seqs):
            while not seq.finished and self._fed[i] < ends[i] and self._fed[i] in have:
                z = self.store.load_chunk(self._fed[i], ("codes", "unfinished"))
                seq.feed(z["codes"], z["unfinished"])
                self._fed[i] += 1
        return all(seq.finished for seq in self.seqs)

    def expected_games(self) -> int | None:
        if self.sprt is None:
            return self.games
        expected = [seq.expected_units() for seq in self.seqs]
        if any(u is None for u in expected):
            return None
        return sum(expected) * self.players

    def result(self) -> G.Result:
        """The rows rebuilt from the stored batches (each opponent's, in order, up to its
        test's decision). Raises :class:`shedsim.analysis.gauntlet.GauntletError` when a
        needed batch is missing."""
        out = G.Result(self.candidate, S.rules_name(self.rules), self.players, self.seed)
        ends = [*self.first[1:], len(self.plan)]
        tally = G.Tally(self.players)
        for i, (label, _) in enumerate(self.opponents):
            seq, row = self.sequential(), G.Tally(self.players)
            for k in range(self.first[i], ends[i]):
                if seq is not None and seq.finished:
                    break
                if not self.store.chunk_path(k).exists():
                    raise G.GauntletError(
                        f"batch {k} of the run in {str(self.store.root)!r} is missing: "
                        f"continue with: shedsim gauntlet --resume {str(self.store.root)}"
                    )
                z = self.store.load_chunk(k, ARRAYS)
                take = len(z["codes"])
                if seq is not None:
                    before = seq.units
                    seq.feed(z["codes"], z["unfinished"])
                    take = seq.units - before
                row.add(z, take)
            llr = (
                None
                if seq is None
                else float(seq.result(self.candidate, label, out.rules, self.seed).llr)
            )
            out.rows.append(row.row(label, None if seq is None else seq.decision, llr))
            tally.merge(row)
        out.total = tally.row("total")
        return out


def strategy_hashes(specs: Sequence[str], strategy_paths: tuple[str, ...]) -> dict[str, str]:
    """Source hash of every strategy in play (a changed strategy refuses ``--resume``); a
    bot's code is not shedsim's to hash: its command is in the spec."""
    from shedsim.bot.protocol import is_bot
    from shedsim.plugins import compiled_strategy, discover

    known = discover(list(strategy_paths))
    out = {}
    for s in specs:
        if not is_bot(s):
            st = compiled_strategy(known, s, "gauntlet")
            out[st.name] = st.source_hash
    return dict(sorted(out.items()))


def job_from_store(
    store: GauntletStore, strategy_paths: tuple[str, ...] | None = None
) -> GauntletJob:
    """Rebuild the job saved in ``store`` (``--resume``); the rules, strategies and their
    sources must be unchanged and spec.json unedited. Raises
    :class:`shedsim.analysis.gauntlet.GauntletError` naming the problem."""
    from shedsim.rules.ruleset import RulesError, build

    d = store.read_spec()
    where = repr(str(store.spec_path()))
    store.check_command(d, FORMAT)
    try:
        ri = d["rules_input"]
        rs = build(ri["rules"], list(ri.get("house", [])), ri.get("rules_file"))
        paths = tuple(d.get("strategy_paths", [])) if strategy_paths is None else strategy_paths
        job = GauntletJob(
            str(d["candidate"]),
            [(str(a), str(b)) for a, b in d["opponents"]],
            rs,
            int(d["players"]),
            int(d["games"]),
            int(d["seed"]),
            None if d["sprt"] is None else tuple(d["sprt"]),
            float(d["alpha"]),
            float(d["beta"]),
            int(d["batch"]),
            paths,
            tuple(d["bot_time"]),
            ri,
            store,
            stored_deals(d, rs, int(d["players"])),
        )
    except (G.GauntletError, S.SPRTError) as e:
        raise G.GauntletError(f"--resume: {where}: {e}") from None
    except (KeyError, TypeError, ValueError, RulesError) as e:
        raise G.GauntletError(
            f"--resume: {where} is damaged or not a gauntlet spec ({type(e).__name__}: {e})"
        ) from None
    if job.key != d["key"]:
        raise G.GauntletError(
            f"--resume: the stored specification {where} does not match what it rebuilds to "
            f"(edited, a strategy's source or the rules changed since); start a new run"
        )
    store.verify_checksum(d)
    return job


class GauntletStudy(Study):
    """``gauntlet`` as a :class:`shedsim.runs.study.Study`; every option None when not given
    (shithead, 2 players, :data:`GAMES` games per opponent, seed 0, no SPRT, alpha = beta =
    0.05, batches of :data:`BATCH` games, a bot's 1000 ms per move)."""

    command = "gauntlet"
    outputs = ("gauntlet.csv", "gauntlet.png", "run.json")
    partial_reports = False
    unit = "batches"
    needs = "every opponent's games"

    def __init__(
        self,
        candidate: str | None = None,
        opponents: str | Sequence[str | tuple[str, str]] | None = None,
        rules: str | RuleSet | None = None,
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
        deals: str | Path | None = None,
    ) -> None:
        self.candidate, self.opponents = candidate, opponents
        self.rules, self.house, self.rules_file = rules, house, rules_file
        self.players, self.games, self.seed, self.batch = players, games, seed, batch
        self.sprt, self.alpha, self.beta = sprt, alpha, beta
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.strategy_path, self.bot_time = strategy_path, bot_time
        self.deals = None if deals is None else str(deals)  # a deal-set file (shedsim.rules.deals)

    def _rules(self) -> RuleSet:
        from shedsim.analysis.tournament_run import build_rules

        if isinstance(self.rules, RuleSet):  # (the Python API may give one as it is)
            return self.rules
        return build_rules(self.rules or "shithead", self.house, self.rules_file)

    def _rules_input(self) -> dict[str, Any]:
        from shedsim.analysis.tournament_run import rules_input

        if isinstance(self.rules, RuleSet):
            return rules_input(self.rules.name, self.rules.house, None)
        return rules_input(self.rules or "shithead", self.house, self.rules_file)

    def _entries(self) -> list[tuple[str, str]] | None:
        from shedsim.analysis.tournament import TournamentError
        from shedsim.analysis.tournament_run import entries_of

        if self.opponents is None:
            return None
        if not isinstance(self.opponents, str) and all(
            isinstance(o, tuple) for o in self.opponents
        ):
            return [
                (str(lab), str(spec)) for lab, spec in self.opponents
            ]  # (label, spec) pairs as they are
        try:
            return entries_of(self.opponents)
        except TournamentError as e:
            raise StudyError(str(e).replace("--strategies", "--opponents")) from None

    def plan(self, store: GauntletStore) -> GauntletJob:
        from shedsim.rules.ruleset import RulesError

        entries = self._entries()
        if self.candidate is None or not entries:
            raise StudyError(
                (
                    "--candidate and --opponents"
                    if self.candidate is None
                    else "--opponents and --candidate"
                )
                + " name who plays (required; or --resume DIR to continue a stored gauntlet)"
            )
        players = 2 if self.players is None else self.players
        if self.deals is not None and self.games is not None:
            raise StudyError(
                "not with --deals (every opponent plays each deal of the file under every "
                "rotation)",
                field="games",
            )
        games = GAMES if self.games is None else self.games
        if isinstance(games, bool) or not isinstance(games, int) or games < players:
            raise StudyError(
                f"at least {players} (one deal under every rotation), got {games!r}", field="games"
            )
        batch = (
            default_batch([self.candidate, *(spec for _, spec in entries)], BATCH, self.paths)
            if self.batch is None
            else self.batch
        )
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            raise StudyError(f"a positive number of games, got {batch!r}", field="batch")
        seed = 0 if self.seed is None else self.seed
        bot_time = (1000, None) if self.bot_time is None else self.bot_time
        with study_errors(G.GauntletError, S.SPRTError, RulesError):
            rs = self._rules()
            ds = given_deals(self.deals, rs, players, False, None)
            if ds is not None:
                games = len(ds.deals) * players
            for _, spec in entries:  # strategies, players, seed, bots; loads the kernel
                try:
                    S.open_match(
                        self.candidate, spec, rs, players, seed, self.paths, bot_time, "gauntlet"
                    )
                except S.SPRTError as e:  # the match names X and Y as sprt does: --a, --b
                    said = re.sub(
                        r"^--a\b", "--candidate", re.sub(r"^--b\b", "--opponents", str(e))
                    )
                    raise S.SPRTError(said) from None
            try:
                return GauntletJob(
                    self.candidate,
                    entries,
                    rs,
                    players,
                    games,
                    seed,
                    self.sprt,
                    0.05 if self.alpha is None else self.alpha,
                    0.05 if self.beta is None else self.beta,
                    batch,
                    self.paths,
                    bot_time,
                    self._rules_input(),
                    store,
                    ds,
                )
            except S.SPRTError as e:  # the test's bounds are given as --sprt ELO0,ELO1 here
                said = str(e).replace(
                    "--elo0 must be below --elo1", "--sprt: ELO0 must be below ELO1"
                )
                raise S.SPRTError(re.sub(r"^--elo[01]\b", "--sprt", said)) from None

    def store(self, root: Path) -> GauntletStore:
        return GauntletStore(root)

    def from_store(self, store: GauntletStore) -> GauntletJob:
        from shedsim.rules.ruleset import RulesError

        with study_errors(G.GauntletError, S.SPRTError, RulesError):
            return job_from_store(store, self.paths if self.strategy_path else None)

    def resume_checks(self, job: GauntletJob) -> list[Check]:
        from shedsim.rules.ruleset import RulesError

        rules = None
        if self.rules is not None or self.house or self.rules_file is not None:
            with study_errors(RulesError):
                rules = self._rules().to_dict()
        return [
            Check("candidate", self.candidate, job.candidate),
            Check("opponents", self._entries(), job.opponents),
            Check(
                "rules",
                rules,
                job.rules.to_dict(),
                shown="",
                label="/".join(marked(f) for f in ("rules", "house", "rules_file")),
            ),
            Check("players", self.players, job.players),
            Check("games", self.games, job.n_games),
            Check("seed", self.seed, job.seed),
            Check("sprt", self.sprt, job.sprt, same=lambda a, b: tuple(a) == b),
            Check("alpha", self.alpha, job.alpha),
            Check("beta", self.beta, job.beta),
            Check("batch", self.batch, job.batch),
            Check(
                "time_per_move",
                None if self.bot_time is None else self.bot_time[0],
                job.bot_time[0],
            ),
            Check(
                "time_per_game",
                None if self.bot_time is None else self.bot_time[1],
                job.bot_time[1],
            ),
            Check(
                "deals",
                deals_sha256(self.deals),
                job.deal_set.sha256 if job.deal_set is not None else None,
                shown=" (another deal set than the run's)",
            ),
        ]

    def notes(self, job: GauntletJob, resume: bool) -> list[str]:
        from rich.markup import escape

        rounded = job.n_units * job.players
        return [
            escape(
                f"gauntlet: {job.candidate} against {', '.join(lab for lab, _ in job.opponents)}; "
                f"{S.rules_name(job.rules)}, {job.players} players, "
                f"{'up to ' if job.sprt else ''}{rounded:,} games each "
                + (
                    f"(the deals of {job.deal_set.path})"
                    if job.deal_set is not None
                    else f"(paired deals), seed {job.seed}"
                )
            )
        ]

    def analyse(self, job: GauntletJob, store: GauntletStore, outcome: Any) -> G.Result:
        with study_errors(G.GauntletError):
            return job.result()

    def games_done(self, job: GauntletJob, res: G.Result) -> int:
        return res.total.games

    def run_info(self, job: GauntletJob, res: G.Result, outcome: Any) -> dict[str, Any]:
        from shedsim.runs.runinfo import command_line

        t = res.total
        return {
            "argv": command_line(),
            "command": "shedsim gauntlet",
            "definitions": G.DEFINITIONS,
            "title": f"Gauntlet: {job.candidate} against {len(job.opponents)} opponents "
            f"({res.rules}, "
            f"{job.players} players)",
            "result": {"rows": [r.to_json() for r in res.rows], "total": t.to_json()},
            "headline": [
                f"{r.opponent}: score {r.score:.4f} [{r.lo:.4f}, {r.hi:.4f}] over {r.games:,} games"
                + (f", SPRT {r.decision}" if r.decision else "")
                for r in res.rows
            ]
            + [f"total: score {t.score:.4f} [{t.lo:.4f}, {t.hi:.4f}] over {t.games:,} games"],
        }

    def write(self, job: GauntletJob, res: G.Result, root: Path, plots: bool) -> list[str]:
        from shedsim.output.csvs import write_csv

        write_csv(res.table(), Path(root) / "gauntlet.csv")
        if not plots:
            return ["gauntlet.csv"]
        from shedsim.output.charts.gauntlet import plot_scores

        plot_scores(res, Path(root) / "gauntlet.png")
        return ["gauntlet.csv", "gauntlet.png"]


def run_gauntlet(
    candidate: str,
    opponents: list[tuple[str, str]],
    rules,
    players: int = 2,
    games: int = 2000,
    seed: int = 0,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    batch: int = 2000,
    strategy_paths: tuple[str, ...] = (),
    bot_time: tuple[int, int | None] = (1000, None),
    deals: str | Path | None = None,
) -> G.Result:
    """Play ``candidate`` (a strategy spec, or ``bot:COMMAND``) against each of
    ``opponents`` (``(label, spec)``), ``games`` games each (whole deals: rounded down to a
    multiple of ``players``, at least one deal), or with ``sprt = (elo0, elo1)`` until that
    opponent's GSPRT decides (at most ``games``), in this process, writing nothing (the
    study of ``shedsim gauntlet``, :class:`shedsim.analysis.gauntlet_run.GauntletStudy`, with
    one worker). ``rules``: a preset name or a :class:`shedsim.rules.RuleSet`; ``bot_time``: a
    bot's milliseconds per move and per game; ``deals``: a deal-set file played instead of
    shuffled deals (``games`` is then not read). Raises
    :class:`shedsim.runs.study.StudyError` naming the option at fault."""
    from shedsim.runs.study import RunOptions, run_study

    study = GauntletStudy(
        candidate,
        [(lab, spec) for lab, spec in opponents],
        rules,
        players=players,
        games=None if deals is not None else games,
        seed=seed,
        sprt=sprt,
        alpha=alpha,
        beta=beta,
        batch=batch,
        strategy_path=list(strategy_paths),
        bot_time=bot_time,
        deals=deals,
    )
    return run_study(study, RunOptions(workers=1)).res
