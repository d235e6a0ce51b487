"""`shedsim rules list|show`: the presets, house toggles and rules-file keys, all read from
:data:`shedsim.rules.settings.SETTINGS`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from shedsim.cli.common import (
    CommandGroup,
    HouseOpt,
    RulesFileOpt,  # noqa: F401
    RulesOpt,  # noqa: F401
    StrategyPathOpt,  # noqa: F401
    fail,  # noqa: F401
    load_players,  # noqa: F401
    load_rules,
)

ShowRulesFileOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--rules-file",
        help='A rules TOML file (preset = "..." plus overrides) to show instead of NAME.',
    ),
]

rules_app = typer.Typer(
    help="List and inspect rule sets and house toggles.", no_args_is_help=True, cls=CommandGroup
)


@rules_app.command("list")
def rules_list() -> None:
    """List the presets, every house toggle and every rules-file key."""
    from rich.markup import escape
    from rich.table import Table

    import shedsim.rules.settings as S
    from shedsim.output.console import out_console
    from shedsim.rules.ruleset import preset

    console = out_console()
    rows = {name: dict(preset(name).describe()) for name in S.PRESETS}
    varies = [
        s
        for s in S.SETTINGS
        if s.key not in ("name", "players") and len({repr(s.value(name)) for name in S.PRESETS}) > 1
    ]
    same = [s for s in S.SETTINGS if s.key != "name" and s not in varies and s.kind != "players"]
    t = Table(
        title="Rule sets (--rules)",
        show_lines=True,
        caption_justify="left",
        caption=escape(
            "Every preset: " + "; ".join(f"{s.title}: {S.show_value(s.default)}" for s in same)
        ),
    )
    t.add_column("name")
    t.add_column("players")
    t.add_column("how it plays (see shedsim rules show NAME)", ratio=1)
    for name, row in rows.items():
        t.add_row(
            name,
            row["players"],
            escape(
                "; ".join(f"{s.title}: {row[s.title]}" for s in varies if row[s.title] != "-") + "."
            ),
        )
    console.print(t)
    h = Table(title="House toggles (--house, repeatable; all compose)")
    h.add_column("toggle")
    h.add_column("sets")
    h.add_column("effect", ratio=1)
    for syntax, toggle in S.TOGGLES.items():
        h.add_row(syntax, S.SETTING_OF[syntax].key, escape(toggle.help))
    console.print(h)
    k = Table(title="Rules-file keys (--rules-file FILE.toml)")
    k.add_column("key")
    k.add_column("value", ratio=1)
    k.add_column("meaning", ratio=2)
    k.add_row("preset", " | ".join(S.PRESETS), "the preset the file starts from (required)")
    k.add_row("house", "list of toggles", "house toggles applied on top of the file's settings")
    for s in S.SETTINGS:
        k.add_row(s.key, escape(s.values_text()), escape(s.help))
    console.print(k)


@rules_app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="Preset name or rules .toml file.")] = "shithead",
    house: HouseOpt = None,
    rules_file: ShowRulesFileOpt = None,
) -> None:
    """Show a rule set's settings and its can-play table (rows: effective top; columns: rank).

    Examples: shedsim rules show shithead;  shedsim rules show duel --house low7;  shedsim rules show --rules-file myrules.toml
    """  # noqa: E501 (typer shows each paragraph as one line)
    from rich.table import Table

    from shedsim.output.console import out_console
    from shedsim.rules.cards import RANKS, rank_name

    rs = load_rules(name, house, rules_file)
    console = out_console()
    s = Table(
        title=f"Rule set {rs.name}" + (f" + {', '.join(rs.house)}" if rs.house else ""),
        show_header=False,
    )
    s.add_column("setting")
    s.add_column("value")
    for label, value in rs.describe():
        s.add_row(label, value)
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
        console.print(
            f"(invisible ranks {', '.join(rank_name(r) for r in sorted(rs.invisible))} are "
            "never the effective top)"
        )
