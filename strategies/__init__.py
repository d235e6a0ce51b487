"""Built-in strategy plugins. Each module is one strategy (see :mod:`shedsim.plugins`)."""
