"""``sprt`` on the run machinery (:mod:`shedsim.runs.execute`): its spec, run store and
resume. The test itself is :mod:`shedsim.analysis.sprt`'s.

The plan is every batch of units up to ``--max-games``
(:meth:`shedsim.analysis.sprt.Sequential.batches`:
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
from typing import Any

import numpy as np

from shedsim.analysis import sprt as S
from shedsim.analysis.matches import cached_match  # noqa: F401 (re-exported)
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.execute import Job
from shedsim.runs.store import MAX_CHUNKS, RunStore

FORMAT = 1
TEST_FIELDS = ("elo0", "elo1", "alpha", "beta", "max_games", "min_games", "paired", "batch", "llr")
"""The test's options, as stored in spec.json (and passed to
:class:`shedsim.analysis.sprt.Sequential`)."""
OPTIONAL_FIELDS = {"control_variate": False}
"""Test options stored in spec.json (and in the run's key) only where they differ from
these defaults, so a run stored before they existed resumes as it was."""

PAIRING_BATCH = 20_000
"""Games per batch of ``--compare-pairing`` (as :func:`shedsim.analysis.sprt.pairing_gain`'s
default)."""


class SprtStore(RunStore):
    """An sprt run directory; raises :class:`shedsim.analysis.sprt.SPRTError`."""

    Error = S.SPRTError
    what = "sprt"


def t_batch(test: dict[str, Any]) -> int:
    """The ``--batch`` of a test's options."""
    return int(test["batch"])


def play_batch(
    a: str,
    b: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    u0: int,
    u1: int,
    paired: bool,
    control_variate: bool = False,
    deals: tuple = (),
    deals_path: str = "",
) -> tuple[np.ndarray, ...]:
    """Units ``u0..u1-1`` of X = ``a`` against Y = ``b`` (:func:`shedsim.analysis.sprt.play_units`:
    int64[n] unit codes, int64[n] unfinished games per unit; with ``control_variate`` also
    X's luck per unit, float64[n]: :func:`shedsim.analysis.sprt.play_test_units`). Module
    level (picklable); the loaded match is kept per process, so batch after batch reuses it;
    ``deals``, ``deals_path``: a deal set played instead of shuffled deals
    (:func:`shedsim.analysis.matches.cached_match`)."""
    match = cached_match(
        a, b, rules, players, seed, strategy_paths, deals=deals, deals_path=deals_path
    )
    return S.play_test_units(match, u0, u1, paired, control_variate)


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

    def __init__(
        self,
        a: str,
        b: str,
        rules: RuleSet,
        players: int,
        seed: int,
        test: dict[str, Any],
        strategy_paths: tuple[str, ...],
        rules_input: dict[str, Any],
        store: RunStore,
        deal_set: Any = None,
    ) -> None:
        self.a, self.b, self.rules, self.players, self.seed = a, b, rules, players, int(seed)
        self.deal_set = deal_set  # --deals (shedsim.rules.deals.DealSet) or None
        self.test = {k: test[k] for k in TEST_FIELDS}
        self.test |= {k: test.get(k, v) for k, v in OPTIONAL_FIELDS.items()}
        self.arrays = ("codes", "unfinished") + (("luck",) if self.test["control_variate"] else ())
        self.paths = tuple(strategy_paths)
        self.store = store
        self.seq = self.sequential()
        n_batches = -(-self.seq.max_units // self.seq.per_batch)
        if n_batches > MAX_CHUNKS:
            raise S.SPRTError(
                f"--max-games: {self.seq.max_units * self.seq.unit_games:,} games would take "
                f"{n_batches:,} batches (chunks) of --batch {t_batch(test):,} games; one run "
                "holds at "
                f"most {MAX_CHUNKS:,} chunks: lower --max-games or raise --batch"
            )
        self.plan = self.seq.batches()
        ident = {
            "format": FORMAT,
            "command": "sprt",
            "a": a,
            "b": b,
            "rules": rules.to_dict(),
            "players": players,
            "seed": self.seed,
            **{
                k: v
                for k, v in self.test.items()
                if k not in OPTIONAL_FIELDS or v != OPTIONAL_FIELDS[k]
            },
            "strategy_hashes": dict(sorted(strategy_hashes(a, b, self.paths).items())),
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
        self.strategies = [a, b]
        self._fed = 0
        self._held: dict[int, dict[str, np.ndarray]] = {}

    def sequential(self) -> S.Sequential:
        t = self.test
        return S.Sequential(
            self.players,
            t["elo0"],
            t["elo1"],
            t["alpha"],
            t["beta"],
            t["max_games"],
            t["paired"],
            t["min_games"],
            t["llr"],
            t["batch"],
            t["control_variate"],
        )

    def chunk_games(self, k: int) -> int:
        u0, u1 = self.plan[k]
        return (u1 - u0) * self.seq.unit_games

    def warm_spec(self):
        return cached_match(self.a, self.b, self.rules, self.players, self.seed, self.paths).spec

    def call(self, k: int):
        u0, u1 = self.plan[k]
        return play_batch, (
            self.a,
            self.b,
            self.rules,
            self.players,
            self.seed,
            self.paths,
            u0,
            u1,
            self.test["paired"],
            self.test["control_variate"],
            *((self.deal_set.deals, self.deal_set.path) if self.deal_set is not None else ()),
        )

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        arrays = {
            name: np.asarray(v, np.float64 if name == "luck" else np.int64)
            for name, v in zip(self.arrays, result)
        }
        self._held[k] = arrays
        return arrays

    def template(self, k: int) -> dict[str, np.ndarray]:
        u0, u1 = self.plan[k]
        return {
            name: np.zeros(u1 - u0, np.float64 if name == "luck" else np.int64)
            for name in self.arrays
        }

    def _feed(self, seq: S.Sequential, k: int) -> None:
        z = self._held.pop(k, None) or self.store.load_chunk(k, self.arrays)
        seq.feed(*(z[name] for name in self.arrays))

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
                raise S.SPRTError(
                    f"batch {k} of the run in {str(self.store.root)!r} is missing: "
                    f"continue with: shedsim sprt --resume {str(self.store.root)}"
                )
            z = self.store.load_chunk(k, self.arrays)
            seq.feed(*(z[name] for name in self.arrays))
        return seq.result(self.a, self.b, S.rules_name(self.rules), self.seed)


def play_pairing(
    a: str,
    b: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    g0: int,
    g1: int,
    paired: bool,
) -> np.ndarray:
    """Games ``g0..g1-1`` of one design of ``--compare-pairing``
    (:func:`shedsim.analysis.sprt.pairing_counts`: int64[K] units per score category)."""
    return S.pairing_counts(
        cached_match(a, b, rules, players, seed, strategy_paths), g0, g1, paired
    )


class PairingJob(Job):
    """``sprt --compare-pairing`` on the run machinery: the batches of
    :func:`shedsim.analysis.sprt.pairing_plan` (paired, then unpaired), each stored as its
    category counts; :meth:`result` sums them (:func:`shedsim.analysis.sprt.pairing_estimates`)."""

    command = "sprt"

    def __init__(
        self,
        a: str,
        b: str,
        rules: RuleSet,
        players: int,
        seed: int,
        games: int,
        strategy_paths: tuple[str, ...],
        rules_input: dict[str, Any],
        store: RunStore,
        batch: int = PAIRING_BATCH,
    ) -> None:
        self.a, self.b, self.rules, self.players, self.seed = a, b, rules, players, int(seed)
        self.n_games, self.batch = int(games), int(batch)
        self.paths = tuple(strategy_paths)
        self.store = store
        step = max(players, self.batch // players * players)
        if 2 * -(-self.n_games // step) > MAX_CHUNKS:
            raise S.SPRTError(
                f"--games: {self.n_games:,} games per design in batches of {step:,} would take "
                "more "
                f"than {MAX_CHUNKS:,} batches; one run holds at most {MAX_CHUNKS:,} chunks: "
                "play fewer "
                f"games or raise --batch"
            )
        self.plan = S.pairing_plan(players, self.n_games, self.batch)
        ident = {
            "format": FORMAT,
            "command": "sprt",
            "mode": "compare-pairing",
            "a": a,
            "b": b,
            "rules": rules.to_dict(),
            "players": players,
            "seed": self.seed,
            "games": self.n_games,
            "batch": self.batch,
            "strategy_hashes": dict(sorted(strategy_hashes(a, b, self.paths).items())),
        }
        self.key = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:16]
        self.tasks = [(None, k) for k in range(len(self.plan))]
        self.spec_json = {
            **ident,
            "rules_input": rules_input,
            "strategy_paths": list(self.paths),
            "n_chunks": len(self.tasks),
            "key": self.key,
        }
        self.strategies = [a, b]

    def chunk_games(self, k: int) -> int:
        _, g0, g1 = self.plan[k]
        return g1 - g0

    def warm_spec(self):
        return cached_match(self.a, self.b, self.rules, self.players, self.seed, self.paths).spec

    def call(self, k: int):
        paired, g0, g1 = self.plan[k]
        return play_pairing, (
            self.a,
            self.b,
            self.rules,
            self.players,
            self.seed,
            self.paths,
            g0,
            g1,
            paired,
        )

    def reduce(self, k: int, result: Any, store: RunStore) -> dict[str, np.ndarray]:
        return {"counts": np.asarray(result, np.int64)}

    def template(self, k: int) -> dict[str, np.ndarray]:
        return {"counts": np.zeros(S.pairing_categories(self.players, self.plan[k][0]), np.int64)}

    def result(self) -> S.PairingGain:
        """Both designs' estimates from the stored batches (all of them must be stored)."""
        counts = {
            True: np.zeros(S.pairing_categories(self.players, True), np.int64),
            False: np.zeros(S.pairing_categories(self.players, False), np.int64),
        }
        for k, (paired, _, _) in enumerate(self.plan):
            counts[paired] += self.store.load_chunk(k, ("counts",))["counts"]
        return S.pairing_estimates(
            self.a,
            self.b,
            S.rules_name(self.rules),
            self.players,
            self.seed,
            counts[True],
            counts[False],
        )


def job_from_store(
    store: SprtStore, strategy_paths: tuple[str, ...] | None = None
) -> SprtJob | PairingJob:
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
            job = PairingJob(
                str(d["a"]),
                str(d["b"]),
                rs,
                int(d["players"]),
                int(d["seed"]),
                int(d["games"]),
                paths,
                ri,
                store,
                int(d["batch"]),
            )
        else:
            ds = stored_deals(d, rs, int(d["players"]))
            job = SprtJob(
                str(d["a"]),
                str(d["b"]),
                rs,
                int(d["players"]),
                int(d["seed"]),
                {k: d[k] for k in TEST_FIELDS}
                | {k: d.get(k, v) for k, v in OPTIONAL_FIELDS.items()},
                paths,
                ri,
                store,
                ds,
            )
    except S.SPRTError as e:
        raise S.SPRTError(f"--resume: {where}: {e}") from None
    except (KeyError, TypeError, ValueError, RulesError) as e:
        raise S.SPRTError(
            f"--resume: {where} is damaged or not an sprt spec ({type(e).__name__}: {e})"
        ) from None
    if job.key != d["key"]:
        raise S.SPRTError(
            f"--resume: the stored specification {where} does not match what it rebuilds to "
            f"(edited, a strategy's source or the rules changed since); start a new run"
        )
    store.verify_checksum(d)
    return job


def deals_sha256(path: str | None) -> str | None:
    """The SHA-256 of the ``--deals`` file given beside ``--resume`` (None: not given)."""
    from shedsim.rules.deals import DealsError, file_sha256

    try:
        return file_sha256(path)
    except DealsError as e:
        raise S.SPRTError(f"--deals: {e}") from None


def given_deals(
    path: str | None, rules: RuleSet, players: int, unpaired: bool | None, max_games: int | None
):
    """``--deals``: the deal set read and checked, or None. The SPRT then plays each deal under
    every rotation, at most every deal once (its ``--max-games``); the gauntlet reads its file
    here too (``unpaired`` False, ``max_games`` None). Raises
    :class:`shedsim.analysis.sprt.SPRTError` naming the option."""
    if path is None:
        return None
    from shedsim.rules.deals import DealsError, read

    if unpaired:
        raise S.SPRTError(
            "--deals: plays each deal under every rotation; not with --unpaired or "
            "--compare-pairing"
        )
    if max_games is not None:
        raise S.SPRTError(
            "--max-games: not with --deals (the test plays at most every deal of the file once)"
        )
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
        raise S.SPRTError(
            f"the deal set {ds.path} changed since the run started (its sha256 differs); "
            f"start a new run"
        )
    return ds
