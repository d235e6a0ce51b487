"""Analyses of played games: one module (or package) per question asked.

* :mod:`shedsim.analysis.tournament`, :mod:`~shedsim.analysis.compare` (house rules),
  :mod:`~shedsim.analysis.swaps` (the swap phase), :mod:`~shedsim.analysis.sprt`
  (sequential test), :mod:`~shedsim.analysis.tips` (the seed pages' tips),
  :mod:`~shedsim.analysis.tune` (parameter search), :mod:`~shedsim.analysis.hint` (best move).

The formulas they share are :mod:`shedsim.stats`; what they write (CSV files, charts) is
drawn by :mod:`shedsim.output`.
"""
