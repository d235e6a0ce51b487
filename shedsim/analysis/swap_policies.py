"""Part (c) of the swap study (``shedsim swaps``, :mod:`shedsim.analysis.swaps`): the swap
policies head to head, a tournament whose entries all play the study's strategy and differ
only in how they swap (:func:`policy_spec`, :func:`compare_policies`). ``spec`` is the
study's :class:`shedsim.analysis.swaps.StudySpec`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any


def compare_policies(spec: Any, workers: int = 1, progress=None):
    """(c) Swap policies head to head, every entry playing ``spec.strategy``.

    A tournament (:func:`shedsim.analysis.tournament.plan`, paired deals, every table in every
    seating order and rotation) whose entries are labelled by swap policy; entry k's
    face-up cards come from the swap function of ``spec.policies[k][1]`` (None: as dealt).
    Returns :class:`shedsim.analysis.tournament.Results` (summary with win/loss rates, mean place,
    Plackett-Luce rating; cluster-robust head to head with Holm-corrected p-values) and
    the :class:`~shedsim.analysis.tournament.TournamentSpec`.
    """
    from shedsim.analysis import tournament as T

    tspec = policy_spec(spec)
    return T.analyse(tspec, T.play_total(tspec, workers, progress)), tspec


def policy_spec(spec: Any):
    """(c) The tournament of swap policies: every entry plays ``spec.strategy``, entry k
    swapping as ``spec.policies[k][1]`` (a :class:`~shedsim.analysis.tournament.TournamentSpec`)."""
    from shedsim.analysis import tournament as T

    entries = [(lab, spec.strategy) for lab, _ in spec.policies]
    tspec = T.plan(
        spec.rules,
        spec.players,
        entries,
        spec.games,
        seed=spec.seed,
        strategy_paths=spec.strategy_paths,
        seat_orders="all",
    )
    sources: list[str] = []
    swap_from: list[int] = []
    for _, src in spec.policies:
        if src is None:
            swap_from.append(-1)
            continue
        if src not in sources:
            sources.append(src)
        swap_from.append(len(entries) + sources.index(src))
    return replace(tspec, swap_sources=tuple(sources), swap_from=tuple(swap_from))
