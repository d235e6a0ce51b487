"""The old place of :mod:`shedsim.stats` (the statistics package), kept while code written
against it is merged: importing ``shedsim.analysis.stats`` gives that package (the same
object). New code imports :mod:`shedsim.stats` or one of its modules."""

import sys

from shedsim import stats

sys.modules[__name__] = stats
