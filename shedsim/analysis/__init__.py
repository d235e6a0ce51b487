"""Analyses of played games: statistics and one module per question asked.

* :mod:`shedsim.analysis.stats`: intervals, ratings and tests shared by the analyses.
* :mod:`shedsim.analysis.tournament`, :mod:`~shedsim.analysis.compare` (house rules),
  :mod:`~shedsim.analysis.swaps` (the swap phase), :mod:`~shedsim.analysis.sprt`
  (sequential test), :mod:`~shedsim.analysis.tips` (the seed pages' tips),
  :mod:`~shedsim.analysis.tune` (parameter search), :mod:`~shedsim.analysis.hint` (best move).
"""
