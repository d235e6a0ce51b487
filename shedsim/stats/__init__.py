"""Statistics: small pure modules of formulas, each with its source; no module of shedsim
is imported here (``tests/test_imports.py`` checks it), and each formula is tested against
published values or the library that implements it (``tests/test_stats.py``).

* :mod:`~shedsim.stats.intervals`: Wilson's interval for a proportion, Student's t
  interval for a mean (from sufficient statistics).
* :mod:`~shedsim.stats.clusters`: rates, shares and means of clustered observations (a
  deal's rotations), their linearised cluster-robust variance and design effect.
* :mod:`~shedsim.stats.stratified`: means over deals with the design's strata, Welch's
  difference, van Elteren's stratified rank test, a quantile's interval.
* :mod:`~shedsim.stats.plackett_luce`: Plackett-Luce strengths (Elo scale) and their
  cluster-robust standard errors.
* :mod:`~shedsim.stats.sprt`: the logistic Elo model, Wald's bounds, the GSPRT's
  log-likelihood ratios, Wald's approximations of the stopping point and time.
* :mod:`~shedsim.stats.selection`: Gupta's subset of the entries not worse than the best.
* :mod:`~shedsim.stats.multitest`: Holm's correction.
* :mod:`~shedsim.stats.control`: a control variate with its coefficient fitted on the earlier
  units (a sequential test) or across two halves of the clusters (a fixed sample).

The names are re-exported here (``from shedsim import stats; stats.wilson(...)``).
"""

from shedsim.stats.clusters import (  # noqa: F401 - re-exported
    ClusterRate,
    RatioTest,
    cluster_mean,
    cluster_rate,
    cluster_ratio,
    cluster_sums,
    ratio_variance,
)
from shedsim.stats.intervals import Z95, t_interval, wilson  # noqa: F401 - re-exported
from shedsim.stats.multitest import holm  # noqa: F401 - re-exported
from shedsim.stats.plackett_luce import (  # noqa: F401 - re-exported
    ELO_PER_THETA,
    PLFit,
    plackett_luce,
    plackett_luce_cluster_se,
)
from shedsim.stats.selection import not_worse_than_best  # noqa: F401 - re-exported
from shedsim.stats.sprt import (  # noqa: F401 - re-exported
    REGULARIZE,
    brownian_exit,
    elo_to_score,
    gsprt_llr,
    gsprt_llr_mle,
    score_to_elo,
    wald_bounds,
)
from shedsim.stats.stratified import (  # noqa: F401 - re-exported
    Estimate,
    quantile_interval,
    ratio_values,
    stratified_mannwhitney,
    stratified_mean,
    welch,
)
