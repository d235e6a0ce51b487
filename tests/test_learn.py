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
    a = S.self_play("champion", RULES_2P, _teacher(), games, seed=4, every=3, workers=1)
    b = S.self_play("champion", RULES_2P, _teacher(), games, seed=4, every=3, workers=2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = S.self_play("champion", RULES_2P, _teacher(), games, seed=5, every=3, workers=1)
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
        S.self_play("champion", preset("shithead").compile(3), _teacher(), 2, seed=0)


@pytest.fixture(scope="module")
def small_data():
    return S.self_play("champion", RULES_2P, _teacher(), 60, seed=1, every=2, workers=2)


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
    assert run["teacher"] == "champion:iterations=6,value=0" and run["summary"]["epoch_kept"] in (
        1,
        2,
    )
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
        (["--teacher", "greedy"], "--teacher: greedy has no self-play"),
        (["--teacher", "ismcts_cheat"], "--teacher: ismcts_cheat sees the hidden cards"),
        (["--teacher", "champion:nosuch=1"], "--teacher"),
        (["--teacher", "nosuch"], "'nosuch'; a teacher is one of: champion, ismcts"),
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


def _train(tmp_path, *args):
    return CliRunner().invoke(app, ["train", *args])


def test_train_refuses_an_out_it_would_overwrite_before_any_work(tmp_path):
    f = tmp_path / "file"
    f.write_text("precious")
    r = _train(tmp_path, "--games", "30", "--out", str(f))
    assert r.exit_code == 2 and "--out" in r.output and "not a directory" in r.output
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    (mine / "run.json").write_text("{}")
    r = _train(tmp_path, "--games", "30", "--out", str(mine))
    assert r.exit_code == 2 and "did not write (notes.txt, run.json)" in r.output
    assert (mine / "run.json").read_text() == "{}" and sorted(p.name for p in mine.iterdir()) == [
        "notes.txt",
        "run.json",
    ]
    r = _train(tmp_path, "--games", "30", "--out", str(tmp_path / "o"), "--weights", str(mine))
    assert r.exit_code == 2 and "--weights" in r.output and "is a directory" in r.output
    r = _train(tmp_path, "--games", "30", "--out", str(tmp_path / "o"), "--weights", str(f / "w"))
    assert r.exit_code == 2 and "--weights" in r.output and "not a directory" in r.output
    assert not (tmp_path / "o").exists()


def test_train_help_names_the_extra():
    r = CliRunner().invoke(app, ["train", "--help"], terminal_width=200)
    assert r.exit_code == 0 and ".[learn]" in r.output


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "run"
    r = CliRunner().invoke(
        app,
        ["train", "--games", "30", "--teacher", "champion:iterations=6", "--every", "2",
         "--hidden", "4", "--epochs", "1", "--workers", "1", "--out", str(out)],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    return out / "data.npz"


def test_a_teacher_without_value_plays_without_the_model(data_file):
    run = json.loads((data_file.parent / "run.json").read_text())
    assert run["teacher"] == "champion:iterations=6,value=0" and run["kind"] == "train"


def test_train_on_data_refuses_self_plays_options_and_other_rules(tmp_path, data_file):
    r = _train(tmp_path, "--data", str(data_file), "--games", "5", "--out", str(tmp_path / "o"))
    assert r.exit_code == 2 and "--data" in r.output and "games apply to self-play only" in r.output
    r = _train(tmp_path, "--data", str(data_file), "--rules", "duel", "--out", str(tmp_path / "o"))
    assert r.exit_code == 2 and "--rules" in r.output and "other rules" in r.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"meta": lambda m: m[:, :2]}, "meta must be"),
        ({"x": lambda x: x[:, :7]}, "features a row"),
        ({"x": lambda x: x[:-1]}, "meta must be"),
        ({"meta": lambda m: m * 5}, "must be -1, 0 or 1"),
    ],
)
def test_train_refuses_malformed_data(tmp_path, data_file, change, message):
    with np.load(data_file) as z:
        arrays = {k: z[k] for k in z.files}
    for k, f in change.items():
        arrays[k] = f(arrays[k])
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    r = _train(tmp_path, "--data", str(bad), "--out", str(tmp_path / "o"))
    assert r.exit_code == 2 and message in r.output, r.output
    text = tmp_path / "text.npz"
    text.write_text("not an npz")
    r = _train(tmp_path, "--data", str(text), "--out", str(tmp_path / "o"))
    assert r.exit_code == 2 and "not an .npz file" in r.output
    assert not (tmp_path / "o").exists()


def test_ctrl_c_in_the_fit_stops_the_run_and_writes_nothing(tmp_path, data_file, monkeypatch):
    from sklearn.neural_network import MLPClassifier

    real = MLPClassifier.partial_fit

    def interrupted(self, *a, **k):  # what scikit-learn does on Ctrl-C: a note, then return
        real(self, *a, **k)
        import warnings

        warnings.warn("Training interrupted by user.", stacklevel=2)
        return self

    monkeypatch.setattr(MLPClassifier, "partial_fit", interrupted)
    r = _train(tmp_path, "--data", str(data_file), "--out", str(tmp_path / "o"))
    assert r.exit_code == 130 and "interrupted: nothing written" in r.output
    assert not (tmp_path / "o").exists()


def test_the_python_api_trains_without_writing():
    import shedsim

    r = shedsim.train(games=30, teacher="champion:iterations=6", every=2, hidden=4, epochs=2)
    assert list(r.curve["epoch"]) == [1, 2] and r.out is None and r.weights is None
    assert r.result.weights["W1"].shape == (4, V.N_FEATURES)
    with pytest.raises(shedsim.StudyError) as e:
        shedsim.train(teacher="greedy")
    assert e.value.field == "teacher"


@pytest.mark.parametrize(
    "change",
    [
        {"W1": lambda w: w[:, :7]},  # weights of other features under the right stamp
        {"b1": lambda b: b[:-1]},
        {"w2": lambda w: w * np.nan},
        {"rules": lambda r: r[:-1]},
    ],
)
def test_weights_of_another_shape_are_not_loaded(tmp_path, monkeypatch, change):
    with np.load(V.WEIGHTS) as z:
        arrays = {k: z[k] for k in z.files}
    for k, f in change.items():
        arrays[k] = f(arrays[k])
    bad = tmp_path / "w.npz"
    np.savez(bad, **arrays)
    monkeypatch.setattr(V, "WEIGHTS", bad)
    w1, _, _, _, rules = V._load()
    assert w1.shape == (0, V.N_FEATURES) and (rules == -1).all()
    monkeypatch.setattr(V, "WEIGHTS", tmp_path / "missing.npz")
    assert V._load()[0].shape[0] == 0


def test_sigterm_stops_the_run_with_143_and_writes_nothing(tmp_path, monkeypatch):
    import os
    import signal

    import shedsim.api as api

    def terminated(**_):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler raises here, in the main thread
        raise AssertionError("SIGTERM did not stop the run")

    monkeypatch.setattr(api, "train", terminated)
    before = signal.getsignal(signal.SIGTERM)
    r = _train(tmp_path, "--games", "30", "--out", str(tmp_path / "o"))
    assert r.exit_code == 143 and "interrupted: nothing written" in r.output
    assert signal.getsignal(signal.SIGTERM) is before  # the command's handler is undone
    assert not (tmp_path / "o").exists()
