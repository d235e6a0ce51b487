"""Tests of ``shedsim sprt`` and :mod:`shedsim.analysis.sprt`: the GSPRT statistic (against the
exact generalised likelihood ratio and fishtest's formula written out independently), the
Elo model and Wald's bounds, the head-to-head schedule (against the tournament schedule),
scoring, the stopping rule (first crossing, independent of the batch size), the
acceptance checks (greedy beats random in under 5,000 games; A/A runs accept H0), what
pairing buys, and the command line (outputs, run.json, refused options).

Game counts are small and seeds fixed; nothing here asserts on a time.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim.analysis import sprt as S
from shedsim.cli import app
from shedsim.rules.ruleset import preset
from shedsim.runs.simulate import RunSpec, play_chunk, schedule_games
from shedsim.runs.store import STORE_FILES

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, ["sprt", *args])


# ------------------------------------------------------------------ statistics
def _fishtest_alt2(counts, elo0, elo1):
    """fishtest LLRcalc: regularize (zeros -> 1e-3), results_to_pdf, stats, LLR_alt2 * N."""
    c = [x if x else 1e-3 for x in counts]
    n = sum(c)
    k = len(c)
    pdf = [(i / (k - 1), c[i] / n) for i in range(k)]
    mu = sum(a * p for a, p in pdf)
    var = sum(p * (a - mu) ** 2 for a, p in pdf)
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return n * (s1 - s0) * (2 * mu - s0 - s1) / var / 2


def _exact_glr(counts, s0, s1):
    """The exact generalised log-likelihood ratio (fishtest LLR with MLE_expected): the
    maximum-likelihood distribution on the same support with mean s is
    p_i / (1 + x (a_i - s)), x the root of sum p_i (a_i - s) / (1 + x (a_i - s)) = 0."""
    from scipy.optimize import brentq

    c = np.asarray(counts, float)
    a = np.arange(len(c)) / (len(c) - 1)
    p = c / c.sum()

    def tilt(s):
        d = a - s
        lo, hi = -1 / d.max() + 1e-12, -1 / d.min() - 1e-12
        x = brentq(lambda x: float(np.sum(p * d / (1 + x * d))), lo, hi)
        return p / (1 + x * d)

    q0, q1 = tilt(s0), tilt(s1)
    ok = p > 0
    return c.sum() * float(np.sum(p[ok] * np.log(q1[ok] / q0[ok])))


def test_llr_is_fishtests_normal_approximation():
    for counts in ([10, 40, 300, 50, 12], [0, 0, 5, 0, 45], [100, 7, 20], [3, 0, 0, 0, 1]):
        got = float(S.gsprt_llr(counts, S.elo_to_score(0), S.elo_to_score(5)))
        assert got == pytest.approx(_fishtest_alt2(counts, 0, 5), rel=1e-12)
    # vectorised over leading axes
    many = np.array([[10, 40, 300, 50, 12], [1, 2, 3, 4, 5]])
    assert S.gsprt_llr(many, 0.5, 0.51).shape == (2,)


def test_llr_is_close_to_the_exact_likelihood_ratio():
    # near H0/H1 and with many units the normal approximation matches the exact GLR
    s0, s1 = S.elo_to_score(0), S.elo_to_score(5)
    for counts in ([1764, 40, 4333, 33, 1733], [1500, 60, 4200, 50, 2100], [4000, 1000, 4100]):
        exact = _exact_glr(counts, s0, s1)
        approx = float(S.gsprt_llr(counts, s0, s1))
        assert approx == pytest.approx(exact, rel=0.02, abs=0.05)


def test_exact_llr_is_fishtests_llr_logistic():
    """--llr mle: the exact generalised likelihood ratio (fishtest LLR_logistic) on the
    regularised counts; on 50 all-draw pairs about -0.72 where the approximation says -103.55."""
    s0, s1 = S.elo_to_score(0), S.elo_to_score(5)
    for counts in (
        [10, 40, 300, 50, 12],
        [0, 0, 5, 0, 45],
        [100, 7, 20],
        [3, 0, 0, 0, 1],
        [1764, 40, 4333, 33, 1733],
    ):
        reg = [x if x else S.REGULARIZE for x in counts]
        assert float(S.gsprt_llr_mle(counts, s0, s1)) == pytest.approx(
            _exact_glr(reg, s0, s1), rel=1e-9
        )
    assert float(S.gsprt_llr_mle([0, 0, 50, 0, 0], s0, s1)) == pytest.approx(-0.7176, abs=1e-3)
    assert float(S.gsprt_llr([0, 0, 50, 0, 0], s0, s1)) == pytest.approx(-103.55, abs=0.01)
    many = np.array([[10, 40, 300, 50, 12], [1, 2, 3, 4, 5]])
    got = S.gsprt_llr_mle(many, s0, s1)
    assert got.shape == (2,) and got[0] == pytest.approx(float(S.gsprt_llr_mle(many[0], s0, s1)))


def test_sprt_with_the_exact_llr_and_what_the_docs_say():
    r = S.run_sprt("greedy", "random", "shithead", seed=0, llr="mle")
    assert r.decision == "H1" and r.llr_method == "mle" and r.to_json()["llr_method"] == "mle"
    # all pairs at 1/2: the exact ratio moves slowly (the approximation accepts H0 at --min-games)
    r = S.run_sprt("greedy", "greedy", "shithead", seed=0, llr="mle", max_games=20_000)
    assert r.decision == "H0" and r.games > 300
    assert float(S.gsprt_llr_mle([0, 0, 50, 0, 0], r.s0, r.s1)) > r.lower
    with pytest.raises(S.SPRTError, match="--llr"):
        S.run_sprt("greedy", "random", "shithead", llr="exact")
    # the documentation says what is computed: the approximation is LLR_alt2, the exact one
    # LLR_logistic, the Elo model is the logistic one, and there is no overshoot correction
    doc = S.__doc__ + S.DEFINITIONS["llr"]
    assert "LLR_alt2" in S.DEFINITIONS["llr"] and "LLR_logistic" in S.DEFINITIONS["llr"]
    assert "no overshoot correction" in doc and "1 / (1 + 10^(-e/400))" in doc
    assert "LLR_alt2`` used by ``LLR_logistic" not in S.__doc__


def test_zero_variance_is_regularised_towards_the_nearer_hypothesis():
    # every pair scored 1/2 (identical deterministic strategies): LLR finite and negative
    llr = S.gsprt_llr([0, 0, 50, 0, 0], S.elo_to_score(0), S.elo_to_score(5))
    assert np.isfinite(llr) and llr < S.wald_bounds(0.05, 0.05)[0]
    llr = S.gsprt_llr([0, 0, 0, 0, 50], S.elo_to_score(0), S.elo_to_score(5))
    assert np.isfinite(llr) and llr > S.wald_bounds(0.05, 0.05)[1]


def test_elo_model_and_bounds():
    assert S.elo_to_score(0) == 0.5
    assert S.elo_to_score(400) == pytest.approx(10 / 11)
    assert S.score_to_elo(10 / 11) == pytest.approx(400)
    e = np.array([-300.0, -5.0, 0.0, 7.5, 250.0])
    assert np.allclose(S.score_to_elo(S.elo_to_score(e)), e)
    assert S.score_to_elo(1.0) == math.inf and S.score_to_elo(0.0) == -math.inf
    lo, hi = S.wald_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(math.log(0.95 / 0.05))
    assert S.wald_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    for a, b in ((0, 0.05), (0.05, 1.0), (0.6, 0.5), (float("nan"), 0.05)):
        with pytest.raises(S.SPRTError):
            S.wald_bounds(a, b)


# ------------------------------------------------------------------ schedule and scoring
def test_paired_schedule_is_the_tournament_schedule_at_two_players():
    rs = preset("shithead")
    spec = RunSpec(rs, 2, ("greedy", "random"), ("greedy", "random"), seed=3, games=40)
    ref = schedule_games(spec, 6, 40)
    got = S.schedule(2, 6, 40, paired=True)
    for k in ("index", "deal", "dealer", "seating"):
        assert np.array_equal(got[k], ref[k]), k
    assert np.array_equal(got["seating"][np.arange(34), got["x_seat"]], np.zeros(34))


def test_unpaired_schedule_gives_every_game_its_own_deal():
    for p in (2, 3, 4):
        paired, single = S.schedule(p, 0, 60, True), S.schedule(p, 0, 60, False)
        assert len(np.unique(single["deal"])) == 60
        for k in ("index", "dealer", "seating", "x_seat"):
            assert np.array_equal(paired[k], single[k])
        # X sits once in every seat per deal; Y fills the other seats
        assert np.array_equal(
            np.sort(paired["x_seat"].reshape(-1, p), axis=1), np.tile(np.arange(p), (60 // p, 1))
        )
        assert (paired["seating"].sum(axis=1) == p - 1).all()


def test_half_points():
    two = np.array([[1, 2], [2, 1], [0, 0]], np.int8)
    assert S.half_points(two, np.array([0, 0, 1])).tolist() == [2, 0, 1]
    three = np.array([[1, 3, 2], [2, 0, 0], [0, 0, 1], [3, 1, 2]], np.int8)
    # X out first (4), X second with two still in (4: ahead of both), X still in with one other (1:
    # level + behind),
    # X last (0)
    assert S.half_points(three, np.array([0, 0, 1, 0])).tolist() == [4, 4, 1, 0]


def test_scores_match_the_tournament_kernel_run():
    # the head-to-head play gives the same games as play_chunk on the tournament schedule
    rs = preset("shithead")
    spec = RunSpec(rs, 2, ("greedy", "random"), ("greedy", "random"), seed=5, games=200)
    rec = play_chunk(spec, 0, 200).records
    m = S.open_match("greedy", "random", rs, 2, seed=5)
    h, unf = m.play(0, 200, paired=True)
    x_seat = S.schedule(2, 0, 200)["x_seat"]
    assert np.array_equal(h, S.half_points(rec["places"], x_seat))
    assert np.array_equal(unf, rec["unfinished"])


@pytest.mark.parametrize("players,paired", [(3, True), (2, False), (3, False)])
def test_trace_schedule_replays_the_head_to_head_games(players, paired):
    """`shedsim trace --schedule head-to-head[-unpaired]` replays game g of sprt's own run
    (more than 2 players or unpaired deals, which the tournament numbering cannot name;
    before, their failures printed no trace command): same places, game by game."""
    from shedsim.analysis.replay import replay_game, tournament_run_spec
    from shedsim.runs.simulate import replay_command
    from shedsim.seeding import game_keys

    rs = preset("shithead")
    m = S.open_match("greedy", "random", rs, players, seed=7)
    sched = S.schedule(players, 0, 3 * players, paired)
    dk, sk = game_keys(7, sched["index"], sched["deal"])
    rec = m.kernel.play(m.rules_array, m.ids, m.params, sched["seating"], dk, sk, sched["dealer"])
    name = "head-to-head" if paired else "head-to-head-unpaired"
    spec = tournament_run_spec(rs, players, "greedy,random", 7, 3 * players - 1, schedule=name)
    for g in range(3 * players):
        got = replay_game(spec, g, narrate=False).result.places
        assert got == rec["places"][g].tolist(), g
    assert f"--schedule {name}" in replay_command(spec, 4)


# ------------------------------------------------------------------ the sequential test
def test_stops_at_the_first_crossing_and_does_not_depend_on_the_batch():
    runs = [S.run_sprt("greedy", "heuristic", "shithead", seed=2, batch=b) for b in (2, 37, 2000)]
    r = runs[0]
    for o in runs[1:]:
        assert (o.decision, o.games, o.llr) == (r.decision, r.games, r.llr)
        assert np.array_equal(o.path_llr, r.path_llr) and np.array_equal(o.counts, r.counts)
    assert r.decision in ("H0", "H1") and r.games == 2 * r.units == 2 * len(r.path_llr)
    assert r.counts.sum() == r.units and len(r.counts) == 5
    # recompute the path from the unit scores: only the last unit crosses (from --min-games on)
    m = S.open_match("greedy", "heuristic", "shithead", 2, seed=2)
    h, _ = m.play(0, r.games, paired=True)
    codes = h.reshape(-1, 2).sum(axis=1)
    cum = np.cumsum(np.eye(5, dtype=np.int64)[codes], axis=0)
    path = S.gsprt_llr(cum, r.s0, r.s1)
    assert np.allclose(path, r.path_llr)
    live = np.arange(1, r.units + 1) * 2 >= r.min_games
    crossed = live & ((path >= r.upper) | (path <= r.lower))
    assert crossed[-1] and not crossed[:-1].any()
    assert np.array_equal(cum[-1], r.counts)


def test_greedy_beats_random_in_under_5000_games():
    for seed in range(5):
        r = S.run_sprt("greedy", "random", "shithead", seed=seed)
        assert r.decision == "H1" and r.games < 5000, (seed, r.decision, r.games)
        assert r.lo > 0.5 and r.elo_lo > 0
    r = S.run_sprt("random", "greedy", "shithead", seed=0)
    assert r.decision == "H0" and r.hi < 0.5


@pytest.mark.slow
def test_aa_runs_accept_h0_over_20_seeds():
    """random vs random, elo0 = 0, elo1 = 5 (the default bounds), 20 seeds (about 20 s on
    one core; ``make stats-check``): H0 in at least 15, H1 (a false alarm) in at most 2."""
    got = [
        S.run_sprt("random", "random", "shithead", seed=s, batch=5000).decision for s in range(20)
    ]
    assert got.count("H0") >= 15 and got.count("H1") <= 2, got


def test_aa_runs_accept_h0():
    # the quick version of the one above: random vs random at the default bounds, 6 seeds
    got = [
        S.run_sprt("random", "random", "shithead", seed=s, batch=5000).decision for s in range(6)
    ]
    assert got.count("H0") >= 4 and got.count("H1") <= 1, got
    # identical deterministic strategies: every pair scores 1/2, H0 as soon as --min-games allows
    r = S.run_sprt("greedy", "greedy", "shithead", seed=0)
    assert r.decision == "H0" and r.games == 100 and r.counts.tolist() == [0, 0, 50, 0, 0]
    assert r.score == 0.5 and r.lo == r.hi == 0.5


def test_identical_deterministic_strategies_are_called_degenerate(tmp_path):
    """greedy against greedy cannot fail (every pair scores exactly 1/2): the command says
    so and what to run instead; random against random, or an unpaired run, is a real test."""
    assert S.degenerate_note("greedy", "greedy", 2) is not None
    assert S.degenerate_note("expert:search=0", "expert:search=0", 3) is not None
    assert S.degenerate_note("random", "random", 2) is None
    assert S.degenerate_note("greedy", "greedy", 2, paired=False) is None
    assert S.degenerate_note("expert:search=0", "expert:search=1", 2) is None
    out = tmp_path / "aa"
    r = cli("--a", "greedy", "--b", "greedy", "--out", str(out))
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())  # the console wraps long notes
    assert "degenerate comparison" in said and "--a random --b random" in said
    info = json.loads((out / "run.json").read_text())
    assert info["notes"] and "cannot fail" in info["notes"][0]
    assert "+0.0  [+0.0, +0.0]" in r.output  # exact: zero width, no "-0.0"
    r = cli("--a", "greedy", "--b", "random", "--llr", "mle")  # with the progress bar's console
    assert r.exit_code == 0 and "exact maximum likelihood" in r.output
    r = cli("--a", "random", "--b", "random", "--max-games", "400", "--quiet")
    assert r.exit_code == 0 and "degenerate comparison" not in " ".join(r.output.split())


def test_unpaired_uses_the_trinomial_model():
    r = S.run_sprt("greedy", "heuristic", "shithead", seed=1, paired=False)
    assert len(r.counts) == 3 and r.unit_games == 1 and r.games == r.units
    assert r.decision in ("H0", "H1")


def test_no_decision_at_max_games():
    r = S.run_sprt("random", "random", "shithead", seed=0, max_games=301)
    assert r.decision == "none" and r.games == 300 and r.lower < r.llr < r.upper
    assert "no decision" in r.decision_text()


def test_more_players():
    r = S.run_sprt("greedy", "random", "shithead", players=3, seed=0)
    assert r.decision == "H1" and r.games % 3 == 0 and len(r.counts) == 2 * 2 * 3 + 1


def test_bad_options_are_named():
    for kw, opt in (
        (dict(elo0=5, elo1=5), "--elo0"),
        (dict(alpha=0), "--alpha"),
        (dict(max_games=1), "--max-games"),
        (dict(min_games=-1), "--min-games"),
        (dict(batch=0), "--batch"),
        (dict(players=9), "--players"),
        (dict(a="nope"), "--a"),
        (dict(b="greedy:x=1"), "--b"),
        (dict(seed=-1), "--seed"),
    ):
        args = dict(a="greedy", b="random") | kw
        with pytest.raises(S.SPRTError, match=opt):
            S.run_sprt(args.pop("a"), args.pop("b"), "shithead", **args)


# ------------------------------------------------------------------ what pairing buys
def test_pairing_narrows_the_interval_for_greedy_vs_expert():
    g = S.pairing_gain("greedy", "heuristic", "shithead", 2, games=6000, seed=0)
    assert g.paired.games == g.unpaired.games == 6000
    assert g.paired.units == 3000 and g.unpaired.units == 6000
    assert g.paired.width < g.unpaired.width and g.ratio > 1.2, (g.paired, g.unpaired)
    # both designs estimate the same score
    assert abs(g.paired.score - g.unpaired.score) < 0.03
    assert list(g.table()["design"]) == ["paired", "unpaired"]


# ------------------------------------------------------------------ command line
def test_cli_says_the_games_played_after_the_decision_were_not_used(tmp_path):
    """The test decides inside a batch; the rest of the batch, played ahead of the decision,
    is never used. The output says so (before, the bar ended at the games played and the
    result said fewer, with nothing to tell why)."""
    import re

    r = cli("--a", "greedy", "--b", "random", "--out", str(tmp_path / "o"), "--quiet")
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    m = re.search(
        r"games ([\d,]+) .*?; ([\d,]+) played, the ([\d,]+) after the decision not used", said
    )
    assert m, said
    used, played, rest = (int(g.replace(",", "")) for g in m.groups())
    stored = json.loads((tmp_path / "o" / "run.json").read_text())["result"]["games"]
    assert used == stored and played - used == rest > 0, (used, played, rest)


def test_cli_writes_the_outputs(tmp_path):
    out = tmp_path / "o"
    r = cli("--a", "greedy", "--b", "random", "--out", str(out), "--quiet")
    assert r.exit_code == 0, r.output
    assert "H1 accepted" in r.output and "Elo" in r.output and "score" in r.output
    assert sorted(p.name for p in out.iterdir() if p.name not in STORE_FILES) == [
        "llr.png",
        "run.json",
        "sprt.csv",
    ]
    info = json.loads((out / "run.json").read_text())
    for k in (
        "command",
        "title",
        "spec",
        "definitions",
        "headline",
        "versions",
        "outputs",
        "result",
    ):
        assert k in info, k
    assert info["command"] == "shedsim sprt" and info["result"]["decision"] == "H1"
    assert info["outputs"] == ["llr.png", "run.json", "sprt.csv"]
    head = (out / "sprt.csv").read_text().splitlines()
    assert head[0] == "games,units,score,llr,lower,upper"
    assert int(head[-1].split(",")[0]) == info["result"]["games"]


def test_cli_no_decision_exits_0_and_says_so():
    r = cli("--a", "random", "--b", "random", "--max-games", "200", "--quiet")
    assert r.exit_code == 0 and "no decision" in r.output


def test_cli_compare_pairing(tmp_path):
    out = tmp_path / "p"
    r = cli(
        "--a",
        "greedy",
        "--b",
        "heuristic",
        "--compare-pairing",
        "--games",
        "2000",
        "--out",
        str(out),
        "--quiet",
    )
    assert r.exit_code == 0, r.output
    assert "paired" in r.output and "unpaired" in r.output and "width ratio" in r.output
    assert sorted(p.name for p in out.iterdir() if p.name not in STORE_FILES) == [
        "pairing.csv",
        "pairing.png",
        "run.json",
    ]
    info = json.loads((out / "run.json").read_text())
    assert info["result"]["ratio"] == pytest.approx(
        info["result"]["unpaired"]["width"] / info["result"]["paired"]["width"]
    )


@pytest.mark.parametrize(
    "args, says",
    [
        (("--a", "nope", "--b", "random"), "--a"),
        (("--a", "greedy", "--b", "random", "--elo0", "5", "--elo1", "2"), "--elo0"),
        (("--a", "greedy", "--b", "random", "--beta", "1.5"), "--beta"),
        (("--a", "greedy", "--b", "random", "--players", "7"), "--players"),
        (("--a", "greedy", "--b", "random", "--games", "100"), "--games"),
        (("--a", "greedy", "--b", "random", "--compare-pairing", "--games", "3"), "--games"),
        (("--a", "greedy", "--b", "random", "--compare-pairing", "--unpaired"), "--unpaired"),
        (("--a", "greedy", "--b", "random", "--rules", "nope"), "rules"),
        (
            ("--a", "greedy", "--b", "random", "--max-games", "10000000000", "--batch", "2"),
            "one run holds at most",
        ),
        (
            (
                "--a",
                "greedy",
                "--b",
                "random",
                "--compare-pairing",
                "--games",
                "100000000",
                "--batch",
                "2",
            ),
            "--games",
        ),
    ],
)
def test_cli_bad_options_exit_2_and_write_nothing(tmp_path, args, says):
    out = tmp_path / "never"
    r = cli(*args, "--out", str(out), "--quiet")
    assert r.exit_code == 2 and says in r.output, r.output
    assert not out.exists()


def test_cli_plain_python_strategy_is_refused(tmp_path, plain_python_plugins):
    d = plain_python_plugins
    r = cli("--a", "pyplayer", "--b", "greedy", "--strategy-path", str(d), "--quiet")
    assert r.exit_code == 2 and "plain Python" in r.output


def test_cli_help_teaches():
    r = cli("--help")
    assert r.exit_code == 0
    for s in ("--elo1", "--unpaired", "--compare-pairing", "Example", "Exit codes"):
        assert s in r.output, s


# ------------------------------------------------------------------ what the verdicts say
def test_the_decision_says_what_the_test_rules_out():
    """Before, H1 read "stronger by at least elo1 Elo" and H0 "the difference is near elo0
    or below": the SPRT rules out elo0 or less (H1) or elo1 or more (H0), nothing more."""
    import dataclasses

    r = S.run_sprt("greedy", "random", "shithead", max_games=2000)
    assert r.decision == "H1"
    text = r.decision_text()
    assert (
        text.startswith(
            "H1 accepted: greedy is stronger than random (the test rules out a difference of 0 Elo "
            "or less"
        )
        and "at least" not in text
    )
    h0 = dataclasses.replace(r, decision="H0").decision_text()
    assert h0.startswith("H0 accepted: greedy is not stronger than random by 5 Elo or more")
    assert "a difference between 0 and 5 is not ruled out" in h0 and "near" not in h0
    assert (
        "is not weaker than random by 5 Elo or more"
        in dataclasses.replace(r, elo0=-5.0).decision_text()
    )


def test_the_pairing_verdict_is_tested():
    """Before, any width ratio above 1 read "pairing helps"; now an F test of the two
    designs' variances decides, and a ratio near 1 is no clear difference."""

    def gain(sd_unpaired):
        paired = S.Estimate("paired", 2000, 1000, 2, 0.5, 0.47, 0.53, 0.5)
        unpaired = S.Estimate("unpaired", 2000, 2000, 1, 0.5, 0.46, 0.54, sd_unpaired)
        return S.PairingGain("a", "b", "shithead", 2, 0, paired, unpaired)

    assert gain(0.5 * 2**0.5 * 1.01).verdict().startswith("no clear difference")
    assert gain(0.5 * 2**0.5 * 1.3).verdict().startswith("pairing helps (F test p")
    assert gain(0.5 * 2**0.5 * 0.7).verdict().startswith("pairing hurts here")


def test_brownian_exit_is_walds_approximation():
    """At H1 (drift = var / 2 in LLR units) from 0 between Wald's bounds the motion leaves at
    the upper bound with probability 1 - beta, after Wald's average sample number
    ((1 - beta) b + beta a) / drift; without drift, (x - a)(b - x) / var; and the exit time of a
    Gaussian random walk with small steps (fixed seed) agrees within a few per cent."""
    import numpy as np

    a, b = S.wald_bounds(0.05, 0.05)
    var = 4e-4
    p, t = S.brownian_exit(0.0, a, b, var / 2, var)
    assert p == pytest.approx(0.95) and t == pytest.approx((0.95 * b + 0.05 * a) / (var / 2))
    p0, t0 = S.brownian_exit(1.0, a, b, 0.0, var)
    assert p0 == pytest.approx((1.0 - a) / (b - a)) and t0 == pytest.approx(
        (1.0 - a) * (b - 1.0) / var
    )
    assert S.brownian_exit(1.0, a, b, 1e-15, var)[1] == pytest.approx(t0)  # continuous at no drift
    assert S.brownian_exit(b, a, b, -1.0, var) == (1.0, 0.0)
    rng = np.random.default_rng(7)
    drift, var = -0.000625, 0.0025  # steps of sd 0.05: a small overshoot past the bounds
    x = np.zeros(4000)
    steps = np.zeros(4000)
    alive = np.ones(4000, bool)
    while alive.any():
        x[alive] += drift + np.sqrt(var) * rng.standard_normal(alive.sum())
        steps[alive] += 1
        alive &= (x > a) & (x < b)
    p, t = S.brownian_exit(0.0, a, b, drift, var)
    assert np.mean(x >= b) == pytest.approx(p, abs=0.03) and steps.mean() == pytest.approx(
        t, rel=0.05
    )


def test_the_expected_length_follows_the_evidence():
    """Before any unit nothing is expected; the expected length lies between the units seen
    (and --min-games) and --max-games; stronger evidence leaves fewer units to play; after
    the decision it is the units used."""
    import numpy as np

    seq = S.Sequential(2, 0.0, 5.0, 0.05, 0.05, 200_000, True, 100, "normal", 200)
    assert seq.expected_units() is None
    rng = np.random.default_rng(3)
    seq.feed(rng.integers(0, 5, 100), np.zeros(100, np.int64))  # no evidence either way
    far = seq.expected_units()
    assert seq.units < far <= seq.max_units
    strong = S.Sequential(2, 0.0, 5.0, 0.05, 0.05, 200_000, True, 100, "normal", 200)
    strong.feed(
        np.minimum(4, rng.integers(1, 6, 60)), np.zeros(60, np.int64)
    )  # X ahead in most pairs
    assert not strong.finished and strong.units <= strong.expected_units() < far
    while not strong.finished:
        strong.feed(np.minimum(4, rng.integers(1, 6, 60)), np.zeros(60, np.int64))
    assert strong.expected_units() == strong.units


@pytest.mark.parametrize(
    "extra", [[], ["--compare-pairing", "--games", "400"]], ids=["sprt", "pairing"]
)
def test_a_dask_cluster_plays_the_test_and_the_pairing_as_one_worker_does(extra, tmp_path):
    """Their batches are no chunks of a run spec: the cluster's workers are warmed with the
    match's (they once failed before the first batch); the CSV is the one worker's."""
    base = [
        "sprt",
        "--a",
        "greedy",
        "--b",
        "random",
        "--batch",
        "100",
        "--quiet",
        "--no-plots",
        *extra,
    ]
    if not extra:
        base += ["--max-games", "400"]
    got = {}
    for name, opts in (
        ("one", ["--workers", "1"]),
        ("dask", ["--workers", "2", "--backend", "dask"]),
    ):
        r = CliRunner().invoke(app, [*base, *opts, "--out", str(tmp_path / name)])
        assert r.exit_code == 0, (name, r.output)
        got[name] = {p.name: p.read_bytes() for p in (tmp_path / name).glob("*.csv")}
    assert got["one"] and got["dask"] == got["one"]


def test_the_default_batch_follows_the_strategies_cost():
    """A slow strategy (a search per decision) gets small batches by default, so the test
    can stop soon after it decides; the fast ones keep the large default. sprt and
    gauntlet choose it alike."""
    from shedsim.analysis.matchup import SLOW_BATCH, default_batch

    assert default_batch(["ismcts:iterations=5", "greedy"], 2000) == SLOW_BATCH
    assert default_batch(["greedy", "random", "champion"], 2000) == SLOW_BATCH
    assert default_batch(["greedy", "random"], 2000) == 2000 > SLOW_BATCH
    assert default_batch(["bot:python3 x.py", "heuristic"], 2000) == 2000
    assert default_batch(["nosuch", "greedy"], 2000) == 2000


def test_sprt_and_gauntlet_store_the_small_batch_for_a_slow_strategy(tmp_path):
    import json

    from shedsim.analysis.matchup import SLOW_BATCH
    from shedsim.cli import app
    from typer.testing import CliRunner

    run = CliRunner().invoke
    out = str(tmp_path / "s")
    r = run(app, ["sprt", "--a", "ismcts:iterations=5", "--b", "greedy", "--max-games", "8",
                  "--min-games", "0", "--quiet", "--no-plots", "--out", out])  # fmt: skip
    assert r.exit_code == 0, r.output
    spec = json.loads((tmp_path / "s" / "run.json").read_text())
    assert SLOW_BATCH in _values(spec, "batch"), spec
    out = str(tmp_path / "g")
    r = run(app, ["gauntlet", "--candidate", "ismcts:iterations=5", "--opponents", "greedy",
                  "--games", "8", "--quiet", "--no-plots", "--out", out])  # fmt: skip
    assert r.exit_code == 0, r.output
    spec = json.loads((tmp_path / "g" / "run.json").read_text())
    assert SLOW_BATCH in _values(spec, "batch"), spec


def _values(tree, key):
    """Every value stored under ``key`` anywhere in a JSON tree."""
    if isinstance(tree, dict):
        return [v for k, v in tree.items() if k == key] + [
            x for v in tree.values() for x in _values(v, key)
        ]
    if isinstance(tree, list):
        return [x for v in tree for x in _values(v, key)]
    return []


def test_a_max_games_below_the_default_floor_says_what_to_do(tmp_path):
    from shedsim.cli import app
    from typer.testing import CliRunner

    r = CliRunner().invoke(
        app, ["sprt", "--a", "greedy", "--b", "random", "--max-games", "16", "--quiet",
              "--no-plots"],
    )  # fmt: skip
    assert r.exit_code == 2 and "--max-games: 16 is below the default --min-games (100" in r.output
    assert "give --min-games" in r.output
    out = str(tmp_path / "s")
    args = ["sprt", "--a", "greedy", "--b", "random", "--max-games", "16", "--min-games", "16"]
    r = CliRunner().invoke(app, [*args, "--quiet", "--no-plots", "--out", out])
    assert r.exit_code == 0, r.output


def test_a_unanimous_score_still_has_an_interval():
    """Eight units all won: the t interval would have no width; the Wilson interval of
    the mean is given (8 of 8: about 0.68 to 1), and for units all lost; mixed units keep
    the t interval."""
    import numpy as np

    from shedsim.analysis.matchup import interval
    from shedsim.stats import t_interval, wilson

    m, lo, hi = interval(np.array([0, 0, 8]))
    wlo, whi = wilson(8, 8)
    assert m == 1.0 and hi == 1.0 and lo == pytest.approx(float(wlo)) and 0.6 < lo < 0.7
    m, lo, hi = interval(np.array([6, 0, 0]))  # every unit lost
    assert m == 0.0 and lo == 0.0 and 0.3 < hi < 0.4
    counts = np.array([2, 3, 5])
    a = np.array([0, 0.5, 1.0])
    tm, tlo, thi = t_interval(10, counts @ a, counts @ (a * a))
    assert interval(counts) == pytest.approx((float(tm), float(tlo), float(thi)))


@pytest.mark.parametrize(
    "x, text",
    [(-0.0, "+0.0"), (-0.04, "+0.0"), (0.04, "+0.0"), (-0.05001, "-0.1"), (12.34, "+12.3"),
     (-7.0, "-7.0"), (float("inf"), "+inf"), (float("-inf"), "-inf")],
)  # fmt: skip
def test_an_elo_difference_reads_the_same_everywhere_and_never_minus_zero(x, text):
    from shedsim.stats.sprt import elo_text

    assert elo_text(x) == text
