"""What a person reads: charts (:mod:`shedsim.output.plots`, :mod:`shedsim.output.plots_swaps`)
and the HTML/Markdown report (:mod:`shedsim.output.report`)."""
