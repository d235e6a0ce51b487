"""`shedsim strategies` and `shedsim compile`: the strategy plugins."""

from __future__ import annotations


import typer

from shedsim.cli.common import (
    HouseOpt,  # noqa: F401
    RulesFileOpt,  # noqa: F401
    RulesOpt,  # noqa: F401
    StrategyPathOpt,
    fail,
    load_players,  # noqa: F401
    load_rules,  # noqa: F401
)


def strategies_cmd(strategy_path: StrategyPathOpt = None) -> None:
    """List the strategy plugins found (built-in, $SHEDSIM_STRATEGY_PATH, --strategy-path): kind,
    traits (TRAITS: cost class, search, what each uses, its face-up rule), parameters with their
    defaults and ranges, and which strategies the commands' defaults select by those traits (@ROLE,
    usable in --strategies).
    """
    from rich.markup import escape

    from shedsim.output.console import out_console
    from shedsim.plugin_meta import TRAIT_HELP, range_text
    from shedsim.plugins import ROLES, PluginError, discover, select

    try:
        found = discover([str(p) for p in strategy_path or []])
    except PluginError as e:
        fail(str(e))
    out = out_console(highlight=False)
    for s in found.values():
        tr = s.traits.describe()
        facts = [s.kind, "deterministic" if s.deterministic else "not deterministic"]
        if s.variant_of:
            facts.append(f"a variant of {s.variant_of}")
        search = tr["search"] + (
            f" (off with {s.traits.search_param}=0)" if s.traits.search_param else ""
        )
        traits = (
            f"cost {tr['cost']}; search {search}; uses {tr['uses']}; swap {tr['swap']}"
            + ("; loops in self-play" if s.traits.self_play_loops else "")
            + (
                "; the strongest player (play's default, hint --search)"
                if s.traits.strongest
                else ""
            )
        )
        params = (
            ", ".join(f"{k}={v} ({range_text(s.ranges[k])})" for k, v in s.params.items()) or "none"
        )
        out.print(f"[bold]{escape(s.name)}[/]: {escape(s.description)}")
        out.print(f"  {', '.join(facts)}; {escape(str(s.path))}")
        out.print(f"  traits: {escape(traits)}")
        if s.traits.cheating:
            out.print(
                "  [bold red]CHEATS[/]: it sees the hidden cards (other hands, face-down cards, "
                "the stock): a measuring tool that only sprt and bench seat"
            )
        out.print(f"  parameters (default, range): {escape(params)}")
    for b in found.broken:  # listed, not fatal: commands that do not name them still run
        out.print(f"[bold]{escape(b.names[-1])}[/]: [red]broken[/]: {escape(b.reason)}")
        out.print(f"  {escape(str(b.path))}")
    out.print("")
    out.print("traits: " + "; ".join(f"{k}: {escape(v)}" for k, v in TRAIT_HELP.items()))
    for (
        role,
        rule,
    ) in ROLES.items():  # the defaults of the commands, selected by traits (built-in only)
        try:
            names = ", ".join(select(found, role))
        except PluginError as e:
            names = f"none ({e})"
        out.print(f"@{role}: {escape(names)} ({escape(rule)})")
    if found.broken:
        out_console(stderr=True).print(
            f"[yellow]note:[/] {len(found.broken)} broken plugin file(s) left out: "
            + "; ".join(escape(b.reason) for b in found.broken),
            highlight=False,
        )


def compile_cmd(strategy_path: StrategyPathOpt = None) -> None:
    """Compile the kernel and every compiled strategy now (numba caches them on disk, so
    later runs start in well under a second)."""
    import time
    from functools import partial

    from shedsim.analysis.hint import warm_up
    from shedsim.plugins import PluginError, choice
    from shedsim.runs.benchmark import warm_up as bench_warm_up
    from shedsim.runs.warm import CompileError, compile_all

    t = time.perf_counter()
    try:
        # with the playout kernels of `shedsim hint` (its default policy and the reference
        # strategy's, the fast one), the search of `hint --search` and the positions
        # `shedsim bench` times strategies on
        extras = (
            warm_up,
            partial(warm_up, choice("reference")[0]),
            partial(warm_up, search=True),
            bench_warm_up,
        )
        names = compile_all(tuple(str(p) for p in strategy_path or []), extras=extras)
    except PluginError as e:
        fail(str(e))
    except CompileError as e:
        fail(str(e), 1)
    typer.echo(
        f"kernel, hint's playouts and search, and {len(names)} compiled strategies ready, each "
        f"having played a test game, in {time.perf_counter() - t:.1f} s ({', '.join(names)})"
    )
