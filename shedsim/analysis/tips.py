"""Do the beginner tips work? Each tip of the rule pages, followed against not followed,
everything else equal.

**The players.** Every tip is one parameter of the ``heuristic`` strategy
(``strategies/heuristic.py``). The *base* (default ``heuristic:search=0``, :func:`default_base`: the
tips alone,
without the end-game look-ahead) is played twice, once with the tip's parameter at its
"follow" value and once at its "ignore" value (:data:`TIPS`); all other parameters stay
at the base's values.

**The games.** In each rule set where the tip applies and at each player count, the tested
player takes one seat and the opponents (default ``greedy``, :func:`default_opponents`) the others,
on paired deals:
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

**The verdict** judges each row by what its rule set scores
(:func:`shedsim.rules.scoring.objective_of`): the loss rate where only losing counts
(duel, family, shithead), the mean place where places do (nines, palace). An effect
smaller than :data:`PRACTICAL` (1 percentage point of loss rate, 0.02 places) is no
practical effect when its whole 95% interval lies within the threshold, significant or not:
a player would not notice it. A significant effect below the threshold whose interval
reaches past it helps (or hurts) a little: it may be as large as the interval's far end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Sequence
from typing import Any

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
    Tip(
        "save_specials",
        "Save the 10s for a big pile: never burn a pile you could play an ordinary card on "
        "(ignored: burn any pile of 2+ cards)",
        "spend_pile",
        99,
        2,
        _burn,
        "rule sets with a burn rank",
    ),
    Tip(
        "pick_up_small",
        "Pick up a small pile (up to 3 cards) rather than spend a special card on it",
        "save_pile",
        3,
        0,
        _pickup,
        "rule sets with voluntary pick-up",
    ),
    Tip(
        "strong_face_up",
        "Put strong cards face up, low ones in the hand (ignored: a random choice, "
        "as good as no swap)",
        "swap",
        1,
        0,
        _always,
        "every rule set",
    ),
    Tip(
        "pairs_together",
        "Play all copies of a rank together (ignored: one card at a time)",
        "copies",
        1,
        0,
        _always,
        "every rule set",
    ),
    Tip(
        "watch_high_cards",
        "Count the unseen high cards: once the stock is empty, play a card the next "
        "player beats with chance at most 10%, when you hold one",
        "track",
        10,
        0,
        _always,
        "every rule set",
    ),
    Tip(
        "block",
        "Block a player about to go out (2 cards or fewer): play what they are least likely to "
        "beat",
        "block",
        2,
        0,
        _always,
        "every rule set",
    ),
    Tip(
        "complete_four",
        "Complete four of a kind on the pile when you can",
        "complete_four",
        1,
        0,
        _always,
        "every rule set",
    ),
    Tip(
        "pass_on_nine",
        "Pass the problem on with a 9 (an invisible card) before spending a 2 or 10",
        "pass_on",
        1,
        0,
        _invisible,
        "rule sets with an invisible rank",
    ),
    Tip(
        "take_specials",
        "Take a small pile (up to 3 cards) made mostly of special cards",
        "take_pile",
        3,
        0,
        _pickup,
        "rule sets with voluntary pick-up",
    ),
)
"""The tips of the rule pages (``../shared/seeds/``), as ``heuristic`` parameters."""

PRACTICAL = {"loss": 0.01, "place": 0.02}
"""The smallest effect that counts as a practical one: 1 percentage point of loss rate
(one more or fewer lost game in a hundred) and 0.02 places (one place in fifty games)."""

DEFINITIONS = {
    "follow / ignore": "the base strategy with the tip's parameter at its follow / ignore value; "
    "every "
    "other parameter as in the base",
    "loss rate": "share of the tested player's games it finished last (the Idiot); a game stopped "
    "without a loser counts as no loss",
    "mean place": "the tested player's mean finishing place, 1 = first out; seats still in when "
    "a game "
    "stopped share the places left",
    "effect": "follow minus ignore on the same deals, with a 95% Student t interval over deals "
    "(a deal = "
    "its rotations, the tested player once in every seat)",
    "p_holm": "paired t test of the effect, Holm-corrected over every row of the run",
    "objective": "what the verdict judges by: the rule set's scoring; loss = the loss rate "
    "(duel, family, "
    "shithead score only losing), place = the mean place (nines, palace score places)",
    "verdict": "helps: following the tip lowers the objective's figure significantly (Holm p < "
    "0.05) by at least "
    "the practical threshold (1 percentage point of loss rate, 0.02 places); hurts: raises it "
    "so; helps (hurts) a little: lowers (raises) it significantly by less than the threshold, "
    "its 95% interval reaching beyond the threshold; no "
    "practical effect: the whole 95% interval lies within plus or minus the threshold "
    "(significant or not); no clear effect: not "
    "significant and the interval reaches beyond the threshold (more games would tell)",
    "threshold": "the practical threshold of the objective's figure (a share for the loss rate, "
    "places for the "
    "mean place)",
}


class TipsError(ValueError):
    """Bad options for ``shedsim tips``; the message names the option."""


def default_base() -> str:
    """The default ``--base``: the built-in strategy whose parameters carry every tip of
    :data:`TIPS` (the first by name among :func:`shedsim.plugins.candidates`), with its
    search off when its ``TRAITS['search_param']`` names the parameter that does it
    (``heuristic:search=0``: the tips alone, without the end-game look-ahead). Raises
    :class:`TipsError` when no built-in strategy carries them."""
    from shedsim.plugins import PluginError, candidates, discover

    try:
        known = discover([])
    except PluginError as e:  # pragma: no cover - the built-in directory always exists
        raise TipsError(f"--base: {e}") from None
    for s in candidates(known):
        if all(t.param in s.params for t in TIPS):
            sp = s.traits.search_param
            return s.name + (f":{sp}=0" if sp else "")
    raise TipsError(
        f"--base: no built-in strategy has every tip's parameter "
        f"({', '.join(t.param for t in TIPS)}); give a strategy that has them"
    )


def default_opponents() -> str:
    """The default ``--opponents``: the reference opponent the built-in strategies' traits
    select (:func:`shedsim.plugins.select`, role ``reference``: ``greedy``). Raises
    :class:`TipsError`."""
    from shedsim.plugins import PluginError, choice

    try:
        return choice("reference")[0]
    except PluginError as e:
        raise TipsError(f"--opponents: {e}") from None


def default_base_text() -> str:
    """:func:`default_base` and its rule in words, for ``--help``."""
    try:
        base = default_base()
    except TipsError as e:
        return f"none ({e})"
    return f"{base}: the built-in strategy whose parameters carry every tip, its search off"


def select(names: list[str] | None) -> list[Tip]:
    """The tips named (all when ``names`` is empty). Raises :class:`TipsError` for an unknown
    name."""
    if not names:
        return list(TIPS)
    by = {t.key: t for t in TIPS}
    out = []
    for n in names:
        if n not in by:
            raise TipsError(f"--tip {n!r}: unknown tip; known: {', '.join(by)}")
        out.append(by[n])
    return out


def per_deal(match, games: int, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Play games ``start .. games-1`` (whole deals: ``start`` a multiple of the players) of a
    :func:`shedsim.analysis.sprt.open_match` match and return, per deal, the tested player's
    (entry 0's) loss share and mean place (float64[deals] each). Each deal's figures depend
    on that deal alone, so the deals may be played in pieces. Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.kernel.build import KernelError
    from shedsim.seeding import game_keys
    from shedsim.runs.simulate import SimulationError, describe_failure
    from shedsim.analysis.sprt import schedule
    from shedsim.rules.scoring import effective_places2

    p = match.spec.players
    n = games // p * p
    sched = schedule(p, start, n, True)
    dk, sk = game_keys(match.spec.seed, sched["index"], sched["deal"], match.spec.stream)
    try:
        rec = match.records(sched, dk, sk)  # (a bot's games on the reference engine)
    except KernelError as e:
        import dataclasses

        spec = dataclasses.replace(
            match.spec, schedule="head-to-head"
        )  # trace --schedule head-to-head
        raise SimulationError(describe_failure(spec, match.known, sched, dk, sk, e)) from None
    rows = np.arange(n - start)
    x = sched["x_seat"]
    lost = (rec["places"][rows, x] == p).astype(np.float64)
    place = effective_places2(rec["places"])[rows, x] / 2.0
    return lost.reshape(-1, p).mean(axis=1), place.reshape(-1, p).mean(axis=1)


def play_deals(
    spec: str,
    opponents: str,
    rules: RuleSet,
    players: int,
    seed: int,
    strategy_paths: tuple[str, ...],
    start: int,
    stop: int,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`per_deal` of games ``start .. stop-1`` of ``spec`` (one seat) against ``opponents``
    (the others): one piece of a variant of a cell, played in a worker (module level,
    picklable; the match is loaded once per process). Raises
    :class:`shedsim.runs.simulate.SimulationError`."""
    from shedsim.analysis.matches import cached_match

    return per_deal(
        cached_match(spec, opponents, rules, players, seed, strategy_paths), stop, start
    )


def _paired(d: np.ndarray) -> tuple[float, float, float, float]:
    """Mean of per-deal differences, its 95% t interval and the paired t test's p-value."""
    from scipy.stats import ttest_1samp

    from shedsim.stats import t_interval

    m, lo, hi = t_interval(len(d), float(d.sum()), float((d * d).sum()))
    if np.all(d == d[0]):
        p = 1.0 if d[0] == 0 else 0.0
    else:
        p = float(ttest_1samp(d, 0.0).pvalue)
    return float(m), float(lo), float(hi), p


def check_players(base: str, opponents: str, tips: list[Tip], strategy_paths: tuple[str, ...] = ()):
    """Check ``base`` and ``opponents`` before anything is played or written: compiled
    strategies with valid parameters (each inside its range), and ``base`` with every
    tip's parameter, at values inside its ranges. Returns the base's strategy. Raises
    :class:`TipsError` naming the option."""
    from shedsim.plugins import PluginError, compiled_strategy, discover, parse_spec

    try:
        known = discover(list(strategy_paths))
    except PluginError as e:
        raise TipsError(f"--strategy-path: {e}") from None
    from shedsim.bot.protocol import is_bot

    for option, spec in (("--base", base), ("--opponents", opponents)):
        if option == "--opponents" and is_bot(
            spec
        ):  # a bot (--bot): open_match starts and greets it
            continue
        try:
            s = compiled_strategy(known, spec, "tips")
        except PluginError as e:
            raise TipsError(f"{option}: {e}") from None
        if option == "--base":
            strategy, name = s, parse_spec(spec)[0]
    for t in tips:
        if t.param not in strategy.params:
            raise TipsError(
                f"--base {base!r}: strategy {name!r} has no parameter {t.param!r} (tip {t.key}); "
                f"the tips are parameters of {default_base().partition(':')[0]}"
            )
        try:
            strategy.check_param(t.param, t.follow)
            strategy.check_param(t.param, t.ignore)
        except PluginError as e:
            raise TipsError(f"--base {base!r}: tip {t.key}: {e}") from None
    return strategy


def games_problem(games: Any, players: Sequence[int]) -> str | None:
    """What is wrong with ``--games`` for tables of ``players`` seats (each count at least
    two deals under every rotation of the seats), or None."""
    if (
        isinstance(games, bool)
        or not isinstance(games, (int, np.integer))
        or games < 2 * max(players)
    ):
        least = 2 * max(players)
        return f"--games: at least {least} (two deals under every rotation), got {games!r}"
    return None


def run_tips(
    rule_sets: list[RuleSet],
    players: list[int],
    tips: list[Tip],
    games: int,
    base: str | None = None,
    opponents: str | None = None,
    seed: int = 0,
    strategy_paths: tuple[str, ...] = (),
    on_cell: Callable[[int, int], None] | None = None,
    pool=None,
):
    """Measure every tip in every rule set where it applies and at every player count the
    rule set allows (``base``: default :func:`default_base`; ``opponents``: default
    :func:`default_opponents`). Returns ``(table, skipped)``: a DataFrame with one row per (tip,
    rules,
    players) (columns: see :data:`COLUMNS`) and notes on what was skipped.
    ``on_cell(done, total)`` reports progress. ``pool`` (:class:`shedsim.runs.pool.Pool`;
    default: this process) plays each cell's two variants in pieces of whole deals, at least
    one per worker (:func:`shedsim.runs.pool.split_range`): the table is the same for any
    number of workers. Raises :class:`TipsError` for bad options and
    :class:`shedsim.runs.simulate.SimulationError` when a strategy fails."""
    import pandas as pd
    from statsmodels.stats.multitest import multipletests

    from shedsim.plugins import parse_spec
    from shedsim.analysis.sprt import rules_name
    from shedsim.analysis.tune import format_spec
    from shedsim.runs.pool import InProcess, split_range

    pool = InProcess() if pool is None else pool
    problem = games_problem(games, players)
    if problem:
        raise TipsError(problem)
    base = default_base() if base is None else base
    opponents = default_opponents() if opponents is None else opponents
    s = check_players(base, opponents, tips, strategy_paths)
    name, fixed = parse_spec(base)
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
    from shedsim.rules.scoring import objective_of

    rows = []
    for i, (t, rs, p) in enumerate(cells):
        follow = format_spec(name, {**start, t.param: t.follow})
        ignore = format_spec(name, {**start, t.param: t.ignore})
        pieces = split_range(0, games // p * p, pool.slots, p)
        got = pool.map(
            [
                (play_deals, (variant, opponents, rs, p, seed, strategy_paths, a, b))
                for variant in (follow, ignore)
                for a, b in pieces
            ]
        )
        lf, pf, li, pi = (
            np.concatenate([g[j] for g in half])
            for half in (got[: len(pieces)], got[len(pieces) :])
            for j in (0, 1)
        )
        ld, llo, lhi, lp = _paired(lf - li)
        pd_, plo, phi, pp = _paired(pf - pi)
        rows.append(
            {
                "tip": t.key,
                "rules": rules_name(rs),
                "players": p,
                "param": t.param,
                "follow": t.follow,
                "ignore": t.ignore,
                "deals": len(lf),
                "games": len(lf) * p,
                "loss_follow": lf.mean(),
                "loss_ignore": li.mean(),
                "loss_effect": ld,
                "loss_lo": llo,
                "loss_hi": lhi,
                "loss_p": lp,
                "place_follow": pf.mean(),
                "place_ignore": pi.mean(),
                "place_effect": pd_,
                "place_lo": plo,
                "place_hi": phi,
                "place_p": pp,
                "advice": t.advice,
                "objective": "loss" if objective_of(rs) == "lose" else "place",
            }
        )
        if on_cell is not None:
            on_cell(i + 1, len(cells))
    table = pd.DataFrame(rows)
    if len(table):
        ps = np.concatenate([table["loss_p"].to_numpy(), table["place_p"].to_numpy()])
        holm = multipletests(ps, method="holm")[1]
        table.insert(table.columns.get_loc("loss_p") + 1, "loss_p_holm", holm[: len(table)])
        table.insert(table.columns.get_loc("place_p") + 1, "place_p_holm", holm[len(table) :])
        table["threshold"] = [PRACTICAL[o] for o in table["objective"]]
        table.insert(3, "verdict", [verdict(r) for r in table.itertuples()])
    return table, skipped


VERDICTS = (
    "helps",
    "hurts",
    "helps a little",
    "hurts a little",
    "no practical effect",
    "no clear effect",
)
"""Every verdict (:func:`verdict`), in the order the summary counts them."""


def verdict(row) -> str:
    """``helps`` or ``hurts`` (the objective's figure, Holm p < 0.05, by at least the
    practical threshold), ``helps a little`` or ``hurts a little`` (significant, below the
    threshold, its 95% interval reaching beyond it), ``no practical effect`` (the whole
    95% interval within plus or minus the threshold) or ``no clear effect`` (see
    :data:`DEFINITIONS`). ``row`` has ``objective`` (``loss`` or ``place``) and that
    figure's ``_effect``, ``_lo``, ``_hi`` and ``_p_holm``."""
    m = getattr(row, "objective", "loss")
    eff, lo, hi, p = (getattr(row, f"{m}_{k}") for k in ("effect", "lo", "hi", "p_holm"))
    small = PRACTICAL[m]
    if p < 0.05 and abs(eff) >= small:
        return "helps" if eff < 0 else "hurts"
    if -small < lo and hi < small:
        return "no practical effect"
    if p < 0.05:
        return "helps a little" if eff < 0 else "hurts a little"
    return "no clear effect"


def plot_forest(table, path: Path, subtitle: str = "") -> Path:
    """``forest.png``: :func:`shedsim.output.charts.tips.plot_forest` with the :data:`PRACTICAL`
    thresholds as its grey band."""
    from shedsim.output.charts.tips import plot_forest as draw

    return draw(table, path, subtitle, PRACTICAL)


def _advice(text: str) -> str:
    """A tip's advice without the note on what ignoring it means."""
    return text.split(" (ignored")[0]


def _figure(row, m: str, which: str) -> str:
    v = getattr(row, f"{m}_{which}")
    return f"{100 * v:.1f}%" if m == "loss" else f"{v:.3f}"


def _effect(row, m: str) -> str:
    e, lo, hi = (getattr(row, f"{m}_{k}") for k in ("effect", "lo", "hi"))
    if m == "loss":
        return f"{100 * e:+.2f} pp [{100 * lo:+.2f}, {100 * hi:+.2f}]"
    return f"{e:+.3f} places [{lo:+.3f}, {hi:+.3f}]"


def row_sentence(row) -> str:
    """One row in words, in the tip's own wording: where, the verdict, and the figure it
    rests on (loss rate or mean place, following vs ignoring the tip, the effect and its
    95% interval, the Holm p-value); a verdict of no practical effect states the threshold,
    one of a little effect the threshold and the interval's far end."""
    m = row.objective
    name = "the loss rate" if m == "loss" else "the mean place"
    small = (
        f"{100 * PRACTICAL[m]:g} percentage point" if m == "loss" else f"{PRACTICAL[m]:g} places"
    )
    head = f'"{_advice(row.advice)}" ({row.rules}, {row.players} players)'
    p = getattr(row, f"{m}_p_holm")
    figs = (
        f"{name} {_figure(row, m, 'follow')} following it, {_figure(row, m, 'ignore')} "
        "ignoring it: "
        f"{_effect(row, m)}, Holm p {'< 1e-300' if p == 0 else f'{p:.2g}'}"
    )
    if row.verdict == "helps":
        return f"{head} helps: {figs}"
    if row.verdict == "hurts":
        return f"{head} hurts: {figs}"
    if row.verdict in ("helps a little", "hurts a little"):
        far = (
            -getattr(row, f"{m}_lo") if row.verdict == "helps a little" else getattr(row, f"{m}_hi")
        )
        most = f"{100 * far:.2f} pp" if m == "loss" else f"{far:.3f} places"
        return (
            f"{head} {row.verdict}: significant, by less than {small}, possibly up to "
            f"{most}: {figs}"
        )
    if row.verdict == "no practical effect":
        return f"{head}: no practical effect, the change is below {small}: {figs}"
    return f"{head}: no clear effect, not significant and not ruled out beyond {small}: {figs}"


def summary(table) -> list[str]:
    """Per tip (in :data:`TIPS` order), one line: in how many of the rule sets and
    player counts measured it has each verdict (:data:`VERDICTS`), then where it helps,
    hurts, helps a little or hurts a little, under that verdict."""
    out = []
    order = {t.key: k for k, t in enumerate(TIPS)}
    for key in sorted(set(table["tip"]), key=lambda k: order.get(k, len(order))):
        rows = table[table["tip"] == key]
        counts = rows["verdict"].value_counts()
        parts = [f"{v} in {int(counts[v])}" for v in VERDICTS if v in counts]
        where = "; ".join(
            f"{v}: "
            + ", ".join(f"{r.rules} {r.players}p" for r in rows.itertuples() if r.verdict == v)
            for v in VERDICTS[:4]
            if v in counts
        )
        out.append(
            f'"{_advice(rows["advice"].iloc[0])}": {"; ".join(parts)} of {len(rows)} rule set '
            "and player "
            f"count(s) measured" + (f" ({where})" if where else "")
        )
    return out


def headline(table) -> list[str]:
    """The summary (one line per tip, :func:`summary`), then one sentence per row
    (:func:`row_sentence`)."""
    return summary(table) + [row_sentence(r) for r in table.itertuples()]
