"""``shedsim gauntlet``: one candidate against a list of opponents (registered in
:mod:`shedsim.cli`; the games and statistics live in :mod:`shedsim.analysis.gauntlet`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import (BotOpt, HouseOpt, RulesFileOpt, RulesOpt, StrategyPathOpt, TimePerGameOpt,
                                TimePerMoveOpt)
from shedsim.cli.options import DealsOpt


def gauntlet(
    candidate: Annotated[str, typer.Option("--candidate", "-c", help="The strategy measured: NAME, NAME:param=v, or the LABEL of a --bot.")],
    opponents: Annotated[str, typer.Option("--opponents", "-o", help="Comma-separated opponents, each met on its own: NAME, NAME:param=v, LABEL=SPEC, or the LABEL of a --bot.")],
    rules: RulesOpt = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Seats: the candidate takes one, the opponent all the others.")] = 2,
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="Games per opponent (whole deals, each under every rotation of the seats); with --sprt, the most.")] = 2000,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Run seed: every opponent meets the same deals.")] = 0,
    sprt: Annotated[Optional[str], typer.Option("--sprt", metavar="ELO0,ELO1", help="Also run an SPRT per opponent (H0: candidate - opponent = ELO0 Elo against H1: = ELO1), stopping that opponent's games at its decision.")] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="With --sprt: the chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="With --sprt: the chance of accepting H0 when H1 holds.")] = 0.05,
    csv: Annotated[Optional[Path], typer.Option("--csv", help="Also write the table (one row per opponent, then the total) to this new CSV file.")] = None,
    strategy_path: StrategyPathOpt = None,
    bot: BotOpt = None,
    time_per_move: TimePerMoveOpt = 1000,
    time_per_game: TimePerGameOpt = None,
    deals: DealsOpt = None,
) -> None:
    """Play one candidate against each opponent in turn, head to head on paired deals.

    One table row per opponent: games, the candidate's score (share of the other seats it finished ahead of, ties half) with its 95% interval, the same as Elo, the games each side forfeited (bots) and, with --sprt, the SPRT's decision and LLR; then the total over every opponent. Exit codes: 0 done; 1 a strategy failed; 2 bad options.

    With --deals FILE every opponent meets exactly the deals of that file, each under every rotation (--games is not read).

    Example: shedsim gauntlet --candidate heuristic --opponents greedy,random,aggressive --games 4000 --sprt 0,10
    """  # noqa: E501
    from shedsim.analysis import gauntlet as G
    from shedsim.analysis import sprt as S
    from shedsim.analysis import tournament as T
    from shedsim.cli.common import bot_entries, bot_spec, fail, load_rules
    from shedsim.cli.deals import load_deals
    from shedsim.rules.ruleset import RulesError
    from shedsim.runs.simulate import SimulationError
    rs = load_rules(rules, house, rules_file)
    ds = load_deals(deals, rs, players)
    games = games if ds is None else len(ds.deals) * players
    bots = bot_entries(bot)
    cand = bot_spec(candidate, bots)
    try:
        entries = [(lab, bot_spec(sp, bots)) for lab, sp in T.parse_entries(opponents)]
    except T.TournamentError as e:
        fail(str(e).replace("--strategies", "--opponents"))
    test = None
    if sprt is not None:
        try:
            e0, e1 = (float(x) for x in sprt.split(","))
            test = (e0, e1)
        except ValueError:
            fail(f"--sprt: write ELO0,ELO1 (two numbers), got {sprt!r}")
    if csv is not None and (csv.exists() or not csv.parent.is_dir()):  # never replaces a file of yours
        fail(f"--csv {str(csv)!r}: " + ("the file exists (give a new name)" if csv.exists()
                                        else "its directory does not exist"))
    typer.echo(f"gauntlet: {cand} against {', '.join(lab for lab, _ in entries)}; {S.rules_name(rs)}, {players} players, "
               f"up to {games // players * players:,} games each (paired deals), seed {seed}", err=True)
    try:
        res = G.run_gauntlet(cand, entries, rs, players, games, seed, test, alpha, beta,
                             strategy_paths=tuple(str(p) for p in strategy_path or []),
                             bot_time=(time_per_move, time_per_game), deals=ds.deals if ds else ())
    except (G.GauntletError, S.SPRTError, RulesError) as e:
        fail(str(e))
    except SimulationError as e:
        fail(str(e), 1)
    _print_table(res, candidate, players, seed, test is not None)
    if csv is not None:
        _write_csv(res, csv)


def _print_table(res, candidate: str, players: int, seed: int, with_sprt: bool) -> None:
    """The gauntlet's table: a row per opponent, then the total."""
    import math

    from rich.console import Console
    from rich.table import Table
    t = Table(title=f"Gauntlet: {candidate} ({res.rules}, {players} players, seed {seed})",
              caption="score: share of the other seats finished ahead of (ties half), 95% t interval over deals; "
                      "Elo: the same on the logistic scale")
    cols = ["opponent", "games", "score", "Elo", "forfeits"] + (["SPRT", "LLR"] if with_sprt else [])
    for c in cols:
        t.add_column(c, justify="left" if c == "opponent" else "right")

    def elo(v: float) -> str:
        return f"{v:+.1f}" if math.isfinite(v) else ("+inf" if v > 0 else "-inf")

    for r in [*res.rows, res.total]:
        cells = [r.opponent, f"{r.games:,}", f"{r.score:.4f} [{r.lo:.4f}, {r.hi:.4f}]",
                 f"{elo(r.elo)} [{elo(r.elo_lo)}, {elo(r.elo_hi)}]", f"{r.forfeits:,} / {r.opponent_forfeits:,}"]
        if with_sprt:
            cells += [r.decision or "", "" if r.llr is None else f"{r.llr:+.2f}"]
        t.add_row(*cells, end_section=r is res.rows[-1])
    Console(width=150).print(t)


def _write_csv(res, csv: Path) -> None:
    """The table as a CSV file (atomically)."""
    import pandas as pd

    from shedsim.cli.common import fail
    from shedsim.runs import atomic
    text = pd.DataFrame([r.to_json() for r in [*res.rows, res.total]]).to_csv(index=False)
    try:
        atomic.write_text(csv, text)
    except OSError as e:
        fail(f"--csv: {e}", 3)
    typer.echo(f"wrote {csv}", err=True)
