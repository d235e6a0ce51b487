"""What a person reads: the charts (:mod:`shedsim.output.charts`, one module per analysis),
the CSV files' fixed formats (:mod:`shedsim.output.csvs`), the console's and the report's
tables (:mod:`shedsim.output.tables`, :mod:`shedsim.output.kinds`) and the HTML/Markdown
report (:mod:`shedsim.output.report`) with its headless-browser check."""
