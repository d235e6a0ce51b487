"""The old place of :mod:`shedsim.base.isolate` (the process sandbox), kept while code written
against it
is merged: importing ``shedsim.kernel.isolate`` gives that very module (the same object, so a test
that patches one patches the other). New code imports :mod:`shedsim.base.isolate`."""

import sys

from shedsim.base import isolate

sys.modules[__name__] = isolate
