"""Plackett-Luce strengths from finishing orders, and their cluster-robust errors.

A finishing order ``a > b > c > d`` is, under R. L. Plackett, "The analysis of
permutations", Applied Statistics 24, 1975, and R. D. Luce, *Individual Choice Behavior*,
Wiley 1959, the sequence of choices "a out first from {a,b,c,d}", "b from {b,c,d}", ...
The fit is the iterative Luce Spectral Ranking of L. Maystre and M. Grossglauser, "Fast
and accurate inference of Plackett-Luce models", NIPS 2015 (``choix.utils.statdist``;
``choix.ilsr_top1`` reaches the same fixed point, which ``tests/test_stats.py`` checks),
with the chain built from counted events rather than a list of single observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ELO_PER_THETA = 400.0 / math.log(10.0)
"""Elo points per unit of Plackett-Luce log-strength: with ratings ``R = ELO_PER_THETA *
theta``, the model's chance that A finishes ahead of B when only they remain is
``1 / (1 + 10 ** ((R_B - R_A) / 400))``, the Elo formula."""


@dataclass(frozen=True)
class PLFit:
    """A Plackett-Luce fit: log-strengths ``theta`` (mean 0), their standard errors, and
    the same on the Elo scale (``ELO_PER_THETA * theta``)."""

    theta: np.ndarray
    se: np.ndarray
    iterations: int
    converged: bool

    @property
    def elo(self) -> np.ndarray:
        return ELO_PER_THETA * self.theta

    @property
    def elo_se(self) -> np.ndarray:
        return ELO_PER_THETA * self.se


def plackett_luce(
    choice_sets, winners, counts, alpha: float = 0.01, tol: float = 1e-10, max_iter: int = 10_000
) -> PLFit:
    """Maximum-likelihood Plackett-Luce strengths from counted top-1 choices.

    A finishing order ``a > b > c > d`` is, under Plackett (1975) and Luce (1959), the
    sequence of choices "a out first from {a,b,c,d}", "b from {b,c,d}", "c from {c,d}";
    an unfinished game contributes only the choices that happened before the move cap.
    ``choice_sets[k]`` (int[K, E]) is the multiset of items present at choice k (an item
    may sit at a table twice), ``winners[k]`` the item chosen, ``counts[k]`` how often
    that (set, winner) event occurred. The probability of the event is
    ``w_winner / sum_i choice_sets[k, i] * w_i`` with ``w = exp(theta)``.

    Estimation: iterative Luce Spectral Ranking (Maystre and Grossglauser 2015): the
    Markov chain with rate ``sum_k counts[k] * choice_sets[k, i] / W_k`` from i to
    ``winners[k]`` (``W_k`` the set's total strength at the current estimate) has the
    strengths as its stationary distribution (``choix.utils.statdist``); iterating to a
    fixed point gives the ML estimate (the same fixed point as ``choix.ilsr_top1`` on the
    expanded list of observations, which the tests check). ``alpha`` is choix's
    regularisation (a small rate added between every pair, so that an item that never
    wins still gets a finite strength).

    Standard errors: from the Fisher information of the choice model,
    ``I = sum_k counts[k] (diag(q_k) - q_k q_k^T)`` with ``q_k = choice_sets[k] * w / W_k``,
    inverted with ``numpy.linalg.pinv`` (the strengths are identified up to a constant;
    the pseudo-inverse gives the covariance of the mean-zero parametrisation).
    """
    from choix.utils import exp_transform, log_transform, statdist

    sets = np.asarray(choice_sets, dtype=np.float64)
    win = np.asarray(winners, dtype=np.int64)
    c = np.asarray(counts, dtype=np.float64)
    n_items = sets.shape[1]
    onehot = np.zeros((len(win), n_items))
    onehot[np.arange(len(win)), win] = 1.0
    theta = np.zeros(n_items)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        w = exp_transform(theta)  # choix's scale: weights sum to the number of items
        val = c / (sets @ w)
        chain = alpha * np.ones((n_items, n_items)) + (sets * val[:, None]).T @ onehot
        chain -= np.diag(chain.sum(axis=1))
        new = log_transform(statdist(chain))
        new -= new.mean()
        delta = float(np.abs(new - theta).sum())
        theta = new
        if delta < tol:
            converged = True
            break
    w = np.exp(theta)
    q = sets * w / (sets @ w)[:, None]
    info = np.diag((c[:, None] * q).sum(axis=0)) - (q * c[:, None]).T @ q
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return PLFit(theta, se, it, converged)


def plackett_luce_cluster_se(
    theta, choice_sets, winners, counts, pair_a, pair_b, pair_counts
) -> np.ndarray:
    """Cluster-robust (sandwich) standard errors of Plackett-Luce log-strengths ``theta``
    (float64[E], from :func:`plackett_luce`) when the choice events come in correlated
    clusters (the events of one deal's rotations share its cards).

    Events: ``choice_sets`` (int[J, E]), ``winners`` (int[J]) and ``counts`` (int[J]) as in
    :func:`plackett_luce`, one row per distinct event; ``pair_a``, ``pair_b`` (int[P],
    row indices into the events) and ``pair_counts`` (int[P]): how often events a and b
    occurred in the same cluster (each unordered pair of two event occurrences of one
    cluster counted once). With an event's score ``v_j = e_winner - q_j`` (the gradient of
    its log-likelihood, ``q_j = choice_sets[j] * w / W_j``) a cluster's score is
    ``g_b = sum of its events' v_j``, and

        B = sum_b g_b g_b^T = sum_j counts_j v_j v_j^T + sum_pairs c_ab (v_a v_b^T + v_b v_a^T)

    The covariance is the sandwich ``I^+ B I^+`` (Huber 1967; White 1982; the cluster
    form, Liang and Zeger, Biometrika 73, 1986) with the Fisher information ``I`` of
    :func:`plackett_luce`, in the mean-zero parametrisation: ``I^+`` is the inverse on the
    directions orthogonal to the all-ones vector (``numpy.linalg.inv`` of ``I + 11^T/E``,
    projected), along which neither the likelihood nor B changes. When every
    cluster's score is 0 (an entry against an identical deterministic copy: every deal
    gives both the same finishes) the standard errors are exactly 0.
    """
    theta = np.asarray(theta, dtype=np.float64)
    sets = np.asarray(choice_sets, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    win = np.asarray(winners, dtype=np.int64)
    w = np.exp(theta)
    q = sets * w / (sets @ w)[:, None]
    v = -q
    v[np.arange(len(win)), win] += 1.0
    info = np.diag((c[:, None] * q).sum(axis=0)) - (q * c[:, None]).T @ q
    meat = v.T @ (c[:, None] * v)
    pa = np.asarray(pair_a, dtype=np.int64)
    pb = np.asarray(pair_b, dtype=np.int64)
    if len(pa):
        cross = v[pa].T @ (np.asarray(pair_counts, dtype=np.float64)[:, None] * v[pb])
        meat = meat + cross + cross.T
    # the strengths are identified up to a constant: work in the mean-zero directions (the
    # scores and the information have no component along the all-ones vector; adding it
    # to the information makes the inverse exact instead of trusting pinv's cut-off)
    e = len(theta)
    proj = np.eye(e) - 1.0 / e
    meat = proj @ meat @ proj
    if np.abs(meat).max() <= 1e-9 * max(1.0, float(c.sum())):
        meat = np.zeros_like(meat)  # every cluster's score is 0 up to rounding: exact
    ip = proj @ np.linalg.inv(proj @ info @ proj + np.full((e, e), 1.0 / e)) @ proj
    cov = ip @ meat @ ip
    return np.sqrt(np.maximum(np.diag(cov), 0.0))
