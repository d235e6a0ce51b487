"""Advice in ``shedsim play``: the hint for the seat to move, or for the swap (``hint``), and
why a bot played its move (``why``), from the playouts of
:func:`shedsim.analysis.hint.rank_moves`. :class:`Advice` is a part of
:class:`shedsim.analysis.play.Game` (it reads the game's state, seats and settings).
"""

from __future__ import annotations

import numpy as np

from shedsim.base.isolate import ChildTimeout, ProcessCrash
from shedsim.rules.cards import pack, unpack
from shedsim.rules.engine import StrategyError, legal_moves
from shedsim.rules.narrate import cards_text, seat_name, swap_changes
from shedsim.rules.scoring import FIGURE_NAMES


class InputError(ValueError):
    """A line that is not a legal move or a known command here; the game is unchanged."""


def strategy_rule(player) -> str:
    """The decision rule of a plugin in words: the ``Move:`` paragraph of its module
    docstring when there is one, else its one-line ``DESCRIPTION``."""
    strategy = getattr(player, "strategy", None)
    doc = getattr(getattr(strategy, "module", None), "__doc__", None) or ""
    for para in doc.replace("\nSwap:", "\n\nSwap:").split("\n\n"):
        text = " ".join(para.split())
        if text.startswith("Move:"):
            return text[len("Move:") :].strip()
    return getattr(strategy, "description", "") or "(no description)"


def _pct(iv) -> str:
    return f"{100 * iv.value:5.1f}% ({100 * iv.lo:4.1f}-{100 * iv.hi:4.1f})"


def _figure(objective: str, m) -> str:
    """One figure of a move's :class:`shedsim.analysis.hint.MoveFigures` with its interval."""
    if objective == "place":
        return f"expected place {m.place.value:.2f} ({m.place.lo:.2f}-{m.place.hi:.2f})"
    return f"{FIGURE_NAMES[objective]} {_pct(m.figure(objective)).strip()}"


def _swap_rule(player) -> str:
    doc = getattr(getattr(getattr(player, "strategy", None), "module", None), "__doc__", None) or ""
    for para in doc.replace("\nSwap:", "\n\nSwap:").split("\n\n"):
        text = " ".join(para.split())
        if text.startswith("Swap:"):
            return text[len("Swap:") :].strip()
    return "see `shedsim strategies`"


def _played_lines(res, number: dict[str, int]) -> list[str]:
    """``hint``'s lines by playouts (or solved exactly): the moves with their figures."""
    how = (
        "solved exactly (two seats, the stock empty, no face-down card, the other hand "
        "known: every position searched)"
        if res.solved
        else f"playouts by {res.policy} for every seat, the unseen cards re-dealt per sample"
    )
    lines = [
        f"hint: {how}; {res.ranked_by()}",
        "   #  move          expected place (95%)   P(lose) (95%)        P(first) (95%)",
    ]
    if res.note:
        lines.insert(1, f"  {res.note}")
    for m in res.moves:
        note = (
            f"  {m.solved.words()}"
            if m.solved
            else f"  same as {m.same_as}"
            if m.same_as
            else (f"  dropped after {m.dropped_after}" if m.dropped_after else "")
        )
        lines.append(
            f"  {number.get(m.move, 0):2d}. {m.move:<12s}  {m.place.value:4.2f} "
            f"({m.place.lo:.2f}-"
            f"{m.place.hi:.2f})      {_pct(m.p_lose)}  {_pct(m.p_first)}{note}"
        )
    return lines


def _searched_lines(res, number: dict[str, int]) -> list[str]:
    """The ``search`` command's lines: the moves as the search ranked them, with its
    estimates (no interval) and visits."""
    lines = [
        f"search: {res.policy}'s search from what you see; {res.ranked_by()}",
        "   #  move          expected place  P(lose)  P(first)    visits",
    ]
    for m in res.moves:
        same = f"  same as {m.same_as}" if m.same_as else ""
        lines.append(
            f"  {number.get(m.move, 0):2d}. {m.move:<12s}  {m.place.value:14.2f}  "
            f"{100 * m.p_lose.value:6.1f}%  {100 * m.p_first.value:7.1f}%  "
            f"{m.samples:8,d}{same}"
        )
    return lines


class Advice:
    """The hint and the reason of :class:`shedsim.analysis.play.Game` (a base class: the
    methods read the game's ``state``, ``players``, ``hint_policy`` and the rest)."""

    def hint_lines(self, search: bool = False) -> list[str]:
        """``hint``: the person's legal moves ranked by playouts from what they can see
        (:func:`shedsim.analysis.hint.rank_moves`), numbered as the move list; ``search``
        (the ``search`` command): ranked by the strongest player's search instead
        (``hint --search``)."""
        from shedsim.analysis.hint import HintError, PolicyCrash, rank_moves

        if not self.swapped:
            return self._swap_hint()
        if self.state.to_move != self.you:
            raise InputError("you are out: nothing to hint")
        self.hints += 1
        try:
            res = rank_moves(
                self.state,
                self.you,
                None if search else self.hint_policy,
                None if search else self.hint_budget,
                seed=self.hints,
                strategy_paths=self.strategy_paths,
                why=True,
                objective=self.hint_objective,
                objective_option="--hint-objective",
                search=search,  # hint: playouts; search: the strongest player's search
            )
        except HintError as e:
            raise InputError(f"hint: {e}") from None
        except PolicyCrash as e:  # the hint policy failed: no hint, but the game goes on
            raise InputError(f"hint: {e}; no hint this time, the game goes on") from None
        number = {str(m): k for k, m in enumerate(legal_moves(self.state), 1)}
        lines = (_searched_lines if res.searched else _played_lines)(res, number)
        lines.append(f"  {res.stop_text()}")
        if res.why:
            lines.append(f"  why: {res.why}")
        return lines

    def _swap_hint(self) -> list[str]:
        """The swap phase has no playouts: say what the hint policy's own swap would do."""
        from shedsim.plugins import PluginError, discover, parse_spec

        try:
            name, overrides = parse_spec(self.hint_policy)
            known = discover(list(self.strategy_paths))
            p = known.require(name).player(self.hint_policy, overrides)
            p.isolated = known[name].outside
        except PluginError as e:
            raise InputError(f"hint: policy {self.hint_policy!r}: {e}") from None
        me = self.state.seats[self.you]
        rng = np.array([self.seed], dtype=np.uint64)  # a copy: the game's stream is not touched
        try:
            up = unpack(int(p.swap(pack(me.hand + me.face_up), self.you, self.n, self.ra, rng)))
        except (ProcessCrash, ChildTimeout) as e:
            raise StrategyError(
                f"hint: policy {self.hint_policy!r} {e}, choosing your face-up cards"
            ) from None
        k = self.choices.index(sorted(up)) + 1
        return [
            f"hint: {self.hint_policy} would choose {k}: face-up {cards_text(sorted(up))} "
            f"({swap_changes(self.dealt_up[self.you], up)})",
            f"  its rule: {_swap_rule(p)}",
        ]

    def why_lines(self) -> list[str]:
        """``why``: the last bot move, the bot's decision rule in words, and where playouts
        from what that bot could see (its own hand, the public cards) rank its move; the
        other moves it had are not named (they would show its hand)."""
        from shedsim.analysis.hint import HintError, PolicyCrash, rank_moves
        from shedsim.plugins import is_random_baseline

        b = self.last_bot
        if b is None:
            return ["why: no bot has moved yet"]
        lines = [f"why: {b.text.split('  |')[0]}", f"  {b.label}'s rule: {strategy_rule(b.player)}"]
        strategy = getattr(b.player, "strategy", None)
        if strategy is not None and is_random_baseline(strategy):
            lines.append(
                f"  ({strategy.name} chose among its legal moves with equal chance: no reason "
                "beyond the coin)"
            )
            return lines
        legal = legal_moves(b.before)
        if len(legal) == 1:
            lines.append("  it was the only legal move")
            return lines
        try:
            res = rank_moves(
                b.before,
                b.seat,
                self.hint_policy,
                max(100, self.hint_budget // 2),
                seed=1000 + b.before.moves,
                strategy_paths=self.strategy_paths,
                objective=self.hint_objective,
                objective_option="--hint-objective",
            )
        except (HintError, PolicyCrash) as e:
            lines.append(f"  (no playouts: {e})")
            return lines
        order = [m for m in res.moves if m.same_as is None]
        mine = next((m for m in res.moves if m.move == str(b.move)), None)
        if mine is None:
            return lines
        ref = mine if mine.same_as is None else next(m for m in res.moves if m.move == mine.same_as)
        obj = res.objective
        if res.solved:
            best = order[0]
            lines.append(
                f"  exact search from what {seat_name(b.seat, self.names)} could see (an end "
                f"game of perfect information): its move {ref.solved.words()} against best "
                "play"
                + (
                    "; no other move it had does better"
                    if best.solved.sort_key() == ref.solved.sort_key()
                    else f"; {best.move} {best.solved.words()}"
                )
            )
            return lines
        head = (
            f"  playouts from what {seat_name(b.seat, self.names)} could see ({res.policy} for "
            "every seat, "
            f"{ref.samples} samples, {res.ranked_by()}): its move has {_figure(obj, ref)}, "
            + ", ".join(_figure(o, ref) for o in ("lose", "place", "first") if o != obj)
        )
        if order[0] is ref:
            lines.append(head + f"; no other move it had does better in {FIGURE_NAMES[obj]}")
        elif ref.dropped_after is None:  # the race could not separate the best from it
            lines.append(
                head + f"; another move it had looks better ({_figure(obj, order[0])}), but within "
                "noise: "
                f"the playouts do not separate the two"
            )
        else:
            lines.append(
                head
                + f"; the playouts prefer another move it had ({_figure(obj, order[0])}; its own "
                f"was dropped as worse after {ref.dropped_after} samples)"
            )
        return lines
