"""What a rule set's scoring rewards, as the objective that moves and choices are ranked by.

Each preset scores a game its own way (the ``scoring`` field of
:class:`shedsim.rules.ruleset.RuleSet`): ``duel`` names the loser (the Idiot), ``family``
keeps a tally of Idiots and ``shithead`` counts the games a player did not lose, so in
those three only losing counts; ``nines`` scores places and ``palace`` sums places over a
match, so there every place counts. An advice that ranks by expected place where only
losing is scored recommends moves that risk the loss for a chance of going out first.

Objectives (:data:`OBJECTIVES`):

* ``lose``: the probability of finishing last (P(lose)); lower is better.
* ``place``: the expected place (1 = first out); lower is better.
* ``first``: the probability of going out first (P(first)); higher is better.
"""

from __future__ import annotations

from typing import Any

import numpy as np

OBJECTIVES = ("lose", "place", "first")
"""The objectives a ranking can follow (``--objective``)."""

SCORING_OBJECTIVES = {
    "loser is the idiot": "lose",
    "idiot tally": "lose",
    "count of games not lost": "lose",
    "places": "place",
    "places summed over a match of 1-10 rounds": "place",
}
"""The presets' scoring texts and the objective each rewards."""

OBJECTIVE_NAMES = {"lose": "not losing", "place": "expected place", "first": "going out first"}
"""The objective in words, as in "ranked by not losing"."""

FIGURE_NAMES = {"lose": "P(lose)", "place": "expected place", "first": "P(first)"}
"""The figure each objective ranks by, as the tables name it."""


def ranked_by(objective: str, source: str) -> str:
    """``ranked by P(lose), i.e. not losing (shithead's scoring: count of games not lost)``."""
    fig, name = FIGURE_NAMES[objective], OBJECTIVE_NAMES[objective]
    return f"ranked by {fig}" + ("" if fig == name else f", i.e. {name}") + f" ({source})"


class ObjectiveError(ValueError):
    """An objective that is not one of :data:`OBJECTIVES`; the message names the option."""


def objective_of(rules: Any) -> str:
    """The objective the scoring of ``rules`` (a :class:`~shedsim.rules.ruleset.RuleSet`)
    rewards: a preset's scoring from :data:`SCORING_OBJECTIVES`; a rules file's own
    ``scoring`` text by its words (loser, lost, idiot or shithead: ``lose``; first or win:
    ``first``; anything else, places included: ``place``)."""
    text = " ".join(str(getattr(rules, "scoring", "places")).lower().split())
    if text in SCORING_OBJECTIVES:
        return SCORING_OBJECTIVES[text]
    if any(w in text for w in ("loser", "lost", "lose", "idiot", "shithead")):
        return "lose"
    if any(w in text for w in ("first", "win")):
        return "first"
    return "place"


def resolve(objective: str | None, rules: Any, option: str = "--objective") -> tuple[str, str]:
    """``(objective, source)``: ``objective`` when given (checked), else the rules' own
    (:func:`objective_of`); ``source`` says where it came from in words. Raises
    :class:`ObjectiveError` naming ``option`` for an unknown objective."""
    if objective is None:
        return objective_of(
            rules
        ), f"{getattr(rules, 'name', 'the rules')}'s scoring: {rules.scoring}"
    if objective not in OBJECTIVES:
        raise ObjectiveError(f"{option}: one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return objective, f"{option} {objective}"


def per_sample(places: np.ndarray, players: int, objective: str) -> np.ndarray:
    """The objective's cost per sample from places (float64 array, 1 = first out; seats
    still in at a cap share the places left): 1 for a loss (``lose``), the place
    (``place``), -1 for going out first (``first``), else 0; lower is better."""
    p = np.asarray(places, dtype=np.float64)
    if objective == "lose":
        return (p == players).astype(np.float64)
    if objective == "first":
        return -(p == 1).astype(np.float64)
    return p


def effective_places2(places: np.ndarray) -> np.ndarray:
    """Twice each seat's place (int64[n, P] from the kernel's ``places``, int[n, P], 0 = still
    in when the game was stopped): seats still in share the remaining places, as
    ``stalemate:share`` scores them (docs/reference/rules.md#stalemate): the places no seat
    took, each getting twice their mean. With k seats still in: in a game stopped by its rules
    those are the last k places (``2P - k + 1`` each); in a game a bot forfeited (a seat placed
    last, P, while others are still in: docs/reference/bots.md#faults) they are the k places
    before the last (``2P - k - 1``). Whole numbers, so that tallies of them add up exactly."""
    p = places.shape[1]
    pl = places.astype(np.int64)
    k = (pl == 0).sum(axis=1, keepdims=True)
    forfeited = (pl == p).any(axis=1, keepdims=True) & (k > 0)
    return np.where(pl > 0, 2 * pl, np.where(forfeited, 2 * p - k - 1, 2 * p - k + 1))


__all__ = [
    "OBJECTIVES",
    "SCORING_OBJECTIVES",
    "OBJECTIVE_NAMES",
    "FIGURE_NAMES",
    "ObjectiveError",
    "objective_of",
    "resolve",
    "ranked_by",
    "per_sample",
    "effective_places2",
]
