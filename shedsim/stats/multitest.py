"""Multiple-comparison correction: Holm's step-down method.

S. Holm, "A simple sequentially rejective multiple test procedure", Scandinavian Journal
of Statistics 6, 1979: with m p-values sorted ``p_(1) <= ... <= p_(m)``, the adjusted value
of the i-th is ``max_{j <= i} min(1, (m - j + 1) p_(j))``; it controls the family-wise
error rate at any dependence between the tests. Computed by
``statsmodels.stats.multitest.multipletests(method="holm")``.
"""

from __future__ import annotations

import gc

import numpy as np


def holm(pvalues) -> np.ndarray:
    """Holm-corrected p-values (float64, the shape of ``pvalues``); NaN entries are left out
    of the family and stay NaN.

    statsmodels' Holm branch ends with ``gc.collect()``, a full collection of every object
    of the process, slow in a process that has compiled kernels or run many studies. The
    objects that exist before the call are frozen for it (``gc.freeze``, unless the caller
    froze some already), so that collection looks at the call's own objects only.
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if np.any(ok):
        freeze = gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        try:
            out[ok] = multipletests(p[ok], alpha=0.05, method="holm")[1]
        finally:
            if freeze:
                gc.unfreeze()
    return out
