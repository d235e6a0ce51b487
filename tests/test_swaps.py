"""The swap-phase study (shedsim.analysis.swaps) and the kernel features it needs: keeping the
face-up cards as dealt, forcing a face-up choice, and deals conditioned on one seat's
visible cards."""

import json

import numpy as np
import pytest
from scipy.stats import chisquare
from typer.testing import CliRunner

from shedsim.rules import engine
from shedsim.analysis import swaps as SW
from shedsim.analysis import swaps_report
from shedsim.rules.cards import pack, unpack
from shedsim.cli import app
from shedsim.kernel.build import KernelError
from shedsim.rules.ruleset import preset
from shedsim.seeding import game_keys
from shedsim.runs.simulate import RunSpec, loaded_kernel, play_chunk

SHITHEAD = preset("shithead")


def _kernel(players=3):
    spec = RunSpec(SHITHEAD, players, ("greedy",), ("greedy",), games=1, schedule="same")
    _, k, ids, params = loaded_kernel(spec)
    return k, ids, params, SHITHEAD.compile(players)


def test_keep_dealt_face_up_matches_the_reference_deal():
    spec = RunSpec(
        SHITHEAD, 3, ("greedy",), ("greedy",), seed=11, games=40, schedule="same", swap_from=(-1,)
    )
    rec = play_chunk(spec, 0, 40).records
    dk, _ = game_keys(11, np.arange(40))
    for g in range(40):
        state, _ = engine.deal(SHITHEAD, 3, int(dk[g]), g % 3)
        for s in range(3):
            assert rec["face_up"][g, s] == pack(state.seats[s].face_up)
            assert rec["dealt"][g, s] == pack(state.seats[s].face_up + state.seats[s].hand)


def test_forced_face_up_and_conditioned_deal():
    k, ids, params, ra = _kernel()
    n = 6000
    visible = pack([2, 2, 14, 10, 7, 5])
    up = pack([14, 10, 2])
    dk, sk = game_keys(3, np.arange(n))
    forced = np.zeros((n, 3), np.int64)
    forced[:, 1] = up
    rec = k.play(
        ra,
        ids,
        params,
        np.zeros((n, 3), np.int64),
        dk,
        sk,
        np.arange(n) % 3,
        forced_up=forced,
        given_seat=np.full(n, 1),
        given_visible=np.full(n, visible),
    )
    assert (rec["dealt"][:, 1] == visible).all()
    assert (rec["face_up"][:, 1] == up).all()
    # everything else is a uniform deal of the other 46 cards: seat 0's visible cards by rank
    counts = SW.rank_counts(rec["dealt"][:, 0]).sum(axis=0)
    left = np.full(13, 4)
    for r in unpack(visible):
        left[r - 2] -= 1
    expected = left / left.sum() * counts.sum()
    assert chisquare(counts, expected).pvalue > 0.001
    # the seat's cards are not always dealt in the same layer: as dealt, face-up varies
    rec2 = k.play(
        ra,
        ids,
        params,
        np.zeros((n, 3), np.int64),
        dk,
        sk,
        np.arange(n) % 3,
        swap_from=np.array([-1]),
        given_seat=np.full(n, 1),
        given_visible=np.full(n, visible),
    )
    assert len(set(rec2["face_up"][:, 1].tolist())) > 10


def test_impossible_conditioned_deal_or_forced_swap_is_refused():
    k, ids, params, ra = _kernel()
    dk, sk = game_keys(0, np.arange(2))
    five_aces = pack([14] * 5 + [2])
    with pytest.raises(KernelError):
        k.play(
            ra,
            ids,
            params,
            np.zeros((2, 3), np.int64),
            dk,
            sk,
            np.zeros(2, np.int64),
            given_seat=np.full(2, 0),
            given_visible=np.full(2, five_aces),
        )
    forced = np.zeros((2, 3), np.int64)
    forced[:, 0] = pack([14, 14, 14, 14])  # four cards: not a face-up row of three
    with pytest.raises(KernelError):
        k.play(
            ra,
            ids,
            params,
            np.zeros((2, 3), np.int64),
            dk,
            sk,
            np.zeros(2, np.int64),
            forced_up=forced,
        )


def test_face_up_choices():
    assert len(SW.face_up_choices(pack([2, 3, 4, 5, 6, 7]), 3)) == 20
    assert SW.face_up_choices(pack([5, 5, 5, 5, 6, 6]), 3) == sorted(
        {pack([5, 5, 5]), pack([5, 5, 6]), pack([5, 6, 6])}
    )


@pytest.fixture(scope="module")
def small_study():
    spec = SW.StudySpec(
        SHITHEAD, 3, "greedy", games=12_000, seed=4, deals=12, rollouts=60, min_games=100
    )
    return spec, SW.study(spec, workers=1)


def test_by_rank(small_study):
    spec, res = small_study
    a = res.by_rank
    assert a["chosen_up"].sum() == a["dealt_up"].sum() == spec.games * spec.players * 3
    assert a["visible"].sum() == spec.games * spec.players * 6
    rate = dict(zip(a["rank"], a["keep_up_rate"]))
    # greedy's swap puts shithead's specials (2 resets, 10 burns) face up, low cards in the hand
    assert rate["10"] > 0.95 and rate["2"] > 0.95 and rate["3"] < 0.05
    # as dealt, about half the visible cards of each rank are face up
    assert np.allclose(a["dealt_up"] / a["visible"], 0.5, atol=0.03)
    # the cards of one game are clustered (a seat's choices hang together): the interval,
    # one game = one cluster, is wider than a Wilson interval over cards for a mixed rank (deff > 1)
    from shedsim.stats import wilson

    lo, hi = wilson(a["chosen_up"], a["visible"])
    mixed = (a["keep_up_rate"] > 0.1) & (a["keep_up_rate"] < 0.9)
    assert mixed.any() and ((a["keep_up_hi"] - a["keep_up_lo"])[mixed] > (hi - lo)[mixed]).all()
    assert ((a["keep_up_lo"] <= a["keep_up_rate"]) & (a["keep_up_rate"] <= a["keep_up_hi"])).all()


def test_face_up_values(small_study):
    spec, res = small_study
    v, all_rows = res.values, res.values_all
    assert all_rows["seat_games"].sum() == spec.games * spec.players
    assert (v["seat_games"] >= spec.min_games).all()
    assert list(v["loss_rate"]) == sorted(v["loss_rate"])
    best, worst = v.iloc[0], v.iloc[-1]
    assert best["loss_hi"] < worst["loss_lo"]  # a real difference between face-up rows
    assert ((v["loss_lo"] <= v["loss_rate"]) & (v["loss_rate"] <= v["loss_hi"])).all()
    assert ((v["place_lo"] <= v["mean_place"]) & (v["mean_place"] <= v["place_hi"])).all()
    assert all(len(x.split()) == 3 for x in v["face_up"])


def test_swap_policies_and_regret(small_study):
    spec, res = small_study
    s = res.policies.summary.set_index("strategy")
    assert set(s.index) == {"no swap", "greedy-high", "expert-table", "random"}
    # putting the strong cards face up beats keeping them as dealt
    assert s.loc["greedy-high", "loss_hi"] < s.loc["no swap", "loss_lo"]
    h = res.policies.head_to_head
    row = h[(h["a"] == "greedy-high") & (h["b"] == "no swap")].iloc[0]
    assert row["share_a_ahead"] > 0.5 and row["p_holm"] < 0.05
    r = res.regret
    assert len(r) == spec.deals
    assert (r["regret"] >= 0).all()
    assert (r["policy_is_best"] == (r["regret"] <= 0)).all()
    assert (r["best_place"] <= r["policy_place"]).all() and (
        r["policy_place"] <= r["worst_place"]
    ).all()
    assert r["choices"].between(1, 20).all()


def test_same_results_for_any_worker_count():
    spec = SW.StudySpec(
        SHITHEAD,
        3,
        "greedy",
        games=3000,
        seed=9,
        deals=4,
        rollouts=20,
        min_games=10,
        chunk_size=700,
    )
    one = SW.study(spec, workers=1)
    two = SW.study(spec, workers=2)
    assert one.by_rank.equals(two.by_rank)
    assert one.values_all.equals(two.values_all)
    assert one.policies.summary.equals(two.policies.summary)
    assert one.regret.equals(two.regret)


def test_cli_writes_every_output(tmp_path):
    from matplotlib.image import imread

    out = tmp_path / "sw"
    res = CliRunner().invoke(
        app,
        [
            "swaps",
            "--games",
            "3000",
            "--deals",
            "3",
            "--rollouts",
            "10",
            "--workers",
            "1",
            "--swap-policy",
            "mine=aggressive",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    info = json.loads((out / "run.json").read_text())
    assert info["command"] == "shedsim swaps" and info["headline"]
    for f in info["outputs"]:
        assert (out / f).exists()
        if f.endswith(".png"):
            assert imread(out / f).shape[0] > 100
    assert "mine" in (out / "policies.csv").read_text()


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--strategy", "nosuch"], "--strategy"),
        (["--swap-policy", "nosuch"], "nosuch"),
        (["--players", "9"], "players"),
        (["--seat", "5"], "--seat"),
        (["--house", "nosuch"], "nosuch"),
    ],
)
def test_cli_bad_options_exit_2_and_write_nothing(tmp_path, args, needle):
    out = tmp_path / "sw"
    res = CliRunner().invoke(app, ["swaps", "--games", "100", "--quiet", "--out", str(out)] + args)
    assert res.exit_code == 2, res.output
    assert needle in res.output
    assert not out.exists() or not any(out.iterdir())


def test_error_bars_are_never_negative():
    from shedsim.output.charts.figure import bars

    lo, hi = bars([1.0, 0.0, 0.5], [0.9, 1e-17, np.nan], [0.9999999999999998, 0.1, np.nan])
    assert (lo >= 0).all() and (hi >= 0).all()
    assert hi[0] == 0 and lo[2] == 0 and hi[2] == 0


RUN_STORE = (".shedsim.lock", "spec.json", "chunks")
"""The run store's files beside the reports (shedsim.runs.store)."""


def test_cli_small_run_then_rerun_keeps_one_consistent_set(tmp_path):
    out = tmp_path / "sw"
    # 600 games: ranks always put face up give a Wilson bound a rounding error below the rate
    res = CliRunner().invoke(
        app,
        [
            "swaps",
            "--games",
            "600",
            "--deals",
            "2",
            "--rollouts",
            "4",
            "--workers",
            "1",
            "--swap-policy",
            "m=mc:rollouts=2",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    first = json.loads((out / "run.json").read_text())
    assert "regret.png" in first["outputs"] and "m" in first["swap_policies"]
    assert first["swap_policies"]["m"] == "mc:rollouts=2"
    res = CliRunner().invoke(
        app,
        [
            "swaps",
            "--games",
            "600",
            "--deals",
            "0",
            "--workers",
            "1",
            "--no-plots",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    second = json.loads((out / "run.json").read_text())
    assert sorted(p.name for p in out.iterdir() if p.name not in RUN_STORE) == sorted(
        second["outputs"]
    )
    assert (
        not any(f.endswith(".png") for f in second["outputs"])
        and "regret.csv" not in second["outputs"]
    )


def test_disk_full_while_writing_leaves_the_earlier_set(tmp_path, monkeypatch):
    from shedsim.base import atomic

    out = tmp_path / "sw"
    args = [
        "swaps",
        "--games",
        "600",
        "--deals",
        "0",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
        "--out",
        str(out),
    ]
    assert CliRunner().invoke(app, args).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name not in RUN_STORE}
    real = atomic._write
    calls = []

    def full(f, data, path):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(f, data, path)

    monkeypatch.setattr(atomic, "_write", full)
    res = CliRunner().invoke(app, args[:-2] + ["--seed", "1", "--out", str(out)])
    assert res.exit_code == 3, res.output
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name not in RUN_STORE} == before


def test_the_best_face_up_rows_are_the_set_the_data_cannot_tell_apart(small_study):
    """Before, the headline named the single lowest row (the minimum of hundreds of noisy
    rows, which another seed or size names differently) as "best". Now it names the rows
    not significantly worse than any other (subset selection with a Bonferroni correction),
    which holds the best with 95% confidence, and says the lowest alone is a minimum."""
    spec, res = small_study
    v = res.values
    best, worst = v[v["in_best_set"]], v[v["in_worst_set"]]
    assert (
        1 < len(best) < len(v)
        and 1 < len(worst) < len(v)
        and not (v["in_best_set"] & v["in_worst_set"]).any()
    )
    assert v["in_best_set"].iloc[0] and v["in_worst_set"].iloc[-1]
    # every row left out of the best set is significantly worse than some row of it
    from scipy.stats import norm

    crit = norm.isf(0.05 / (len(v) - 1))
    for _, r in v[~v["in_best_set"]].iterrows():
        z = (r["loss_rate"] - v["loss_rate"]) / np.sqrt(r["loss_se"] ** 2 + v["loss_se"] ** 2)
        assert (z > crit).any()
    for _, r in best.iterrows():
        z = (r["loss_rate"] - v["loss_rate"]) / np.sqrt(r["loss_se"] ** 2 + v["loss_se"] ** 2)
        assert not (z > crit).any()
    h = swaps_report.headline(spec, res)
    assert h[0].startswith(
        f"no swap, greedy play: best face-up triple by loss rate: {len(best)} of {len(v)} cannot "
        f"be told apart from the best"
    )
    assert (
        f"the lowest alone, {v['face_up'].iloc[0]}, is the minimum of {len(v)} noisy rows" in h[0]
    )
    assert h[1].startswith(f"worst face-up triple by loss rate: {len(worst)} of {len(v)}")
    assert h[2].startswith("swap policies by loss rate (subset selection, Bonferroni): best ")


def test_the_face_up_table_ranks_by_what_the_rules_score():
    """palace scores places: its face-up rows are ranked by mean place, shithead's by the
    loss rate (only losing counts)."""
    spec = SW.StudySpec(preset("palace"), 3, "greedy", games=1500, seed=1, deals=0, min_games=20)
    v, _ = SW.face_up_values(spec)
    assert SW.value_figure(spec) == ("mean_place", "mean place")
    assert list(v["mean_place"]) == sorted(v["mean_place"]) and list(v["loss_rate"]) != sorted(
        v["loss_rate"]
    )
    assert SW.value_figure(SW.StudySpec(SHITHEAD, 3, "greedy")) == ("loss_rate", "loss rate")


def test_the_choices_a_deal_offered_read_as_a_count():
    """'the best of 12.0 options' read as a measurement of a count: a whole number of options
    prints whole; a mean over deals that offered different numbers says it is a mean."""
    from shedsim.analysis.swaps_report import _options

    assert _options(12.0) == "12 options"
    assert _options(12.4) == "12.4 options on average"
