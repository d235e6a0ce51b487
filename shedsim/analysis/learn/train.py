"""``shedsim train``: fit the value model to self-play and write its weights, data and curve.

The model is :mod:`shedsim.kernel.value`'s perceptron, fitted as a binary classifier (did
the seat to move win?) by scikit-learn's ``MLPClassifier`` (Adam, log loss, the optional
``learn`` extra) on the positions of :func:`shedsim.analysis.learn.selfplay.self_play`. Games are
split, not positions: one in :data:`HOLD_OUT` games is held out, and the epoch with the
lowest held-out log loss is kept (early stopping). The input standardisation is folded into
the first layer, so the compiled forward pass reads raw counts. Everything is seeded: the
same options give the same weights (the fit runs on one BLAS thread).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

import numpy as np

HOLD_OUT = 5
"""One game in this many (by game index) is held out to choose the epoch and report the fit."""


@dataclass
class TrainResult:
    """What a training run made: the weights' arrays (:data:`shedsim.kernel.value.WEIGHTS`'s
    fields), the curve (one row per epoch: ``epoch``, ``train_loss``, ``held_out_loss``,
    ``held_out_accuracy``) and the figures of the kept epoch."""

    weights: dict[str, np.ndarray]
    curve: list[dict[str, float]]
    summary: dict[str, Any] = field(default_factory=dict)
    held_out_p: np.ndarray | None = None
    """The kept epoch's probabilities on the held-out positions (``float64``), in order."""


def require_sklearn() -> None:
    """Raise ``RuntimeError`` saying how to install the ``learn`` extra when scikit-learn
    is missing."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise RuntimeError(
            "training needs scikit-learn, the optional 'learn' extra: pip install -e '.[learn]'"
        ) from None


def fit(
    x: np.ndarray,
    meta: np.ndarray,
    rules: np.ndarray,
    hidden: int = 32,
    epochs: int = 30,
    seed: int = 0,
    l2: float = 0.1,
    progress: Callable[[int, dict[str, float]], None] | None = None,
) -> TrainResult:
    """Fit the value model to the positions ``x`` (``float32[n, N_FEATURES]``) and their
    ``meta`` rows (``int64[n, 4]``: game, mover, won, moves; rows with ``won`` -1, unfinished
    games, are left out) for ``epochs`` passes of Adam with ``hidden`` hidden units and the
    L2 penalty ``l2`` (scikit-learn's ``alpha``: the positions of one game are alike, so a
    model without it learns the games by heart within a few epochs);
    ``rules`` (``int64[R_SIZE]``) is stored with the weights. ``progress(epoch, row)`` is
    called after each epoch. Raises ``ValueError`` when there is too little data (no held-out
    game, or one outcome only), ``RuntimeError`` without scikit-learn, and
    ``KeyboardInterrupt`` on Ctrl-C inside an epoch (which scikit-learn alone would take as
    that epoch's end)."""
    require_sklearn()
    from sklearn.metrics import log_loss
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler
    from threadpoolctl import threadpool_limits

    from shedsim.kernel.value import N_FEATURES

    keep = meta[:, 2] >= 0
    x, meta = x[keep].astype(np.float64), meta[keep]
    y = meta[:, 2].astype(np.int64)
    held = meta[:, 0] % HOLD_OUT == 0
    if held.all() or not held.any() or len(np.unique(y[~held])) < 2:
        raise ValueError(
            f"too little data to fit: {len(y)} positions of finished games, "
            f"{int(held.sum())} held out; play more games"
        )
    scaler = StandardScaler().fit(x[~held])
    xt, yt = scaler.transform(x[~held]), y[~held]
    xv, yv = scaler.transform(x[held]), y[held]
    model = MLPClassifier(
        hidden_layer_sizes=(hidden,),
        activation="relu",
        solver="adam",
        alpha=l2,
        batch_size=min(256, len(yt)),
        learning_rate_init=1e-3,
        random_state=seed,
        shuffle=True,
    )
    rng = np.random.default_rng(seed)
    curve: list[dict[str, float]] = []
    best: tuple[float, list[np.ndarray], list[np.ndarray], int, np.ndarray] | None = None
    with threadpool_limits(1):
        for epoch in range(1, epochs + 1):
            order = rng.permutation(len(yt))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")  # scikit-learn's notes are kept back
                model.partial_fit(xt[order], yt[order], classes=np.array([0, 1]))
            if any("interrupted" in str(w.message).lower() for w in caught):
                # scikit-learn takes Ctrl-C as the end of the epoch: it stops the run here
                raise KeyboardInterrupt
            pv = model.predict_proba(xv)[:, 1]
            pt = model.predict_proba(xt)[:, 1]
            row = {
                "epoch": epoch,
                "train_loss": float(log_loss(yt, pt, labels=[0, 1])),
                "held_out_loss": float(log_loss(yv, pv, labels=[0, 1])),
                "held_out_accuracy": float(np.mean((pv > 0.5) == (yv == 1))),
            }
            curve.append(row)
            if progress is not None:
                progress(epoch, row)
            if best is None or row["held_out_loss"] < best[0]:
                best = (
                    row["held_out_loss"],
                    [c.copy() for c in model.coefs_],
                    [b.copy() for b in model.intercepts_],
                    epoch,
                    pv,
                )
    assert best is not None
    _, coefs, intercepts, kept, p_kept = best
    w1 = coefs[0] / scaler.scale_[:, None]  # (F, H): raw inputs in
    b1 = intercepts[0] - (scaler.mean_ / scaler.scale_) @ coefs[0]
    weights = {
        "W1": np.ascontiguousarray(w1.T),
        "b1": np.ascontiguousarray(b1),
        "w2": np.ascontiguousarray(coefs[1][:, 0]),
        "b2": np.asarray(intercepts[1], np.float64).reshape(1),
        "rules": np.asarray(rules, np.int64),
        "features": np.int64(N_FEATURES),
    }
    base = float(np.mean(yt))
    summary = {
        "positions": int(len(y)),
        "positions_held_out": int(held.sum()),
        "games": int(len(np.unique(meta[:, 0]))),
        "epoch_kept": kept,
        "held_out_loss": curve[kept - 1]["held_out_loss"],
        "held_out_accuracy": curve[kept - 1]["held_out_accuracy"],
        # the log loss of always answering the training share of wins: what the model beats
        "held_out_loss_constant": float(log_loss(yv, np.full(len(yv), base), labels=[0, 1])),
    }
    return TrainResult(weights, curve, summary, p_kept)


def write_weights(path: Path, weights: dict[str, np.ndarray]) -> None:
    """Write ``weights`` to ``path`` (``.npz``) whole or not at all
    (:func:`shedsim.base.atomic.write_with`)."""
    from shedsim.base import atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_with(path, lambda f: np.savez(f, **weights))


def write_run(
    out: Path, x: np.ndarray, meta: np.ndarray, rules: np.ndarray, result: TrainResult, about: dict
) -> None:
    """Write a training run's outputs into ``out``, all or nothing
    (:func:`shedsim.base.atomic.batch`): ``data.npz`` (the positions ``x`` and ``meta``, the
    compiled ``rules`` they were played under, and ``about`` as JSON text), ``loss.csv`` (the
    curve), ``loss.png`` (its chart) and ``run.json`` (the options ``about`` and the
    summary)."""
    import pandas as pd

    from shedsim.base import atomic

    out.mkdir(parents=True, exist_ok=True)
    curve = pd.DataFrame(result.curve)
    with atomic.batch():
        atomic.write_with(
            out / "data.npz",
            lambda f: np.savez_compressed(
                f, x=x, meta=meta, rules=rules, about=np.array(json.dumps(about))
            ),
        )
        atomic.write_text(out / "loss.csv", curve.to_csv(index=False))
        atomic.write_text(
            out / "run.json", json.dumps({**about, "summary": result.summary}, indent=2) + "\n"
        )
        _chart(curve, result.summary, out / "loss.png")


def _chart(curve, summary: dict[str, Any], path: Path) -> None:
    from shedsim.output.charts.figure import pyplot, save_figure

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(curve["epoch"], curve["train_loss"], label="training games")
    ax.plot(curve["epoch"], curve["held_out_loss"], label="held-out games")
    ax.axhline(summary["held_out_loss_constant"], ls=":", c="grey", label="constant guess")
    ax.axvline(summary["epoch_kept"], ls="--", c="k", lw=0.8, label="epoch kept")
    ax.set_xlabel("epoch")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("log loss (did the seat to move win?)")
    ax.legend(frameon=False)
    save_figure(fig, path)
