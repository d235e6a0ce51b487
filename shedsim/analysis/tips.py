"""Do the beginner tips work? Each tip of the rule pages, followed against not followed,
everything else equal.

**The players.** Every tip is one parameter of the ``heuristic`` strategy
(``strategies/heuristic.py``). The *base* (default ``heuristic:search=0``: the tips alone,
without the end-game look-ahead) is played twice, once with the tip's parameter at its
"follow" value and once at its "ignore" value (:data:`TIPS`); all other parameters stay
at the base's values.

**The games.** In each rule set where the tip applies and at each player count, the tested
player takes one seat and the opponents (default ``greedy``) the others, on paired deals:
each deal is played under every rotation (the tested player in every seat once), exactly
as :func:`shedsim.analysis.sprt.schedule`. The "follow" and "ignore" runs play the **same deals**
(same seed), so the effect is measured on paired deals: the deal (its P rotations) is the
unit of independence.

**The metrics**, per deal: the tested player's loss rate (share of its games it finished
last; a game stopped without a loser counts as no loss) and mean place (1 = first out;
seats still in when a game was stopped share the places left). The effect is
follow - ignore, with the Student t interval (95%) and the paired t test over per-deal
differences (:func:`scipy.stats.ttest_1samp`); every p-value is Holm-corrected over all
the rows of the run (:func:`statsmodels.stats.multitest.multipletests`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from shedsim.rules.ruleset import RuleSet


@dataclass(frozen=True)
class Tip:
    """A tip: ``key``, the advice in words, the ``heuristic`` parameter that carries it,
    its value when the tip is followed and when it is ignored, and where it applies."""

    key: str
    advice: str
    param: str
    follow: int
    ignore: int
    applies: Callable[[RuleSet], bool]
    where: str


def _always(rs: RuleSet) -> bool:
    return True


def _pickup(rs: RuleSet) -> bool:
    return rs.pickup != "never"


def _burn(rs: RuleSet) -> bool:
    return bool(rs.burn)


def _invisible(rs: RuleSet) -> bool:
    return bool(rs.invisible)


TIPS: tuple[Tip, ...] = (
    Tip("save_specials", "Save the 10s for a big pile: never burn a pile you could play an ordinary card on "
        "(ignored: burn any pile of 2+ cards)", "spend_pile", 99, 2, _burn, "rule sets with a burn rank"),
    Tip("pick_up_small", "Pick up a small pile (up to 3 cards) rather than spend a special card on it",
        "save_pile", 3, 0, _pickup, "rule sets with voluntary pick-up"),
    Tip("strong_face_up", "Put strong cards face up, low ones in the hand (ignored: a random choice, "
        "as good as no swap)", "swap", 1, 0, _always, "every rule set"),
    Tip("pairs_together", "Play all copies of a rank together (ignored: one card at a time)",
        "copies", 1, 0, _always, "every rule set"),
    Tip("watch_high_cards", "Count the unseen high cards: once the stock is empty, play a card the next "
        "player beats with chance at most 10%, when you hold one", "track", 10, 0, _always, "every rule set"),
    Tip("block", "Block a player about to go out (2 cards or fewer): play what they are least likely to beat",
        "block", 2, 0, _always, "every rule set"),
    Tip("complete_four", "Complete four of a kind on the pile when you can", "complete_four", 1, 0, _always,
        "every rule set"),
    Tip("pass_on_nine", "Pass the problem on with a 9 (an invisible card) before spending a 2 or 10",
        "pass_on", 1, 0, _invisible, "rule sets with an invisible rank"),
    Tip("take_specials", "Take a small pile (up to 3 cards) made mostly of special cards",
        "take_pile", 3, 0, _pickup, "rule sets with voluntary pick-up"),
)
"""The tips of the rule pages (``../shared/seeds/``), as ``heuristic`` parameters."""

DEFINITIONS = {
    "follow / ignore": "the base strategy with the tip's parameter at its follow / ignore value; every "
                       "other parameter as in the base",
    "loss rate": "share of the tested player's games it finished last (the Idiot); a game stopped "
                 "without a loser counts as no loss",
    "mean place": "the tested player's mean finishing place, 1 = first out; seats still in when a game "
                  "stopped share the places left",
    "effect": "follow minus ignore on the same deals, with a 95% Student t interval over deals (a deal = "
              "its rotations, the tested player once in every seat)",
    "p_holm": "paired t test of the effect, Holm-corrected over every row of the run",
    "helps": "the tip significantly lowers the loss rate (p_holm < 0.05); 'hurts' raises it; "
             "'no clear effect' otherwise",
}


class TipsError(ValueError):
    """Bad options for ``shedsim tips``; the message names the option."""


def select(names: list[str] | None) -> list[Tip]:
    """The tips named (all when ``names`` is empty). Raises :class:`TipsError` for an unknown name."""
    if not names:
        return list(TIPS)
    by = {t.key: t for t in TIPS}
    out = []
    for n in names:
        if n not in by:
            raise TipsError(f"--tip {n!r}: unknown tip; known: {', '.join(by)}")
        out.append(by[n])
    return out


def per_deal(match, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Play games ``0 .. games-1`` (whole deals) of a :func:`shedsim.analysis.sprt.open_match` match
    and return, per deal, the tested player's (entry 0's) loss share and mean place
    (float64[deals] each). Raises :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.kernel.build import KernelError
    from shedsim.seeding import game_keys
    from shedsim.runs.simulate import SimulationError, describe_failure
    from shedsim.analysis.sprt import schedule
    from shedsim.analysis.tournament import effective_places2
    p = match.spec.players
    n = games // p * p
    sched = schedule(p, 0, n, True)
    dk, sk = game_keys(match.spec.seed, sched["index"], sched["deal"], match.spec.stream)
    try:
        rec = match.kernel.play(match.rules_array, match.ids, match.params, sched["seating"], dk, sk,
                                sched["dealer"])
    except KernelError as e:
        import dataclasses
        spec = dataclasses.replace(match.spec, schedule="head-to-head")  # trace --schedule head-to-head
        raise SimulationError(describe_failure(spec, match.known, sched, dk, sk, e)) from None
    rows = np.arange(n)
    x = sched["x_seat"]
    lost = (rec["places"][rows, x] == p).astype(np.float64)
    place = effective_places2(rec["places"])[rows, x] / 2.0
    return lost.reshape(-1, p).mean(axis=1), place.reshape(-1, p).mean(axis=1)


def _paired(d: np.ndarray) -> tuple[float, float, float, float]:
    """Mean of per-deal differences, its 95% t interval and the paired t test's p-value."""
    from scipy.stats import ttest_1samp

    from shedsim.analysis.stats import t_interval
    m, lo, hi = t_interval(len(d), float(d.sum()), float((d * d).sum()))
    if np.all(d == d[0]):
        p = 1.0 if d[0] == 0 else 0.0
    else:
        p = float(ttest_1samp(d, 0.0).pvalue)
    return float(m), float(lo), float(hi), p


def check_strategies(base: str, opponents: str, strategy_paths: tuple[str, ...] = ()):
    """The :class:`shedsim.plugins.Strategy` of ``base``, once ``base`` and ``opponents``
    are checked for the compiled kernel (known, numba, valid parameters). Raises
    :class:`TipsError` naming ``--base`` or ``--opponents``."""
    from shedsim.plugins import PluginError, compiled_strategy, discover
    try:
        known = discover(list(strategy_paths))
    except PluginError as e:
        raise TipsError(f"--strategy-path: {e}") from None
    found = {}
    for option, spec in (("--base", base), ("--opponents", opponents)):
        try:
            found[option] = compiled_strategy(known, spec, "tips")
        except PluginError as e:
            raise TipsError(f"{option}: {e}") from None
    return found["--base"]


def run_tips(rule_sets: list[RuleSet], players: list[int], tips: list[Tip], games: int, base: str = "heuristic:search=0",
             opponents: str = "greedy", seed: int = 0, strategy_paths: tuple[str, ...] = (),
             on_cell: Callable[[int, int], None] | None = None):
    """Measure every tip in every rule set where it applies and at every player count the
    rule set allows. Returns ``(table, skipped)``: a DataFrame with one row per (tip, rules,
    players) (columns: see :data:`COLUMNS`) and notes on what was skipped.
    ``on_cell(done, total)`` reports progress. Raises :class:`TipsError` for bad options
    and :class:`shedsim.runs.simulate.SimulationError` when a strategy fails."""
    import pandas as pd
    from statsmodels.stats.multitest import multipletests

    from shedsim.plugins import parse_spec
    from shedsim.analysis.sprt import rules_name, open_match
    from shedsim.analysis.tune import format_spec
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 2 * max(players):
        raise TipsError(f"--games: at least {2 * max(players)} (two deals under every rotation), got {games!r}")
    s = check_strategies(base, opponents, strategy_paths)
    name, fixed = parse_spec(base)
    for t in tips:
        if t.param not in s.params:
            raise TipsError(f"--base {base!r}: strategy {name!r} has no parameter {t.param!r} (tip {t.key}); "
                            f"the tips are parameters of heuristic")
    start = {**s.params, **fixed}
    cells, skipped = [], []
    for rs in rule_sets:
        for p in players:
            try:
                rs.check_players(p)
            except ValueError:
                skipped.append(f"{rules_name(rs)} does not allow {p} players")
                continue
            for t in tips:
                if t.applies(rs):
                    cells.append((t, rs, p))
                else:
                    skipped.append(f"{t.key} does not apply to {rules_name(rs)} ({t.where})")
    rows = []
    for i, (t, rs, p) in enumerate(cells):
        follow = format_spec(name, {**start, t.param: t.follow})
        ignore = format_spec(name, {**start, t.param: t.ignore})
        lf, pf = per_deal(open_match(follow, opponents, rs, p, seed, strategy_paths), games)
        li, pi = per_deal(open_match(ignore, opponents, rs, p, seed, strategy_paths), games)
        ld, llo, lhi, lp = _paired(lf - li)
        pd_, plo, phi, pp = _paired(pf - pi)
        rows.append({"tip": t.key, "rules": rules_name(rs), "players": p, "param": t.param,
                     "follow": t.follow, "ignore": t.ignore, "deals": len(lf), "games": len(lf) * p,
                     "loss_follow": lf.mean(), "loss_ignore": li.mean(), "loss_effect": ld,
                     "loss_lo": llo, "loss_hi": lhi, "loss_p": lp,
                     "place_follow": pf.mean(), "place_ignore": pi.mean(), "place_effect": pd_,
                     "place_lo": plo, "place_hi": phi, "place_p": pp, "advice": t.advice})
        if on_cell is not None:
            on_cell(i + 1, len(cells))
    table = pd.DataFrame(rows)
    if len(table):
        ps = np.concatenate([table["loss_p"].to_numpy(), table["place_p"].to_numpy()])
        holm = multipletests(ps, method="holm")[1]
        table.insert(table.columns.get_loc("loss_p") + 1, "loss_p_holm", holm[: len(table)])
        table.insert(table.columns.get_loc("place_p") + 1, "place_p_holm", holm[len(table):])
        table.insert(3, "verdict", [verdict(r) for r in table.itertuples()])
    return table, skipped


def verdict(row) -> str:
    """``helps`` / ``hurts`` (loss rate, Holm p < 0.05) or ``no clear effect``."""
    if row.loss_p_holm < 0.05:
        return "helps" if row.loss_effect < 0 else "hurts"
    return "no clear effect"


def plot_forest(table, path: Path, subtitle: str = "") -> Path:
    """``forest.png``: every row's effect on the loss rate (percentage points) and on the
    mean place, with its 95% interval; filled markers are Holm-significant."""
    import matplotlib.pyplot as plt

    from shedsim.output.plots import save_figure, bars
    n = max(1, len(table))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.32 * n + 1.8), sharey=True)
    labels = [f"{r.tip} · {r.rules} · {r.players}p" for r in table.itertuples()]
    y = np.arange(len(table))[::-1]
    for ax, col, scale, unit in ((axes[0], "loss", 100.0, "loss rate, percentage points"),
                                 (axes[1], "place", 1.0, "mean place (places)")):
        v = table[f"{col}_effect"].to_numpy() * scale
        lo = table[f"{col}_lo"].to_numpy() * scale
        hi = table[f"{col}_hi"].to_numpy() * scale
        sig = table[f"{col}_p_holm"].to_numpy() < 0.05
        ax.errorbar(v, y, xerr=bars(v, lo, hi), fmt="none", ecolor="0.5", lw=1)
        ax.scatter(v[sig], y[sig], color="#c44e52", zorder=3, s=22, label="Holm p < 0.05")
        ax.scatter(v[~sig], y[~sig], facecolor="white", edgecolor="0.3", zorder=3, s=22, label="not significant")
        ax.axvline(0, color="0.2", lw=0.8)
        ax.set_xlabel(f"follow - ignore: {unit}\n(below 0: following the tip helps)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=8)
    axes[1].legend(loc="lower right", fontsize=8)
    fig.suptitle("Do the beginner tips work? Effect of following each tip, 95% intervals"
                 + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    height = fig.get_size_inches()[1]
    return save_figure(fig, path, rect=(0, 0, 1, 1 - 0.75 / height))


def headline(table) -> list[str]:
    """One sentence per row: the tip, where, its effect on the loss rate and the verdict."""
    out = []
    for r in table.itertuples():
        out.append(f"{r.tip} ({r.rules}, {r.players} players): loss rate {100 * r.loss_effect:+.2f} pp "
                   f"[{100 * r.loss_lo:+.2f}, {100 * r.loss_hi:+.2f}], mean place {r.place_effect:+.3f} "
                   f"[{r.place_lo:+.3f}, {r.place_hi:+.3f}]: {r.verdict}")
    return out
