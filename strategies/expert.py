"""expert: the tuned ``heuristic`` with a four times deeper end-game look-ahead (``search=32``).

``expert`` used to be a separate hand-written player (card tracking, burns, value-table
swap); it finished behind ``greedy``. It is now ``heuristic`` (``strategies/heuristic.py``)
with heuristic's tuned defaults except one: the end-game look-ahead judges each move on 32
samples of the hidden cards instead of 8. heuristic keeps 8 because it plays in the default
tournament, which the deeper search would make markedly slower (``shedsim bench`` measures
both).
Parameters are heuristic's: ``expert:track=20`` works as ``heuristic:track=20`` does, and
``expert:search=8`` is heuristic.
"""

from strategies.heuristic import PARAM_RANGES, TRAITS  # noqa: F401  (as heuristic)
from strategies.heuristic import PARAMS as _HEURISTIC_PARAMS
from strategies.heuristic import move, swap  # noqa: F401  (the plugin's decisions)

NAME = "expert"
DESCRIPTION = "heuristic with a deeper end-game look-ahead (search=32): stronger and slower"
DETERMINISTIC = True  # as heuristic
INLINE = False  # as heuristic
# search=32 instead of heuristic's 8: each end-game move is judged on 32 samples of the hidden
# cards. What that buys and costs against heuristic is measured by `make results NAME=expert`
# (docs/explanation/strength.md#expert).
PARAMS = dict(_HEURISTIC_PARAMS, search=32)
