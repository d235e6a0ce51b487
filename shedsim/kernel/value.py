"""The learned value of a 2-seat position: its features and the compiled forward pass.

A position here is a *determinised* one, as a search holds it: the public array ``pub``
(``int64[O_SIZE]``) and the private state ``priv`` (``int64[P_SIZE]``, every hand and
face-down card known, :mod:`shedsim.layout`). :func:`features` describes it from the seat
to move; :func:`win_probability` is the model's estimate that this seat wins (goes out
first), a one-hidden-layer perceptron,

    p = sigmoid(w2 . relu(W1 x + b1) + b2),

whose weights (with the input standardisation folded into ``W1`` and ``b1``) are read from
``value_2p.npz`` beside this file when it is imported. numba compiles them into the
functions that call it as constants, so a change of that file must drop the compiled caches:
:func:`shedsim.layout._drop_stale_caches` stamps its hash with the layout's.

The model was fitted to the outcomes of self-play under one rule set
(:mod:`shedsim.analysis.learn.train`); its rules array is stored with the weights, and
:func:`applies` says whether a game is played under those rules by 2 players, the only case
where a search may use it. Without the file (or with other rules) nothing is evaluated.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from shedsim import layout as L
from shedsim.kernel.nb import count

WEIGHTS = Path(__file__).with_name("value_2p.npz")
"""The committed weights: ``W1`` ``float64[H, N_FEATURES]``, ``b1`` ``float64[H]``, ``w2``
``float64[H]``, ``b2`` ``float64[1]``, ``rules`` ``int64[R_SIZE]`` (the rules it was
trained under) and ``features`` (``N_FEATURES``, a check of the layout below)."""

N_RANKS = 13  # ranks 2..14
SEAT_FEATURES = 3 + 3 * N_RANKS  # hand, face-up, face-down counts; their rank counts
# the pile: its rank counts, size, top (one-hot, or empty), run; the stock; the burned cards
PILE_FEATURES = N_RANKS + 1 + (N_RANKS + 1) + 3
N_FEATURES = 2 * SEAT_FEATURES + PILE_FEATURES
FEATURE_NAMES = tuple(
    [
        f"{who}_{what}"
        for who in ("mover", "other")
        for what in (
            ["hand_n", "face_up_n", "face_down_n"]
            + [f"{where}_{r}" for where in ("hand", "face_up", "face_down") for r in range(2, 15)]
        )
    ]
    + [f"pile_{r}" for r in range(2, 15)]
    + ["pile_n", "top_empty"]
    + [f"top_{r}" for r in range(2, 15)]
    + ["run", "stock_n", "burned_n"]
)
"""One name per feature, in :func:`features`'s order."""


def _load() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The weights of :data:`WEIGHTS`, or an empty model (hidden size 0, rules that match
    no game) where the file is missing, or its arrays are not those of this model's features
    (the forward pass reads ``W1`` as ``[HIDDEN, N_FEATURES]``: any other shape is refused)."""
    try:
        with np.load(WEIGHTS, allow_pickle=False) as z:
            w1 = np.ascontiguousarray(z["W1"], np.float64)
            b1 = np.ascontiguousarray(z["b1"], np.float64)
            w2 = np.ascontiguousarray(z["w2"], np.float64)
            b2 = np.ascontiguousarray(z["b2"], np.float64).reshape(-1)
            rules = np.ascontiguousarray(z["rules"], np.int64)
            h = w1.shape[0] if w1.ndim == 2 else -1
            if (
                int(z["features"]) == N_FEATURES
                and w1.shape == (h, N_FEATURES)
                and b1.shape == w2.shape == (h,)
                and b2.shape == (1,)
                and rules.shape == (L.R_SIZE,)
                and all(np.isfinite(a).all() for a in (w1, b1, w2, b2))
            ):
                return w1, b1, w2, b2, rules
    except (OSError, KeyError, ValueError, TypeError):
        pass
    return (
        np.zeros((0, N_FEATURES)),
        np.zeros(0),
        np.zeros(0),
        np.zeros(1),
        np.full(L.R_SIZE, -1, np.int64),
    )


W1, B1, W2, B2, TRAINED_RULES = _load()
HIDDEN = W1.shape[0]
W1T = np.ascontiguousarray(W1.T)  # one row of HIDDEN weights per feature


@njit(cache=True)
def _seat(pub, priv, s, out, at):
    hand = priv[L.P_HANDS + s]
    up = pub[L.O_FACE_UP + s]
    down_n = pub[L.O_FACE_DOWN_N + s]
    n_hand = 0
    n_up = 0
    for r in range(2, 15):
        h = count(hand, r)
        u = count(up, r)
        out[at + 3 + r - 2] = h
        out[at + 3 + N_RANKS + r - 2] = u
        out[at + 3 + 2 * N_RANKS + r - 2] = 0.0
        n_hand += h
        n_up += u
    base = L.P_FACE_DOWN + s * L.MAX_TABLE
    for j in range(down_n):
        out[at + 3 + 2 * N_RANKS + priv[base + j] - 2] += 1.0
    out[at] = n_hand
    out[at + 1] = n_up
    out[at + 2] = down_n


@njit(cache=True)
def features(pub, priv, out):
    """Write the features of the position (``pub``, ``priv``) into ``out``
    (``float64[N_FEATURES]``), seen from the seat to move (``pub[O_SEAT]``) and the next seat
    still in after it: for each, the cards in hand, face up and face down and their counts by
    rank; then the pile's counts by rank, its size, its effective top rank (one-hot, first
    entry an empty pile), the run of the top rank, the stock and the burned cards. Counts
    are cards (``float64``, unscaled). Reads the private state: a search's determinised
    position, never a strategy's observation."""
    n = pub[L.O_PLAYERS]
    me = pub[L.O_SEAT]
    other = me
    for k in range(1, n):
        s = (me + k) % n
        if pub[L.O_PLACE + s] == 0:
            other = s
            break
    _seat(pub, priv, me, out, 0)
    _seat(pub, priv, other, out, SEAT_FEATURES)
    at = 2 * SEAT_FEATURES
    pile = pub[L.O_PILE]
    for r in range(2, 15):
        out[at + r - 2] = count(pile, r)
    at += N_RANKS
    out[at] = pub[L.O_PILE_N]
    at += 1
    for k in range(N_RANKS + 1):
        out[at + k] = 0.0
    top = pub[L.O_TOP]
    out[at + (top - 1 if top >= 2 else 0)] = 1.0
    at += N_RANKS + 1
    out[at] = pub[L.O_RUN]
    out[at + 1] = pub[L.O_STOCK_N]
    out[at + 2] = pub[L.O_BURNED_N]


@njit(cache=True)
def applies(rules):
    """True when the model may evaluate a game under ``rules`` (``int64[R_SIZE]``): there are
    weights, 2 players, and the rules are those it was trained under."""
    if HIDDEN == 0 or rules[L.R_PLAYERS] != 2:
        return False
    for i in range(L.R_SIZE):
        if rules[i] != TRAINED_RULES[i]:
            return False
    return True


@njit(cache=True)
def forward(x, a):
    """The model's probability (``float64`` in (0, 1)) for the features ``x``
    (``float64[N_FEATURES]``), with ``a`` (``float64[HIDDEN]``, another array) as the hidden
    layer's scratch. Most features of a position are zero (ranks nobody holds), so the hidden
    layer adds up only the weight rows of the features that are not."""
    a[:] = B1
    for i in range(N_FEATURES):
        xi = x[i]
        if xi != 0.0:
            for h in range(HIDDEN):
                a[h] += xi * W1T[i, h]
    z = B2[0]
    for h in range(HIDDEN):
        if a[h] > 0.0:
            z += W2[h] * a[h]
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True)
def win_probability(pub, priv, x, a):
    """The model's estimate that the seat to move wins the 2-seat position (``pub``,
    ``priv``), with ``x`` (``float64[N_FEATURES]``) and ``a`` (``float64[HIDDEN]``) as
    scratch. Call only where :func:`applies` holds for the game's rules and both seats are
    in."""
    features(pub, priv, x)
    return forward(x, a)
