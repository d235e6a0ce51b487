"""`shedsim rules list|show`: the presets and house toggles."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import CommandGroup, HouseOpt, RulesFileOpt, RulesOpt, StrategyPathOpt, fail, load_players, load_rules  # noqa: F401

rules_app = typer.Typer(help="List and inspect rule sets and house toggles.", no_args_is_help=True, cls=CommandGroup)


START_WORDS = {"dealer_left": "the seat after the dealer",
               "lowest_hand": "the lowest ordinary hand card, ties to the first after the dealer",
               "lowest_faceup": "the lowest ordinary face-up card, ties at random",
               "random": "a random seat"}
"""Who starts under each ``start`` rule, in words (the engine's :func:`shedsim.rules.engine.start_seat`)."""


def start_text(rule: str) -> str:
    """A ``start`` rule in words, with the name a rules file gives it: ``the seat after the
    dealer (dealer_left)``."""
    return f"{START_WORDS.get(rule, rule)} ({rule})"


def yes_no(v) -> str:
    """A setting's value as text, booleans as yes/no (the one vocabulary of rules list and show)."""
    return ("yes" if v else "no") if isinstance(v, bool) else str(v)


@rules_app.command("list")
def rules_list() -> None:
    """List the presets and every house toggle."""
    from rich.console import Console
    from rich.table import Table

    from shedsim.rules.ruleset import PRESETS, TOGGLES, preset
    console = Console()
    t = Table(title="Rule sets (--rules)", show_lines=True)
    t.add_column("name", no_wrap=True)
    t.add_column("players", no_wrap=True)
    t.add_column("how it plays (see shedsim rules show NAME)", ratio=1, overflow="fold")
    for name in PRESETS:
        rs = preset(name)
        roles = rs.describe_roles()
        other = "; ".join(f"{k}: {v}" for k, v in roles.items() if k not in ("reset", "burn") and v != "-")
        text = (f"reset {roles['reset']}, burn {roles['burn']}" + (f"; {other}" if other else "")
                + f". Voluntary pick-up: {rs.pickup}. Gamble on the stock: {yes_no(rs.deck_gamble)}. "
                f"Who starts: {start_text(rs.start)}. Scoring: {rs.scoring}.")
        t.add_row(name, f"{rs.min_players}-{rs.max_players}", text)
    console.print(t)
    h = Table(title="House toggles (--house, repeatable; all compose)")
    h.add_column("toggle", no_wrap=True)
    h.add_column("effect", ratio=1, overflow="fold")
    for k, v in TOGGLES.items():
        h.add_row(k, v)
    console.print(h)


@rules_app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="Preset name or rules .toml file.")] = "shithead",
    house: HouseOpt = None,
    rules_file: RulesFileOpt = None,
) -> None:
    """Show a rule set's settings and its can-play table (rows: effective top; columns: rank)."""
    from rich.console import Console
    from rich.table import Table

    from shedsim.rules.cards import RANKS, rank_name
    rs = load_rules(name, house, rules_file)
    console = Console()
    s = Table(title=f"Rule set {rs.name}" + (f" + {', '.join(rs.house)}" if rs.house else ""), show_header=False)
    s.add_column("setting")
    s.add_column("value")
    s.add_row("players", f"{rs.min_players}-{rs.max_players}")
    for k, v in rs.describe_roles().items():
        s.add_row(k, v)
    for k in ("pickup", "deck_gamble", "start", "burn_passes", "mix_last_hand", "decks", "hand_size",
              "table_size", "burn_run", "max_moves", "scoring"):
        s.add_row(k.replace("_", " "), start_text(rs.start) if k == "start" else yes_no(getattr(rs, k)))
        if k == "max_moves":
            groups: dict[int, list[int]] = {}
            for p in range(rs.min_players, rs.max_players + 1):
                groups.setdefault(rs.stall_moves(p), []).append(p)
            s.add_row("stall (no-progress moves)", "off" if rs.stall == 0 else "; ".join(
                f"{n} ({ps[0]}{'' if len(ps) == 1 else f'-{ps[-1]}'} players)" for n, ps in groups.items()))
            s.add_row("stalemate (stopped games)", rs.stalemate)
    console.print(s)
    t = Table(title="can play: row = effective top of the pile, column = rank played (x = legal)")
    t.add_column("top \\ rank")
    for r in RANKS:
        t.add_column(rank_name(r), justify="center")
    for top in (0, *RANKS):
        if top in rs.invisible:
            continue
        t.add_row(rank_name(top), *("x" if rs.can_play(top, r) else "." for r in RANKS))
    console.print(t)
    if rs.invisible:
        console.print(f"(invisible ranks {', '.join(rank_name(r) for r in sorted(rs.invisible))} are never the effective top)")
