"""Playing games in bulk: run specs, the chunk plan, workers and backends, the run store.

* :mod:`shedsim.runs.simulate`: a :class:`~shedsim.runs.simulate.RunSpec` (rules, seats,
  seed), the per-chunk game schedule, and the workers (loky locally, dask or ray on a cluster).
* :mod:`shedsim.runs.benchmark`: the kernel's speed (games/s, ns/move).
* :mod:`shedsim.runs.limits`: what the machine holds (CPUs, memory), checked before work starts.
"""
