"""champion: shedsim's strongest player, ismcts with the parts that measured a gain.

``champion`` is the search of :mod:`strategies.ismcts` (single-observer information-set
MCTS: Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Trans.
Computational Intelligence and AI in Games 4(2), 2012) with ismcts's parameters at other
defaults:

* ``infer=1``: the hidden cards are dealt as a player who counts cards would, each seat
  shown to hold none of some ranks (a forced pick-up with the stock empty) only cards
  outside them (:func:`strategies.ismcts.determinise_void`; the inference of
  determinisations that Whitehouse, Powley and Cowling, "Determinization and information
  set Monte Carlo tree search for the card game Dou Di Zhu", IEEE CIG 2011, found to pay);
* ``stop=1``: a decision's search ends once the most visited move can no longer be
  overtaken (the same move for fewer iterations: Huang, Coulom and Lin, "Time Management for
  Monte-Carlo Tree Search Applied to the Game of Go", TAAI 2010), and the time saved buys a
  larger budget, ``iterations``, for the decisions that stay open;
* ``value=50``: at 2 players (under the rules the model was trained for) a leaf is scored
  half by its playout and half by a learned value model, a small perceptron fitted to the
  outcomes of self-play (:mod:`shedsim.kernel.value`, :mod:`shedsim.analysis.learn`; the
  mixed evaluation of Silver et al., "Mastering the game of Go with deep neural networks
  and tree search", Nature 529, 2016), with ``valued_iterations=250`` iterations there: the
  model's forward pass costs about as much as a playout, and the smaller budget keeps the
  time per decision near ismcts's.

What each part is worth, and the cost of a decision against ismcts's, is measured by
``make results NAME=champion`` (docs/explanation/strength.md#champion).
Parameters are ismcts's: ``champion:infer=0,stop=0,iterations=300,value=0`` plays as ismcts.
It has a ``move`` of its own, so it is not a mere variant of ismcts: it stands in the ladder as a
player of its own.
"""

import numpy as np
from numba import njit

from strategies.ismcts import PARAM_RANGES  # noqa: F401  (as ismcts)
from strategies.ismcts import PARAMS as _ISMCTS_PARAMS
from strategies.ismcts import TRAITS as _ISMCTS_TRAITS
from strategies.ismcts import move_stats, playout_stats, swap  # noqa: F401  (bench, the swap)
from strategies.ismcts import root_search  # noqa: F401  (hint --search)
from strategies.ismcts import self_play  # noqa: F401  (shedsim train)

NAME = "champion"
DESCRIPTION = (
    "ismcts that counts the cards a pick-up shows, stops a settled search early and, at 2 "
    "players, scores its leaves with a learned value too: the strongest player"
)
DETERMINISTIC = False  # as ismcts
INLINE = False  # as ismcts
PARAMS = dict(_ISMCTS_PARAMS, iterations=400, infer=1, stop=1, value=50, valued_iterations=250)
TRAITS = dict(_ISMCTS_TRAITS, strongest=True)  # play's default opponent, hint --search's search


@njit(cache=True)
def move(obs, rules, params, rng):
    """The decision: ismcts's search with champion's parameters
    (:func:`strategies.ismcts.move_stats`)."""
    return move_stats(obs, rules, params, rng, np.zeros(2, np.int64))
