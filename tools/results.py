"""Re-measure the figures the docs pages quote: one registered function per results file.

Each function runs shedsim command(s) into a temporary directory, reads their CSV/JSON
outputs and returns the figures; :func:`write` adds the exact command lines, the commit,
the date and the machine (cores, CPU model, Python, numba and numpy versions) and writes
``docs/results/NAME.json`` atomically. The pages read them with the macros of
``docs/macros.py``; ``tests/test_docs_figures.py`` checks that each recorded command line
still parses.

    make results                 # every results file (long: the ladders play mc and ismcts)
    make results NAME=bench      # one (several: NAME="bench demo")
    .venv/bin/python tools/results.py --list
    .venv/bin/python tools/results.py --quick ladder   # reduced sizes, marked "reduced"

Speed figures are ratios of timings taken in one run, interleaved (absolute rates on a
shared machine move from run to run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
SHEDSIM = Path(sys.executable).with_name("shedsim")


@dataclass
class Run:
    """What one results function ran: ``commands`` (as recorded), ``tmp`` (scratch
    directory), ``quick`` (reduced sizes were asked for)."""

    tmp: Path
    quick: bool
    commands: list[str] = field(default_factory=list)

    def out(self, label: str) -> Path:
        """A fresh output directory for one command (recorded as ``OUT/label``)."""
        return self.tmp / label

    def _record(self, argv: list[str]) -> str:
        """Record a command line (each distinct line once: timings repeat commands)."""
        line = shlex.join(argv).replace(str(self.tmp), "OUT").replace(str(ROOT) + "/", "")
        if line not in self.commands:
            self.commands.append(line)
        return line

    def shedsim(
        self, *args: str | int | Path, tree: Tree | None = None, env: dict[str, str] | None = None
    ) -> str:
        """Run ``shedsim ARGS`` (stdout returned; a failure raises with its stderr); with
        ``tree``, on that checkout's code (recorded as the same command line); ``env``:
        variables set for it (recorded before the command, ``NAME=VALUE shedsim ...``)."""
        argv = [str(a) for a in args]
        set_env = [f"{k}={v}" for k, v in (env or {}).items()]
        self._record([*set_env, "shedsim", *argv])
        if tree is None:
            return _check([str(SHEDSIM), *argv], env={**os.environ, **env} if env else None)
        return _check([str(SHEDSIM), *argv], cwd=tree.root, env={**tree.env(), **(env or {})})

    def tool(self, script: str, *args: str | int) -> str:
        """Run ``python tools/SCRIPT ARGS`` (recorded as ``.venv/bin/python tools/...``)."""
        argv = [str(a) for a in args]
        self._record([".venv/bin/python", f"tools/{script}", *argv])
        return _check([sys.executable, str(ROOT / "tools" / script), *argv])

    def size(self, full: int, quick: int) -> int:
        return quick if self.quick else full


@dataclass
class Tree:
    """The code of an earlier commit, unpacked beside the run (``shedsim/`` and
    ``strategies/`` by ``git archive``), run with this checkout's virtual environment: its
    modules come first on ``PYTHONPATH`` and its compiled kernels and numba caches are its
    own."""

    root: Path
    commit: str

    @classmethod
    def unpack(cls, run: Run, commit: str) -> Tree:
        root = run.tmp / f"tree-{commit[:12]}"
        root.mkdir()
        archive = subprocess.run(
            ["git", "archive", commit, "shedsim", "strategies"], cwd=ROOT, capture_output=True
        )
        if archive.returncode:
            raise RuntimeError(f"git archive {commit}: {archive.stderr.decode()[-2000:]}")
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
        return cls(root, commit)

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(self.root),
            "SHEDSIM_CACHE_DIR": str(self.root / "kernel-cache"),
        }


def _check(argv: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> str:
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(argv)} exited {p.returncode}:\n{p.stderr[-3000:]}")
    return p.stdout


REGISTRY: dict[str, tuple[Callable[[Run], dict[str, Any]], str, bool]] = {}


def result(name: str, what: str, long: bool = False):
    """Register ``fn(run) -> figures`` as the maker of ``docs/results/NAME.json``;
    ``long``: it takes many minutes at full size (mc, ismcts, the test suite)."""

    def deco(fn):
        REGISTRY[name] = (fn, what, long)
        return fn

    return deco


# ------------------------------------------------------------------ reading outputs
def csv(d: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(d / name)


def run_json(d: Path) -> dict[str, Any]:
    return json.loads((d / "run.json").read_text())


def summary_rows(d: Path) -> list[dict[str, Any]]:
    """The tournament's summary.csv as rows of the figures the pages show."""
    s = csv(d, "summary.csv")
    return [
        {
            "strategy": r.strategy,
            "games": int(r.games),
            "win_rate": float(r.win_rate),
            "loss_rate": float(r.loss_rate),
            "mean_place": float(r.mean_place),
            "rating": float(r.rating),
            "rating_lo": float(r.rating_lo),
            "rating_hi": float(r.rating_hi),
        }
        for r in s.itertuples()
    ]


def pair(d: Path, a: str, b: str, file: str = "head_to_head.csv") -> dict[str, float]:
    """The head-to-head row of ``a`` and ``b`` (either order), as ``a``'s share ahead."""
    h = csv(d, file)
    for r in h.itertuples():
        if {r.a, r.b} == {a, b}:
            flip = r.a != a
            share, lo, hi = (
                (1 - r.share_a_ahead, 1 - r.share_hi, 1 - r.share_lo)
                if flip
                else (r.share_a_ahead, r.share_lo, r.share_hi)
            )
            return {
                "share": float(share),
                "lo": float(lo),
                "hi": float(hi),
                "p_holm": float(r.p_holm),
            }
    raise KeyError(f"no head-to-head row for {a} and {b} in {d / file}")


def sprt(run: Run, label: str, *args: str | int) -> dict[str, Any]:
    """``shedsim sprt ARGS`` into ``OUT/label``: its decision, games, Elo and score with their
    intervals, and the games left unfinished (scored as draws)."""
    d = run.out(label)
    run.shedsim("sprt", *args, "--quiet", "--no-plots", "--out", d)
    r = run_json(d)["result"]
    keys = ("decision", "games", "elo", "elo_lo", "elo_hi", "score", "lo", "hi")
    return {**{k: r[k] for k in keys}, "unfinished": int(r["unfinished"])}


def fixed_match(run: Run, label: str, a: str, b: str, games: int) -> dict[str, Any]:
    """``a`` against ``b`` at 2 players over exactly ``games`` games (an SPRT whose floor is
    its ceiling: no decision before the last game), an interval the stopping rule does not
    bias."""
    return sprt(
        run, label, "--a", a, "--b", b, "--players", 2, "--elo0", 0, "--elo1", 50,
        "--min-games", games, "--max-games", games, "--workers", 2, "--batch", 50,
    )  # fmt: skip


def bench_json(run: Run, *args: str | int) -> dict[str, Any]:
    return json.loads(run.shedsim("bench", *args, "--json").strip().splitlines()[-1])


def tool_json(run: Run, script: str, *args: str | int) -> dict[str, Any]:
    """The figures a ``tools/`` script prints as its last line with ``--json`` (given here)."""
    return json.loads(run.tool(script, *args, "--json").strip().splitlines()[-1])


def interleaved_cost(
    run: Run, strategies: dict[str, int], players: int, repeats: int = 3
) -> dict[str, float]:
    """Wall seconds per game of self-play for each strategy (label -> games per timing),
    the median of ``repeats`` rounds in which every strategy is timed once, in turn."""
    times: dict[str, list[float]] = {k: [] for k in strategies}
    for _ in range(repeats):
        for spec, games in strategies.items():
            b = bench_json(
                run,
                "--rules",
                "shithead",
                "--players",
                players,
                "--strategy",
                spec,
                "--games",
                games,
            )
            times[spec].append(b["wall_s"] / games)
    return {k: statistics.median(v) for k, v in times.items()}


# ------------------------------------------------------------------ the results functions
@result("demo", "the default tournament (make demo)")
def demo(run: Run) -> dict[str, Any]:
    d = run.out("demo")
    run.shedsim("tournament", "--quiet", "--no-plots", "--out", d)
    info = run_json(d)
    rows = summary_rows(d)
    first, second = rows[0]["strategy"], rows[1]["strategy"]
    shares = info["end_shares"]
    return {
        "games": int(info["games"]),
        "rows": rows,
        "first": first,
        "second": second,
        "first_vs_second": pair(d, first, second),
        "unfinished_share": float(info["unfinished_share"]),
        "stalled_share": float(shares["stalled"]),
        "loop_share": float(shares["loop"]),
        "cap_share": float(shares["cap"]),
    }


@result(
    "bench",
    "the kernel's speed as ratios: workers, players, the reference engine, the calibration kernel",
)
def bench(run: Run) -> dict[str, Any]:
    games = run.size(1_000_000, 200_000)
    args = ["--table", "--rules", "shithead", "--strategy", "greedy", "--games", games]
    calib = next(
        (
            c
            for c in (
                os.environ.get("SHEDSIM_CALIB"),
                ROOT.parent / "shared" / "calib",
                ROOT.parents[1] / "shared" / "calib",
            )
            if c and (Path(c) / "sh_nb_fast.py").is_file()
        ),
        None,
    )
    if calib:
        args += ["--calib", str(calib)]
    table = bench_json(run, *args)["rows"]
    rows = [{k: v for k, v in r.items()} for r in table]
    by = {(r["players"], r["workers"]): r for r in rows}
    figs: dict[str, Any] = {"rows": rows, "games": games, "calibration": bool(calib)}
    for p in (2, 4):
        figs[f"workers_speedup_{p}p"] = by[(p, 2)]["games_per_s"] / by[(p, 1)]["games_per_s"]
        if calib:
            figs[f"ratio_{p}p"] = by[(p, 1)]["ratio"]
            figs[f"ratio_{p}p_2w"] = by[(p, 2)]["ratio"]
    ref = bench_json(
        run,
        "--rules",
        "shithead",
        "--players",
        2,
        "--strategy",
        "greedy",
        "--games",
        run.size(200_000, 50_000),
        "--reference",
        "--reference-games",
        500,
    )
    figs["speedup_vs_reference"] = ref["speedup_vs_reference"]
    figs.update(short_run_wait(run))
    return figs


def short_run_wait(run: Run, repeats: int = 3) -> dict[str, Any]:
    """The seconds a user waits for a short 2-worker tournament, from the command to its
    reports, with the workers as threads (the default for shedsim's own strategies) and as
    processes (``SHEDSIM_WORKER_THREADS=0``): the median of ``repeats`` rounds, each timing
    both in turn."""
    from shedsim.runs.simulate import THREADS_ENV

    games = 20_000
    args = ["tournament", "--strategies", "greedy,random,aggressive", "--players", 2]
    args += ["--games", games, "--workers", 2, "--quiet", "--no-plots"]
    waits: dict[str, list[float]] = {"threads": [], "processes": []}
    for _ in range(repeats):
        for how, env in (("threads", None), ("processes", {THREADS_ENV: "0"})):
            out = run.out(f"short-{how}")
            shutil.rmtree(out, ignore_errors=True)  # a fresh run each round, one command line
            t = time.perf_counter()
            run.shedsim(*args, "--out", out, env=env)
            waits[how].append(time.perf_counter() - t)
    return {"short_run_games": games} | {
        f"short_run_{how}_s": statistics.median(v) for how, v in waits.items()
    }


@result(
    "bots",
    "decisions per second through the bot protocol's pipe (shedsim bench --bot), a trivial bot "
    "and the JavaScript example",
)
def bots(run: Run) -> dict[str, Any]:
    games = run.size(300, 40)
    rows: dict[str, list[dict[str, Any]]] = {"first": [], "greedy_js": []}
    commands = {
        "first": "python3 examples/bots/first.py",
        "greedy_js": "node examples/bots/greedy.js",
    }
    for _ in range(3):  # interleaved, the median of three (the machine is shared)
        for label, command in commands.items():
            if label == "greedy_js" and shutil.which("node") is None:
                continue
            out = bench_json(
                run, "--bot", f"{label}={command}", "--bot-games", games, "--players", 2
            )
            rows[label].append(out["rows"][0])
    figures: dict[str, Any] = {"games": games, "players": 2}
    for label, rs in rows.items():
        if not rs:
            continue
        med = sorted(rs, key=lambda r: r["decisions_per_s"])[len(rs) // 2]
        figures[label] = {
            "decisions_per_s": med["decisions_per_s"],
            "games_per_s": med["games_per_s"],
            "decisions": med["decisions"],
            "pipe_share": med["pipe_share"],
            "runs": [r["decisions_per_s"] for r in rs],
        }
    return figures


@result(
    "ladder",
    "every built-in strategy in one tournament at 2 and 4 players, and what a game costs",
    long=True,
)
def ladder(run: Run) -> dict[str, Any]:
    field_ = "random,aggressive,greedy,heuristic,mc,ismcts,champion"
    figs: dict[str, Any] = {"field": field_}
    per: dict[str, dict[str, Any]] = {}
    for p, full, quick in ((2, 6000, 600), (4, 7200, 720)):
        d = run.out(f"ladder{p}")
        run.shedsim(
            "tournament",
            "--rules",
            "shithead",
            "--players",
            p,
            "--strategies",
            field_,
            "--games",
            run.size(full, quick),
            "--seed",
            1,
            "--quiet",
            "--no-plots",
            "--out",
            d,
        )
        figs[f"games_{p}p"] = int(run_json(d)["games"])
        for r in summary_rows(d):
            per.setdefault(r["strategy"], {"strategy": r["strategy"]}).update(
                {
                    f"elo_{p}p": r["rating"],
                    f"elo_lo_{p}p": r["rating_lo"],
                    f"elo_hi_{p}p": r["rating_hi"],
                    f"loss_{p}p": r["loss_rate"],
                    f"win_{p}p": r["win_rate"],
                }
            )
        for a, b in (
            ("champion", "ismcts"),
            ("ismcts", "heuristic"),
            ("heuristic", "greedy"),
            ("heuristic", "mc"),
            ("greedy", "heuristic"),
        ):
            figs[f"h2h_{p}p_{a}_{b}"] = pair(d, a, b)
    cost = interleaved_cost(
        run,
        {
            "greedy": run.size(200_000, 50_000),
            "aggressive": run.size(200_000, 50_000),
            "random": run.size(20_000, 5_000),
            "heuristic": run.size(20_000, 4_000),
            "mc": run.size(200, 40),
            "ismcts": run.size(60, 10),
            "champion": run.size(60, 10),
        },
        players=2,
    )
    for name, r in per.items():
        r["cost_vs_greedy"] = cost[name] / cost["greedy"]
    for p in (2, 4):  # the top of each table, and how far it stands from the rest
        top, *rest = sorted(per.values(), key=lambda r: -r[f"elo_{p}p"])
        nxt = max(rest, key=lambda r: r[f"elo_hi_{p}p"])
        low = min(per.values(), key=lambda r: r[f"loss_{p}p"])
        figs[f"top_{p}p"] = {
            "strategy": top["strategy"],
            "elo": top[f"elo_{p}p"],
            "lo": top[f"elo_lo_{p}p"],
            "hi": top[f"elo_hi_{p}p"],
            "loss": top[f"loss_{p}p"],
            "above_every_other": top[f"elo_lo_{p}p"] > nxt[f"elo_hi_{p}p"],
            "next": nxt["strategy"],
            "next_hi": nxt[f"elo_hi_{p}p"],
            "lowest_loss": low["strategy"],
            "lowest_loss_rate": low[f"loss_{p}p"],
        }
    figs["rows"] = sorted(per.values(), key=lambda r: -r["elo_2p"])
    figs["mc_vs_heuristic_cost"] = cost["mc"] / cost["heuristic"]
    figs["aggressive_vs_greedy_cost"] = cost["aggressive"] / cost["greedy"]
    return figs


@result(
    "expert",
    "expert (heuristic with a deeper end-game search) against heuristic: strength and cost",
    long=True,
)
def expert(run: Run) -> dict[str, Any]:
    d = run.out("expert4")
    run.shedsim(
        "tournament",
        "--rules",
        "shithead",
        "--players",
        4,
        "--strategies",
        "aggressive,greedy,expert,heuristic,random",
        "--games",
        run.size(40_000, 8000),
        "--seed",
        11,
        "--quiet",
        "--no-plots",
        "--out",
        d,
    )
    figs: dict[str, Any] = {
        "rows": summary_rows(d),
        "expert_vs_greedy": pair(d, "expert", "greedy"),
        "expert_vs_heuristic": pair(d, "expert", "heuristic"),
        "heuristic_vs_greedy": pair(d, "heuristic", "greedy"),
    }
    mg = run.size(4000, 1000)
    figs["sprt_2p"] = sprt(
        run, "sprt2", "--a", "heuristic:search=32", "--b", "heuristic", "--max-games", mg
    )
    figs["sprt_4p"] = sprt(
        run,
        "sprt4",
        "--a",
        "heuristic:search=32",
        "--b",
        "heuristic",
        "--players",
        4,
        "--max-games",
        mg,
    )
    cost = interleaved_cost(
        run, {"heuristic": run.size(4000, 1000), "expert": run.size(4000, 1000)}, players=4
    )
    figs["cost_ratio_4p"] = cost["expert"] / cost["heuristic"]
    return figs


@result("ismcts", "ismcts against the other players (SPRT on paired deals)", long=True)
def ismcts(run: Run) -> dict[str, Any]:
    mg = run.size(4000, 400)
    rows = []
    for label, args in (
        ("greedy, 2 players", ("--b", "greedy")),
        ("greedy, 4 players", ("--b", "greedy", "--players", 4)),
        ("heuristic, 2 players", ("--b", "heuristic")),
        ("mc, 2 players", ("--b", "mc")),
    ):
        r = sprt(run, f"ismcts-{len(rows)}", "--a", "ismcts", *args, "--max-games", mg)
        rows.append({"opponent": label, **r})
    return {"rows": rows}


@result(
    "ismcts_reward",
    "ismcts scoring its playouts by not being last (reward=1) against the place reward, 4 players",
    long=True,
)
def ismcts_reward(run: Run) -> dict[str, Any]:
    a, b = "ismcts:reward=1", "ismcts"
    figs: dict[str, Any] = {
        "sprt": sprt(
            run,
            "reward-sprt",
            "--a",
            a,
            "--b",
            b,
            "--players",
            4,
            "--elo0",
            0,
            "--elo1",
            20,
            "--min-games",
            0,
            "--max-games",
            run.size(1200, 192),
        )
    }
    d = run.out("reward-tournament")
    run.shedsim(
        "tournament",
        "--players",
        4,
        "--strategies",
        f"{b},{a}",
        "--games",
        run.size(2400, 192),
        "--quiet",
        "--no-plots",
        "--out",
        d,
    )
    rows = {r["strategy"]: r for r in summary_rows(d)}
    for key, name in (("not_last", a), ("place", b)):
        for k in ("games", "loss_rate", "win_rate", "mean_place"):
            figs[f"{key}_{k}"] = rows[name][k]
    s = csv(d, "summary.csv").set_index("strategy")
    for key, name in (("not_last", a), ("place", b)):
        figs[f"{key}_loss_lo"] = float(s.loc[name, "loss_lo"])
        figs[f"{key}_loss_hi"] = float(s.loc[name, "loss_hi"])
    return figs


@result(
    "ceiling",
    "ismcts seeing the hidden cards (ismcts_cheat) against ismcts: what perfect information "
    "is worth to the search",
    long=True,
)
def ceiling(run: Run) -> dict[str, Any]:
    a, b = "ismcts_cheat", "ismcts"
    figs: dict[str, Any] = {}
    # small batches: the test looks after each (the default, 2000, is one batch for one worker)
    for key, players, elo1, full, quick in (
        ("sprt_2p", 2, 50, 2000, 200),
        ("sprt_4p", 4, 20, 2400, 240),
    ):
        figs[key] = sprt(
            run, f"ceiling-{key}", "--a", a, "--b", b, "--players", players, "--elo0", 0,
            "--elo1", elo1, "--max-games", run.size(full, quick), "--workers", 2,
            "--batch", 8 * players,
        )  # fmt: skip
    # a fixed number of games (no decision before the last): an interval the stopping rule
    # does not bias (a tournament cannot seat ismcts_cheat; sprt and bench alone may)
    figs["fixed_2p"] = fixed_match(run, "ceiling-fixed-2p", a, b, run.size(1000, 100))
    return figs


@result(
    "inference",
    "ismcts dealing the hidden cards by the void ranks forced pick-ups show (infer=1) against "
    "ismcts, 2 players",
    long=True,
)
def inference(run: Run) -> dict[str, Any]:
    figs: dict[str, Any] = {
        "sprt": sprt(
            run,
            "inference-sprt",
            "--a",
            "ismcts:infer=1",
            "--b",
            "ismcts",
            "--players",
            2,
            "--elo0",
            0,
            "--elo1",
            20,
            "--max-games",
            run.size(6000, 400),
            "--workers",
            2,
            "--batch",
            16,
        )  # fmt: skip
    }
    return figs


def decision_rates(
    run: Run, specs: dict[str, str], players: int, games: int
) -> dict[str, dict[str, float]]:
    """Decisions per second of each search strategy (label -> spec), every one timed in turn
    (3 rounds, the median): in play (self-play games, every decision: ``play``) and on bench's
    searched positions (``search``)."""
    rates: dict[str, dict[str, list[float]]] = {k: {"play": [], "search": []} for k in specs}
    for _ in range(3):
        for label, spec in specs.items():
            b = bench_json(
                run, "--rules", "shithead", "--players", players, "--strategy", spec,
                "--games", games,
            )  # fmt: skip
            rates[label]["play"].append(b["decisions_per_s_per_worker"])
            rates[label]["search"].append(b["decisions_per_s"])
    return {k: {w: statistics.median(v) for w, v in r.items()} for k, r in rates.items()}


def time_ratios(med: dict[str, dict[str, float]], a: str, b: str) -> dict[str, float]:
    """``a``'s and ``b``'s decision rates (:func:`decision_rates`) and ``a``'s time per
    decision over ``b``'s (1 = equal time), in play and on the search positions."""
    return {
        f"{b}_play_per_s": med[b]["play"],
        f"{a}_play_per_s": med[a]["play"],
        f"{b}_search_per_s": med[b]["search"],
        f"{a}_search_per_s": med[a]["search"],
        "play_ratio": med[b]["play"] / med[a]["play"],
        "search_ratio": med[b]["search"] / med[a]["search"],
    }


@result(
    "champion",
    "champion against ismcts: time per decision side by side, and the SPRT at 2 and 4 players",
    long=True,
)
def champion(run: Run) -> dict[str, Any]:
    figs: dict[str, Any] = {}
    # time per decision, both strategies timed in turn: in play and on bench's search positions
    for players in (2, 4):
        specs = {"ismcts": "ismcts", "champion": "champion"}
        med = decision_rates(run, specs, players, run.size(40, 6))
        figs[f"time_{players}p"] = time_ratios(med, "champion", "ismcts")
    for key, players, elo1, full, quick in (
        ("sprt_2p", 2, 50, 4000, 200),
        ("sprt_4p", 4, 20, 2400, 240),
    ):
        figs[key] = sprt(
            run, f"champion-{key}", "--a", "champion", "--b", "ismcts", "--players", players,
            "--elo0", 0, "--elo1", elo1, "--max-games", run.size(full, quick), "--workers", 2,
            "--batch", 8 * players,
        )  # fmt: skip
    # a fixed number of games at 2 players (no decision before the last): an interval the
    # stopping rule does not bias, for the size of the gain
    figs["fixed_2p"] = fixed_match(
        run, "champion-fixed-2p", "champion", "ismcts", run.size(1000, 100)
    )
    return figs


@result(
    "value",
    "the learned value: shedsim train (its fit, and whether it gives the committed weights "
    "again) and champion with it against champion without, 2 players",
    long=True,
)
def value(run: Run) -> dict[str, Any]:
    import numpy as np

    d = run.out("train")
    run.shedsim("train", "--workers", 2, "--out", d, *(("--games", 400) if run.quick else ()))
    about = run_json(d)
    figs: dict[str, Any] = {
        # the summary's games are the finished ones the positions come from; games_played all
        "train": {
            **about["summary"],
            "games_played": about["games"],
            "teacher": about["teacher"],
            "every": about["every"],
        },
        "curve": csv(d, "loss.csv").to_dict("records"),
    }
    with np.load(d / "value_2p.npz") as a, np.load(ROOT / "shedsim/kernel/value_2p.npz") as b:
        figs["reproduces_committed"] = all(np.array_equal(a[k], b[k]) for k in b.files)
    without = "champion:value=0"  # champion's other defaults, its leaves scored by playouts
    specs = {"ismcts": "ismcts", "champion": "champion", "without": without}
    med = decision_rates(run, specs, 2, run.size(40, 6))
    figs["time_2p"] = {
        **time_ratios(med, "champion", "without"),
        "ismcts_play_per_s": med["ismcts"]["play"],
        "over_ismcts_play": med["ismcts"]["play"] / med["champion"]["play"],
    }
    figs["sprt_2p"] = sprt(
        run, "value-sprt", "--a", "champion", "--b", without, "--players", 2, "--elo0", 0,
        "--elo1", 20, "--max-games", run.size(4000, 200), "--workers", 2, "--batch", 16,
    )  # fmt: skip
    return figs


@result(
    "endgame",
    "champion solving two-seat end games exactly at its leaves (solve=1) against champion, 2 "
    "players: the SPRT and the time per decision",
    long=True,
)
def endgame(run: Run) -> dict[str, Any]:
    figs: dict[str, Any] = {}
    # time per decision, both timed in turn: in play and on bench's search positions
    specs = {"champion": "champion", "solve": "champion:solve=1"}
    figs["time_2p"] = time_ratios(
        decision_rates(run, specs, 2, run.size(40, 6)), "solve", "champion"
    )
    figs["sprt"] = sprt(
        run, "endgame-sprt", "--a", "champion:solve=1", "--b", "champion", "--players", 2,
        "--elo0", 0, "--elo1", 20, "--max-games", run.size(6000, 400), "--workers", 2,
        "--batch", 16,
    )  # fmt: skip
    return figs


SPEED_BEFORE = "5e288e3c3d19270305e805d1095150d4032b32b0"
"""The code before the searches' greedy rollouts were shared (``rollout_places``): what
``speed`` times today's code against, in the same run."""


def _same_records(a: Path, b: Path) -> bool:
    """Whether two tournament directories hold the same tallies: every summary CSV and every
    array of every chunk (the run key aside, which hashes the code)."""
    import numpy as np

    for name in ("summary.csv", "head_to_head.csv", "seats.csv", "lengths.csv"):
        if (a / name).read_bytes() != (b / name).read_bytes():
            return False
    chunks = sorted(p.name for p in (a / "chunks").glob("*.npz"))
    if not chunks or chunks != sorted(p.name for p in (b / "chunks").glob("*.npz")):
        return False
    for c in chunks:
        x, y = np.load(a / "chunks" / c), np.load(b / "chunks" / c)
        if sorted(x.files) != sorted(y.files):
            return False
        if any(k != "_key" and not np.array_equal(x[k], y[k]) for k in x.files):
            return False
    return True


@result(
    "speed",
    "heuristic's and mc's cost per game and the default tournament's time, today's code beside "
    "the code before their rollouts were shared (timed in turn), with their play compared",
)
def speed(run: Run) -> dict[str, Any]:
    before = Tree.unpack(run, SPEED_BEFORE)
    trees: dict[str, Tree | None] = {"before": before, "now": None}
    for tree in trees.values():  # compile outside the timings
        run.shedsim("compile", tree=tree)
    figs: dict[str, Any] = {"before_commit": SPEED_BEFORE}
    # the same games on both: a tournament of the searches (and the field they meet), per table
    # size, compared array by array
    for players in (2, 4):
        outs = {}
        for label, tree in trees.items():
            outs[label] = run.out(f"play-{label}-{players}p")
            # today's 2-player tournament with mc seated adds the control variate's columns,
            # which the code before did not have: the same tables asked for without them
            raw = ["--no-control-variate"] if tree is None and players == 2 else []
            run.shedsim(
                "tournament", "--strategies", "heuristic,mc:rollouts=4,greedy,expert",
                "--players", players, "--games", run.size(2400, 240), "--seed", 7, *raw,
                "--quiet", "--no-plots", "--out", outs[label], tree=tree,
            )  # fmt: skip
        figs[f"same_records_{players}p"] = _same_records(outs["before"], outs["now"])
    # seconds per game of self-play, every spec on both codes in turn (3 rounds, the median)
    specs = {
        "heuristic_2p": ("heuristic", 2, run.size(20_000, 2_000)),
        "heuristic_4p": ("heuristic", 4, run.size(5_000, 500)),
        "mc_2p": ("mc", 2, run.size(400, 40)),
    }
    cost: dict[str, dict[str, list[float]]] = {k: {t: [] for t in trees} for k in specs}
    demo_s: dict[str, list[float]] = {t: [] for t in trees}
    for i in range(3):
        for key, (spec, players, games) in specs.items():
            for label, tree in trees.items():
                b = json.loads(
                    run.shedsim(
                        "bench", "--rules", "shithead", "--players", players, "--strategy",
                        spec, "--games", games, "--json", tree=tree,
                    ).strip().splitlines()[-1]
                )  # fmt: skip
                cost[key][label].append(b["wall_s"] / games)
        if i < 2:  # the default tournament (make demo), as a user waits for it
            for label, tree in trees.items():
                d = run.out(f"demo-{label}-{i}")
                extra = ["--games", 20_000] if run.quick else []
                t = time.perf_counter()
                run.shedsim("tournament", *extra, "--quiet", "--no-plots", "--out", d, tree=tree)
                demo_s[label].append(time.perf_counter() - t)
    for key in specs:
        med = {label: statistics.median(v) for label, v in cost[key].items()}
        figs[key] = {
            "before_s_per_game": med["before"],
            "now_s_per_game": med["now"],
            "speedup": med["before"] / med["now"],
        }
    greedy = {
        p: statistics.median(
            bench_json(
                run, "--rules", "shithead", "--players", p, "--strategy", "greedy",
                "--games", run.size(1_000_000, 100_000),
            )["wall_s"] / run.size(1_000_000, 100_000)
            for _ in range(3)
        )
        for p in (2, 4)
    }  # fmt: skip
    for p in (2, 4):
        h = figs[f"heuristic_{p}p"]
        h["greedy_s_per_game"] = greedy[p]
        h["times_greedy"] = h["now_s_per_game"] / greedy[p]
    demo_med = {label: min(v) for label, v in demo_s.items()}
    figs["demo"] = {
        "before_s": demo_med["before"],
        "now_s": demo_med["now"],
        "speedup": demo_med["before"] / demo_med["now"],
    }
    # the SPRT of today's heuristic against the one before (its module as it was, renamed)
    plugins = run.tmp / "before-strategies"
    plugins.mkdir()
    old = git("show", f"{SPEED_BEFORE}:strategies/heuristic.py")
    (plugins / "heuristic_before.py").write_text(
        old.replace('NAME = "heuristic"', 'NAME = "heuristic_before"', 1) + "\n"
    )
    for players in (2, 4):
        figs[f"sprt_{players}p"] = sprt(
            run, f"sprt-{players}p", "--a", "heuristic", "--b", "heuristic_before",
            "--strategy-path", plugins, "--players", players, "--elo0", -5, "--elo1", 0,
            "--max-games", run.size(200_000, 20_000),
        )  # fmt: skip
        # what the cheap way to half the cost gives: half the samples at each end-game move
        figs[f"half_samples_{players}p"] = sprt(
            run, f"half-{players}p", "--a", "heuristic:search=4", "--b", "heuristic",
            "--players", players, "--elo0", -5, "--elo1", 0,
            "--max-games", run.size(200_000, 20_000),
        )  # fmt: skip
    return figs


@result(
    "search_cost",
    "where heuristic's time goes: its end-game look-ahead's searched decisions, rollouts and "
    "their moves per game, and how much of that work told the candidate moves apart "
    "(tools/search_cost.py)",
)
def search_cost(run: Run) -> dict[str, Any]:
    figs: dict[str, Any] = {}
    for players, games in ((2, run.size(4000, 400)), (4, run.size(2000, 200))):
        # at 4 players a game searches four times as often: half the games fill the rows kept
        figs[f"heuristic_{players}p"] = tool_json(
            run, "search_cost.py", "--players", players, "--games", games
        )
    return figs


def _finite(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with NaN figures as None (JSON has no NaN)."""
    return {k: (None if isinstance(v, float) and v != v else v) for k, v in d.items()}


@result(
    "control_variate",
    "AIVAT-style control variates on paired 2-player matches: the luck of each stock draw by "
    "the learned value, and of the face-down cards turned over and the last stock draws by "
    "greedy rollouts, taken out of the score (tools/cv_measure.py)",
)
def control_variate(run: Run) -> dict[str, Any]:
    figs: dict[str, Any] = {}
    matches = {
        "heuristic_greedy": ("heuristic", "greedy", run.size(4000, 400), 2000),
        "expert_heuristic": ("expert", "heuristic", run.size(2000, 200), 2000),
        "ismcts_heuristic": ("ismcts", "heuristic", run.size(300, 30), 100),
        "random_random": ("random", "random", run.size(20_000, 2_000), 5000),
    }
    for i, (key, (a, b, pairs, batch)) in enumerate(matches.items()):
        f = tool_json(
            run, "cv_measure.py", "--a", a, "--b", b, "--pairs", pairs, "--seed", i + 1,
            "--batch", batch,
        )  # fmt: skip
        figs[key] = {
            **{k: f[k] for k in ("a", "b", "games", "traced_to_end", "unfinished")},
            **{
                value: {
                    "pairs": _finite(f[value]["pairs_level"]),
                    "games_level": _finite(f[value]["games_level"]),
                }
                for value in ("learned", "rollout")
            },
        }
        figs["reps"], figs["max_stock"] = f["reps"], f["max_stock"]
    # the bias check on independent games: greedy against itself, every game its own deal
    f = tool_json(
        run, "cv_measure.py", "--a", "greedy", "--b", "greedy",
        "--pairs", run.size(100_000, 10_000), "--seed", 7, "--batch", 10_000, "--unpaired",
    )  # fmt: skip
    figs["greedy_unpaired"] = {
        "games": f["games"],
        **{v: {"games_level": _finite(f[v]["games_level"])} for v in ("learned", "rollout")},
    }
    return figs


@result(
    "control_variate_sprt",
    "sprt --control-variate: games and seconds to the decision on three pairs with and without "
    "it, and its calibration (A/A false positives, coverage) (tools/cv_sprt.py)",
)
def control_variate_sprt(run: Run) -> dict[str, Any]:
    return tool_json(
        run, "cv_sprt.py",
        "--pairs", "heuristic:greedy,expert:heuristic,ismcts:heuristic",
        "--seeds", f"{run.size(20, 4)},{run.size(10, 2)},{run.size(6, 2)}",
        "--aa-runs", run.size(400, 40), "--cover-runs", run.size(400, 40),
        "--truth-pairs", run.size(200_000, 20_000),
    )  # fmt: skip


@result(
    "control_variate_tournament",
    "tournament --control-variate: the head to head's interval widths with and without it at "
    "the same games, and its calibration (A/A false positives, coverage) "
    "(tools/cv_tournament.py)",
)
def control_variate_tournament(run: Run) -> dict[str, Any]:
    return tool_json(
        run, "cv_tournament.py",
        "--games", run.size(40_000, 4_000),
        "--aa-runs", run.size(400, 40), "--cover-runs", run.size(400, 40),
        "--truth-games", run.size(400_000, 40_000),
    )  # fmt: skip


@result("stall", "games that would finish but are cut by stall:N (tools/stall_cut.py)")
def stall(run: Run) -> dict[str, Any]:
    rows = []
    for rules, p, games in (
        ("shithead", 4, run.size(200_000, 40_000)),
        ("shithead", 5, run.size(48_000, 12_000)),
        ("palace", 5, run.size(48_000, 12_000)),
        ("duel", 2, run.size(48_000, 12_000)),
    ):
        text = run.tool(
            "stall_cut.py",
            "--rules",
            rules,
            "--players",
            p,
            "--strategies",
            "aggressive,greedy,random",
            "--games",
            games,
            "--n",
            "1500,3000,4000",
        )
        row: dict[str, Any] = {"rules": rules, "players": p, "games": games}
        for line in text.splitlines():
            parts = line.split("\t")
            if len(parts) > 2 and parts[0].isdigit():
                row[f"n{parts[0]}"] = float(parts[2])
        rows.append(row)
    return {"rows": rows}


@result("swaps", "which cards belong face up (shedsim swaps)")
def swaps(run: Run) -> dict[str, Any]:
    d = run.out("swaps")
    run.shedsim(
        "swaps",
        "--rules",
        "shithead",
        "--players",
        3,
        "--strategy",
        "greedy",
        "--games",
        run.size(300_000, 60_000),
        "--quiet",
        "--no-plots",
        "--out",
        d,
    )
    v = csv(d, "face_up_values.csv")
    best = v[v["in_best_set"]] if "in_best_set" in v else v.head(1)
    pol = csv(d, "policies.csv")
    reg = csv(d, "regret.csv")
    figs: dict[str, Any] = {
        "rows_seen": len(v),
        "best_set": len(best),
        "best": str(v.iloc[0]["face_up"]),
        "best_loss": float(v.iloc[0]["loss_rate"]),
        "worst": str(v.iloc[-1]["face_up"]),
        "worst_loss": float(v.iloc[-1]["loss_rate"]),
        "worst_five": ", ".join(v.iloc[-5:]["face_up"].astype(str).tolist()[::-1]),
        "policies": [
            {
                "policy": r.strategy,
                "loss_rate": float(r.loss_rate),
                "loss_lo": float(r.loss_lo),
                "loss_hi": float(r.loss_hi),
            }
            for r in pol.itertuples()
        ],
        "policy_best_share": float(reg["policy_is_best"].mean()),
        "mean_regret": float(reg["regret"].mean()),
        "deals": len(reg),
    }
    figs["swap_gain"] = float(pol["loss_rate"].max() - pol["loss_rate"].min())
    return figs


@result("compare", "what house rules change (shedsim compare-rules)")
def compare(run: Run) -> dict[str, Any]:
    games = run.size(40_000, 10_000)
    figs: dict[str, Any] = {}
    for label, args in (
        ("presets2", ("-r", "shithead", "-r", "nines", "-r", "duel", "-p", 2)),
        (
            "toggles4",
            (
                "-r",
                "shithead",
                "-r",
                "shithead+pickup:always",
                "-r",
                "shithead+low5",
                "-r",
                "shithead+reverse:K",
                "-p",
                4,
            ),
        ),
    ):
        d = run.out(label)
        run.shedsim(
            "compare-rules",
            *args,
            "--strategies",
            "random,greedy,heuristic",
            "--games",
            games,
            "--quiet",
            "--no-plots",
            "--out",
            d,
        )
        e = csv(d, "effects.csv")
        figs[label] = [
            {
                "variant": r.variant,
                "metric": r.metric,
                "effect": float(r.effect),
                "lo": float(r.lo),
                "hi": float(r.hi),
                "relative": None if pd.isna(r.relative) else float(r.relative),
                "significant": bool(r.significant),
            }
            for r in e.itertuples()
        ]
        figs[label + "_headline"] = run_json(d).get("headline", [])
    figs["games"] = games

    def effect(label: str, variant: str, metric: str) -> dict[str, Any]:
        return next(r for r in figs[label] if r["variant"] == variant and r["metric"] == metric)

    figs["nines_starter_loss"] = effect("presets2", "nines", "starter_loss_rate")
    figs["pickup_always_moves"] = effect("toggles4", "shithead+pickup:always", "mean_moves")
    figs["reverse_moves"] = effect("toggles4", "shithead+reverse:K", "mean_moves")
    figs["low5_edge"] = effect("toggles4", "shithead+low5", "skill_edge[heuristic]")
    return figs


@result("seats", "how much of a 2-player game the deal decides (rotations of one deal)")
def seats(run: Run) -> dict[str, Any]:
    d = run.out("seats")
    run.shedsim(
        "tournament",
        "--players",
        2,
        "--strategies",
        "greedy,heuristic",
        "--games",
        run.size(20_000, 4000),
        "--save-games",
        "--quiet",
        "--no-plots",
        "--out",
        d,
    )
    games = pd.concat(pd.read_parquet(f) for f in sorted((d / "games").glob("*.parquet")))
    won = games.assign(seat0_first=games["place_0"] == 1).groupby("deal")["seat0_first"]
    return {
        "deals": int(won.ngroups),
        "seat0_wins_both": float(won.all().mean()),
        "seat0_win_rate": float(games["place_0"].eq(1).mean()),
        "independent": float(games["place_0"].eq(1).mean() ** 2),
    }


@result("pairing", "what paired deals buy in sprt (--compare-pairing)")
def pairing(run: Run) -> dict[str, Any]:
    d = run.out("pairing")
    games = run.size(20_000, 6000)
    run.shedsim(
        "sprt",
        "--a",
        "greedy",
        "--b",
        "heuristic",
        "--compare-pairing",
        "--games",
        games,
        "--quiet",
        "--no-plots",
        "--out",
        d,
    )
    r = run_json(d)["result"]
    return {
        "games": games,
        "paired_width": r["paired"]["width"],
        "unpaired_width": r["unpaired"]["width"],
        "variance_ratio": r["variance_ratio"],
    }


@result("sprt", "a first sequential test: greedy against random")
def sprt_first(run: Run) -> dict[str, Any]:
    return sprt(run, "sprt", "--a", "greedy", "--b", "random")


@result("tune", "a short tuning study of heuristic (shedsim tune)")
def tune(run: Run) -> dict[str, Any]:
    import tomllib

    d = run.out("tune")
    budget = run.size(12, 6)
    run.shedsim("tune", "--budget", budget, "--games", run.size(4000, 2000), "--quiet", "--out", d)
    best = tomllib.loads((d / "best.toml").read_text())
    flat = {k: v for k, v in best.items() if not isinstance(v, dict)}
    for sub in (v for v in best.values() if isinstance(v, dict)):
        flat.update({k: v for k, v in sub.items() if not isinstance(v, dict)})
    t = csv(d, "trials.csv")
    return {
        "budget": budget,
        "best_score": float(flat["best_score"]),
        "start_score": float(flat["start_score"]),
        "best_is_start": bool(t["score"].idxmax() == 0),
        "head_to_head_score": float(flat["head_to_head_score"])
        if "head_to_head_score" in flat
        else None,
    }


@result("tips", "what each beginner tip is worth (shedsim tips)")
def tips(run: Run) -> dict[str, Any]:
    d = run.out("tips")
    run.shedsim("tips", "--games", run.size(40_000, 8000), "--quiet", "--out", d)
    t = csv(d, "tips.csv")
    keep = [
        c
        for c in (
            "tip",
            "rules",
            "players",
            "objective",
            "verdict",
            "loss_effect",
            "loss_lo",
            "loss_hi",
            "loss_p_holm",
            "place_effect",
            "place_lo",
            "place_hi",
            "place_p_holm",
        )
        if c in t
    ]
    return {"rows": json.loads(t[keep].to_json(orient="records"))}


@result("hint", "the hint example by playouts: docs/examples/hint_fourth_seven.toml")
def hint(run: Run) -> dict[str, Any]:
    out = json.loads(
        run.shedsim("hint", "docs/examples/hint_fourth_seven.toml", "--playouts", "--json")
    )
    moves = [
        {
            "move": m["move"],
            "p_lose": m["p_lose"]["value"],
            "p_lose_lo": m["p_lose"]["lo"],
            "p_lose_hi": m["p_lose"]["hi"],
            "expected_place": m["expected_place"]["value"],
            "p_first": m["p_first"]["value"],
            "samples": m["samples"],
        }
        for m in out["moves"]
    ]
    return {"moves": moves, "best": moves[0]["move"]}


@result(
    "hint_search",
    "hint --search on the hint example, and hints against solved end games (tools/hint_check.py)",
    long=True,
)
def hint_search(run: Run) -> dict[str, Any]:
    out = json.loads(
        run.shedsim("hint", "docs/examples/hint_fourth_seven.toml", "--search", "--json")
    )
    moves = [
        {
            "move": m["move"],
            "visits": m["samples"],
            "p_lose": m["p_lose"]["value"],
            "expected_place": m["expected_place"]["value"],
            "p_first": m["p_first"]["value"],
        }
        for m in out["moves"]
    ]
    check = json.loads(run.tool("hint_check.py", "--positions", run.size(150, 20), "--seed", 1))
    return {
        "moves": moves,
        "best": moves[0]["move"],
        "iterations": out["samples"],
        "seconds": out["seconds"],
        "check": check,
    }


@result("guard", "what guarding a plugin from outside strategies/ costs (a copy of greedy)")
def guard(run: Run) -> dict[str, Any]:
    plugin = run.tmp / "plugins"
    plugin.mkdir()
    text = (ROOT / "strategies" / "greedy.py").read_text()
    (plugin / "mygreedy.py").write_text(text.replace('NAME = "greedy"', 'NAME = "mygreedy"'))
    games = run.size(200_000, 50_000)
    times: dict[str, list[float]] = {"greedy": [], "mygreedy": []}
    for _ in range(3):
        for s in times:
            b = bench_json(
                run, "--strategy", s, "--strategy-path", plugin, "--games", games, "--workers", 1
            )
            times[s].append(b["ns_per_move"])
    return {
        "ratio": statistics.median(times["mygreedy"]) / statistics.median(times["greedy"]),
        "games": games,
    }


@result("scale", "memory as the number of games grows")
def scale(run: Run) -> dict[str, Any]:
    peaks = {}
    for games in (run.size(1_000_000, 200_000), run.size(10_000_000, 2_000_000)):
        d = run.out(f"scale{games}")
        run.shedsim(
            "tournament",
            "--strategies",
            "greedy,aggressive,random",
            "--players",
            4,
            "--games",
            games,
            "--quiet",
            "--no-plots",
            "--out",
            d,
        )
        sessions = run_json(d)["sessions"]
        peaks[games] = max(s.get("peak_rss_mb_main") or 0 for s in sessions)
    small, big = sorted(peaks)
    return {"small_games": small, "big_games": big, "memory_ratio": peaks[big] / peaks[small]}


@result("outputs", "the columns of every output file, from small real runs")
def outputs(run: Run) -> dict[str, Any]:
    cols: dict[str, dict[str, list[str]]] = {}
    specs = {
        "tournament": (
            "tournament",
            "--players",
            3,
            "--strategies",
            "greedy,random,aggressive",
            "--games",
            600,
            "--rounds",
            2,
            "--no-plots",
        ),
        "compare-rules": (
            "compare-rules",
            "-r",
            "shithead",
            "-r",
            "shithead+skip8",
            "-p",
            3,
            "--strategies",
            "random,greedy",
            "--games",
            600,
            "--no-plots",
        ),
        "swaps": (
            "swaps",
            "--players",
            3,
            "--strategy",
            "greedy",
            "--games",
            3000,
            "--deals",
            4,
            "--rollouts",
            8,
            "--no-plots",
        ),
        "sprt": ("sprt", "--a", "greedy", "--b", "random", "--no-plots"),
        "sprt --compare-pairing": (
            "sprt",
            "--a",
            "greedy",
            "--b",
            "random",
            "--compare-pairing",
            "--games",
            400,
            "--no-plots",
        ),
        "tips": ("tips", "--rules", "shithead", "--players", 2, "--games", 400),
        "tune": ("tune", "--budget", 2, "--games", 200, "--confirm-games", 200),
    }
    for label, args in specs.items():
        d = run.out(label.replace(" ", "").replace("-", ""))
        run.shedsim(*args, "--quiet", "--out", d)
        cols[label.split()[0] if label != "sprt --compare-pairing" else "pairing"] = {
            f.name.replace(".", "_"): list(pd.read_csv(f, nrows=0).columns)
            for f in sorted(d.glob("*.csv"))
        }
    return cols


@result(
    "suite",
    "how long make test takes on a fresh clone (install, compile, the whole suite)",
    long=True,
)
def suite(run: Run) -> dict[str, Any]:
    """``make test`` in a fresh clone of the committed HEAD, as a new user runs it: a new
    virtual environment, the install from the package index, the kernel compiled into an
    empty cache directory, then the suite; timed as a whole, for its compile and for its pytest
    part."""
    clone = run.tmp / "clone"
    _check(["git", "clone", "--quiet", str(ROOT), str(clone)])
    env = {
        **os.environ,
        "SHEDSIM_CACHE_DIR": str(run.tmp / "cache"),
    }  # the kernel and numba's cache of it
    run._record(["make", "test"])
    t = time.perf_counter()
    p = subprocess.run(["make", "test"], cwd=clone, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if p.returncode:
        raise RuntimeError(
            f"make test failed in a fresh clone:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        )
    m = re.search(r"passed.* in ([0-9.]+)s", p.stdout)
    c = re.search(r"ready in ([0-9.]+) s", p.stdout)  # shedsim compile's closing line
    return {
        "minutes": seconds / 60,
        "pytest_minutes": float(m.group(1)) / 60 if m else None,
        "compile_minutes": float(c.group(1)) / 60 if c else None,
        "cores": os.cpu_count(),
    }


# ------------------------------------------------------------------ writing
def machine() -> dict[str, Any]:
    """The machine the figures were measured on."""
    import numba
    import numpy

    cpu = platform.processor() or "unknown CPU"
    try:
        m = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": numpy.__version__,
        "platform": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def code_state() -> tuple[str, bool]:
    """The commit checked out, and whether the code (``shedsim/``, ``strategies/``) differs from
    it."""
    return git("rev-parse", "HEAD"), bool(
        git("status", "--porcelain", "--", "shedsim", "strategies")
    )


def write(
    name: str, figures: dict[str, Any], run: Run, seconds: float, code: tuple[str, bool]
) -> Path:
    """Write ``docs/results/NAME.json`` atomically (a temporary file, fsynced and renamed);
    ``code``: :func:`code_state` when the measurement started."""
    sys.path.insert(0, str(ROOT))
    from shedsim.base import atomic

    what = REGISTRY[name][1]
    doc = {
        "name": name,
        "what": what,
        "commands": run.commands,
        "commit": code[0],
        "dirty": code[1],
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "reduced": run.quick,
        "seconds": round(seconds, 1),
        "figures": figures,
    }
    path = RESULTS / f"{name}.json"
    RESULTS.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, json.dumps(doc, indent=1, default=float) + "\n")
    return path


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tools/results.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="results files to make (default: every one but suite)")
    ap.add_argument("--list", action="store_true", help="list the results functions and exit")
    ap.add_argument(
        "--quick", action="store_true", help="reduced sizes (the file says so: reduced)"
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    if a.list:
        for name, (_, what, long) in REGISTRY.items():
            print(f"{name:10} {what}{' (long)' if long else ''}")
        return 0
    names = a.names or [n for n in REGISTRY if n != "suite"]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        print(
            f"error: no results function {', '.join(unknown)}; known: {', '.join(REGISTRY)}",
            file=sys.stderr,
        )
        return 2
    for name in names:
        tmp = Path(tempfile.mkdtemp(prefix=f"shedsim-results-{name}-"))
        try:
            run = Run(tmp, a.quick)
            t, code = time.perf_counter(), code_state()
            print(f"{name}: {REGISTRY[name][1]} ...", file=sys.stderr, flush=True)
            figures = REGISTRY[name][0](run)
            path = write(name, figures, run, time.perf_counter() - t, code)
            print(
                f"{name}: wrote {path.relative_to(ROOT)} ({time.perf_counter() - t:.0f} s)",
                file=sys.stderr,
            )
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
