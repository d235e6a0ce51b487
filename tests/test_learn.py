"""The learned value: its features count the cards, the compiled forward pass computes the
committed model, self-play data do not depend on the workers, the fit is reproducible and
its folded weights give the model's probabilities, and the search uses the model only where
it applies."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from shedsim import layout as L
from shedsim.cli import app
from shedsim.kernel.core import deal, prepare
from shedsim.kernel.probe import sample_positions
from shedsim.kernel.policies import determinise_any
from shedsim.analysis.learn import selfplay as S
from shedsim.analysis.learn import train as T
from shedsim.kernel import value as V
from shedsim.plugins import discover
from shedsim.rules.ruleset import preset
import strategies.ismcts as I

RULES_2P = preset("shithead").compile(2)


def _positions(rules, n, key):
    """Determinised positions (pub, priv) of greedy self-play."""
    out = []
    rng = np.array([key], np.uint64)
    for obs in sample_positions(rules, n, 5, np.uint64(key)):
        pub = np.empty(L.O_SIZE, np.int64)
        priv = np.empty(L.P_SIZE, np.int64)
        assert determinise_any(obs, rules, rng, pub, priv)
        prepare(pub, priv)
        out.append((pub, priv))
    return out


def _forward(w, x):
    h = np.maximum(x @ w["W1"].T + w["b1"], 0.0)
    return 1.0 / (1.0 + np.exp(-(h @ w["w2"] + w["b2"][0])))


def test_features_count_every_card_once():
    x = np.zeros(V.N_FEATURES)
    for pub, priv in _positions(RULES_2P, 40, 3):
        V.features(pub, priv, x)
        seat = x[: 2 * V.SEAT_FEATURES].reshape(2, V.SEAT_FEATURES)
        # the counts by rank add up to the seats' card counts
        for k in range(3):
            by_rank = seat[:, 3 + k * V.N_RANKS : 3 + (k + 1) * V.N_RANKS].sum(axis=1)
            assert np.array_equal(by_rank, seat[:, k])
        me = pub[L.O_SEAT]
        assert seat[0, 0] == pub[L.O_HAND_N + me] and seat[1, 1] > -1
        pile = x[2 * V.SEAT_FEATURES :]
        assert pile[: V.N_RANKS].sum() == pub[L.O_PILE_N] == pile[V.N_RANKS]
        assert pile[V.N_RANKS + 1 : 2 * V.N_RANKS + 2].sum() == 1  # one top (or empty)
        stock, burned = pile[-2], pile[-1]
        assert seat[:, :3].sum() + pub[L.O_PILE_N] + stock + burned == 52


def test_the_compiled_forward_pass_is_the_committed_model():
    with np.load(V.WEIGHTS) as z:
        w = {k: z[k] for k in z.files}
    assert w["W1"].shape == (V.HIDDEN, V.N_FEATURES) and int(w["features"]) == V.N_FEATURES
    x = np.zeros(V.N_FEATURES)
    for pub, priv in _positions(RULES_2P, 30, 5):
        p = V.win_probability(pub, priv, x, np.zeros(V.HIDDEN))
        assert 0.0 < p < 1.0
        assert p == pytest.approx(_forward(w, x), abs=1e-12)


def test_the_model_applies_to_its_rules_at_2_players_only():
    assert V.applies(RULES_2P)
    assert not V.applies(preset("shithead").compile(4))
    assert not V.applies(preset("duel").compile(2))
    other = RULES_2P.copy()
    other[L.R_MAX_MOVES] += 1
    assert not V.applies(other)


def _teacher(**over):
    return discover()["champion"].params_array({"iterations": 8, **over})


def test_self_play_data_do_not_depend_on_the_workers():
    games = S.CHUNK + 5  # two chunks
    a = S.self_play(RULES_2P, _teacher(), games, seed=4, every=3, workers=1)
    b = S.self_play(RULES_2P, _teacher(), games, seed=4, every=3, workers=2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = S.self_play(RULES_2P, _teacher(), games, seed=5, every=3, workers=1)
    assert not np.array_equal(a[1], c[1])
    meta = a[1]
    assert set(np.unique(meta[:, 2])) <= {-1, 0, 1}
    assert meta[:, 0].max() >= S.CHUNK  # the second chunk's games counted over the run
    # a finished game has one winner: the positions of both seats disagree on who won
    for g in np.unique(meta[meta[:, 2] >= 0, 0]):
        rows = meta[meta[:, 0] == g]
        for seat in (0, 1):
            won = set(rows[rows[:, 1] == seat, 2])
            lost = set(rows[rows[:, 1] != seat, 2])
            assert not (won & {1} and lost & {1})


def test_self_play_refuses_other_tables():
    with pytest.raises(ValueError, match="2 players"):
        S.self_play(preset("shithead").compile(3), _teacher(), 2, seed=0)


@pytest.fixture(scope="module")
def small_data():
    return S.self_play(RULES_2P, _teacher(), 60, seed=1, every=2, workers=2)


def test_the_fit_is_reproducible_and_its_weights_give_the_models_probabilities(small_data):
    x, meta = small_data
    a = T.fit(x, meta, RULES_2P, hidden=8, epochs=3, seed=2)
    b = T.fit(x, meta, RULES_2P, hidden=8, epochs=3, seed=2)
    for k in a.weights:
        assert np.array_equal(a.weights[k], b.weights[k]), k
    c = T.fit(x, meta, RULES_2P, hidden=8, epochs=3, seed=3)
    assert not np.array_equal(a.weights["W1"], c.weights["W1"])
    # the standardisation folded into the first layer: raw counts in, the model's output out
    keep = meta[:, 2] >= 0
    held = keep & (meta[:, 0] % T.HOLD_OUT == 0)
    assert np.allclose(_forward(a.weights, x[held].astype(np.float64)), a.held_out_p, atol=1e-9)
    assert [r["epoch"] for r in a.curve] == [1, 2, 3]
    assert a.summary["epoch_kept"] == 1 + int(np.argmin([r["held_out_loss"] for r in a.curve]))


def test_the_fit_refuses_too_little_data(small_data):
    x, meta = small_data
    one_game = meta[:, 0] == meta[0, 0]
    with pytest.raises(ValueError, match="too little data"):
        T.fit(x[one_game], meta[one_game], RULES_2P, epochs=1)


def _search(obs, rules, value, seed=7, iterations=300):
    visits = np.zeros(160, np.int64)
    moves = np.zeros(160, np.int64)
    m = I.search(
        obs, rules, iterations, 0.7, I.PLAYOUT_GREEDY, 400, np.array([seed], np.uint64),
        moves, visits, np.zeros(160), np.zeros(2, np.int64), value=value,
    )  # fmt: skip
    return m, visits.copy()


def test_the_search_uses_the_value_only_where_it_applies():
    changed = 0
    buf = np.empty(160, np.int64)
    for obs in sample_positions(RULES_2P, 12, 7, np.uint64(21)):
        legal = set(buf[: I.moves_here(obs, RULES_2P, buf)].tolist())
        _, v0 = _search(obs, RULES_2P, 0)
        for value in (50, 100):
            m, v = _search(obs, RULES_2P, value)
            assert m in legal
            changed += not np.array_equal(v, v0)
    assert changed > 0  # the model does change the search at 2 players
    rules_4p = preset("shithead").compile(4)
    for obs in sample_positions(rules_4p, 8, 7, np.uint64(22)):
        # no model for 4 players: the very same search, draw for draw
        assert _search(obs, rules_4p, 100)[1].tolist() == _search(obs, rules_4p, 0)[1].tolist()


def test_train_command_writes_its_run(tmp_path):
    out = tmp_path / "run"
    r = CliRunner().invoke(
        app,
        ["train", "--games", "30", "--teacher", "champion:iterations=6", "--every", "2",
         "--hidden", "4", "--epochs", "2", "--workers", "1", "--out", str(out)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    for name in ("data.npz", "loss.csv", "loss.png", "run.json", "value_2p.npz"):
        assert (out / name).is_file(), name
    run = json.loads((out / "run.json").read_text())
    assert run["teacher"] == "champion:iterations=6" and run["summary"]["epoch_kept"] in (1, 2)
    with np.load(out / "value_2p.npz") as z:
        assert z["W1"].shape == (4, V.N_FEATURES)
    # refit to the same data: the same weights
    again = tmp_path / "again"
    r = CliRunner().invoke(
        app,
        ["train", "--data", str(out / "data.npz"), "--hidden", "4", "--epochs", "2",
         "--out", str(again)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    with np.load(out / "value_2p.npz") as a, np.load(again / "value_2p.npz") as b:
        assert np.array_equal(a["W1"], b["W1"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--teacher", "greedy"], "--teacher: greedy is not ismcts's search"),
        (["--teacher", "ismcts_cheat"], "--teacher: ismcts_cheat is not ismcts's search"),
        (["--teacher", "champion:nosuch=1"], "--teacher"),
        (["--teacher", "nosuch"], "--teacher"),
    ],
)
def test_train_command_refuses_bad_options(tmp_path, args, message):
    r = CliRunner().invoke(app, ["train", "--games", "2", "--out", str(tmp_path / "o"), *args])
    assert r.exit_code == 2
    assert message in r.output
    assert not (tmp_path / "o").exists()


def test_train_command_refuses_a_file_that_is_not_its_data(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, other=np.zeros(3))
    r = CliRunner().invoke(app, ["train", "--data", str(bad), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "not a training run's data.npz" in r.output
    assert not (tmp_path / "o").exists()


def test_deal_is_untouched_by_features():
    """The features only read the position."""
    pub = np.zeros(L.O_SIZE, np.int64)
    priv = np.zeros(L.P_SIZE, np.int64)
    deal(RULES_2P, pub, priv, np.array([9], np.uint64), 0)
    prepare(pub, priv)
    before = (pub.copy(), priv.copy())
    V.features(pub, priv, np.zeros(V.N_FEATURES))
    assert np.array_equal(pub, before[0]) and np.array_equal(priv, before[1])


def test_valued_iterations_set_the_budget_where_the_value_applies():
    ismcts = discover()["ismcts"]
    rules_4p = preset("shithead").compile(4)
    for rules, value, want in ((RULES_2P, 50, 40), (RULES_2P, 0, 120), (rules_4p, 50, 120)):
        params = ismcts.params_array({"iterations": 120, "value": value, "valued_iterations": 40})
        for obs in sample_positions(rules, 4, 9, np.uint64(5)):
            stats = np.zeros(2, np.int64)
            I.move_stats(obs, rules, params, np.array([3], np.uint64), stats)
            assert stats[1] in (0, want)  # 0: a single legal move, no search
