"""The old place of :mod:`shedsim.base.atomic` (atomic writes), kept while code written against it
is merged: importing ``shedsim.runs.atomic`` gives that very module (the same object, so a test
that patches one patches the other). New code imports :mod:`shedsim.base.atomic`."""

import sys

from shedsim.base import atomic

sys.modules[__name__] = atomic
