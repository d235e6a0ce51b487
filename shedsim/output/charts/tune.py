"""The charts of ``shedsim tune`` (:mod:`shedsim.analysis.tune`): the optimisation history
(``table``: trials.csv as a DataFrame) and the parameters' importance; :data:`CHARTS` lists
them once.
"""

from __future__ import annotations

from pathlib import Path

from shedsim.output.charts.figure import Chart
import shedsim.output.charts.figure as F


def plot_history(table, start_score: float, path: Path, subtitle: str = "") -> Path:
    """``history.png``: every completed trial's score, the best so far, the start's score."""
    plt = F.pyplot()
    done = table[table["state"] == "complete"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.scatter(done["trial"], done["score"], s=14, color="#4c72b0", label="trial")
    ax.step(
        done["trial"], done["score"].cummax(), where="post", color="#dd8452", label="best so far"
    )
    if start_score == start_score:  # no line, no legend entry, when the start was not a trial
        ax.axhline(start_score, color="0.4", ls="--", lw=1, label="starting parameters")
    ax.set_xlabel("trial")
    ax.set_ylabel("score against the field (in-sample)")
    ax.set_title("Optimisation history" + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    ax.legend(loc="lower right", fontsize=9)
    ax.grid(alpha=0.3)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return F.save_figure(fig, path)


def plot_importance(imp: dict[str, float], path: Path, subtitle: str = "") -> Path:
    """``importance.png``: the importance of each parameter (horizontal bars; ``imp``: name ->
    importance, :func:`shedsim.analysis.tune.importances`)."""
    plt = F.pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.35 * max(4, len(imp)) + 1.2))
    if imp:
        names = list(imp)[::-1]
        ax.barh(names, [imp[n] for n in names], color="#4c72b0")
        ax.set_xlabel("importance for the trial scores (sums to 1)")
    else:
        ax.text(
            0.5, 0.5, "too few completed trials to rate the parameters", ha="center", va="center"
        )
        ax.set_axis_off()
    ax.set_title("Parameter importance" + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    return F.save_figure(fig, path)


def _history(
    table, start_score: float, importance: dict[str, float], subtitle: str, path: Path
) -> Path:
    return plot_history(table, start_score, path, subtitle)


def _importance(
    table, start_score: float, importance: dict[str, float], subtitle: str, path: Path
) -> Path:
    return plot_importance(importance, path, subtitle)


CHARTS = (Chart("history.png", _history), Chart("importance.png", _importance, "trials.csv"))
"""The tuning's charts, drawn as ``draw(table, start_score, importance, subtitle, path)``."""
LEAD_TABLES = ()
"""No table before the charts on the report page (the history, the importance, then trials.csv)."""
