"""Tests of ``shedsim tournament``: planning, streaming aggregation (against a brute-force
count; the formulas themselves: tests/test_stats.py), determinism across workers,
interruption and resume, refused options, and sanity checks on real runs (A/A tests,
greedy beats random in every preset).

Game counts are small and seeds fixed; nothing here asserts on a time.
"""

from __future__ import annotations

import collections
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.analysis import tournament as T
from shedsim.cli import app
from shedsim.rules.ruleset import PRESETS, build, preset
from shedsim.runs.simulate import play_chunk

ROOT = Path(__file__).resolve().parent.parent
SHEDSIM = [sys.executable, "-m", "shedsim"]
CSVS = ("summary.csv", "head_to_head.csv", "seats.csv", "lengths.csv")
PNGS = ("rates.png", "places.png", "head_to_head.png", "lengths.png", "seats.png")

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, ["tournament", *args])


# ------------------------------------------------------------------ entries and plan
def test_parse_entries_labels_and_duplicates():
    assert T.parse_entries("greedy,greedy,random") == [
        ("greedy", "greedy"),
        ("greedy#2", "greedy"),
        ("random", "random"),
    ]
    assert T.parse_entries("deep=mc:rollouts=64,cap=200, g=greedy") == [
        ("deep", "mc:rollouts=64,cap=200"),
        ("g", "greedy"),
    ]
    assert T.parse_entries("mc:rollouts=8,mc:rollouts=8") == [
        ("mc:rollouts=8", "mc:rollouts=8"),
        ("mc:rollouts=8#2", "mc:rollouts=8"),
    ]
    with pytest.raises(T.TournamentError, match="used twice"):
        T.parse_entries("a=greedy,a=random")
    with pytest.raises(T.TournamentError, match="label"):
        T.parse_entries("a b=greedy,random")


def test_plan_rounds_games_to_whole_blocks_and_chunks():
    rs = preset("shithead")
    spec = T.plan(rs, 4, T.parse_entries("greedy,random,heuristic,aggressive"), 1000)
    assert len(spec.tables) == 6 and spec.block == 24  # 1 combination x 3! seating orders
    assert spec.games == 1008 and spec.games_requested == 1000
    assert spec.chunk_size % spec.match_block == 0
    spec = T.plan(rs, 4, T.parse_entries("greedy,random,heuristic"), 1000, rounds=3)
    assert spec.match_block == 3 * spec.block and spec.games % spec.match_block == 0
    assert spec.chunk_size % spec.match_block == 0
    sorted_spec = T.plan(
        rs, 4, T.parse_entries("greedy,random,heuristic,aggressive"), 1000, seat_orders="sorted"
    )
    assert sorted_spec.tables == [(0, 1, 2, 3)] and sorted_spec.games == 1000


def test_arranged_tables_balance_neighbours():
    """Every seating order: each entry sits before each other entry equally often."""
    for n_entries, players in ((4, 4), (5, 3), (6, 4), (2, 4), (3, 5)):
        tables = T.arranged_tables(n_entries, players)
        assert len(set(tables)) == len(tables)
        after = collections.Counter()
        seen = collections.Counter()
        for t in tables:
            for s in range(players):
                seen[t[s]] += 1
                after[(t[s], t[(s + 1) % players])] += 1
        assert len(set(seen.values())) == 1, (n_entries, players, seen)
        off_diag = {k: v for k, v in after.items() if k[0] != k[1]}
        assert len(set(off_diag.values())) == 1, (n_entries, players, after)
    assert T.arranged_count(4, 4) == 6 and T.arranged_count(2, 4) == 4


def test_aggregate_chunk_cluster_sums_match_brute_force():
    """The per-deal sums behind every cluster-robust interval, against a deal-by-deal count."""
    spec = T.plan(
        preset("shithead"),
        3,
        T.parse_entries("random,greedy,aggressive,random"),
        600,
        seed=4,
        rounds=2,
    )
    start, stop = spec.chunk_bounds(0)
    rec = play_chunk(spec.run_spec(), start, stop, keep=T.RECORD_KEEP).records
    t = T.aggregate_chunk(spec, start, stop, rec)
    n, e = spec.players, len(spec.entries)
    seating = T.schedule_games(spec.run_spec(), start, stop)["seating"]
    eff2 = T.effective_places2(rec["places"])
    ns = spec.n_strata
    assert ns == len(T.tournament_tables(e, n)) > 1  # one stratum per table combination
    ref = collections.defaultdict(lambda: np.zeros((e, ns), np.int64))
    seat_ss = collections.defaultdict(lambda: np.zeros(n, np.int64))
    for d in range((stop - start) // n):
        h = spec.table_strata[(start // n + d) % len(spec.tables)]
        games = range(d * n, d * n + n)
        per = {k: np.zeros(e, np.int64) for k in ("m", "win", "loss", "p2")}
        per_seat = {k: np.zeros(n, np.int64) for k in ("win", "off_win", "loss", "p2")}
        for g in games:
            for s in range(n):
                a = seating[g, s]
                per["m"][a] += 1
                per["win"][a] += rec["places"][g, s] == 1
                per["loss"][a] += rec["places"][g, s] == n
                per["p2"][a] += eff2[g, s]
                per_seat["win"][s] += rec["places"][g, s] == 1
                per_seat["loss"][s] += rec["places"][g, s] == n
                per_seat["p2"][s] += eff2[g, s]
                per_seat["off_win"][(s - rec["start"][g]) % n] += rec["places"][g, s] == 1
        ref["e_deals"][:, h] += per["m"] > 0
        ref["e_m"][:, h] += per["m"]
        ref["e_mm"][:, h] += per["m"] ** 2
        for k in ("win", "loss", "p2"):
            ref[f"{k}_s"][:, h] += per[k]
            ref[f"{k}_ss"][:, h] += per[k] ** 2
            ref[f"{k}_sm"][:, h] += per[k] * per["m"]
            seat_ss[f"seat_{k}_ss"] += per_seat[k] ** 2
        seat_ss["off_win_ss"] += per_seat["off_win"] ** 2
    for k, v in ref.items():
        assert t[k].tolist() == v.tolist(), k
    for k, v in seat_ss.items():
        assert t[k].tolist() == v.tolist(), k
    # every deal of the chunk gives the pairs of its events; their counts add up
    ev_per_game = [min(int((r > 0).sum()), n - 1) for r in rec["places"]]
    per_deal = np.add.reduceat(ev_per_game, np.arange(0, stop - start, n))
    assert t["pl_pair_counts"].sum() == int((per_deal * (per_deal - 1) // 2).sum())
    assert t["m_clusters"].sum() > 0 and t["m_mm"].sum() > 0


# ------------------------------------------------------------------ aggregation
def _brute_force(spec, start, stop, rec):
    """Per-game Python loop over the records (the definitions in shedsim.analysis.tournament)."""
    n, e = spec.players, len(spec.entries)
    from shedsim.runs.simulate import schedule_games

    seating = schedule_games(spec.run_spec(), start, stop)["seating"]
    out = collections.defaultdict(lambda: collections.Counter())
    for g in range(stop - start):
        pl = [int(x) for x in rec["places"][g]]
        k = pl.count(0)
        eff = [p if p else (2 * n - k + 1) / 2 for p in pl]
        unf = bool(rec["unfinished"][g])
        assert unf == (k > 0) or (spec.rules.stalemate == "most_cards" and k == 0)
        for s in range(n):
            a = int(seating[g, s])
            out["games"][a] += 1
            out["wins"][a] += pl[s] == 1
            out["losses"][a] += (
                pl[s] == n
            )  # under stalemate:share nobody is last in an unfinished game
            out["place2"][a] += 2 * eff[s]
            out["still_in"][a] += pl[s] == 0
            for s2 in range(n):
                b = int(seating[g, s2])
                if s2 != s:
                    out["ahead"][(a, b)] += eff[s] < eff[s2]
                    if s < s2:
                        out["ties"][(a, b)] += eff[s] == eff[s2]
                        out["ties"][(b, a)] += eff[s] == eff[s2]
    if spec.rounds > 1:
        kb, B = spec.match_block, spec.block
        for m0 in range(0, stop - start, kb):
            for p in range(B):
                games = [m0 + r * B + p for r in range(spec.rounds)]
                tot = [0.0] * n
                for g in games:
                    pl = [int(x) for x in rec["places"][g]]
                    k = pl.count(0)
                    for s in range(n):
                        tot[s] += pl[s] if pl[s] else (2 * n - k + 1) / 2
                for s in range(n):
                    a = int(seating[games[0], s])
                    assert all(int(seating[g, s]) == a for g in games)
                    less = sum(t < tot[s] for t in tot)
                    eq = sum(t == tot[s] for t in tot)
                    out["m_wins"][a] += less == 0 and eq == 1
                    out["m_rank2"][a] += 2 * less + eq + 1
    return out, e


@pytest.mark.parametrize(
    "players,strategies,rounds,house",
    [
        (3, "random,greedy", 2, []),
        (4, "random,greedy,aggressive,heuristic", 1, []),
        (4, "random,greedy,aggressive,heuristic", 1, ["stall:40", "stalemate:most_cards"]),
    ],
)
def test_aggregate_chunk_matches_brute_force(players, strategies, rounds, house):
    rs = build("shithead", ["max_moves:120", *house])  # a low cap: many unfinished games
    spec = T.plan(rs, players, T.parse_entries(strategies), 600, seed=11, rounds=rounds)
    start, stop = spec.chunk_bounds(1)
    rec = play_chunk(spec.run_spec(), start, stop, keep=T.RECORD_KEEP).records
    assert rec["unfinished"].sum() > 10
    t = T.aggregate_chunk(spec, start, stop, rec)
    ref, e = _brute_force(spec, start, stop, rec)
    for i in range(e):
        assert t["seat_games"][i] == ref["games"][i]
        assert t["wins"][i] == ref["wins"][i]
        assert t["losses"][i] == ref["losses"][i]
        assert t["place2_sum"][i] == ref["place2"][i]
        assert t["place_hist"][i, 0] == ref["still_in"][i]
        for j in range(e):
            if i != j:
                assert t["ahead"][i, j] == ref["ahead"][(i, j)]
                assert t["ties"][i, j] == ref["ties"][(i, j)]
        if rounds > 1:
            assert t["m_wins"][i] == ref["m_wins"][i]
            assert t["m_rank2_sum"][i] == ref["m_rank2"][i]
    assert t["games"] == stop - start and t["unfinished"] == int(rec["unfinished"].sum())
    assert t["lengths"].sum() == stop - start
    ends = np.bincount(rec["end"], minlength=4)
    assert t["ends"].tolist() == ends.tolist() and ends[0] == (~rec["unfinished"]).sum()
    assert t["end_games"].sum(axis=0).tolist() == (ends * players).tolist()
    assert t["len_stalled"].sum() == ends[1] and t["len_loop"].sum() == ends[2]
    if house:  # stalled and capped games occur, and the stopped games have a loser
        assert ends[1] > 0 and ends[3] > 0 and t["losses"].sum() == stop - start
    # each game gives one Plackett-Luce event per place taken before the cap (last place excluded)
    expected_events = int(sum(min(int((r > 0).sum()), players - 1) for r in rec["places"]))
    assert t["pl_counts"].sum() == expected_events


def test_merge_is_order_independent():
    rs = preset("shithead")
    spec = T.plan(rs, 3, T.parse_entries("random,greedy,heuristic"), 900, seed=2, chunk_size=180)
    tallies = []
    for i in range(spec.n_chunks):
        a, b = spec.chunk_bounds(i)
        tallies.append(
            T.aggregate_chunk(
                spec, a, b, play_chunk(spec.run_spec(), a, b, keep=T.RECORD_KEEP).records
            )
        )
    fwd = T.empty_tally(spec)
    for t in tallies:
        fwd = T.merge(fwd, t)
    rev = T.empty_tally(spec)
    for t in reversed(tallies):
        rev = T.merge(rev, t)
    assert fwd.keys() == rev.keys()
    for k in fwd:
        assert np.array_equal(fwd[k], rev[k]), k


# ------------------------------------------------------------------ the command
def _read(d: Path) -> dict[str, bytes]:
    names = [*CSVS] + (["matches.csv"] if (d / "matches.csv").exists() else [])
    return {n: (d / n).read_bytes() for n in names}


ARGS = [
    "--strategies",
    "greedy,random,heuristic",
    "--players",
    "3",
    "--games",
    "3000",
    "--seed",
    "5",
    "--rounds",
    "2",
    "--quiet",
    "--no-plots",
]


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    r = cli(*ARGS, "--workers", "1", "--out", str(d))
    assert r.exit_code == 0, r.output
    return d


def test_outputs_are_complete_and_deterministic_across_workers(reference_run, tmp_path):
    r = cli(*[a for a in ARGS if a != "--no-plots"], "--workers", "2", "--out", str(tmp_path))
    assert r.exit_code == 0, r.output
    for name in (*CSVS, *PNGS, "matches.csv", "run.json", "spec.json"):
        assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0, name
    assert _read(tmp_path) == _read(reference_run)
    info = json.loads((tmp_path / "run.json").read_text())
    assert info["complete"] and info["games"] == 3000 + (-3000) % 12 and info["seed"] == 5
    assert info["games_per_s"] > 0 and info["wall_s"] > 0 and info["versions"]["numpy"]
    assert "unfinished_games" in info and info["spec"]["entries"] == [
        "greedy",
        "random",
        "heuristic",
    ]
    import pandas as pd

    summary = pd.read_csv(tmp_path / "summary.csv")
    assert list(summary["rank"]) == [1, 2, 3] and summary["rating"].is_monotonic_decreasing
    assert {
        "win_lo",
        "win_hi",
        "loss_lo",
        "loss_hi",
        "place_lo",
        "place_hi",
        "rating",
        "rating_se",
        "unfinished",
    } <= set(summary.columns)
    assert (
        summary["games"] == info["games"]
    ).all()  # 3 entries at 3 seats: everyone plays every game
    h2h = pd.read_csv(tmp_path / "head_to_head.csv")
    assert len(h2h) == 3 and {"share_a_ahead", "share_lo", "share_hi", "p_value", "p_holm"} <= set(
        h2h.columns
    )
    seats = pd.read_csv(tmp_path / "seats.csv")
    assert (
        set(seats["kind"]) == {"seat", "from_starter"}
        and (seats["wins"].groupby(seats["kind"]).sum() <= info["games"]).all()
    )
    matches = pd.read_csv(tmp_path / "matches.csv")
    assert (matches["matches"] == info["games"] // 2).all()


def test_interrupted_and_resumed_run_gives_the_same_files(reference_run, tmp_path):
    r = cli(*ARGS, "--workers", "2", "--out", str(tmp_path), "--stop-after", "3")
    assert r.exit_code == 130
    assert "interrupted" in r.output and "--resume" in r.output
    info = json.loads((tmp_path / "run.json").read_text())
    assert not info["complete"] and info["chunks_done"] == 3 and info["n_chunks"] > 3
    assert len(list((tmp_path / "chunks").glob("*.npz"))) == 3
    assert (tmp_path / "summary.csv").is_file()  # partial results written
    # options that disagree with the stored run are refused
    bad = cli("--resume", str(tmp_path), "--seed", "6", "--quiet")
    assert bad.exit_code == 2 and "--seed" in bad.output
    # a second partial session, then the rest
    assert (
        cli("--resume", str(tmp_path), "--quiet", "--no-plots", "--stop-after", "2").exit_code
        == 130
    )
    r = cli("--resume", str(tmp_path), "--workers", "1", "--quiet", "--no-plots")
    assert r.exit_code == 0, r.output
    assert _read(tmp_path) == _read(reference_run)
    info = json.loads((tmp_path / "run.json").read_text())
    assert info["complete"] and len(info["sessions"]) == 3
    assert sum(s["games_played"] for s in info["sessions"]) == info["games"]


def test_resume_refuses_a_directory_without_a_run(tmp_path):
    r = cli("--resume", str(tmp_path))
    assert r.exit_code == 2 and "spec.json" in r.output


def test_ctrl_c_keeps_finished_chunks_and_writes_partial_results(tmp_path):
    """SIGINT to a real process: exit 130, the message, partial CSVs, chunks kept."""
    out = tmp_path / "run"
    cmd = [
        *SHEDSIM,
        "tournament",
        "--strategies",
        "greedy,random",
        "--players",
        "2",
        "--games",
        "2000000",
        "--chunk-size",
        "4000",
        "--workers",
        "2",
        "--seed",
        "1",
        "--out",
        str(out),
        "--no-plots",
    ]
    p = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list((out / "chunks").glob("*.npz"))) < 2:
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, stderr[-2000:]
    assert "interrupted" in stderr and "partial results written" in stderr and "--resume" in stderr
    assert "PARTIAL" in stdout
    info = json.loads((out / "run.json").read_text())
    kept = len(list((out / "chunks").glob("*.npz")))
    assert not info["complete"] and info["chunks_done"] == kept >= 2
    assert info["games_in_results"] == kept * 4000
    for name in CSVS:
        assert (out / name).is_file()


def test_save_games_writes_parquet_per_chunk(tmp_path):
    import pyarrow.parquet as pq

    r = cli(
        "--strategies",
        "greedy,random",
        "--players",
        "2",
        "--games",
        "1000",
        "--chunk-size",
        "400",
        "--workers",
        "1",
        "--out",
        str(tmp_path),
        "--save-games",
        "--quiet",
        "--no-plots",
    )
    assert r.exit_code == 0, r.output
    files = sorted((tmp_path / "games").glob("*.parquet"))
    assert len(files) == 3
    rows = [pq.read_table(f) for f in files]
    assert sum(t.num_rows for t in rows) == 1000
    t0 = rows[0]
    assert {
        "game",
        "deal",
        "table",
        "rotation",
        "start",
        "moves",
        "unfinished",
        "entry_0",
        "place_0",
        "pickups_1",
        "face_up_1",
    } <= set(t0.column_names)
    assert json.loads(t0.schema.metadata[b"shedsim.labels"]) == ["greedy", "random"]
    import pandas as pd

    df = pd.concat([t.to_pandas() for t in rows])
    wins_greedy = int(
        ((df["entry_0"] == 0) & (df["place_0"] == 1)).sum()
        + ((df["entry_1"] == 0) & (df["place_1"] == 1)).sum()
    )
    summary = pd.read_csv(tmp_path / "summary.csv").set_index("strategy")
    assert summary.loc["greedy", "wins"] == wins_greedy


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--strategies", "greedy,nosuch"], "unknown strategy"),
        (["--strategies", "greedy"], "at least two"),
        (["--strategies", "greedy,random:foo=1"], "no parameter"),
        (["--rules", "duel", "--players", "3"], "players"),
        (["--players", "9"], "players"),
        (["--games", "0"], "games"),
        (["--rounds", "11"], "rounds"),
        (["--rules", "nosuch"], "rules"),
        (["--seat-orders", "some"], "seat-orders"),
    ],
)
def test_bad_options_are_refused_before_any_work(tmp_path, args, needle):
    out = tmp_path / "out"
    r = cli(*args, "--out", str(out), "--quiet")
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert not (out / "chunks").exists()


def test_unwritable_output_directory_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = cli("--strategies", "greedy,random", "--out", str(blocker / "sub"), "--quiet")
    assert r.exit_code == 2 and "--out" in r.output and "cannot write" in r.output
    r = cli("--strategies", "greedy,random", "--out", str(blocker), "--quiet")
    assert r.exit_code == 2 and "not a directory" in r.output


def test_plain_python_strategy_is_refused(tmp_path, plain_python_plugins):
    d = plain_python_plugins
    r = cli(
        "--strategies",
        "greedy,pyplayer",
        "--strategy-path",
        str(d),
        "--out",
        str(tmp_path / "o"),
        "--quiet",
    )
    assert r.exit_code == 2 and "plain Python" in r.output


def test_help_stays_light():
    code = (
        "import sys, shedsim.cli; heavy = [m for m in ('numba', 'pandas', 'matplotlib', 'scipy', "
        "'statsmodels', 'pyarrow', 'choix') if m in sys.modules]; print(heavy); assert not heavy"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# ------------------------------------------------------------------ sanity on real runs
def _api_run(tmp_path, rules, players, strategies, games, seed=0, **kw):
    spec = T.plan(rules, players, T.parse_entries(strategies), games, seed=seed, **kw)
    outcome = T.run(spec, T.Store(tmp_path), workers=1)
    assert outcome.complete
    return T.analyse(spec, T.Store(tmp_path).load_total(spec, outcome.done))


@pytest.mark.parametrize("strategies", ["greedy,greedy", "random,random"])
def test_aa_tournament_shows_no_difference(tmp_path, strategies):
    res = _api_run(tmp_path, preset("shithead"), 4, strategies, 4000, seed=21)
    s = res.summary
    for r in s.itertuples():
        assert r.win_lo <= 0.25 <= r.win_hi, (r.strategy, r.win_lo, r.win_hi)
    assert len(res.head_to_head) == 1
    assert res.head_to_head["p_value"].iloc[0] > 0.05
    # the headline does not crown the first by rating when the data cannot tell the two apart
    # (before, the report said "X leads" of whichever came first)
    if strategies == "random,random":
        h = T.headline(
            T.plan(preset("shithead"), 4, T.parse_entries(strategies), 4000, seed=21), res
        )
        assert " are not separated: " in h[1] and "the rating's first place is within noise" in h[1]
        assert "not separated from random" in h[2]


def test_degenerate_aa_is_detected_and_exact(tmp_path):
    """Two copies of a deterministic strategy alone at their tables replay the same game
    under every rotation: the tournament says the comparison cannot fail, and every value
    is exact (zero-width intervals, rating se 0) instead of a made-up +-1.5 points."""
    spec = T.plan(preset("shithead"), 2, T.parse_entries("greedy,greedy,random"), 10)
    assert T.degenerate_pairs(spec) == [("greedy", "greedy#2")]
    for text, n in (
        ("greedy,greedy,expert:search=0", 3),
        ("random,random", 2),
        ("greedy,heuristic", 2),
        ("expert:search=0,expert:search=1", 2),
    ):
        assert T.degenerate_pairs(T.plan(preset("shithead"), n, T.parse_entries(text), 10)) == [], (
            text
        )
    assert T.degenerate_pairs(
        T.plan(preset("shithead"), 4, T.parse_entries("greedy,greedy"), 10)
    ) == [("greedy", "greedy#2")]
    out = tmp_path / "aa"
    r = cli(
        "--strategies",
        "greedy,greedy",
        "--players",
        "2",
        "--games",
        "400",
        "--no-plots",
        "--out",
        str(out),
    )
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())  # the console wraps long notes
    assert "degenerate comparison" in said and "random,random" in said
    info = json.loads((out / "run.json").read_text())
    assert info["degenerate"] == [["greedy", "greedy#2"]] and info["notes"]
    import pandas as pd

    s = pd.read_csv(out / "summary.csv")
    assert (s["win_lo"] == 0.5).all() and (s["win_hi"] == 0.5).all() and (s["rating_se"] == 0).all()
    assert (s["place_lo"] == s["place_hi"]).all()
    h = pd.read_csv(out / "head_to_head.csv").iloc[0]
    assert h["share_lo"] == h["share_hi"] == 0.5 and h["p_value"] == 1.0
    r = cli(
        "--strategies",
        "random,random",
        "--players",
        "2",
        "--games",
        "400",
        "--no-plots",
        "--out",
        str(tmp_path / "rr"),
    )
    assert r.exit_code == 0 and "degenerate comparison" not in " ".join(r.output.split())


@pytest.mark.parametrize(
    "rules,players", [(p, n) for p in PRESETS for n in (2, 4) if not (p == "duel" and n == 4)]
)
def test_greedy_beats_random(tmp_path, rules, players):
    res = _api_run(tmp_path, preset(rules), players, "greedy,random", 1200, seed=3)
    h = res.head_to_head.iloc[0]
    assert h["a"] == "greedy" and h["share_a_ahead"] > 0.5
    assert h["p_value"] < 0.001 and h["p_holm"] < 0.001
    assert res.summary["strategy"].iloc[0] == "greedy"
    # the headline judges by what the rules score: the loss rate where only losing counts
    spec = T.plan(preset(rules), players, T.parse_entries("greedy,random"), 1200, seed=3)
    line = T.headline(spec, res)
    assert line[1].startswith("greedy leads: it finishes ahead of random, the second, in ")
    figure = "lowest mean place" if rules in ("nines", "palace") else "lowest loss rate"
    assert line[2].startswith(
        f"By what {rules} scores ({preset(rules).scoring}): the {figure} is greedy"
    )
    assert "separated from every other" in line[2]


def test_seat_orders_make_identical_strategies_equal(tmp_path):
    """Two copies each of two strategies at 4 seats: with every seating order the copies
    sit in exchangeable places, so the test finds no difference between them."""
    res = _api_run(
        tmp_path, preset("shithead"), 4, "greedy,heuristic,greedy,heuristic", 960, seed=4
    )
    h = res.head_to_head.set_index(["a", "b"])
    pair = h.loc[[k for k in h.index if set(k) == {"greedy", "greedy#2"}][0]]
    assert pair["p_value"] > 0.05


def test_outputs_count_stalled_loops_and_capped_games(tmp_path):
    """Games that cannot end are counted by how they ended, in every output; a run in
    which none stalled or looped keeps the CSV columns it always had."""
    out = tmp_path / "t"
    r = cli(
        "--strategies",
        "aggressive,greedy,random",
        "--players",
        "3",
        "--games",
        "600",
        "--house",
        "stall:250",
        "--house",
        "max_moves:600",
        "--no-plots",
        "--out",
        str(out),
    )
    assert r.exit_code == 0, r.output
    info = json.loads((out / "run.json").read_text())
    ends = info["ends"]
    assert sum(ends.values()) == info["games"] and ends["stalled"] > 0 and ends["loop"] > 0
    assert ends["stalled"] + ends["loop"] + ends["cap"] == info["unfinished_games"]
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv")
    cols = list(summary.columns)
    assert cols.index("stalled") == cols.index("still_in_at_cap") + 1 and cols[-4:-2] == [
        "loops",
        "capped",
    ]
    assert (
        summary["stalled"] + summary["loops"] + summary["capped"] == summary["unfinished"]
    ).all()
    lengths = pd.read_csv(out / "lengths.csv")
    by_kind = lengths.groupby("kind")["games"].sum()
    assert by_kind["stalled"] == ends["stalled"] and by_kind["proven loop"] == ends["loop"]
    assert (
        by_kind["unfinished (move cap)"] == ends["cap"] and by_kind["finished"] == ends["finished"]
    )
    assert lengths[lengths["kind"] == "stalled"]["moves_to"].min() >= 250
    assert f"{ends['stalled']:,} stalled" in r.output

    plain = tmp_path / "p"
    r = cli(
        "--strategies",
        "random,random",
        "--players",
        "2",
        "--games",
        "200",
        "--house",
        "stall:0",
        "--no-plots",
        "--out",
        str(plain),
    )
    assert r.exit_code == 0, r.output
    assert "stalled" not in pd.read_csv(plain / "summary.csv").columns
    assert set(pd.read_csv(plain / "lengths.csv")["kind"]) == {"finished", "unfinished (move cap)"}
