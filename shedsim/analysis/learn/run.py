"""One training run of the learned value (``shedsim train``, :func:`shedsim.train`): every
option checked before any work, self-play (or an earlier run's positions), the fit, and the
files written all or nothing.

Problems are :class:`shedsim.runs.study.StudyError` naming the parameter (``out``,
``weights``, ``teacher``, ``data``, ``rules``; exit code 2 for bad input, 3 for a file that
cannot be written). An interrupted run (Ctrl-C, also inside scikit-learn's fit, which would
otherwise take it as the end of that epoch) raises ``KeyboardInterrupt`` having written
nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shedsim.runs.study import StudyError

FILES = ("data.npz", "loss.csv", "loss.png", "run.json")
"""What a run writes into its ``out`` directory, beside the weights (:data:`WEIGHTS_NAME`)."""
WEIGHTS_NAME = "value_2p.npz"
"""The weights' file name in ``out`` when ``weights`` is not given."""
TEACHER_OVERRIDES = {"iterations": 50, "value": 0}
"""What the default self-play player, the strongest (:func:`shedsim.plugins.choice`), plays
with: an eighth of champion's budget (eight times the games in the time) and no learned
value. A teacher given without ``value`` plays ``value=0`` too, so that the data never
depend on the weights they train."""
KIND = "train"
"""``run.json``'s ``kind``: how a later run knows the directory is a training run's."""


@dataclass
class TrainRun:
    """A finished training run: ``result`` (:class:`shedsim.analysis.learn.train.TrainResult`:
    ``weights``, ``curve``, ``summary``), ``about`` (``run.json``'s options: rules, teacher,
    games, every, hidden, l2, epochs, seed, data), ``out`` and ``weights``, the paths written
    (None where nothing was asked)."""

    result: Any
    about: dict[str, Any]
    out: Path | None
    weights: Path | None

    @property
    def curve(self):
        """The loss curve (``loss.csv``) as a pandas DataFrame, one row per epoch."""
        import pandas as pd

        return pd.DataFrame(self.result.curve)

    @property
    def summary(self) -> dict[str, Any]:
        """The kept epoch's figures (:meth:`shedsim.analysis.learn.train.fit`)."""
        return self.result.summary

    @property
    def beats_constant(self) -> bool:
        """Whether the kept epoch's held-out log loss beats always answering the share of wins."""
        return self.summary["held_out_loss"] < self.summary["held_out_loss_constant"]


def check_out(out: Path) -> None:
    """Refuse (``StudyError``, field ``out``) a path that is not a directory, or a directory
    holding anything but an earlier training run's files: a run never replaces a file it did
    not write."""
    if out.exists() and not out.is_dir():
        raise StudyError(f"{str(out)!r} exists and is not a directory", field="out")
    if not out.is_dir():
        return
    names = sorted(p.name for p in out.iterdir())
    foreign = [n for n in names if n not in (*FILES, WEIGHTS_NAME) or n == "run.json"]
    if "run.json" in foreign:
        try:
            if json.loads((out / "run.json").read_text()).get("kind") == KIND:
                foreign.remove("run.json")
        except (OSError, ValueError, AttributeError):
            pass
    if foreign:
        raise StudyError(
            f"{str(out)!r} holds files shedsim train did not write ({', '.join(foreign[:5])}); "
            "choose a new or empty directory",
            field="out",
        )


def check_weights(path: Path) -> None:
    """Refuse (``StudyError``, field ``weights``) a weights path that is a directory, or whose
    folder cannot be made or written."""
    if path.is_dir():
        raise StudyError(f"{str(path)!r} is a directory; give the file to write", field="weights")
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise StudyError(f"{str(parent)!r} is not a directory", field="weights")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise StudyError(f"{str(parent)!r} cannot be written", field="weights")


def teachers() -> list[str]:
    """The strategies that can play self-play: compiled, not cheating, their module defining
    ``self_play`` (:func:`strategies.ismcts.self_play`: ismcts's and champion's)."""
    from shedsim.plugins import discover

    return [
        name
        for name, s in discover().items()
        if getattr(s, "compiled", False)
        and not s.traits.cheating
        and hasattr(getattr(s, "module", None), "self_play")
    ]


def teacher_params(teacher: str | None) -> tuple[str, str, np.ndarray]:
    """The teacher's name, its full spec (every override it plays with, ``value`` included)
    and its parameter array. Raises ``StudyError`` (field ``teacher``)."""
    from shedsim.plugins import PluginError, choice, discover, parse_spec

    try:
        if teacher is None:
            name, overrides = choice("strongest")[0], dict(TEACHER_OVERRIDES)
        else:
            name, overrides = parse_spec(teacher)
            overrides.setdefault("value", 0)
        known, able = discover(), teachers()
        if name not in known:
            raise PluginError(f"unknown strategy {name!r}; a teacher is one of: {', '.join(able)}")
        strat = known[name]
        if name not in able:
            why = "sees the hidden cards" if strat.traits.cheating else "has no self-play"
            raise PluginError(f"{name} {why}; a teacher is one of: {', '.join(able)}")
        params = strat.params_array(overrides)
    except PluginError as e:
        raise StudyError(str(e), field="teacher") from None
    spec = name + ":" + ",".join(f"{k}={v}" for k, v in overrides.items())
    return name, spec, params


def load_data(path: Path, rules: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """An earlier run's positions (``data.npz``): ``(x, meta, about)``. Raises ``StudyError``
    (field ``data``, or ``rules`` when they were played under other rules)."""
    from shedsim.kernel.value import N_FEATURES

    def bad(why: str) -> StudyError:
        return StudyError(f"{str(path)!r} is not a training run's data.npz: {why}", field="data")

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError):
        raise bad("not an .npz file") from None
    missing = [k for k in ("x", "meta", "rules") if k not in arrays]
    if missing:
        raise bad(f"no {', '.join(missing)} array (it has {', '.join(arrays) or 'none'})")
    x, meta = arrays["x"], arrays["meta"]
    if x.ndim != 2 or x.shape[1] != N_FEATURES or not np.isfinite(x).all():
        raise bad(f"x must hold {N_FEATURES} finite features a row (it is {x.shape})")
    if meta.ndim != 2 or meta.shape != (len(x), 4):
        raise bad(f"meta must be {len(x)} rows of 4 (it is {meta.shape})")
    if not np.isin(meta[:, 2], (-1, 0, 1)).all():
        raise bad("the outcomes (meta's third column) must be -1, 0 or 1")
    if not np.array_equal(arrays["rules"], rules):
        raise StudyError(
            f"the positions of {str(path)!r} were played under other rules; give that run's "
            "rules and house toggles",
            field="rules",
        )
    try:
        about = json.loads(str(arrays["about"])) if "about" in arrays else {}
    except ValueError:
        about = {}
    return x, meta, about


def train(
    rules: Any,
    *,
    teacher: str | None = None,
    games: int | None = None,
    every: int | None = None,
    hidden: int = 32,
    l2: float = 0.1,
    epochs: int = 30,
    seed: int = 0,
    workers: int = 1,
    data: Path | None = None,
    out: Path | None = None,
    weights: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> TrainRun:
    """Play (or read, ``data``) the positions and fit the value model under the rule set
    ``rules`` (:class:`shedsim.rules.ruleset.RuleSet`, 2 players); write ``out``'s files
    (:data:`FILES`, and the weights there unless ``weights`` names the file) all or nothing.
    ``games`` (default 20000) and ``every`` (default 8) are self-play's and refused with
    ``data``, as is ``teacher``. ``progress(stage, done, total)``: ``stage`` is
    ``"self-play games"`` or ``"epochs"``. Raises ``StudyError`` before any work for bad
    options (2) and after it for a file that cannot be written (3)."""
    from shedsim.analysis.learn import selfplay as S
    from shedsim.analysis.learn import train as T
    from shedsim.base import atomic

    if data is not None:
        given = [k for k, v in (("games", games), ("every", every), ("teacher", teacher)) if v]
        if given:
            raise StudyError(
                f"fits the positions of an earlier run: {', '.join(given)} apply to self-play only",
                field="data",
            )
    if out is not None:
        check_out(out)
    target = weights or (out / WEIGHTS_NAME if out is not None else None)
    if target is not None:
        check_weights(target)
    try:
        T.require_sklearn()
    except RuntimeError as e:
        raise StudyError(str(e)) from None
    try:
        rules_array = rules.compile(2)
    except ValueError as e:
        raise StudyError(str(e), field="rules") from None
    if data is None:
        name, spec, params = teacher_params(teacher)
        games, every = games or 20_000, every or 8
        x, meta = S.self_play(
            name, rules_array, params, games, seed, every, workers,
            progress=None if progress is None else lambda n: progress("self-play games", n, games),
        )  # fmt: skip
        played = {"teacher": spec, "games": games, "every": every}
    else:
        x, meta, played = load_data(data, rules_array)
    try:
        result = T.fit(
            x, meta, rules_array, hidden, epochs, seed, l2,
            progress=None if progress is None else lambda e, _: progress("epochs", e, epochs),
        )  # fmt: skip
    except ValueError as e:
        raise StudyError(str(e), field="data" if data is not None else "games") from None
    about = {
        "kind": KIND,
        "rules": rules.name,
        **{k: played.get(k) for k in ("teacher", "games", "every")},
        "data": str(data) if data is not None else None,
        "hidden": hidden,
        "l2": l2,
        "epochs": epochs,
        "seed": seed,
    }
    try:
        with atomic.batch():
            if out is not None:
                T.write_run(out, x, meta, rules_array, result, about)
            if target is not None:
                T.write_weights(target, result.weights)
    except OSError as e:
        raise StudyError(f"cannot be written ({e})", code=3, field="out") from None
    return TrainRun(result, about, out, target)
