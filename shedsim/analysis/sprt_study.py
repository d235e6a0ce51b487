"""``sprt`` as a :class:`shedsim.runs.study.Study` (:class:`SprtStudy`: the options as given,
checked into a job of :mod:`shedsim.analysis.sprt_run`, the one rule for options given beside
``--resume``, the notes, run.json and the reports), and how its results are worded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from collections.abc import Sequence

from shedsim.analysis import sprt as S
from shedsim.analysis.matchup import LUCK_BATCH, any_slow, default_batch, luck_refusal
from shedsim.analysis.sprt_run import (
    OPTIONAL_FIELDS,
    PAIRING_BATCH,
    TEST_FIELDS,
    PairingJob,
    SprtJob,
    SprtStore,
    deals_sha256,
    given_deals,
    job_from_store,
)
from shedsim.rules.ruleset import RuleSet
from shedsim.runs.study import Check, Study, StudyError, marked, study_errors
from shedsim.stats.sprt import elo_text

TEST_DEFAULTS = {
    "elo0": 0.0,
    "elo1": 5.0,
    "alpha": 0.05,
    "beta": 0.05,
    "max_games": 200_000,
    "min_games": 100,
    "llr": "normal",
    "batch": 2000,
    "control_variate": None,
}
"""The value of each test option not given (the SPRT's; ``--compare-pairing`` plays batches
of :data:`PAIRING_BATCH` games unless ``batch`` is given; ``control_variate`` None: on where
it can be used and a slow strategy is seated, off otherwise)."""
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

    def __init__(
        self,
        a: str | None = None,
        b: str | None = None,
        rules: str | None = None,
        house: Sequence[str] | None = None,
        rules_file: str | Path | None = None,
        players: int | None = None,
        seed: int | None = None,
        unpaired: bool | None = None,
        compare_pairing: bool | None = None,
        games: int | None = None,
        strategy_path: Sequence[str | Path] | None = None,
        deals: str | Path | None = None,
        **test: Any,
    ) -> None:
        unknown = [
            k for k in test if (k not in TEST_FIELDS and k not in OPTIONAL_FIELDS) or k == "paired"
        ]
        if unknown:
            raise StudyError(
                f"not an sprt option (the test's: {', '.join(TEST_DEFAULTS)})", field=unknown[0]
            )
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
            raise StudyError(
                "--a and --b name the two strategies (required; or --resume DIR to continue a "
                "stored test)"
            )
        players, seed = (
            2 if self.players is None else self.players,
            0 if self.seed is None else self.seed,
        )
        t = {k: TEST_DEFAULTS[k] if v is None else v for k, v in self.test.items()}
        t["control_variate"] = bool(self.test["control_variate"])  # None: decided below
        if (
            self.test["min_games"] is None
            and 0 < t["max_games"] < t["min_games"]  # a value below 1 is named as such below
        ):
            raise StudyError(
                f"{t['max_games']} is below the default {marked('min_games')} "
                f"({TEST_DEFAULTS['min_games']}: no decision before that many games, the "
                "normal approximation needs a few dozen pairs); raise it, or give "
                f"{marked('min_games')} to decide on fewer games",
                field="max_games",
            )
        ri = rules_input(self.rules or "shithead", self.house, self.rules_file)
        with study_errors(S.SPRTError, RulesError):
            rs = self._rules()
            ds = given_deals(
                self.deals,
                rs,
                players,
                self.unpaired or self.compare_pairing,
                self.test["max_games"],
            )
            if ds is not None:
                t["max_games"] = len(ds.deals) * players
            if self.compare_pairing:
                if self.unpaired:
                    raise StudyError(
                        "--unpaired and --compare-pairing: --compare-pairing plays both "
                        "designs itself"
                    )
                if t["control_variate"]:
                    raise StudyError(
                        "for the SPRT, not --compare-pairing",
                        field="control_variate",
                    )
                n_games = PAIRING_GAMES if self.games is None else self.games
                if n_games < 2 * players or n_games > 100_000_000:
                    raise S.SPRTError(
                        f"--games: between {2 * players} and 100,000,000, got {n_games}"
                    )
            else:
                if self.games is not None:
                    raise StudyError(
                        "--games is for --compare-pairing; the SPRT plays until it decides or "
                        "reaches "
                        "--max-games"
                    )
                S.check_options(
                    players,
                    t["elo0"],
                    t["elo1"],
                    t["alpha"],
                    t["beta"],
                    t["max_games"],
                    t["min_games"],
                    t["batch"],
                    not self.unpaired,
                )
                if t["llr"] not in S.LLR_METHODS:
                    raise S.SPRTError(f"--llr: one of {', '.join(S.LLR_METHODS)}, got {t['llr']!r}")
            match = S.open_match(
                self.a, self.b, rs, players, seed, self.paths
            )  # strategies, players, seed; loads the kernel
            if self.test["control_variate"] is None:  # on where it saves time: a search seated
                t["control_variate"] = (
                    not self.compare_pairing
                    and t["llr"] == "normal"
                    and any_slow((self.a, self.b), self.paths)
                    and luck_refusal(match, not self.unpaired, ds is not None) is None
                )
            S.check_luck(match, t["control_variate"], not self.unpaired, ds is not None)
            if self.test["batch"] is None:
                t["batch"] = default_batch((self.a, self.b), TEST_DEFAULTS["batch"], self.paths)
                if t["control_variate"]:
                    t["batch"] = min(t["batch"], LUCK_BATCH)
            if self.compare_pairing:
                return PairingJob(
                    self.a,
                    self.b,
                    rs,
                    players,
                    seed,
                    n_games,
                    self.paths,
                    ri,
                    store,
                    PAIRING_BATCH if self.test["batch"] is None else self.test["batch"],
                )
            return SprtJob(
                self.a,
                self.b,
                rs,
                players,
                seed,
                {**t, "paired": not self.unpaired},
                self.paths,
                ri,
                store,
                ds,
            )

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
        stored = (
            {k: NOT_STORED for k in TEST_DEFAULTS} | {"batch": job.batch}
            if pairing
            else dict(job.test)
        )
        return [
            Check("a", self.a, job.a),
            Check("b", self.b, job.b),
            Check(
                "rules",
                rules,
                job.rules.to_dict(),
                shown="",
                label="/".join(marked(f) for f in ("rules", "house", "rules_file")),
            ),
            Check("players", self.players, job.players),
            Check("seed", self.seed, job.seed),
            Check("unpaired", self.unpaired, NOT_STORED if pairing else not job.test["paired"]),
            Check(
                "compare_pairing",
                self.compare_pairing,
                pairing,
                shown=" (the stored run is an SPRT)",
            ),
            Check("games", self.games, job.n_games if pairing else NOT_STORED),
            *(Check(k, self.test[k], stored[k]) for k in TEST_DEFAULTS),
            Check(
                "deals",
                deals_sha256(self.deals),
                getattr(job, "deal_set", None) and job.deal_set.sha256,
                shown=" (another deal set than the run's)",
            ),
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
        design = (
            (
                "paired deals"
                + (
                    " (pentanomial: pairs of games)"
                    if players == 2
                    else " (each deal under every rotation)"
                )
            )
            if paired
            else "unpaired deals (one per game)"
        )
        out.append(
            escape(
                f"SPRT {a} vs {b}: {rules_text(job.rules)}, {players} players, {design}; H0 elo "
                f"{t['elo0']:g}, H1 elo {t['elo1']:g}, alpha {t['alpha']:g}, beta "
                f"{t['beta']:g}, at most "
                f"{t['max_games']:,} games"
                + (
                    "; pair scores less their luck (--control-variate)"
                    if t["control_variate"]
                    else ""
                )
            )
        )
        return out

    def analyse(
        self, job: SprtJob | PairingJob, store: SprtStore, outcome: Any
    ) -> S.SPRTResult | S.PairingGain:
        with study_errors(S.SPRTError):
            return job.result()

    def run_info(self, job: SprtJob | PairingJob, res: Any, outcome: Any) -> dict[str, Any]:
        from shedsim.runs.runinfo import command_line

        a, b, players, rtxt = job.a, job.b, job.players, rules_text(job.rules)
        degenerate = S.degenerate_note(
            a, b, players, job.paths, paired=self.pairing or job.test["paired"]
        )
        common = {
            "argv": command_line(),
            "definitions": S.DEFINITIONS,
            "notes": [degenerate] if degenerate else [],
        }
        if self.pairing:
            p, u = res.paired, res.unpaired
            return {
                **common,
                "command": "shedsim sprt --compare-pairing",
                "title": (
                    f"Paired vs unpaired deals: {a} vs {b} ({rtxt}, {players} players, "
                    f"{p.games:,} games each)"
                ),
                "result": {
                    "paired": p.__dict__ | {"width": p.width},
                    "unpaired": u.__dict__ | {"width": u.width},
                    "ratio": res.ratio,
                    "variance_ratio": res.variance_ratio,
                },
                "headline": [
                    f"paired deals: score {p.score:.4f} [{p.lo:.4f}, {p.hi:.4f}], width "
                    f"{p.width:.4f}",
                    f"unpaired deals: score {u.score:.4f} [{u.lo:.4f}, {u.hi:.4f}], width "
                    f"{u.width:.4f}",
                    f"width ratio {res.ratio:.3f} (unpaired needs {res.variance_ratio:.2f}x "
                    "the games): "
                    f"{res.verdict()}",
                ],
            }
        return {
            **common,
            "command": "shedsim sprt",
            "title": f"SPRT {a} vs {b} ({rtxt}, {players} players, "
            f"{'paired' if job.test['paired'] else 'unpaired'} deals): {res.decision}",
            "result": res.to_json(),
            "headline": [
                res.decision_text()
                + f" (LLR {res.llr:+.2f}, bounds {res.lower:+.2f}/{res.upper:+.2f}, "
                f"{res.games:,} games)",
                f"score of {a} against {b}: {res.score:.4f} [{res.lo:.4f}, {res.hi:.4f}] (95%)",
                f"Elo difference: {elo_text(res.elo)} [{elo_text(res.elo_lo)}, "
                f"{elo_text(res.elo_hi)}] "
                f"(95%)",
            ],
        }

    def write(self, job: SprtJob | PairingJob, res: Any, root: Path, plots: bool) -> list[str]:
        from shedsim.output.csvs import write_csv

        stem, chart = ("pairing", "pairing.png") if self.pairing else ("sprt", "llr.png")
        write_csv(res.table() if self.pairing else res.path_table(), Path(root) / f"{stem}.csv")
        if not plots:
            return [f"{stem}.csv"]
        (S.plot_pairing if self.pairing else S.plot_llr)(res, Path(root) / chart)
        return [f"{stem}.csv", chart]
