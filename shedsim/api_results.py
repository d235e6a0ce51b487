"""The results the Python API (:mod:`shedsim.api`) returns: what every study's result holds
(:class:`Result`: run.json's content, the headline, the files written, whether it is
complete, its charts as matplotlib figures) and each study's tables and charts.

Only the standard library is imported at module level (``import shedsim`` stays cheap).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from shedsim.runs.study import StudyRun


class Result:
    """What every study returns: ``info`` (run.json's content), ``headline`` (the findings
    in words), ``out`` (the directory written, or None) and ``files`` (its reports), whether
    the run is ``complete``, and for a run stopped early its ``exit_code`` (130 or 143) and
    ``stop_message``. :meth:`chart` draws one of :attr:`charts` as a matplotlib figure."""

    charts: tuple[str, ...] = ()
    """The names of the charts the study draws (its PNG files without ``.png``)."""

    def __init__(self, run: StudyRun) -> None:
        self.run = run
        self.info: dict[str, Any] = run.info
        self.out: Path | None = run.out
        self.files: list[str] = list(run.files or [])
        self._figures: dict[str, Any] | None = None

    @property
    def headline(self) -> list[str]:
        return list(self.info.get("headline", []))

    @property
    def complete(self) -> bool:
        return self.run.complete

    @property
    def exit_code(self) -> int:
        return self.run.exit_code

    @property
    def stop_message(self) -> str | None:
        return self.run.stop_message

    def chart(self, name: str):
        """The chart ``name`` (one of :attr:`charts`) as a :class:`matplotlib.figure.Figure`,
        drawn as the command draws it. Raises KeyError for a chart the results do not have."""
        if self._figures is None:
            from shedsim.output.charts.figure import kept_figures

            with (
                tempfile.TemporaryDirectory(prefix="shedsim-charts-") as tmp,
                kept_figures() as figs,
            ):
                self.run.study.write(self.run.job, self.run.res, Path(tmp), True)
            self._figures = {k.removesuffix(".png"): v for k, v in figs.items()}
        if name not in self._figures:
            raise KeyError(
                f"no chart {name!r} in these results; they have: "
                f"{', '.join(self._figures) or 'none'}"
            )
        return self._figures[name]

    def __repr__(self) -> str:
        where = f", out={str(self.out)!r}" if self.out else ""
        return f"<{type(self).__name__} {self.info.get('title') or self.run.study.command}{where}>"


class TournamentResult(Result):
    """A tournament's tables (``summary``, ``head_to_head``, ``seats``, ``lengths``, and
    ``matches`` with ``rounds`` > 1, else None), ``h2h_matrix`` (strategy x strategy share
    ahead) and its charts."""

    charts = ("rates", "places", "head_to_head", "lengths", "seats")

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        res = run.res
        self.spec = run.job.spec
        self.summary, self.head_to_head, self.seats = res.summary, res.head_to_head, res.seats
        self.lengths, self.matches, self.h2h_matrix = res.lengths, res.matches, res.h2h_matrix
        self.place_shares = res.place_shares

    def plot_rates(self):
        """Win and loss rate per strategy with 95% intervals (``rates.png``)."""
        return self.chart("rates")

    def plot_places(self):
        """Each strategy's share of every finishing place (``places.png``)."""
        return self.chart("places")

    def plot_head_to_head(self):
        """The head-to-head matrix (``head_to_head.png``)."""
        return self.chart("head_to_head")

    def plot_lengths(self):
        """The distribution of game lengths (``lengths.png``)."""
        return self.chart("lengths")

    def plot_seats(self):
        """Win and loss rate by seat (``seats.png``)."""
        return self.chart("seats")


class CompareResult(Result):
    """A comparison of rule variants: ``variants`` (one row per variant), ``effects``
    (variant x metric against the baseline), ``lengths`` (game-length histogram per
    variant) and its charts."""

    charts = ("forest", "lengths")

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        self.variants, self.effects, self.lengths = (
            run.res.variants,
            run.res.effects,
            run.res.lengths,
        )

    def plot_forest(self):
        """Every effect against the baseline with its 95% interval (``forest.png``)."""
        return self.chart("forest")

    def plot_lengths(self):
        """The game-length distributions of the variants (``lengths.png``)."""
        return self.chart("lengths")


class SwapsResult(Result):
    """The swap-phase study: ``by_rank`` (a), ``face_up_values`` (b), ``policies`` and
    ``policies_head_to_head`` (c), ``regret`` (d; None with ``deals=0``) and its charts."""

    charts = (
        "by_rank",
        "face_up_heatmap",
        "face_up_extremes",
        "policies",
        "policies_head_to_head",
        "regret",
    )

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        res = run.res
        self.by_rank, self.face_up_values, self.regret = res.by_rank, res.values, res.regret
        self.policies, self.policies_head_to_head = res.policies.summary, res.policies.head_to_head

    def plot_by_rank(self):
        """What the strategy puts face up against what it was dealt, by rank (``by_rank.png``)."""
        return self.chart("by_rank")

    def plot_face_up_heatmap(self):
        """The loss rate of every face-up row (``face_up_heatmap.png``)."""
        return self.chart("face_up_heatmap")

    def plot_policies(self):
        """The swap policies' win and loss rates (``policies.png``)."""
        return self.chart("policies")

    def plot_regret(self):
        """The regret of the strategy's face-up choices (``regret.png``; with sample deals)."""
        return self.chart("regret")


class SprtResult(Result):
    """A sequential test's outcome: ``result`` (:class:`shedsim.analysis.sprt.SPRTResult`:
    ``decision``, ``llr``, ``score``, ``elo``, ``games``, ...) and ``path`` (sprt.csv: the LLR
    and score after each unit); or, with ``compare_pairing``, ``result`` the
    :class:`shedsim.analysis.sprt.PairingGain` and ``pairing`` (pairing.csv)."""

    charts = ("llr", "pairing")

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        self.result = run.res
        pairing = run.study.pairing
        self.path = None if pairing else run.res.path_table()
        self.pairing = run.res.table() if pairing else None

    @property
    def decision(self) -> str | None:
        """``H1`` (X stronger by at least elo1), ``H0`` or ``none`` (no decision at max_games)."""
        return None if self.pairing is not None else self.result.decision

    def plot_llr(self):
        """The LLR path against Wald's bounds (``llr.png``)."""
        return self.chart("llr")

    def plot_pairing(self):
        """The two designs' 95% intervals (``pairing.png``; with ``compare_pairing``)."""
        return self.chart("pairing")


class GauntletResult(Result):
    """A gauntlet's ``result`` (:class:`shedsim.analysis.gauntlet.Result`: ``rows``, one per
    opponent, and ``total``), ``table`` (gauntlet.csv) and its chart."""

    charts = ("gauntlet",)

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        self.result = run.res
        self.table = run.res.table()

    def plot_scores(self):
        """The candidate's score against each opponent with 95% intervals (``gauntlet.png``)."""
        return self.chart("gauntlet")


class TipsResult(Result):
    """Do the beginner tips work: ``tips`` (tips.csv: one row per tip, rule set and player
    count, with the effect on the loss rate and the mean place and the verdict), ``skipped``
    (what was not measured, and why) and the forest chart."""

    charts = ("forest",)

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        self.tips, self.skipped = run.res

    def plot_forest(self):
        """Every row's effect with its 95% interval (``forest.png``)."""
        return self.chart("forest")


class TuneResult(Result):
    """A tuning run: ``trials`` (trials.csv: every trial's parameters and score), ``best``
    (the best parameters), ``best_spec`` (``NAME:param=v,...``), ``confirmation`` (on fresh
    deals; None with ``confirm_games=0``), ``importance`` and the charts."""

    charts = ("history", "importance")

    def __init__(self, run: StudyRun) -> None:
        super().__init__(run)
        r = run.res
        self.trials, self.best, self.confirmation, self.importance = (
            r["table"],
            r["best"],
            r["conf"],
            r["importance"],
        )
        self.best_spec = self.info["result"]["best_spec"]

    def plot_history(self):
        """Every trial's score and the best so far (``history.png``)."""
        return self.chart("history")

    def plot_importance(self):
        """How much each parameter explains of the scores (``importance.png``)."""
        return self.chart("importance")
