"""A comparison's findings in words: effects and p-values as text, the starting player's
fairness, each variant's findings (:func:`findings`) and the headline (:func:`headline`).
Each function takes plain rows or a comparison's result (its ``effects``, ``variants``,
``plan`` and ``info``), never imports it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shedsim.analysis.compare.statistics import MIN_LOSER_GAMES_PER_SEAT, starter_verdict
from shedsim.output.kinds import rate_like


def format_effect(metric: str, effect: float, lo: float, hi: float) -> str:
    """``+12.3 moves [+10.1, +14.5]``; rates and skill edges in percentage points."""
    if metric == "mean_moves":
        return f"{effect:+.1f} moves [{lo:+.1f}, {hi:+.1f}]"
    if rate_like(metric):
        return f"{100 * effect:+.2f} pp [{100 * lo:+.2f}, {100 * hi:+.2f}]"
    return f"{effect:+.3f} per game [{lo:+.3f}, {hi:+.3f}]"


def format_p(p: float) -> str:
    """A p-value as :func:`shedsim.output.kinds.format_p` writes it: 2 significant digits,
    more where fewer would put it on the other side of 0.05 (``0.0496``, never ``0.05``
    for a significant one)."""
    from shedsim.output.kinds import format_p as fp

    return fp(p)


def _pc(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def starter_sentence(row: dict[str, Any], players: int) -> str:
    """The starter's fairness in one variant, in words: ``under shithead the starting
    player is favoured: it loses 20.4% [19.9, 20.9] of games, its fair share being 24.8%
    (p ...)``."""
    v, fair = row["starter_loss_rate"], row["starter_fair_rate"]
    verdict = starter_verdict(row)
    if v != v:
        return (
            f"under {row['variant']} the start's fairness is not measured: {verdict} "
            f"({row.get('loser_games', 0):,} of {row['games']:,} games; at least "
            f"{MIN_LOSER_GAMES_PER_SEAT * players:,} are needed)"
        )
    what = {
        "favoured": "the starting player is favoured",
        "disfavoured": "the starting player is at a disadvantage",
        "fair within noise": "the start is fair within noise",
    }[verdict]
    return (
        f"under {row['variant']} {what}: the starter loses {_pc(v)} "
        f"[{_pc(row['starter_loss_lo'])}, "
        f"{_pc(row['starter_loss_hi'])}] of games, its fair share being {_pc(fair)} "
        f"(1/{players} of the games "
        f"with a loser; Holm p over the variants "
        f"{format_p(row.get('starter_loss_p_holm', math.nan))})"
    )


_SHIFT_WORDS = {
    "pickups_per_game": ("more pick-ups", "fewer pick-ups"),
    "burns_per_game": ("more burns", "fewer burns"),
}


def _shift_sentence(r: dict[str, Any], vrow: dict[str, Any], brow: dict[str, Any]) -> str | None:
    """A length or count finding in words; None when no test of it is significant.

    Game length: the typical game (the medians and :func:`median_test`), the mean (t test)
    and, when significant, the direction of the rank test of the per-deal lengths (which
    weighs the deals' sizes of change, so it can point with the mean against the median).
    Counts: the typical deal (the rank test's direction) and the mean."""
    mean_sig, rank_sig = bool(r["significant"]), bool(r.get("significant_rank", False))
    med_sig = bool(r.get("significant_median", False))
    if not (mean_sig or rank_sig or med_sig):
        return None
    rdir, mdir = r.get("rank_direction", math.nan), float(np.sign(r["effect"]))
    eff = format_effect(r["metric"], r["effect"], r["lo"], r["hi"])
    pr, pt = (
        f"rank test Holm p {format_p(r['p_rank_holm'])}",
        f"t test Holm p {format_p(r['p_holm'])}",
    )
    if r["metric"] == "mean_moves":

        def w(d: float) -> str:
            return "longer" if d > 0 else "shorter"

        rel = f", {100 * r['relative']:+.0f}%" if r["relative"] == r["relative"] else ""
        sdir = r.get("median_shift", math.nan)
        med = (
            f"median {r['median_baseline']:.0f} -> {r['median_variant']:.0f} moves; median "
            "test Holm p "
            f"{format_p(r['p_median_holm'])}"
        )
        mean = f"{r['baseline_value']:.0f} -> {r['variant_value']:.0f} moves, {eff}{rel}; {pt}"
        if med_sig and mean_sig and sdir == mdir:
            text = f"games get {w(sdir)}: the typical game ({med}) and the mean ({mean})"
        elif med_sig and mean_sig:
            text = (
                f"the typical game gets {w(sdir)} ({med}) but the mean "
                f"{'rises' if mdir > 0 else 'falls'} "
                f"({mean}): {'fewer' if sdir > 0 else 'more'} very long games"
            )
        elif med_sig:
            text = (
                f"the typical game gets {w(sdir)} ({med}) while the mean does not change "
                f"significantly ({mean})"
            )
        elif mean_sig:
            text = (
                f"games get {w(mdir)} on average ({mean}) while the typical game does not change "
                f"significantly ({med})"
            )
        else:
            text = f"neither the typical game ({med}) nor the mean ({mean}) changes significantly"
        if rank_sig and med_sig and rdir == sdir:
            text += (
                "; the rank test of the per-deal lengths agrees (Holm p "
                f"{format_p(r['p_rank_holm'])})"
            )
        elif rank_sig:
            text += (
                f"; the rank test of the per-deal lengths points {w(rdir)} (Holm p "
                f"{format_p(r['p_rank_holm'])}), "
                f"as it weighs how much each deal changes"
            )
        return text
    up, down = _SHIFT_WORDS[r["metric"]]

    def c(d: float) -> str:
        return up if d > 0 else down

    mean = f"{r['baseline_value']:.2f} -> {r['variant_value']:.2f} per game, {eff}"
    if mean_sig and rank_sig and rdir == mdir:
        return f"{c(mdir)}, in the typical deal and on average: {mean} ({pr}, {pt})"
    if mean_sig and rank_sig:
        return (
            f"{c(rdir)} in the typical deal ({pr}) but {c(mdir).split()[0]} on average "
            f"({mean}; {pt})"
        )
    if rank_sig:
        return (
            f"{c(rdir)} in the typical deal ({pr}) while the mean does not change "
            f"significantly ({mean}; {pt})"
        )
    return (
        f"{c(mdir)} on average ({mean}; {pt}) while the typical deal does not change "
        f"significantly ({pr})"
    )


def _edge_sentences(rows: list[dict[str, Any]], reference: str) -> list[str]:
    """Skill-edge findings, grouped by direction: more skill (a strategy's edge over the
    reference grows) or more luck (it falls)."""
    out = []
    for sign, words in ((1, "more skill"), (-1, "more luck")):
        got = [r for r in rows if np.sign(r["effect"]) == sign]
        if not got:
            continue
        each = [
            f"{r['metric'][11:-1]} {'rises' if sign > 0 else 'falls'} "
            f"{100 * r['baseline_value']:.1f} -> "
            f"{100 * r['variant_value']:.1f} pp "
            f"({format_effect(r['metric'], r['effect'], r['lo'], r['hi'])}; "
            f"Holm p {format_p(r['p_holm'])})"
            for r in got
        ]
        out.append(f"{words}: the edge over {reference} of " + ", ".join(each))
    return out


def _fair_sentence(r: dict[str, Any], vrow: dict[str, Any], brow: dict[str, Any], n: int) -> str:
    """A starter's-loss finding from the ``starter_loss_share`` effect (the starter's share
    of the games with a loser, whose fair value is 1/N in every variant, however many games
    end unfinished): fairer or less fair (that share nearer to or farther from 1/N), with the
    variant's own verdict (:func:`starter_verdict`)."""
    b, v, fair = r["baseline_value"], r["variant_value"], 1 / n
    db, dv = b - fair, v - fair
    was, now = starter_verdict(brow), starter_verdict(vrow)
    verdict = "fairer" if abs(dv) < abs(db) else "less fair"
    if now == "fair within noise":
        how = "the start becomes fair within noise"
    elif was == "fair within noise":
        how = f"the starter becomes {'favoured' if now == 'favoured' else 'disadvantaged'}"
    elif was != now:
        how = (
            "the starter's advantage turns into a disadvantage"
            if was == "favoured"
            else "the starter's disadvantage turns into an advantage"
        )
    else:
        what = "advantage" if db < 0 else "disadvantage"
        how = f"the starter's {what} {'shrinks' if abs(dv) < abs(db) else 'grows'}"
    return (
        f"{verdict}: {how}, the starter losing {_pc(b, 2)} -> {_pc(v, 2)} of the games with a "
        f"loser against a fair share of {_pc(fair, 2)} "
        f"({format_effect(r['metric'], r['effect'], r['lo'], r['hi'])}; Holm p "
        f"{format_p(r['p_holm'])})"
    )


def _unfinished_sentence(r: dict[str, Any]) -> str:
    more = "more" if r["effect"] > 0 else "fewer"
    return (
        f"{more} games end unfinished: {_pc(r['baseline_value'], 2)} -> "
        f"{_pc(r['variant_value'], 2)} "
        f"({format_effect(r['metric'], r['effect'], r['lo'], r['hi'])}; Holm p "
        f"{format_p(r['p_holm'])})"
    )


def findings(res) -> dict[str, list[str]]:
    """Every finding of every variant of ``res`` (a
    :class:`~shedsim.analysis.compare.results.ComparisonResult`) in words, keyed by variant label
    (variants with none are left out): each Holm-significant effect of any of its tests
    (the effect's test, the rank test or the median test), as what it means for a player:
    longer or shorter typical game (median and rank test) and mean, more or fewer pick-ups
    and burns, more skill or more luck (skill edges), fairer or less fair (the starter's
    share of the games with a loser toward or away from 1/N; its loss rate over all games is
    not read as fairness, since unfinished games move its fair share), more or fewer
    unfinished games. Measures that need games with a loser make no finding where they are
    not tested (too few such games). Each part quotes the values, the effect's 95%
    interval and the Holm p-value it rests on."""
    e = res.effects
    v = res.variants.set_index("variant", drop=False)
    base = res.info["baseline"]
    ref = res.info["reference_strategy"]
    brow = v.loc[base].to_dict()
    out: dict[str, list[str]] = {}
    for lab in [x.label for x in res.plan.variants[1:]]:
        rows = {r["metric"]: r for r in e[e["variant"] == lab].to_dict("records")}
        vrow = v.loc[lab].to_dict()
        parts = []
        for metric in ("mean_moves",):
            if metric in rows and (t := _shift_sentence(rows[metric], vrow, brow)):
                parts.append(t)
        parts += _edge_sentences(
            [r for m, r in rows.items() if m.startswith("skill_edge[") and r["significant"]], ref
        )
        if "starter_loss_share" in rows and rows["starter_loss_share"]["significant"]:
            parts.append(
                _fair_sentence(rows["starter_loss_share"], vrow, brow, res.info["players"])
            )
        if "unfinished_rate" in rows and rows["unfinished_rate"]["significant"]:
            parts.append(_unfinished_sentence(rows["unfinished_rate"]))
        for metric in ("pickups_per_game", "burns_per_game"):
            if metric in rows and (t := _shift_sentence(rows[metric], vrow, brow)):
                parts.append(t)
        if parts:
            out[lab] = parts
    return out


def headline(res, limit: int | None = None) -> list[str]:
    """See :meth:`~shedsim.analysis.compare.results.ComparisonResult.headline` (``res``, a
    comparison's result): the baseline's fairness in words
    (:func:`starter_sentence`), then one sentence per variant with every finding of
    :func:`findings` (at most ``limit`` variants, in the order given; None: all), then a
    count of the significant comparisons."""
    e = res.effects
    base = res.info["baseline"]
    n_var = len(res.plan.variants) - 1
    v = res.variants.set_index("variant", drop=False)
    out = [_sentence(starter_sentence(v.loc[base].to_dict(), res.info["players"]))]
    found = findings(res)
    n_tests = int(sum(e[c].notna().sum() for c in ("p_value", "p_rank", "p_median")))
    if not found:
        out.append(
            f"no variant differs significantly from the baseline {base} in any metric "
            f"({len(e)} comparisons, {n_tests} tests, Holm-corrected 5%)"
        )
        return out
    for lab, parts in list(found.items())[:limit]:
        out.append(f"{lab} against {base}: " + "; ".join(parts) + ".")
    sig = int(e["significant_any"].sum())
    out.append(
        f"{sig} of {len(e)} comparisons significant by any of their tests (the effect's test, "
        "the rank test or the median test) "
        f"({n_tests} tests, Holm-corrected 5%) across {n_var} variant(s) vs {base}; each "
        "interval quoted is a 95% interval of its comparison alone, not corrected, so it can "
        "exclude zero where the corrected test is not significant"
    )
    return out


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
