"""shedsim: Monte Carlo strategy analysis for the shedding card game Shithead / Idiot / Palace.

Layers (data flows one way): rules as data (:mod:`shedsim.rules`), the reference engine
(:mod:`shedsim.rules.engine`), the compiled kernel (:mod:`shedsim.kernel`), strategy plugins
(:mod:`shedsim.plugins`, ``strategies/``), scenario files (:mod:`shedsim.rules.scenario`) and the
command line (:mod:`shedsim.cli`).
"""

__version__ = "0.1.0"
