"""``sprt`` on the run machinery (:mod:`shedsim.runs.execute`): its spec, run store and
resume. The test itself is :mod:`shedsim.analysis.sprt`'s.

The plan is every batch of units up to ``--max-games`` (:meth:`shedsim.analysis.sprt.Sequential.batches`:
``--batch`` games rounded up to whole units); chunk k plays batch k (:func:`play_batch`) and
stores its unit score codes and unfinished games per unit. After every stored chunk
:meth:`SprtJob.enough` feeds the stored batches, in order, through the sequential loop and
stops the run once the test has decided; the result is rebuilt from the stored batches
(:meth:`SprtJob.result`), so a resumed run gives the same decision, games, LLR path and
``sprt.csv`` bytes as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from collections.abc import Sequence

import numpy as np

from shedsim.analysis import sprt as S
from shedsim.analysis.matches import cached_match  # noqa: F401 (re-exported)
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.execute import Job
from shedsim.runs.store import MAX_CHUNKS, RunStore
from shedsim.runs.study import Check, Study, StudyError, marked, study_errors

FORMAT = 1
TEST_FIELDS = ("elo0", "elo1", "alpha", "beta", "max_games", "min_games", "paired", "batch", "llr")
"""The test's options, as stored in spec.json (and passed to :class:`shedsim.analysis.sprt.Sequential`)."""

PAIRING_BATCH = 20_000
"""Games per batch of ``--compare-pairing`` (as :func:`shedsim.analysis.sprt.pairing_gain`'s default)."""

class SprtStore(RunStore):
    """An sprt run directory; raises :class:`shedsim.analysis.sprt.SPRTError`."""

    Error = S.SPRTError
    what = "sprt"


def t_batch(test: dict[str, Any]) -> int:
    """The ``--batch`` of a test's options."""
    return int(test["batch"])


def play_batch(a: str, b: str, rules: RuleSet, players: int, seed: int, strategy_paths: tuple[str, ...],
               u0: int, u1: int, paired: bool, deals: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
    """Units ``u0..u1-1`` of X = ``a`` against Y = ``b`` (:func:`shedsim.analysis.sprt.play_units`:
    int64[n] unit codes, int64[n] unfinished games per unit). Module level (picklable); the
    loaded match is kept per process, so batch after batch reuses it."""
    return S.play_units(cached_match(a, b, rules, players, seed, strategy_paths, deals=deals), u0, u1, paired)


def strategy_hashes(a: str, b: str, strategy_paths: tuple[str, ...]) -> dict[str, str]:
    """Source hash of X and Y (a changed strategy refuses ``--resume``)."""
    from shedsim.bot.protocol import is_bot
    from shedsim.plugins import compiled_strategy, discover
    known = discover(list(strategy_paths))
    out = {}
    for s in (a, b):
        if is_bot(s):  # a bot's code is not shedsim's to hash: its command is in the spec
            continue
        st = compiled_strategy(known, s, "sprt")
        out[st.name] = st.source_hash
    return out


class SprtJob(Job):
    """The SPRT as the run machinery plays it (see the module docstring). ``test``: the
    values of :data:`TEST_FIELDS`; ``rules_input``: how the user named the rules (stored to
    rebuild them on ``--resume``); ``store``: the run's directory (read by :meth:`enough`)."""

    command = "sprt"

    def __init__(self, a: str, b: str, rules: RuleSet, players: int, seed: int, test: dict[str, Any],
                 strategy_paths: tuple[str, ...], rules_input: dict[str, Any], store: RunStore,
                 deal_set: Any = None) -> None:
        self.a, self.b, self.rules, self.players, self.seed = a, b, rules, players, int(seed)
        self.deal_set = deal_set  # --deals (shedsim.rules.deals.DealSet) or None
        self.test = {k: test[k] for k in TEST_FIELDS}
        self.paths = tuple(strategy_paths)
        self.store = store
        self.seq = self.sequential()
        n_batches = -(-self.seq.max_units // self.seq.per_batch)
        if n_batches > MAX_CHUNKS:
            raise S.SPRTError(f"--max-games: {self.seq.max_units * self.seq.unit_games:,} games would take "
                              f"{n_batches:,} batches (chunks) of --batch {t_batch(test):,} games; one run holds at "
                              f"most {MAX_CHUNKS:,} chunks: lower --max-games or raise --batch")
        self.plan = self.seq.batches()
        ident = {"format": FORMAT, "command": "sprt", "a": a, "b": b, "rules": rules.to_dict(), "players": players,
                 "seed": self.seed, **self.test, "strategy_hashes": dict(sorted(strategy_hashes(a, b, self.paths).items())),
                 **({"deals_sha256": deal_set.sha256} if deal_set is not None else {})}
        self.key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
        self.tasks = [(None, k) for k in range(len(self.plan))]
        self.spec_json = {**ident, "rules_input": rules_input, "strategy_paths": list(self.paths),
                          "n_chunks": len(self.tasks), "key": self.key,
                          **({"deals": deal_set.path} if deal_set is not None else {})}
        self.strategies = [a, b]
        self._fed = 0
        self._held: dict[int, dict[str, np.ndarray]] = {}

    def sequential(self) -> S.Sequential:
        t = self.test
        return S.Sequential(self.players, t["elo0"], t["elo1"], t["alpha"], t["beta"], t["max_games"], t["paired"],
                            t["min_games"], t["llr"], t["batch"])

    def chunk_games(self, k: int) -> int:
        u0, u1 = self.plan[k]
        return (u1 - u0) * self.seq.unit_games

    def call(self, k: int):
        u0, u1 = self.plan[k]
        return play_batch, (self.a, self.b, self.rules, self.players, self.seed, self.paths, u0, u1,
                            self.test["paired"], self.deal_set.deals if self.deal_set is not None else ())

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        codes, unf = result
        arrays = {"codes": np.asarray(codes, np.int64), "unfinished": np.asarray(unf, np.int64)}
        self._held[k] = arrays
        return arrays

    def template(self, k: int) -> dict[str, np.ndarray]:
        u0, u1 = self.plan[k]
        return {"codes": np.zeros(u1 - u0, np.int64), "unfinished": np.zeros(u1 - u0, np.int64)}

    def _feed(self, seq: S.Sequential, k: int) -> None:
        z = self._held.pop(k, None) or self.store.load_chunk(k, ("codes", "unfinished"))
        seq.feed(z["codes"], z["unfinished"])

    def enough(self, done: list[int]) -> bool:
        """Feed the stored batches that follow the ones already fed, in plan order, and
        say whether the test has decided (or reached ``--max-games``)."""
        have = set(done)
        while not self.seq.finished and self._fed in have:
            self._feed(self.seq, self._fed)
            self._fed += 1
        return self.seq.finished

    sequential_test = True

    def expected_games(self) -> int | None:
        """The test's expected games at its decision from the batches fed so far
        (:meth:`shedsim.analysis.sprt.Sequential.expected_units`); None before the first."""
        u = self.seq.expected_units()
        return None if u is None else u * self.seq.unit_games

    def result(self) -> S.SPRTResult:
        """The test's result rebuilt from the stored batches (the run must be complete).
        Raises :class:`shedsim.analysis.sprt.SPRTError` when a needed batch is missing."""
        seq = self.sequential()
        for k in range(len(self.plan)):
            if seq.finished:
                break
            if not self.store.chunk_path(k).exists():
                raise S.SPRTError(f"batch {k} of the run in {str(self.store.root)!r} is missing: "
                                  f"continue with: shedsim sprt --resume {str(self.store.root)}")
            z = self.store.load_chunk(k, ("codes", "unfinished"))
            seq.feed(z["codes"], z["unfinished"])
        return seq.result(self.a, self.b, S.rules_name(self.rules), self.seed)


def play_pairing(a: str, b: str, rules: RuleSet, players: int, seed: int, strategy_paths: tuple[str, ...],
                 g0: int, g1: int, paired: bool) -> np.ndarray:
    """Games ``g0..g1-1`` of one design of ``--compare-pairing``
    (:func:`shedsim.analysis.sprt.pairing_counts`: int64[K] units per score category)."""
    return S.pairing_counts(cached_match(a, b, rules, players, seed, strategy_paths), g0, g1, paired)


class PairingJob(Job):
    """``sprt --compare-pairing`` on the run machinery: the batches of
    :func:`shedsim.analysis.sprt.pairing_plan` (paired, then unpaired), each stored as its
    category counts; :meth:`result` sums them (:func:`shedsim.analysis.sprt.pairing_estimates`)."""

    command = "sprt"

    def __init__(self, a: str, b: str, rules: RuleSet, players: int, seed: int, games: int,
                 strategy_paths: tuple[str, ...], rules_input: dict[str, Any], store: RunStore,
                 batch: int = PAIRING_BATCH) -> None:
        self.a, self.b, self.rules, self.players, self.seed = a, b, rules, players, int(seed)
        self.n_games, self.batch = int(games), int(batch)
        self.paths = tuple(strategy_paths)
        self.store = store
        step = max(players, self.batch // players * players)
        if 2 * -(-self.n_games // step) > MAX_CHUNKS:
            raise S.SPRTError(f"--games: {self.n_games:,} games per design in batches of {step:,} would take more "
                              f"than {MAX_CHUNKS:,} batches; one run holds at most {MAX_CHUNKS:,} chunks: play fewer "
                              f"games or raise --batch")
        self.plan = S.pairing_plan(players, self.n_games, self.batch)
        ident = {"format": FORMAT, "command": "sprt", "mode": "compare-pairing", "a": a, "b": b,
                 "rules": rules.to_dict(), "players": players, "seed": self.seed, "games": self.n_games,
                 "batch": self.batch,
                 "strategy_hashes": dict(sorted(strategy_hashes(a, b, self.paths).items()))}
        self.key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
        self.tasks = [(None, k) for k in range(len(self.plan))]
        self.spec_json = {**ident, "rules_input": rules_input, "strategy_paths": list(self.paths),
                          "n_chunks": len(self.tasks), "key": self.key}
        self.strategies = [a, b]

    def chunk_games(self, k: int) -> int:
        _, g0, g1 = self.plan[k]
        return g1 - g0

    def call(self, k: int):
        paired, g0, g1 = self.plan[k]
        return play_pairing, (self.a, self.b, self.rules, self.players, self.seed, self.paths, g0, g1, paired)

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        return {"counts": np.asarray(result, np.int64)}

    def template(self, k: int) -> dict[str, np.ndarray]:
        return {"counts": np.zeros(S.pairing_categories(self.players, self.plan[k][0]), np.int64)}

    def result(self) -> S.PairingGain:
        """Both designs' estimates from the stored batches (all of them must be stored)."""
        counts = {True: np.zeros(S.pairing_categories(self.players, True), np.int64),
                  False: np.zeros(S.pairing_categories(self.players, False), np.int64)}
        for k, (paired, _, _) in enumerate(self.plan):
            counts[paired] += self.store.load_chunk(k, ("counts",))["counts"]
        return S.pairing_estimates(self.a, self.b, S.rules_name(self.rules), self.players, self.seed, counts[True],
                                   counts[False])


def job_from_store(store: SprtStore, strategy_paths: tuple[str, ...] | None = None) -> SprtJob | PairingJob:
    """Rebuild the job saved in ``store`` (``--resume``); the rules, strategies and their
    sources must be unchanged and spec.json unedited. Raises
    :class:`shedsim.analysis.sprt.SPRTError` naming the problem."""
    from shedsim.rules.ruleset import RulesError, build
    d = store.read_spec()
    where = repr(str(store.spec_path()))
    store.check_command(d, FORMAT)
    try:
        ri = d["rules_input"]
        rs = build(ri["rules"], list(ri.get("house", [])), ri.get("rules_file"))
        paths = tuple(d.get("strategy_paths", [])) if strategy_paths is None else strategy_paths
        S.open_match(str(d["a"]), str(d["b"]), rs, int(d["players"]), int(d["seed"]), paths)
        if d.get("mode") == "compare-pairing":
            job = PairingJob(str(d["a"]), str(d["b"]), rs, int(d["players"]), int(d["seed"]), int(d["games"]),
                             paths, ri, store, int(d["batch"]))
        else:
            ds = stored_deals(d, rs, int(d["players"]))
            job = SprtJob(str(d["a"]), str(d["b"]), rs, int(d["players"]), int(d["seed"]),
                          {k: d[k] for k in TEST_FIELDS}, paths, ri, store, ds)
    except S.SPRTError as e:
        raise S.SPRTError(f"--resume: {where}: {e}") from None
    except (KeyError, TypeError, ValueError, RulesError) as e:
        raise S.SPRTError(f"--resume: {where} is damaged or not an sprt spec ({type(e).__name__}: {e})") from None
    if job.key != d["key"]:
        raise S.SPRTError(f"--resume: the stored specification {where} does not match what it rebuilds to "
                          f"(edited, a strategy's source or the rules changed since); start a new run")
    store.verify_checksum(d)
    return job


def deals_sha256(path: str | None) -> str | None:
    """The SHA-256 of the ``--deals`` file given beside ``--resume`` (None: not given)."""
    from shedsim.rules.deals import DealsError, file_sha256
    try:
        return file_sha256(path)
    except DealsError as e:
        raise S.SPRTError(f"--deals: {e}") from None


def given_deals(path: str | None, rules: RuleSet, players: int, unpaired: bool | None, max_games: int | None):
    """``--deals``: the deal set read and checked, or None. The SPRT then plays each deal under
    every rotation, at most every deal once (its ``--max-games``). Raises
    :class:`shedsim.analysis.sprt.SPRTError` naming the option."""
    if path is None:
        return None
    from shedsim.rules.deals import DealsError, read
    if unpaired:
        raise S.SPRTError("--deals: plays each deal under every rotation; not with --unpaired or --compare-pairing")
    if max_games is not None:
        raise S.SPRTError("--max-games: not with --deals (the test plays at most every deal of the file once)")
    try:
        return read(path, rules, players)
    except DealsError as e:
        raise S.SPRTError(f"--deals: {e}") from None


def stored_deals(d: dict[str, Any], rules: RuleSet, players: int):
    """The deal set a stored test played (its spec ``d``), read again; one whose content
    changed since raises :class:`shedsim.analysis.sprt.SPRTError`."""
    if d.get("deals") is None:
        return None
    ds = given_deals(str(d["deals"]), rules, players, False, None)
    if ds.sha256 != d.get("deals_sha256"):
        raise S.SPRTError(f"the deal set {ds.path} changed since the run started (its sha256 differs); "
                          f"start a new run")
    return ds


TEST_DEFAULTS = {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "max_games": 200_000, "min_games": 100,
                 "llr": "normal", "batch": 2000}
"""The value of each test option not given (the SPRT's; ``--compare-pairing`` plays batches
of :data:`PAIRING_BATCH` games unless ``batch`` is given)."""
PAIRING_GAMES = 20_000
"""Games per design of ``--compare-pairing`` unless ``games`` is given."""
NOT_STORED = "not in the stored run"


def rules_text(rules: RuleSet) -> str:
    """``shithead`` or ``shithead + skip8, low7``: the rule set as the messages name it."""
    return rules.name + (" + " + ", ".join(rules.house) if rules.house else "")


class SprtStudy(Study):
    """``sprt`` (the sequential test, or ``--compare-pairing``) as a
    :class:`shedsim.runs.study.Study`; every option None when not given (the test's:
    :data:`TEST_DEFAULTS`; shithead, 2 players, seed 0)."""

    command = "sprt"
    outputs = ("sprt.csv", "llr.png", "pairing.csv", "pairing.png", "run.json")
    partial_reports = False
    unit = "batches"

    def __init__(self, a: str | None = None, b: str | None = None, rules: str | None = None,
                 house: Sequence[str] | None = None, rules_file: str | Path | None = None,
                 players: int | None = None, seed: int | None = None, unpaired: bool | None = None,
                 compare_pairing: bool | None = None, games: int | None = None,
                 strategy_path: Sequence[str | Path] | None = None, deals: str | Path | None = None,
                 **test: Any) -> None:
        unknown = [k for k in test if k not in TEST_FIELDS or k == "paired"]
        if unknown:
            raise StudyError(f"not an sprt option (the test's: {', '.join(TEST_DEFAULTS)})", field=unknown[0])
        self.a, self.b, self.rules, self.house, self.rules_file = a, b, rules, house, rules_file
        self.players, self.seed, self.games = players, seed, games
        self.unpaired, self.compare_pairing = unpaired or None, compare_pairing or None
        self.test = {k: test.get(k) for k in TEST_DEFAULTS}
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.strategy_path = strategy_path
        self.pairing = bool(compare_pairing)
        self.deals = None if deals is None else str(deals)  # a deal-set file (shedsim.rules.deals)

    # the stop messages say what the test had found and what its reports need
    @property
    def needs(self) -> str:  # type: ignore[override]
        return "both designs whole" if self.pairing else "the test's end"

    @property
    def not_yet(self) -> str:  # type: ignore[override]
        return "" if self.pairing else "no decision yet; "

    @property
    def nothing_kept(self) -> str:  # type: ignore[override]
        return "nothing written" if self.pairing else "no decision; nothing written"

    def so_far(self, job: Any) -> str:
        if self.pairing or not job.seq.units:
            return ""
        p = job.seq.progress()
        return f" after {p.games:,} games (score {p.score:.4f}, LLR {p.llr:+.2f})"

    def _rules(self) -> RuleSet:
        from shedsim.analysis.tournament_run import build_rules
        return build_rules(self.rules or "shithead", self.house, self.rules_file)

    def plan(self, store: SprtStore) -> SprtJob | PairingJob:
        from shedsim.analysis.tournament_run import rules_input
        from shedsim.rules.ruleset import RulesError
        if self.a is None or self.b is None:
            raise StudyError("--a and --b name the two strategies (required; or --resume DIR to continue a stored test)")
        players, seed = 2 if self.players is None else self.players, 0 if self.seed is None else self.seed
        t = {k: TEST_DEFAULTS[k] if v is None else v for k, v in self.test.items()}
        ri = rules_input(self.rules or "shithead", self.house, self.rules_file)
        with study_errors(S.SPRTError, RulesError):
            rs = self._rules()
            ds = given_deals(self.deals, rs, players, self.unpaired or self.compare_pairing, self.test["max_games"])
            if ds is not None:
                t["max_games"] = len(ds.deals) * players
            if self.compare_pairing:
                if self.unpaired:
                    raise StudyError("--unpaired and --compare-pairing: --compare-pairing plays both designs itself")
                n_games = PAIRING_GAMES if self.games is None else self.games
                if n_games < 2 * players or n_games > 100_000_000:
                    raise S.SPRTError(f"--games: between {2 * players} and 100,000,000, got {n_games}")
            else:
                if self.games is not None:
                    raise StudyError("--games is for --compare-pairing; the SPRT plays until it decides or reaches "
                                     "--max-games")
                S.check_options(players, t["elo0"], t["elo1"], t["alpha"], t["beta"], t["max_games"],
                                t["min_games"], t["batch"], not self.unpaired)
                if t["llr"] not in S.LLR_METHODS:
                    raise S.SPRTError(f"--llr: one of {', '.join(S.LLR_METHODS)}, got {t['llr']!r}")
            S.open_match(self.a, self.b, rs, players, seed, self.paths)  # strategies, players, seed; loads the kernel
            if self.compare_pairing:
                return PairingJob(self.a, self.b, rs, players, seed, n_games, self.paths, ri, store,
                                  PAIRING_BATCH if self.test["batch"] is None else self.test["batch"])
            return SprtJob(self.a, self.b, rs, players, seed, {**t, "paired": not self.unpaired}, self.paths, ri,
                           store, ds)

    def store(self, root: Path) -> SprtStore:
        return SprtStore(root)

    def from_store(self, store: SprtStore) -> SprtJob | PairingJob:
        from shedsim.rules.ruleset import RulesError
        with study_errors(S.SPRTError, RulesError):
            job = job_from_store(store, self.paths if self.strategy_path else None)
        self.pairing = isinstance(job, PairingJob)
        return job

    def resume_checks(self, job: SprtJob | PairingJob) -> list[Check]:
        from shedsim.rules.ruleset import RulesError
        rules = None
        if self.rules is not None or self.house or self.rules_file is not None:
            with study_errors(RulesError):
                rules = self._rules().to_dict()
        pairing = isinstance(job, PairingJob)
        stored = ({k: NOT_STORED for k in TEST_DEFAULTS} | {"batch": job.batch} if pairing else dict(job.test))
        return [
            Check("a", self.a, job.a), Check("b", self.b, job.b),
            Check("rules", rules, job.rules.to_dict(), shown="",
                  label="/".join(marked(f) for f in ("rules", "house", "rules_file"))),
            Check("players", self.players, job.players), Check("seed", self.seed, job.seed),
            Check("unpaired", self.unpaired, NOT_STORED if pairing else not job.test["paired"]),
            Check("compare_pairing", self.compare_pairing, pairing, shown=" (the stored run is an SPRT)"),
            Check("games", self.games, job.n_games if pairing else NOT_STORED),
            *(Check(k, self.test[k], stored[k]) for k in TEST_DEFAULTS),
            Check("deals", deals_sha256(self.deals), getattr(job, "deal_set", None) and job.deal_set.sha256,
                  shown=" (another deal set than the run's)"),
        ]

    def notes(self, job: SprtJob | PairingJob, resume: bool) -> list[str]:
        from rich.markup import escape
        a, b, players = job.a, job.b, job.players
        paired = True if self.pairing else job.test["paired"]
        degenerate = S.degenerate_note(a, b, players, job.paths, paired=paired)
        out = [f"[yellow]note:[/] {escape(degenerate)}"] if degenerate else []
        if self.pairing:
            return out
        t = job.test
        design = ("paired deals" + (" (pentanomial: pairs of games)" if players == 2 else
                                    " (each deal under every rotation)")) if paired else "unpaired deals (one per game)"
        out.append(escape(f"SPRT {a} vs {b}: {rules_text(job.rules)}, {players} players, {design}; H0 elo "
                          f"{t['elo0']:g}, H1 elo {t['elo1']:g}, alpha {t['alpha']:g}, beta {t['beta']:g}, at most "
                          f"{t['max_games']:,} games"))
        return out

    def analyse(self, job: SprtJob | PairingJob, store: SprtStore, outcome: Any) -> S.SPRTResult | S.PairingGain:
        with study_errors(S.SPRTError):
            return job.result()

    def run_info(self, job: SprtJob | PairingJob, res: Any, outcome: Any) -> dict[str, Any]:
        from shedsim.runs.runinfo import command_line
        a, b, players, rtxt = job.a, job.b, job.players, rules_text(job.rules)
        degenerate = S.degenerate_note(a, b, players, job.paths, paired=self.pairing or job.test["paired"])
        common = {"argv": command_line(), "definitions": S.DEFINITIONS, "notes": [degenerate] if degenerate else []}
        if self.pairing:
            p, u = res.paired, res.unpaired
            return {**common, "command": "shedsim sprt --compare-pairing",
                    "title": f"Paired vs unpaired deals: {a} vs {b} ({rtxt}, {players} players, {p.games:,} games each)",
                    "result": {"paired": p.__dict__ | {"width": p.width}, "unpaired": u.__dict__ | {"width": u.width},
                               "ratio": res.ratio, "variance_ratio": res.variance_ratio},
                    "headline": [f"paired deals: score {p.score:.4f} [{p.lo:.4f}, {p.hi:.4f}], width {p.width:.4f}",
                                 f"unpaired deals: score {u.score:.4f} [{u.lo:.4f}, {u.hi:.4f}], width {u.width:.4f}",
                                 f"width ratio {res.ratio:.3f} (unpaired needs {res.variance_ratio:.2f}x the games): "
                                 f"{res.verdict()}"]}
        return {**common, "command": "shedsim sprt",
                "title": f"SPRT {a} vs {b} ({rtxt}, {players} players, "
                         f"{'paired' if job.test['paired'] else 'unpaired'} deals): {res.decision}",
                "result": res.to_json(),
                "headline": [res.decision_text() + f" (LLR {res.llr:+.2f}, bounds {res.lower:+.2f}/{res.upper:+.2f}, "
                                                   f"{res.games:,} games)",
                             f"score of {a} against {b}: {res.score:.4f} [{res.lo:.4f}, {res.hi:.4f}] (95%)",
                             f"Elo difference: {elo_text(res.elo)} [{elo_text(res.elo_lo)}, {elo_text(res.elo_hi)}] "
                             f"(95%)"]}

    def write(self, job: SprtJob | PairingJob, res: Any, root: Path, plots: bool) -> list[str]:
        from shedsim.output.csvs import write_csv
        stem, chart = ("pairing", "pairing.png") if self.pairing else ("sprt", "llr.png")
        write_csv(res.table() if self.pairing else res.path_table(), Path(root) / f"{stem}.csv")
        if not plots:
            return [f"{stem}.csv"]
        (S.plot_pairing if self.pairing else S.plot_llr)(res, Path(root) / chart)
        return [f"{stem}.csv", chart]


def elo_text(x: float) -> str:
    """An Elo difference as the output shows it: ``+12.3``, ``+inf``, never ``-0.0``."""
    import math
    if not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x + 0.0:+.1f}".replace("-0.0", "+0.0")  # no "-0.0" from a rounding sign
