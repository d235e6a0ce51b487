"""How many games that would finish does the no-progress rule (``stall:N``) cut?

Plays the same games (the tournament's schedule: paired deals, balanced tables, every
rotation) once with ``stall:0`` and once per candidate N, and counts, per N, the games
that finish with ``stall:0`` (under the move cap) but end as stalled with ``stall:N``;
also how each run's games ended (finished, stalled, proven loop, move cap). The default N
(:data:`shedsim.rules.STALL_DEFAULTS`) is chosen with it
(docs/explanation/cannot-end.md#choosing-n)::

    .venv/bin/python tools/stall_cut.py --rules shithead --players 4 --games 200000 \\
        --n 100,150,200,300,400,600,800

Output: one row per N: ``cut`` (games), ``cut_per_1000`` (of the games finished at
``stall:0``), and the end counts of that run.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from shedsim.layout import END_FINISHED, END_NAMES, END_STALLED
from shedsim.rules import build
from shedsim.runs.simulate import run_chunks
from shedsim.analysis.tournament import default_strategies, parse_entries, plan


def ends_of(
    rules_name: str,
    house: list[str],
    players: int,
    strategies: str | None,
    games: int,
    seed: int,
    workers: int,
) -> np.ndarray:
    """``int8[games]``: how each game of the tournament schedule ended (``layout.END_*``)."""
    rules = build(rules_name, house)
    entries = parse_entries(strategies) if strategies else [(s, s) for s in default_strategies()]
    spec = plan(rules, players, entries, games, seed=seed)
    rs = spec.run_spec()
    res = run_chunks(rs, list(range(rs.n_chunks())), workers=workers, keep=("end",))
    return np.concatenate([r.records["end"] for r in res])


def parser() -> argparse.ArgumentParser:
    """The command line (``tests/test_docs_figures.py`` parses recorded commands with it)."""
    ap = argparse.ArgumentParser(prog="tools/stall_cut.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="shithead")
    ap.add_argument("--house", action="append", default=[])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--strategies", default=None, help="default: the tournament's default field")
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--n", default="100,200,400,800", help="comma-separated candidate N")
    return ap


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    base = ends_of(
        a.rules, [*a.house, "stall:0"], a.players, a.strategies, a.games, a.seed, a.workers
    )
    fin = base == END_FINISHED
    counts = np.bincount(base, minlength=len(END_NAMES))
    print(
        f"{a.rules} {a.players}p {' '.join(a.house)}: {len(base):,} games; stall:0 ends: "
        + ", ".join(f"{n} {c:,}" for n, c in zip(END_NAMES, counts))
    )
    print("N\tcut\tcut_per_1000\t" + "\t".join(END_NAMES))
    for n in (int(x) for x in a.n.split(",")):
        ends = ends_of(
            a.rules, [*a.house, f"stall:{n}"], a.players, a.strategies, a.games, a.seed, a.workers
        )
        cut = int((fin & (ends == END_STALLED)).sum())
        c = np.bincount(ends, minlength=len(END_NAMES))
        print(f"{n}\t{cut}\t{1000 * cut / max(1, fin.sum()):.3f}\t" + "\t".join(str(x) for x in c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
