"""The old place of :mod:`shedsim.base.notices` (plain-words warnings), kept while code written
against it
is merged: importing ``shedsim.runs.notices`` gives that very module (the same object, so a test
that patches one patches the other). New code imports :mod:`shedsim.base.notices`."""

import sys

from shedsim.base import notices

sys.modules[__name__] = notices
