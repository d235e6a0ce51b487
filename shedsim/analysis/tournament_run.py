"""``tournament`` as a :class:`shedsim.runs.study.Study`: the options (each None when not
given: the defaults of :mod:`shedsim.analysis.tournament`), the plan, resume and its
checks, the notes, the analysis and the reports. :func:`shedsim.runs.study.run_study`
runs it; :func:`shedsim.api.tournament` and ``shedsim tournament`` call it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from shedsim.analysis import tournament as T
from shedsim.runs.study import Check, Study, marked, study_errors

DEFINITIONS = {
    "games": "seat-games: a strategy seated twice at one table plays two seat-games in that game",
    "win": (
        "place 1 (first out); possible in an unfinished game if it happened before the game "
        "was stopped"
    ),
    "loss": (
        "last place (the Idiot); nobody loses an unfinished game under stalemate:share (the "
        "default)"
    ),
    "unfinished": "the game was stopped before one player was left: a proven loop (the whole "
    "position repeated, "
    "every seat still in deterministic), stalled (stall:N moves without a burn, anyone going out "
    "or a draw) or the move cap; under stalemate:share (the default) seats still in share the "
    "remaining places (each gets their mean) for mean place, head to head (two such seats tie) and "
    "match totals; under stalemate:most_cards they are placed by cards held, most = last = loser",
    "forfeit": "a game a bot forfeited by a fault is not unfinished: the forfeiting seat is "
    "last (its loss), the seats already out keep their places, the seats still in share the "
    "places between (each gets their mean: one seat alone gets its place, at two players the "
    "win); none of them counts as still in at the cap",
    "ends": "games by how they ended: finished (one player left), stalled, loop (proven loop), "
    "cap (move cap), and in a run with bots forfeit (a bot's fault); "
    "summary.csv's stalled, loops and capped columns count seat-games (shown when a game "
    "stalled or looped)",
    "intervals": "95%; the rotations of one deal share its cards, so every interval counts a "
    "deal as one "
    "cluster (cluster-robust variance, Cochran 1977 sec. 6.9), with the table combinations as "
    "strata; "
    "where every deal gives the same value the value is exact and the interval has zero width",
    "win_rate, loss_rate": "Wilson interval at the effective number of games (games / design "
    "effect, the "
    "design effect being the cluster-robust variance over the binomial one); per strategy, "
    "per seat (seats.csv) and per match",
    "mean_place": "1 = first out; t interval with the cluster-robust standard error over deals",
    "rating": "Plackett-Luce log-strength of the finishing orders on the Elo scale (mean 0); "
    "interval = +-1.96 se, "
    "the cluster-robust (sandwich) standard error over deals",
    "degenerate": "pairs of entries that are the same deterministic strategy and meet only at "
    "tables of copies of "
    "it: every rotation replays the same game, their share is exactly 0.5 and the comparison "
    "cannot "
    "fail",
    "head_to_head": "share of comparisons (both at the same table) in which a finished ahead of "
    "b, ties counted half; "
    "interval and p-value (H0: share = 0.5) cluster-robust over deals (the rotations of one deal "
    "are one cluster); p_holm = Holm-corrected over all pairs; with --control-variate also "
    "share_cv and its interval, se_cv, p_value_cv: the share less each deal's luck (the "
    "rollout control variate), its coefficient beta_cv cross-fitted between the odd and the "
    "even turns of each table's deals",
    "matches": "with rounds K > 1: the K games of one table and rotation on K consecutive deals "
    "of that table; "
    "summed places, lowest total wins, tied totals share the mean rank",
}
"""run.json's definitions of every figure a tournament reports."""


def entries_of(strategies: str | Sequence[str]) -> list[tuple[str, str]]:
    """``--strategies`` (a comma-separated string) or a list of entries (``NAME``,
    ``NAME:param=v``, ``LABEL=SPEC``, ``@ROLE``) as ``(label, spec)`` pairs
    (:func:`shedsim.analysis.tournament.parse_entries`). Raises
    :class:`shedsim.analysis.tournament.TournamentError`."""
    return T.parse_entries(strategies if isinstance(strategies, str) else ",".join(strategies))


def rules_input(
    rules: str, house: Sequence[str] | None, rules_file: str | Path | None
) -> dict[str, Any]:
    """How the rules were named (stored in spec.json to rebuild them on ``--resume``)."""
    return {
        "rules": rules,
        "house": list(house or []),
        "rules_file": str(Path(rules_file).resolve()) if rules_file else None,
    }


def build_rules(rules: str, house: Sequence[str] | None, rules_file: str | Path | None):
    """:func:`shedsim.rules.ruleset.build` (raises :class:`shedsim.rules.ruleset.RulesError`)."""
    from shedsim.rules.ruleset import build

    return build(rules, list(house or []), Path(rules_file) if rules_file else None)


def deals_sha256(path: str | None) -> str | None:
    """The sha256 of the file ``--deals`` names beside ``--resume`` (None: not given), for
    the resume check; an unreadable file raises
    :class:`~shedsim.analysis.tournament.TournamentError`."""
    from shedsim.rules.deals import DealsError, file_sha256

    try:
        return file_sha256(path)
    except DealsError as e:
        raise T.TournamentError(f"--deals: {e}") from None


class TournamentStudy(Study):
    """A tournament (:mod:`shedsim.analysis.tournament`); every option None when not given."""

    command = "tournament"
    outputs = T.OUTPUTS

    def __init__(
        self,
        strategies: str | Sequence[str] | None = None,
        players: int | None = None,
        games: int | None = None,
        seed: int | None = None,
        rules: str | None = None,
        house: Sequence[str] | None = None,
        rules_file: str | Path | None = None,
        rounds: int | None = None,
        seat_orders: str | None = None,
        strategy_path: Sequence[str | Path] | None = None,
        chunk_size: int | None = None,
        save_games: bool | None = None,
        bot_time: tuple[int, int | None] = (1000, None),
        deals: str | Path | None = None,
        control_variate: bool | None = None,
    ) -> None:
        self.strategies, self.players, self.games, self.seed = strategies, players, games, seed
        self.rules, self.house, self.rules_file = rules, house, rules_file
        self.rounds, self.seat_orders, self.chunk_size = rounds, seat_orders, chunk_size
        self.save_games = save_games or None
        self.paths = tuple(str(p) for p in strategy_path or [])
        self.strategy_path = strategy_path
        self.bot_time = tuple(bot_time)  # a bot entry's time control (shedsim.bot)
        self.deals = None if deals is None else str(deals)  # a deal-set file (shedsim.rules.deals)
        self.control_variate = control_variate  # the head to head less each deal's luck

    def plan(self, store: T.Store) -> T.TournamentJob:
        from shedsim.rules.ruleset import RulesError

        with study_errors(T.TournamentError, RulesError):
            if self.deals is not None and self.games is not None:
                raise T.TournamentError(
                    "--games: not with --deals (the deal set decides the games: each deal at "
                    "every table under every rotation)"
                )
            rules = self.rules or T.DEFAULT_RULES
            rs = build_rules(rules, self.house, self.rules_file)
            n_players = T.DEFAULT_PLAYERS if self.players is None else self.players
            rs.check_players(n_players)
            entries = (
                entries_of(self.strategies)
                if self.strategies is not None
                else [(n, n) for n in T.default_strategies(self.paths)]
            )
            spec = T.plan(
                rs,
                n_players,
                entries,
                T.DEFAULT_GAMES if self.games is None else self.games,
                seed=0 if self.seed is None else self.seed,
                rounds=1 if self.rounds is None else self.rounds,
                chunk_size=self.chunk_size,
                strategy_paths=self.paths,
                rules_input=rules_input(rules, self.house, self.rules_file),
                save_games=bool(self.save_games),
                seat_orders=self.seat_orders or "all",
                bot_time=self.bot_time,
                deals=self.deals,
                control_variate=self._control_variate(n_players, entries),
            )
            if self.control_variate is None and spec.control_variate:
                # on by default only where it corrects every pair: a run too short to fit
                # the coefficient would pay for the rollouts and give the raw shares
                if T.luck_fit_shortfall(spec) is not None:
                    spec = dataclasses.replace(spec, control_variate=False)
        return T.TournamentJob(spec)

    def _control_variate(self, players: int, entries: list[tuple[str, str]]) -> bool:
        """``--control-variate`` as given, else on where it can be used (2 players, shuffled
        deals, no bot) and a search strategy (cost ``slow``) is seated: there a game's
        rollouts cost little beside the game (as ``sprt`` chooses). :meth:`plan` leaves the
        default off again where the games are too few to fit it for every pair."""
        if self.control_variate is not None:
            return self.control_variate
        from shedsim.analysis.matchup import any_slow
        from shedsim.bot.protocol import is_bot

        specs = [s for _, s in entries]
        return (
            players == 2
            and self.deals is None
            and not any(is_bot(s) for s in specs)
            and any_slow(specs, self.paths)
        )

    def store(self, root: Path) -> T.Store:
        return T.Store(root)

    def from_store(self, store: T.Store) -> T.TournamentJob:
        with study_errors(T.TournamentError):
            return T.TournamentJob(
                T.spec_from_store(store, self.paths if self.strategy_path else None)
            )

    def resume_checks(self, job: T.TournamentJob) -> list[Check]:
        from shedsim.rules.ruleset import RulesError

        spec = job.spec
        rules = None
        if self.rules is not None or self.house or self.rules_file is not None:
            with study_errors(RulesError):
                rules = build_rules(
                    self.rules or spec.rules_input.get("rules", "shithead"),
                    self.house,
                    self.rules_file,
                ).to_dict()
        entries = None
        if self.strategies is not None:
            with study_errors(T.TournamentError):
                entries = [(lab, s) for lab, s in entries_of(self.strategies)]
        return [
            Check(
                "rules",
                rules,
                spec.rules.to_dict(),
                shown="",
                label="/".join(marked(f) for f in ("rules", "house", "rules_file")),
            ),
            Check("players", self.players, spec.players),
            Check("strategies", entries, list(zip(spec.labels, spec.entries)), shown=""),
            Check(
                "games",
                self.games,
                spec.games_requested,
                same=lambda g, _: g in (spec.games_requested, spec.games),
            ),
            Check("seed", self.seed, spec.seed),
            Check("rounds", self.rounds, spec.rounds),
            Check("chunk_size", self.chunk_size, spec.chunk_size),
            Check("seat_orders", self.seat_orders, spec.seat_orders),
            Check(
                "save_games",
                self.save_games,
                spec.save_games,
                same=lambda g, s: not g or s,
                shown=" (the run started without it)",
            ),
            Check("control_variate", self.control_variate, spec.control_variate),
            Check(
                "deals",
                deals_sha256(self.deals),
                spec.deal_set.sha256 if spec.deal_set else None,
                shown=" (another deal set than the run's)",
            ),
        ]

    def notes(self, job: T.TournamentJob, resume: bool) -> list[str]:
        spec = job.spec
        out = []
        nt = len(spec.tables)
        n_comb = len(T.tournament_tables(len(spec.entries), spec.players))
        tables_txt = (
            f"{nt} table(s): {n_comb} combination(s) in every seating order"
            if spec.seat_orders == "all"
            else f"{nt} table(s), one seating order each"
        )
        if self.seat_orders in (None, "all") and spec.seat_orders != "all":
            out.append(
                "[yellow]note:[/] every seating order would need over "
                f"{T.MAX_ARRANGED_TABLES:,} tables; "
                f"playing one order per table (--seat-orders sorted)"
            )
        blk = f"{spec.match_block:,} games ({tables_txt}, x {spec.players} rotations" + (
            f" x {spec.rounds} rounds)" if spec.rounds > 1 else ")"
        )
        if spec.games != spec.games_requested:
            out.append(
                f"[yellow]note:[/] --games {spec.games_requested:,} rounded up to "
                f"{spec.games:,}: whole blocks "
                f"of {blk}, so every table and rotation is played equally often"
            )
        else:
            k = spec.games // spec.match_block
            out.append(
                f"{spec.games:,} games = {k:,} whole block{'' if k == 1 else 's'} of "
                f"{blk}, paired deals"
            )
        degenerate = T.degenerate_note(T.degenerate_pairs(spec), spec.players)
        if degenerate:
            out.append(f"[yellow]note:[/] {degenerate}")
        if spec.control_variate and (short := T.luck_fit_shortfall(spec)) is not None:
            out.append(f"[yellow]note:[/] --control-variate: {short}")
        return out

    def analyse(self, job: T.TournamentJob, store: T.Store, outcome: Any) -> T.Results:
        return T.analyse(job.spec, store.load_total(job.spec, outcome.done))

    def games_done(self, job: T.TournamentJob, res: T.Results) -> int:
        return int(res.info["games"])

    def run_info(self, job: T.TournamentJob, res: T.Results, outcome: Any) -> dict[str, Any]:
        spec = job.spec
        degenerate = T.degenerate_note(T.degenerate_pairs(spec), spec.players)
        return dict(
            spec=spec.to_json(),
            games_requested=spec.games_requested,
            games=spec.games,
            games_in_results=int(res.info["games"]),
            rounded_games=spec.games != spec.games_requested,
            unfinished_games=res.info["unfinished"],
            unfinished_share=res.info["unfinished_share"],
            ends=res.info["ends"],
            end_shares=res.info["end_shares"],
            lengths=res.info["lengths"],
            rating_fit=res.info["rating_fit"],
            degenerate=res.info["degenerate"],
            notes=[degenerate] if degenerate else [],
            definitions=DEFINITIONS,
            headline=T.headline(spec, res),
        )

    def write(self, job: T.TournamentJob, res: T.Results, root: Path, plots: bool) -> list[str]:
        return T.write_outputs(job.spec, res, Path(root), plots=plots)
