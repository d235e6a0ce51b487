"""The reason for a hint in words (``shedsim hint --why``): what a move does at once, from
the rules and the public pile (:func:`move_effect`), and why the top move beats the
runner-up, from the playouts of :func:`shedsim.analysis.hint.rank_moves` (:func:`explain`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shedsim.rules.cards import rank_name
from shedsim.rules.engine import GameState, Move
from shedsim.rules.scoring import FIGURE_NAMES


def _count_word(n: int) -> str:
    return {
        1: "first",
        2: "second",
        3: "third",
        4: "fourth",
        5: "fifth",
        6: "sixth",
        7: "seventh",
        8: "eighth",
    }.get(n, f"{n}th")


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def move_effect(state: GameState, move: Move, facts: dict[str, float]) -> str:
    """What ``move`` does at once, in words, from the rules and the public pile (and, for
    a flip or a gamble, the share of samples in which the card landed)."""
    rules = state.rules
    parts: list[str] = []
    if move.kind == "pickup":
        return f"{move} takes the {len(state.pile)} cards of the pile into your hand"
    if move.kind in ("flip", "gamble"):
        what = "the face-down card" if move.kind == "flip" else "the stock's top card"
        text = (
            f"{move} turns {what}: it lands in {_pct(1 - facts['pickup'])} of samples (else "
            "you pick up)"
        )
        if facts["burn"] > 0:
            text += f" and burns the pile in {_pct(facts['burn'])}"
        return text
    r, n = move.rank, move.count + move.extra
    name = rank_name(r)
    cards = f"the {name}" if n == 1 else f"the {n} {name}s"
    top, run = state.top_run()
    if r in rules.burn:
        parts.append(f"{cards} {'burns' if n == 1 else 'burn'} the pile")
    elif top == r and run + n >= rules.burn_run:
        if n == 1:
            parts.append(
                f"the {name} is the {_count_word(run + n)} of its rank on top: the pile burns"
            )
        else:
            parts.append(f"{cards} make {run + n} of a kind on top: the pile burns")
    elif n >= rules.burn_run:
        parts.append(f"{cards} make {n} of a kind: the pile burns")
    elif r in rules.reset:
        parts.append(f"{cards} {'resets' if n == 1 else 'reset'} the pile: anything goes on it")
    elif r in rules.invisible:
        eff = state.effective_top()
        parts.append(
            f"{cards} {'is' if n == 1 else 'are'} invisible: the next player must still beat "
            f"the {rank_name(eff)}"
            if eff
            else f"{cards} {'is' if n == 1 else 'are'} invisible"
        )
    elif r in rules.low:
        parts.append(f"the next player must play a {name} or lower (or a magic card)")
    if r in rules.skip:
        parts.append(f"it skips {n} player{'s' if n > 1 else ''}")
    if r in rules.reverse and n % 2 == 1:
        parts.append("it reverses the direction")
    if facts["out_now"] >= 0.999:
        parts.append("you are out")
    elif facts["again"] >= 0.999:
        parts.append("you move again")
    if not parts:
        parts.append(
            f"the next player must beat the {name}"
            if r not in rules.magic
            else f"{cards} {'goes' if n == 1 else 'go'} on anything"
        )
    return "; ".join(parts)


_FACT_WORDS = {
    "next_out": "the next player goes out at once",
    "pickup_next": "you pick up on your next turn",
}


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


_CLAIM = {
    "lose": (
        "you lose {a} against {b}",
        "{x} avoids a loss that {y} suffers in {w} of them, the reverse in {l}",
    ),
    "place": (
        "expected place {a} against {b}",
        "{x} finishes ahead of {y} in {w} of them, behind in {l}",
    ),
    "first": (
        "you go out first {a} against {b}",
        "{x} goes out first where {y} does not in {w} of them, the reverse in {l}",
    ),
}
"""How :func:`explain` states the ranking's own figure and the per-sample comparison."""


def _figure_text(objective: str, p: np.ndarray, players: int) -> str:
    if objective == "place":
        return f"{p.mean():.2f}"
    return _pct((p == players).mean() if objective == "lose" else (p == 1).mean())


def explain(state: GameState, result: Any, places: np.ndarray, column: dict[str, int]) -> str:
    """The reason, from the playouts, for the top move against the runner-up (``result``: a
    :class:`shedsim.analysis.hint.HintResult`): the
    ranking's own figure (``result.objective``) for both on the same samples and how often
    each did better in it, whether the race separated the two (else: within noise), the
    other figures (saying which favour the runner-up: a
    trade-off the ranking settles by its objective), what the top move does at once, and
    the facts of the playouts that differ most between the two."""
    from shedsim.rules.scoring import per_sample

    ranked = [m for m in result.moves if m.same_as is None]
    if len(ranked) == 1:
        return f"{ranked[0].move} is the only move."
    a, b = ranked[0], ranked[1]
    n = min(a.samples, b.samples)
    pa, pb = places[:n, column[a.move]], places[:n, column[b.move]]
    obj, players = result.objective, result.players
    ca, cb = per_sample(pa, players, obj), per_sample(pb, players, obj)
    better, worse = float((ca < cb).mean()), float((ca > cb).mean())
    ma, mb = Move.parse(a.move), Move.parse(b.move)
    claim, pairs = _CLAIM[obj]
    lines = [
        f"{a.move} rather than {b.move}, {result.ranked_by()}: "
        + claim.format(a=_figure_text(obj, pa, players), b=_figure_text(obj, pb, players))
        + f" on the same {n} samples; "
        + pairs.format(x=a.move, y=b.move, w=_pct(better), l=_pct(worse))
        + "."
    ]
    if b.dropped_after is None and not result.tied:
        lines.append(
            f"The race does not separate the two in {FIGURE_NAMES[obj]} with 95% confidence: "
            "within noise, "
            f"either is as good."
        )
    favour: dict[str, list[str]] = {"a": [], "b": [], "=": []}
    for other, label in (
        ("place", "expected place"),
        ("lose", "losing"),
        ("first", "going out first"),
    ):
        if other == obj:
            continue
        xa, xb = per_sample(pa, players, other).mean(), per_sample(pb, players, other).mean()
        ta, tb = _figure_text(other, pa, players), _figure_text(other, pb, players)
        # equal as printed is equal as read: "2.34 against 2.34" favours neither
        side = "=" if xa == xb or ta == tb else "a" if xa < xb else "b"
        favour[side].append(f"{label} {ta} against {tb}")

    def verb(items: list[str]) -> str:
        return "favour" if len(items) > 1 else "favours"

    if favour["a"]:
        lines.append(_sentence(" and ".join(favour["a"]) + f" also {verb(favour['a'])} {a.move}"))
    if favour["b"]:
        lines.append(
            _sentence(
                " and ".join(favour["b"]) + f" {verb(favour['b'])} {b.move}: a trade-off, and the "
                f"ranking follows {FIGURE_NAMES[obj]}"
            )
        )
    if favour["="]:
        lines.append(
            _sentence(
                " and ".join(favour["="]) + (": equal" if len(favour["="]) == 1 else ": equal each")
            )
        )
    lines.append(_sentence(move_effect(state, ma, a.facts)))
    diffs = sorted(((abs(a.facts[k] - b.facts[k]), k) for k in _FACT_WORDS), reverse=True)
    said = 0
    for d, k in diffs:
        if d < 0.05:
            break
        worse_move, x, y = (
            (b, b.facts[k], a.facts[k]) if b.facts[k] > a.facts[k] else (a, a.facts[k], b.facts[k])
        )
        other = a if worse_move is b else b
        lines.append(
            f"After {worse_move.move} {_FACT_WORDS[k]} in {_pct(x)} of samples "
            f"(after {other.move}: {_pct(y)})."
        )
        said += 1
    if said == 0:
        lines.append(_sentence(f"{mb}: {move_effect(state, mb, b.facts)}"))
    others = []
    for m in ranked[2:]:
        for k, words in _FACT_WORDS.items():
            if m.facts[k] >= 0.5 and m.facts[k] - a.facts[k] >= 0.25 and len(others) < 2:
                others.append(f"after {m.move} {words} in {_pct(m.facts[k])} of samples")
                break
    if others:
        lines.append(_sentence("And " + "; ".join(others)))
    return " ".join(lines)
