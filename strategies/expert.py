"""expert: the tuned ``heuristic`` under its old name.

``expert`` used to be a separate hand-written player (card tracking, burns, value-table
swap); it finished behind ``greedy``. It is now ``heuristic`` (``strategies/heuristic.py``)
with the same tuned default parameters, kept so that commands and reports naming
``expert`` still work. Parameters are heuristic's: ``expert:track=20`` works as
``heuristic:track=20`` does.
"""

from strategies.heuristic import PARAMS as _HEURISTIC_PARAMS
from strategies.heuristic import move, swap  # noqa: F401  (the plugin's decisions)

NAME = "expert"
DESCRIPTION = "the tuned heuristic under its old name (same decisions and defaults)"
DETERMINISTIC = True  # as heuristic
INLINE = False  # as heuristic
PARAMS = dict(_HEURISTIC_PARAMS)
