"""The compiled simulator: numba kernels over fixed int64 arrays.

Importing this package imports numba; the CLI imports it only for commands that
simulate, so ``shedsim --help`` stays fast. See :mod:`shedsim.kernel.core` for the rules
engine, :mod:`shedsim.kernel.build` for the kernel generated from the strategy registry,
and :mod:`shedsim.layout` for the array layouts.
"""
