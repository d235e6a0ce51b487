"""``shedsim compare-rules`` and :mod:`shedsim.analysis.compare`: variant parsing, pairing, the
per-deal aggregation, the statistics (calibration included), workers, the CLI."""

from __future__ import annotations

import math
import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from shedsim.analysis import compare as C
from shedsim.cli import app
from shedsim.rules.ruleset import RulesError, build
from shedsim.runs.simulate import RunSpec, play_chunk, schedule_games

runner = CliRunner()
# expert without its end-game look-ahead (search=0): with the look-ahead the 4-player field
# has heavier-tailed game lengths, and the A/A test below rejected equal mean lengths in 10%
# of its 200 seeds (2-8% allowed)
ENTRIES = ["random", "greedy", "expert:search=0"]


def cli(*args: str):
    return runner.invoke(app, ["compare-rules", *args])


# ------------------------------------------------------------------ variants
def test_split_variant_keeps_plus_inside_pickup_modes_and_toml_paths(tmp_path):
    assert C.split_variant("shithead") == ("shithead", [])
    assert C.split_variant("shithead+skip8+pickup:hand+faceup") == (
        "shithead",
        ["skip8", "pickup:hand+faceup"],
    )
    assert C.split_variant("palace+pickup:hand+faceup+low7") == (
        "palace",
        ["pickup:hand+faceup", "low7"],
    )
    assert C.split_variant("my+rules.toml+skip8") == ("my+rules.toml", ["skip8"])
    with pytest.raises(C.CompareError, match="--rules"):
        C.split_variant("shithead++skip8")
    with pytest.raises(C.CompareError, match="--rules"):
        C.split_variant("+skip8")
    f = tmp_path / "x+y.toml"
    f.write_text('preset = "shithead"\npickup = "always"\n')
    rs, applied = C.parse_variant(f"{f}+skip8")
    assert rs.pickup == "always" and 8 in rs.skip and applied == ("skip8",)


def test_plan_labels_duplicates_and_skips_variants_that_do_not_allow_the_players():
    plan = C.plan_variants(
        ["duel", "shithead", "shithead", "nines+low7"], house=["skip8"], players=4
    )
    assert [v.label for v in plan.variants] == ["shithead", "shithead#2", "nines+low7"]
    assert plan.skipped[0]["variant"] == "duel" and "players" in plan.skipped[0]["reason"]
    assert all(8 in v.rules.skip for v in plan.variants)  # --house applies to every variant
    assert plan.variants[2].toggles == ("low7", "skip8")


@pytest.mark.parametrize(
    "rules, house, players, each, needle",
    [
        (["nosuch", "shithead"], [], 4, False, "--rules 'nosuch'"),
        (["shithead+bogus", "shithead"], [], 4, False, "--rules 'shithead+bogus'"),
        (["shithead", "palace"], ["pickup:sometimes"], 4, False, "--house"),
        (["shithead+pickup:never", "palace"], ["pickup:always"], 4, False, "--house"),
        (["shithead"], [], 4, False, "--rules"),
        (["duel", "shithead"], [], 4, False, "--players 4"),
        (["shithead", "palace"], [], 1, False, "--players"),
        (["shithead", "palace"], [], 6, False, "--players 6"),
        (["shithead", "palace"], [], 4, True, "--each-toggle"),
        (["duel"], [], 4, True, "--players"),
    ],
)
def test_plan_errors_name_the_option(rules, house, players, each, needle):
    with pytest.raises(C.CompareError) as e:
        C.plan_variants(rules, house, players, each)
    assert needle in str(e.value)


def test_each_toggle_variants_and_skips():
    plan = C.plan_variants(["shithead"], players=4, each_toggle=True)
    labels = [v.label for v in plan.variants]
    assert labels[0] == "shithead"
    for t in (
        "low7",
        "low5",
        "invisible:3",
        "invisible:8",
        "invisible:9",
        "skip8",
        "reverse:K",
        "burn_passes",
        "random_starts",
        "dealer_left_starts",
        "pickup:hand",
        "pickup:hand+faceup",
        "pickup:always",
        "deck_gamble",
        "mix_last_hand",
        "two_decks",
        "hand_size:2",
        "hand_size:4",
        "table_size:2",
        "table_size:4",
    ):
        assert f"shithead+{t}" in labels, t
    skipped = {s["variant"]: s["reason"] for s in plan.skipped}
    assert "no change" in skipped["shithead+lowest_starts"]  # shithead's own start rule
    assert "shithead+max_moves:N" in skipped
    assert "shithead+pickup:never" not in labels  # the preset's own mode is not tried
    arrays = [v.rules.compile(4).tobytes() for v in plan.variants]
    assert len(set(arrays)) == len(arrays)  # every variant changes the rules
    # at 5 players a 4-card table does not fit in one deck: skipped with the RulesError
    plan5 = C.plan_variants(["shithead"], players=5, each_toggle=True)
    reasons = {s["variant"]: s["reason"] for s in plan5.skipped}
    assert "RulesError" in reasons["shithead+table_size:4"]
    # duel's low card is already the 5: low5 changes nothing
    plan2 = C.plan_variants(["duel"], players=2, each_toggle=True)
    reasons2 = {s["variant"]: s["reason"] for s in plan2.skipped}
    assert "no change" in reasons2["duel+low5"]
    # with two players a reverse changes nothing: skipped with the reason, not compared
    assert "two players" in reasons2["duel+reverse:K"]
    assert "duel+reverse:K" not in [v.label for v in plan2.variants]
    assert "no change" in skipped["shithead+pickup:never"]  # the base's own mode, listed


def test_each_toggle_lists_integer_toggles_out_of_range(tmp_path):
    p = tmp_path / "edge.toml"
    p.write_text('preset = "shithead"\nhand_size = 10\nburn_run = 8\ntable_size = 6\nplayers = 2\n')
    plan = C.plan_variants([str(p)], players=2, each_toggle=True)
    labels = [v.label for v in plan.variants]
    reasons = {s["variant"]: s["reason"] for s in plan.skipped}
    for tried, over in (
        ("hand_size:9", "hand_size:11"),
        ("table_size:5", "table_size:7"),
        ("burn_run:7", "burn_run:9"),
    ):
        assert f"{p}+{tried}" in labels
        assert "out of range" in reasons[f"{p}+{over}"], over


# ------------------------------------------------------------------ pairing
def _dealt(rules, house, players, stream, games=64):
    rs = build(rules, house)
    spec = RunSpec(rs, players, tuple(ENTRIES), tuple(ENTRIES), seed=11, games=games, stream=stream)
    return play_chunk(spec, 0, games, keep=("dealt", "moves")).records


def test_paired_status_matches_the_cards_actually_dealt():
    # duel and shithead at 2 players: same deck and deal sizes -> the same cards, paired
    assert C.deal_alike(build("duel"), build("shithead"))
    a, b = _dealt("duel", [], 2, 0), _dealt("shithead", [], 2, 1)
    assert np.array_equal(a["dealt"], b["dealt"])
    # other deal sizes or two decks: other cards, unpaired
    for house in (["hand_size:4"], ["table_size:2"], ["two_decks"]):
        assert not C.deal_alike(build("shithead"), build("shithead", house))
        assert not np.array_equal(
            _dealt("shithead", [], 4, 0)["dealt"], _dealt("shithead", house, 4, 1)["dealt"]
        )
    # a start rule or a gamble changes play, not the cards
    assert C.deal_alike(build("shithead"), build("shithead", ["random_starts", "deck_gamble"]))
    plan = C.plan_variants(["duel", "shithead", "shithead+hand_size:4"], players=2)
    res = C.compare(plan, entries=ENTRIES, games=48, seed=2)
    assert [v["paired"] for v in res.info["variants"]] == [True, True, False]
    assert list(res.effects.drop_duplicates("variant")["paired"]) == [True, False]


def test_tally_matches_the_kernel_records():
    """Per-deal aggregates equal a direct computation from full records (3 entries, 4 seats)."""
    plan = C.plan_variants(["shithead", "shithead+pickup:always"], players=4)
    res = C.compare(plan, entries=ENTRIES, games=96, seed=5, chunk_size=40)  # chunks of 40 games
    n = 4
    for i, (v, t) in enumerate(zip(plan.variants, res.tallies)):
        spec = RunSpec(v.rules, n, tuple(ENTRIES), tuple(ENTRIES), seed=5, games=96, stream=i)
        rec = play_chunk(spec, 0, 96).records
        seating = schedule_games(spec, 0, 96)["seating"]
        assert np.array_equal(t.lengths.ravel(), rec["moves"])
        assert np.array_equal(t.unfinished.ravel(), rec["unfinished"])
        assert np.array_equal(t.ends.ravel(), rec["end"])
        assert np.array_equal(t.pickups, rec["pickups"].sum(axis=1).reshape(-1, n).sum(axis=1))
        lost = rec["places"] == n
        starter = np.array([lost[g, rec["start"][g]] for g in range(96)])
        assert np.array_equal(t.starter_lost, starter.reshape(-1, n).sum(axis=1))
        for e in range(3):
            per_game = (lost & (seating == e)).sum(axis=1)
            assert np.array_equal(t.losses[:, e], per_game.reshape(-1, n).sum(axis=1))
        assert t.done.all()
        seats = C.seat_games(n, 3, 24)
        assert np.array_equal(seats.sum(axis=1), np.full(24, n * n))
        assert np.array_equal(
            seats,
            np.stack(
                [(seating == e).sum(axis=1).reshape(-1, n).sum(axis=1) for e in range(3)], axis=1
            ),
        )


# ------------------------------------------------------------------ statistics
def _aa_rejection_rates(seeds: int) -> dict[str, float]:
    """shithead against itself (paired deals, independent strategy streams), 1,008 games
    per repeat: per metric, the share of ``seeds`` seeded repeats with p < 0.05."""
    plan = C.plan_variants(["shithead", "shithead"], players=4)
    assert [v.label for v in plan.variants] == ["shithead", "shithead#2"]
    p: dict[str, list[float]] = {}
    for seed in range(seeds):
        res = C.compare(plan, entries=ENTRIES, games=1000, seed=seed)
        for m, pv in zip(res.effects["metric"], res.effects["p_value"]):
            p.setdefault(m, []).append(pv)
    assert res.info["games"] == 1008
    return {m: float(np.mean(np.array(v)[~np.isnan(v)] < 0.05)) for m, v in p.items()}


@pytest.mark.slow
def test_aa_calibration_over_200_seeds():
    """Mean length differs at p < 0.05 in 2-8% of 200 seeded A/A repeats; no metric is
    grossly miscalibrated (about 25 s on one core; ``make stats-check``)."""
    rate = _aa_rejection_rates(200)
    assert 0.02 <= rate["mean_moves"] <= 0.08, rate
    for m, r in rate.items():  # rare unfinished games make that test conservative
        assert r <= 0.10, (m, rate)


def test_aa_calibration_quick():
    """The quick version of the one above (60 repeats): no metric rejects in more than 15%
    of them, and over all metrics together the tests reject in 2-10% (neither far too
    often nor never)."""
    rate = _aa_rejection_rates(60)
    assert len(rate) >= 5, rate
    for m, r in rate.items():
        assert r <= 0.15, (m, rate)
    assert 0.02 <= float(np.mean(list(rate.values()))) <= 0.10, rate


def _unpaired_p_values(seeds: int) -> np.ndarray:
    """The unpaired tests' p-values over ``seeds`` pairs of independent deals (two seeds) of
    one rule set, three metrics each, the table as a stratum."""
    plan = C.plan_variants(["shithead", "shithead"], players=4)
    p = []
    for seed in range(seeds):
        a = C.compare(plan, entries=ENTRIES, games=1000, seed=seed).tallies[0]
        b = C.compare(plan, entries=ENTRIES, games=1000, seed=1000 + seed).tallies[1]
        strata = C.table_strata(a.lengths.shape[0], 4, 3)
        va, vb = C.deal_values(a), C.deal_values(b)
        for m, kind in (
            ("mean_moves", "length"),
            ("burns_per_game", "count"),
            ("starter_loss_rate", "rate"),
        ):
            p.append(C.effect_test(va[m], vb[m], kind, False, strata)["p_value"])
    return np.array(p)


@pytest.mark.slow
def test_unpaired_tests_are_not_grossly_conservative():
    """Independent deals of one rule set through the unpaired tests (60 pairs of seeds):
    with the table as a stratum they reject about 5% (pooled over tables they rejected 0%)."""
    p = _unpaired_p_values(60)
    assert 0.01 <= np.mean(p < 0.05) <= 0.10
    assert 0.4 <= np.median(p) <= 0.6


def test_unpaired_tests_are_not_grossly_conservative_quick():
    """The quick version of the one above (15 pairs of seeds, 45 p-values): not far too
    many rejections, and the p-values spread around the middle, not piled up near 1 as a
    grossly conservative test's are (pooled over tables, every one was above 0.9)."""
    p = _unpaired_p_values(15)
    assert np.mean(p < 0.05) <= 0.15
    assert 0.35 <= np.median(p) <= 0.65 and np.mean(p > 0.9) <= 0.25


def test_real_differences_are_detected():
    """pick-up always (paired) makes games much longer; a 2-card table (unpaired: other
    cards) shorter. Both are flagged after Holm, with intervals that exclude 0."""
    plan = C.plan_variants(
        ["shithead", "shithead+pickup:always", "shithead+table_size:2"], players=4
    )
    res = C.compare(plan, entries=ENTRIES, games=2000, seed=3)
    e = res.effects.set_index(["variant", "metric"])
    r = e.loc[("shithead+pickup:always", "mean_moves")]
    assert (
        r["significant"] and r["lo"] > 50 and bool(r["paired"]) and r["test"].startswith("paired t")
    )
    assert r["rank_test"].startswith("Wilcoxon") and r["p_rank"] < 0.05
    p = e.loc[("shithead+pickup:always", "pickups_per_game")]
    assert p["significant"] and p["lo"] > 0
    r = e.loc[("shithead+table_size:2", "mean_moves")]
    assert (
        r["significant"]
        and r["hi"] < 0
        and not bool(r["paired"])
        and r["test"].startswith("Welch t")
    )
    assert "Mann-Whitney" in r["rank_test"] and r["p_rank"] < 0.05
    # the effect's interval and its test agree: significant only with an interval that excludes 0
    sig = res.effects[res.effects["significant"]]
    assert ((sig["lo"] > 0) | (sig["hi"] < 0)).all()
    assert e.loc[("shithead+pickup:always", "skill_edge[expert:search=0]")]["significant"]
    # the skill edge reads the way people say it: random's loss rate minus the strategy's,
    # positive when the strategy does better than random
    v = res.variants.set_index("variant")
    for lab in ("greedy", "expert:search=0"):
        edge = v["loss_rate[random]"] - v[f"loss_rate[{lab}]"]
        assert np.allclose(v[f"skill_edge[{lab}]"], edge) and (v[f"skill_edge[{lab}]"] > 0.1).all()
        eff = e.loc[("shithead+pickup:always", f"skill_edge[{lab}]")]["effect"]
        assert eff == pytest.approx(edge["shithead+pickup:always"] - edge["shithead"])
    assert not any(c.startswith("skill_gap") for c in res.variants.columns)
    # the effect is the difference of the variants' means; Holm never lowers a p-value
    v = res.variants.set_index("variant")
    assert v.loc["shithead+table_size:2", "median_moves_hi"] < v.loc["shithead", "median_moves_lo"]
    assert e.loc[("shithead+pickup:always", "mean_moves")]["effect"] == pytest.approx(
        v.loc["shithead+pickup:always", "mean_moves"] - v.loc["shithead", "mean_moves"]
    )
    assert (res.effects["p_holm"] >= res.effects["p_value"]).all()
    h = res.headline()
    line = next(s for s in h if s.startswith("shithead+pickup:always against shithead: "))
    assert "games get longer" in line and "t test Holm p" in line
    # the intervals hold their estimates
    v = res.variants
    for val, lo, hi in (
        ("mean_moves", "mean_moves_lo", "mean_moves_hi"),
        ("median_moves", "median_moves_lo", "median_moves_hi"),
        ("p95_moves", "p95_moves_lo", "p95_moves_hi"),
        ("mean_rounds", "mean_rounds_lo", "mean_rounds_hi"),
        ("unfinished_rate", "unfinished_lo", "unfinished_hi"),
        ("pickups_per_game", "pickups_per_game_lo", "pickups_per_game_hi"),
        ("starter_loss_rate", "starter_loss_lo", "starter_loss_hi"),
        ("loss_rate[expert:search=0]", "loss_lo[expert:search=0]", "loss_hi[expert:search=0]"),
        ("skill_edge[greedy]", "skill_edge_lo[greedy]", "skill_edge_hi[greedy]"),
    ):
        assert ((v[lo] <= v[val]) & (v[val] <= v[hi]) & (v[lo] < v[hi])).all(), val
    assert (v["mean_rounds"] * 4 == v["mean_moves"]).all()


def test_same_results_for_any_number_of_workers_and_chunk_size():
    plan = C.plan_variants(["shithead", "shithead+skip8"], players=3)
    a = C.compare(plan, entries=ENTRIES, games=600, seed=9, workers=1)
    b = C.compare(plan, entries=ENTRIES, games=600, seed=9, workers=2, chunk_size=90)
    for x, y in ((a.variants, b.variants), (a.effects, b.effects), (a.lengths, b.lengths)):
        pd.testing.assert_frame_equal(x, y)
    for ta, tb in zip(a.tallies, b.tallies):
        assert np.array_equal(ta.lengths, tb.lengths) and np.array_equal(ta.losses, tb.losses)


# ------------------------------------------------------------------ CLI
def test_cli_writes_outputs_and_charts_that_decode(tmp_path):
    import matplotlib.image as mpimg

    out = tmp_path / "cmp"
    r = cli(
        "-r",
        "shithead",
        "-r",
        "shithead+pickup:always",
        "-r",
        "duel",
        "-r",
        "shithead+hand_size:4",
        "-p",
        "4",
        "-g",
        "480",
        "-s",
        "1",
        "-w",
        "1",
        "-o",
        str(out),
    )
    assert r.exit_code == 0, r.output
    assert "skipped duel" in r.output and "Significant effects" in r.output
    for f in (
        "variants.csv",
        "effects.csv",
        "lengths.csv",
        "forest.png",
        "lengths.png",
        "run.json",
    ):
        assert (out / f).is_file(), f
    for f in ("forest.png", "lengths.png"):
        img = mpimg.imread(out / f)
        assert img.ndim == 3 and img.shape[0] > 300 and img.shape[1] > 500
    info = json.loads((out / "run.json").read_text())
    assert info["command"] == "shedsim compare-rules" and info["title"]
    for key in ("definitions", "headline", "versions", "outputs", "spec"):
        assert info[key], key
    assert info["spec"]["skipped"][0]["variant"] == "duel"
    assert [v["label"] for v in info["spec"]["variants"]] == [
        "shithead",
        "shithead+pickup:always",
        "shithead+hand_size:4",
    ]
    assert (
        info["spec"]["games"] == 480 and info["spec"]["players"] == 4 and info["spec"]["seed"] == 1
    )
    assert sorted(info["outputs"]) == sorted(
        ["variants.csv", "effects.csv", "lengths.csv", "forest.png", "lengths.png", "run.json"]
    )
    v = pd.read_csv(out / "variants.csv")
    e = pd.read_csv(out / "effects.csv")
    ln = pd.read_csv(out / "lengths.csv")
    assert len(v) == 3 and len(e) == 2 * (6 + 2)
    for col in ("effect", "lo", "hi", "test", "statistic", "p_value", "p_holm", "paired"):
        assert col in e.columns
    for _lab, g in ln.groupby("variant"):
        assert g["games"].sum() == 480 and g["cumulative_share"].iloc[-1] == pytest.approx(1.0)
    # the same run with 2 workers and no plots writes the same CSVs
    out2 = tmp_path / "cmp2"
    r = cli(
        "-r",
        "shithead",
        "-r",
        "shithead+pickup:always",
        "-r",
        "duel",
        "-r",
        "shithead+hand_size:4",
        "-g",
        "480",
        "-s",
        "1",
        "-w",
        "2",
        "-o",
        str(out2),
        "--quiet",
        "--no-plots",
    )
    assert r.exit_code == 0, r.output
    for f in ("variants.csv", "effects.csv", "lengths.csv"):
        assert (out / f).read_bytes() == (out2 / f).read_bytes()
    assert not (out2 / "forest.png").exists()


def test_cli_each_toggle_and_two_players(tmp_path):
    out = tmp_path / "toggles"
    r = cli(  # the variants are the point here: cheap players, no charts (tested below)
        "-r", "shithead", "--each-toggle", "-S", "greedy,random", "-g", "96", "-w", "1",
        "-o", str(out), "--quiet", "--no-plots",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    info = json.loads((out / "run.json").read_text())
    assert len(info["spec"]["variants"]) >= 20 and info["each_toggle"]
    assert any(s["variant"] == "shithead+lowest_starts" for s in info["spec"]["skipped"])
    out2 = tmp_path / "duel"
    r = cli(
        "-r",
        "duel",
        "-r",
        "shithead",
        "-p",
        "2",
        "-S",
        "greedy,random",
        "-g",
        "200",
        "-o",
        str(out2),
        "--quiet",
        "--no-plots",
        "-w",
        "1",
    )
    assert r.exit_code == 0, r.output
    e = pd.read_csv(out2 / "effects.csv")
    assert e["paired"].all() and set(e["metric"]) >= {"skill_edge[greedy]", "mean_moves"}


@pytest.mark.parametrize(
    "args, needle",
    [
        (["-r", "nosuch", "-r", "shithead"], "--rules"),
        (["-r", "shithead+bogus", "-r", "shithead"], "--rules"),
        (["-r", "shithead", "-r", "palace", "-H", "pickup:sometimes"], "--house"),
        (["-r", "shithead", "-r", "palace", "-p", "1"], "--players"),
        (["-r", "shithead", "-r", "palace", "-p", "9"], "--players 9"),
        (["-r", "shithead", "-r", "palace", "-S", "greedy,nosuch"], "--strategies"),
        (["-r", "shithead"], "--rules"),
        ([], "--rules"),
        (["-r", "shithead", "-r", "palace", "--each-toggle"], "--each-toggle"),
        (["-r", "shithead", "-r", "palace", "-g", "0"], "--games"),
    ],
)
def test_cli_bad_input_exits_2_naming_the_option_and_writes_nothing(tmp_path, args, needle):
    out = tmp_path / "never"
    r = cli(*args, "-o", str(out), "--quiet")
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert not out.exists()


def test_cli_help_teaches():
    from shedsim.plugins import discover, select

    r = runner.invoke(app, ["compare-rules", "--help"], env={"COLUMNS": "200"})
    assert r.exit_code == 0
    flat = " ".join(r.output.replace("│", " ").split())
    field = ", ".join(
        select(discover([]), "compare")
    )  # derived from the traits: random, greedy, heuristic
    for s in (
        "--each-toggle",
        "baseline",
        "Example",
        "default: 4",
        f"(default: {field}: the baseline",
        "Exit codes",
    ):
        assert s in flat, s


def test_a_failing_strategy_exits_1(tmp_path, monkeypatch):
    from shedsim.runs import simulate
    from shedsim.runs.simulate import SimulationError

    def boom(*a, **k):
        raise SimulationError("strategy 'x' failed")

    monkeypatch.setattr(simulate, "play_chunk", boom)
    r = cli(
        "-r",
        "shithead",
        "-r",
        "palace",
        "-g",
        "48",
        "-w",
        "1",
        "-o",
        str(tmp_path / "o"),
        "--quiet",
    )
    assert r.exit_code == 1 and "strategy 'x' failed" in r.output
    assert not (tmp_path / "o" / "run.json").exists()


def test_rules_error_is_a_value_error_named_by_field():
    # the variant parser relies on RulesError carrying the field it names
    with pytest.raises(RulesError) as e:
        build("shithead", ["pickup:sometimes"])
    assert e.value.field == "pickup:sometimes"


def test_stalled_and_looped_games_are_counted_per_variant():
    """variants.csv, lengths.csv and run.json count how the unfinished games ended."""
    plan = C.plan_variants(["shithead+stall:0", "shithead+stall:250"], players=3)
    res = C.compare(plan, entries=["aggressive", "greedy", "random"], games=600, seed=3)
    v = res.variants
    assert list(v.columns[v.columns.get_loc("unfinished_hi") + 1 :][:3]) == [
        "stalled",
        "loops",
        "capped",
    ]
    for (_, row), t in zip(v.iterrows(), res.tallies):
        assert row["stalled"] + row["loops"] + row["capped"] == t.unfinished.sum()
        assert res.info["ends"][row["variant"]]["finished"] == (~t.unfinished).sum()
    assert v["stalled"].tolist()[0] == 0 and v["stalled"].tolist()[1] > 0 and v["loops"].min() > 0
    lengths = res.lengths.groupby(["variant", "kind"])["games"].sum()
    assert lengths[("shithead+stall:250", "stalled")] == v["stalled"].iloc[1]
    assert lengths[("shithead+stall:0", "proven loop")] == v["loops"].iloc[0]


# ------------------------------------------------------------------ findings in words
def _synthetic(deals=3000, seed=0):
    """Per-deal tallies made up for three paired variants at 2 players (random, greedy at
    one table): the baseline; a low7-like variant whose typical game is longer while the
    mean falls (the longest games are cut short); a skip8-like variant whose typical game
    is longer with the same mean. The starter loses 40% at the baseline (fair: 50%) and
    50% in the variants; random loses 70% of its games at the baseline, 60% in the
    variants (greedy's edge falls)."""
    rng = np.random.default_rng(seed)
    n = 2
    plan = C.plan_variants(["shithead", "shithead+low7", "shithead+skip8"], players=n)
    base = np.round(rng.gamma(2.0, 70.0, size=(deals, n))).astype(np.int64) + 20
    q = np.quantile(base, 0.9)
    low7 = np.where(base > q, base * 0.6, base * 1.06)
    skip8 = base.astype(np.float64)
    short = base <= np.quantile(base, 0.8)
    skip8[short] *= 1.2
    skip8[~short] -= (skip8[short] - base[short]).sum() / (~short).sum()
    tallies = []
    pickups, burns = (
        rng.poisson(40 * n, deals),
        rng.poisson(5 * n, deals),
    )  # the same in every variant
    for lengths, p_random, p_start in ((base, 0.7, 0.4), (low7, 0.6, 0.5), (skip8, 0.6, 0.5)):
        t = C.Tally.empty(deals, n, 2, 5000)
        t.lengths[:] = np.round(lengths)
        t.pickups[:], t.burns[:] = pickups, burns
        t.starter_lost[:] = rng.binomial(n, p_start, deals)
        lost = rng.binomial(n, p_random, deals)
        t.losses[:, 0], t.losses[:, 1] = lost, n - lost
        t.done[:] = True
        tallies.append(t)
    return C.analyse(plan, [("random", "random"), ("greedy", "greedy")], tallies)


def test_findings_say_the_typical_game_the_mean_fairness_and_luck_in_words():
    """Before, the headline listed the largest mean effects only: a typical game that moved
    with the mean unchanged was left out, a shift whose median rose while its mean fell
    read as a percentage fall, and nothing said the starter is favoured or that a falling
    edge means more luck."""
    res = _synthetic()
    e = res.effects.set_index(["variant", "metric"])
    low7, skip8 = e.loc[("shithead+low7", "mean_moves")], e.loc[("shithead+skip8", "mean_moves")]
    assert (
        low7["effect"] < 0
        and low7["significant"]
        and low7["median_shift"] == 1
        and low7["significant_median"]
    )
    assert low7["median_variant"] > low7["median_baseline"]
    assert not skip8["significant"] and skip8["significant_median"] and skip8["median_shift"] == 1
    h = res.headline()
    assert h[0].startswith(
        "Under shithead the starting player is favoured: the starter loses 39.6%"
    )
    lines = {s.split(" against ")[0]: s for s in h[1:-1]}
    assert set(lines) == {"shithead+low7", "shithead+skip8"}
    assert "the typical game gets longer (median" in lines["shithead+low7"]
    assert (
        "but the mean falls" in lines["shithead+low7"]
        and "fewer very long games" in lines["shithead+low7"]
    )
    assert (
        "the typical game gets longer (median" in lines["shithead+skip8"]
        and "while the mean does not change significantly" in lines["shithead+skip8"]
    )
    for line in lines.values():
        assert "more luck: the edge over random of greedy falls" in line
        assert "fairer: the start becomes fair within noise" in line
    assert h[-1].startswith("8 of 14 comparisons significant by any of their tests")
    assert "Holm-corrected" in h[-1]
    v = res.variants.set_index("variant")
    assert list(v["starter_verdict"]) == ["favoured", "fair within noise", "fair within noise"]
    assert (v["starter_fair_rate"] == 0.5).all()


def test_the_significant_effects_table_keeps_every_test_and_prints_the_findings(
    capsys, monkeypatch
):
    from shedsim.cli.compare import _print_tables

    monkeypatch.delenv("COLUMNS", raising=False)  # pytest-xdist's workers are given 80
    res = _synthetic()
    _print_tables(res)
    out = capsys.readouterr().out
    table = out[out.index("Significant effects") : out.index("Findings:")]
    assert "shithead+skip8" in table and "mean game length" in table.split("shithead+skip8", 1)[1]
    assert "median" in table and "longer" in table
    assert "favoured" in out and "Findings:" in out and "fewer very long games" in out


def test_rank_test_direction():
    rng = np.random.default_rng(3)
    x0 = rng.normal(100, 10, 600)
    strata = np.arange(600) % 3
    for paired in (True, False):
        up = C.effect_test(x0, x0 + rng.normal(3, 5, 600), "length", paired, strata)
        down = C.effect_test(x0, x0 - rng.normal(3, 5, 600), "length", paired, strata)
        assert up["rank_direction"] == 1 and down["rank_direction"] == -1 and up["p_rank"] < 0.05
    assert math.isnan(C.effect_test(x0, x0 + 1, "rate", True, strata)["rank_direction"])


def test_the_median_shift_and_rank_direction_are_directions_in_data_definition_and_report(tmp_path):
    """median_shift and rank_direction are which way a test points: effects.csv writes them as
    the integers -1, 0, +1 (empty where not tested), their definitions say so, and the report
    shows "+1", not "+1.000" or a share."""
    from pathlib import Path

    out = tmp_path / "run"
    r = CliRunner().invoke(
        app,
        [
            "compare-rules",
            "-r",
            "shithead",
            "-r",
            "shithead+pickup:always",
            "-p",
            "2",
            "--games",
            "240",
            "--seed",
            "3",
            "--workers",
            "1",
            "--quiet",
            "--no-plots",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    text = pd.read_csv(out / "effects.csv", dtype=str, keep_default_na=False)
    for col in ("median_shift", "rank_direction"):
        assert set(text[col]) - {""} <= {"-1", "0", "1"} and set(text[col]) - {""}, (
            col,
            set(text[col]),
        )
    moves = text[text["metric"] == "mean_moves"].iloc[0]
    defs = json.loads(
        (Path(__file__).parents[1] / "docs" / "reference" / "columns.json").read_text()
    )
    assert "integer" in defs["median_shift"] and "minus one half" not in defs["median_shift"]
    assert (
        "integer" in defs["rank_direction"] and "integer" in C.DEFINITIONS["median_shift, p_median"]
    )
    rep = CliRunner().invoke(app, ["report", str(out), "--out", str(tmp_path / "report.html")])
    assert rep.exit_code == 0, rep.output
    md = (tmp_path / "report.md").read_text()
    row = next(
        line
        for line in md.splitlines()
        if line.startswith("| shithead+pickup:always | mean moves |")
    )
    shift, rank = int(moves["median_shift"]), int(moves["rank_direction"])
    cells = [c.strip() for c in row.split("|")]
    assert (f"{rank:+d}" if rank else "0") in cells and (
        f"{shift:+d}" if shift else "0"
    ) in cells, row
    assert "1.000" not in row, row


def test_the_typical_cell_gives_a_direction_only_where_its_test_is_significant():
    """The effects table's "typical" cell: a median that rose 137 -> 152 with a rank test at
    Holm p 0.46 said "rank test: shorter (p 0.46)" beside "median ...: longer"; a direction
    the test does not support now reads "no clear shift", a significant one keeps its way."""
    from shedsim.cli.compare import _typical

    row = {
        "metric": "mean_moves",
        "p_median": 0.001,
        "p_median_holm": 0.002,
        "median_shift": 15.0,
        "median_baseline": 137.0,
        "median_variant": 152.0,
        "p_rank": 0.3,
        "p_rank_holm": 0.46,
        "rank_direction": -1,
    }
    cell = _typical(row)
    assert "median 137 -> 152: longer (p 0.002)" in cell, cell
    assert "rank test: no clear shift (p 0.46)" in cell and "shorter" not in cell, cell
    cell = _typical({**row, "p_rank_holm": 0.01, "rank_direction": 1})
    assert "rank test: longer (p 0.01)" in cell, cell
    cell = _typical({**row, "metric": "starter_loss_rate", "p_median_holm": 0.2})
    assert "median 137 -> 152: no clear shift (p 0.2)" in cell, cell
