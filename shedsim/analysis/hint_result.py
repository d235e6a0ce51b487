"""What ``shedsim hint`` returns: :class:`HintResult` (the moves ranked, how the ranking
stopped, the verdict of a solved position), each move's :class:`MoveFigures` and its
:class:`Interval` estimates, the ways a ranking stops (``STOP_*``) and :class:`HintError`.
The rankings themselves are :func:`shedsim.analysis.hint.rank_moves`'s (playouts, an exact
end game) and :mod:`shedsim.analysis.hint_search`'s (a search)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from shedsim.analysis.endgame import MoveValue, Solution
from shedsim.rules.scoring import FIGURE_NAMES

STOP_SEPARATED = "separated"
STOP_TIED = "tied"
STOP_BUDGET = "budget"
STOP_SINGLE = "single"
STOP_SOLVED = "solved"
STOP_SEARCH = "searched"
"""``HintResult.stopped`` of a ranking by search (``hint --search``)."""


class HintError(ValueError):
    """A position, seat or option ``rank_moves`` cannot work with; the message says which."""


@dataclass
class Interval:
    """An estimate with its 95% interval (``lo`` and ``hi`` NaN: an estimate without one,
    as a search's; ``value`` NaN: no estimate)."""

    value: float
    lo: float
    hi: float

    def to_json(self) -> dict[str, float | None]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(float(x), 4)

        return {"value": num(self.value), "lo": num(self.lo), "hi": num(self.hi)}


@dataclass
class MoveFigures:
    """One candidate move's figures. ``samples`` is how many samples it was played in
    (fewer than the race's when it was dropped early); ``facts`` holds the share of its
    samples in which each fact of :data:`FACTS` held; ``same_as`` names the move whose
    figures it shares (face-down flips: every slot is unseen, so one flip stands for all).
    """

    move: str
    samples: int
    place: Interval
    p_lose: Interval
    p_first: Interval
    dropped_after: int | None = None
    same_as: str | None = None
    facts: dict[str, float] = field(default_factory=dict)
    solved: MoveValue | None = None
    """The move's exact value (a solved position: :mod:`shedsim.analysis.endgame`), else None."""

    def figure(self, objective: str) -> Interval:
        """The figure ``objective`` ranks by: ``p_lose``, ``place`` or ``p_first``."""
        return {"lose": self.p_lose, "place": self.place, "first": self.p_first}[objective]

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "samples": self.samples,
            "expected_place": self.place.to_json(),
            "p_lose": self.p_lose.to_json(),
            "p_first": self.p_first.to_json(),
            "dropped_after": self.dropped_after,
            "same_as": self.same_as,
            "facts": {k: round(v, 4) for k, v in self.facts.items()},
            "solved": None
            if self.solved is None
            else {"result": self.solved.result, "moves": self.solved.moves},
        }


@dataclass
class HintResult:
    """What :func:`rank_moves` found. ``moves`` is ordered best first by ``objective``
    (``lose``, ``place`` or ``first``; ``objective_source`` says why: the rule set's
    scoring or the option); ``stopped`` is one of ``separated``, ``tied``, ``budget`` or
    ``single`` (one legal move: nothing to rank)."""

    seat: int
    players: int
    policy: str
    seed: int
    budget: int
    samples: int
    stopped: str
    moves: list[MoveFigures]
    seconds: float
    why: str | None = None
    objective: str = "place"
    objective_source: str = ""
    solution: Solution | None = None
    """The exact solution of a solved position (``stopped`` is ``solved``), else None."""
    note: str | None = None
    """Why a two-seat end game with the stock empty and no face-down card was not solved
    exactly (``not solved: ...``; the moves are then ranked by playouts), else None."""

    @property
    def searched(self) -> bool:
        """Whether the moves were ranked by a search (``hint --search``), not by playouts."""
        return self.stopped == STOP_SEARCH

    @property
    def solved(self) -> bool:
        """Whether the values are exact (:data:`STOP_SOLVED`), not estimates from playouts."""
        return self.stopped == STOP_SOLVED

    def ranked_by(self) -> str:
        """``ranked by P(lose), i.e. not losing (shithead's scoring: count of games not lost)``."""
        from shedsim.rules.scoring import ranked_by

        return ranked_by(self.objective, self.objective_source)

    @property
    def tied(self) -> bool:
        """Whether the race stopped with the moves left tied in every sample (:data:`STOP_TIED`)."""
        return self.stopped == STOP_TIED

    def stop_text(self) -> str:
        """The way the race ended, in words."""
        if self.stopped == STOP_SOLVED and self.solution is not None:
            return (
                f"solved: {self.solution.summary()}; exact search of "
                f"{self.solution.positions:,} positions"
            )
        if self.stopped == STOP_SINGLE:
            return "only one legal move"
        if self.searched:
            return (
                f"ranked by {self.policy}'s search: {self.samples:,} iterations, each from a "
                f"fresh deal of the unseen cards; the move ranked first is the one it would "
                f"play, and the figures are its own estimates over each move's visits, "
                f"without interval"
            )
        if self.stopped == STOP_SEPARATED:
            return (
                f"stopped {'early ' if self.samples < self.budget else ''}after "
                f"{self.samples} samples: the best move is separated from "
                f"every other in {FIGURE_NAMES[self.objective]} with 95% confidence"
            )
        if self.stopped == STOP_TIED:
            left = [m.move for m in self.moves if m.dropped_after is None and m.same_as is None]
            what = {
                "lose": "lost or did not lose together",
                "place": "gave the same place",
                "first": "went out first or not together",
            }[self.objective]
            return (
                f"stopped after {self.samples} samples: {', '.join(left)} {what} in every sample "
                f"(tied in {FIGURE_NAMES[self.objective]}; the other figures order them)"
            )
        return (
            f"stopped at the budget of {self.budget} samples per move: the best move is not "
            f"separated from every other in {FIGURE_NAMES[self.objective]} with 95% confidence"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "players": self.players,
            "policy": self.policy,
            "seed": self.seed,
            "objective": self.objective,
            "objective_source": self.objective_source,
            "budget": self.budget,
            "samples": self.samples,
            "stopped": self.stopped,
            "stop_reason": self.stop_text(),
            "solved": self.solved,
            "not_solved": self.note,
            "seconds": round(self.seconds, 3),
            "moves": [m.to_json() for m in self.moves],
            "why": self.why,
        }


FACTS = ("burn", "again", "pickup", "next_out", "pickup_next", "finished", "out_now")
"""Facts recorded per sample (columns of the playout kernel, :mod:`shedsim.kernel._playout`):
the move burned the pile; the seat moves again at once; the move picked up; the next seat
to move went out on that move; the seat's own next move was a pick-up; the game ended
within the cap; the move took the seat out."""
