"""``shedsim tune``: the search space, the stored study (resume, refusal of another run),
the confirmation and the command's outputs. Small budgets and game counts, fixed seeds."""

import signal
import subprocess
import sys
import time
import tomllib

import pytest
from typer.testing import CliRunner

from shedsim.analysis import tune as TU
from shedsim.analysis import tune_results as TR
from shedsim.cli import app
from shedsim.plugins import compiled_strategy, discover
from shedsim.rules.ruleset import preset

FAST = "heuristic:search=0"  # the tips alone: fast, deterministic moves
PARAMS = ("track=0:40", "block=0:3")


def _spec(**kw):
    args = dict(
        strategy=FAST,
        field=("greedy",),
        rules=preset("shithead"),
        players=2,
        games=40,
        seed=1,
        params=PARAMS,
    )
    args.update(kw)
    return TU.TuneSpec(**args)


def test_parse_param():
    assert TU.parse_param("track=0:40") == TU.Param("track", 0, 40, False)
    assert TU.parse_param("spend_pile=2:99:log") == TU.Param("spend_pile", 2, 99, True)
    for bad in ("track", "track=5", "track=a:b", "track=9:1", "x=0:1:lin", "x=0:9:log"):
        with pytest.raises(TU.TuneError, match="--param"):
            TU.parse_param(bad)


def test_search_space_leaves_out_fixed_parameters():
    h = discover()["heuristic"]
    space = TU.search_space(h, {"search": 0})
    names = [p.name for p in space]
    assert "search" not in names and "track" in names and len(names) == len(h.params) - 1
    assert TU.search_space(h, {}, ["track=0:10"]) == [TU.Param("track", 0, 10)]
    with pytest.raises(TU.TuneError, match="no parameter 'nosuch'"):
        TU.search_space(h, {}, ["nosuch=0:1"])
    with pytest.raises(TU.TuneError, match="outside"):
        TU.search_space(h, {}, ["spend_pile=0:10"])  # the start, 99, is outside
    with pytest.raises(TU.TuneError, match="nothing to tune"):
        TU.search_space(discover()["greedy"], {})


@pytest.mark.parametrize(
    "kw,msg",
    [
        ({"games": 3}, "--games"),
        ({"field": ()}, "--field"),
        ({"players": 9}, "--players"),
        ({"sampler": "grid"}, "--sampler"),
        ({"field": ("nosuch",)}, "unknown strategy"),
    ],
)
def test_bad_options_are_named(kw, msg):
    with pytest.raises(TU.TuneError, match=msg):
        _spec(**kw)


def test_trials_share_their_deals_so_equal_parameters_score_alike():
    spec = _spec()
    ev = TU.Evaluator(spec, spec.seed)
    a = ev.per_deal({"track": 10}, 80)
    b = ev.per_deal({"track": 10}, 80)
    c = TU.Evaluator(spec, spec.seed + 1).per_deal({"track": 10}, 80)
    assert (a == b).all() and len(a) == 40
    assert not (a == c).all()  # another seed: other deals


def test_study_resumes_and_refuses_another_run(tmp_path):
    url = f"sqlite:///{tmp_path / 'study.db'}"
    spec = _spec()
    seen = []

    def stop_after_two(n, value, best):
        seen.append(n)
        if n == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        TU.run_trials(spec, TU.open_study(spec, url), 5, stop_after_two)
    assert len(TU.completed(TU.open_study(spec, url))) == 2
    study = TU.open_study(spec, url)
    TU.run_trials(spec, study, 4)
    done = TU.completed(study)
    assert len(done) == 4
    # the first trial is the starting parameters
    assert done[0].params == {"track": spec.start["track"], "block": spec.start["block"]}
    with pytest.raises(TU.TuneError, match="games"):
        TU.open_study(_spec(games=80), url)


def test_confirmation_of_the_start_against_itself_finds_no_gain():
    spec = _spec()
    c = TR.confirm(spec, {"track": spec.start["track"], "block": spec.start["block"]}, 200)
    assert c.seed == spec.seed + TU.CONFIRM_SEED_OFFSET and c.games == 200
    assert c.gain == 0 and c.h2h_score == 0.5  # deterministic moves: identical players tie


ARGS = [
    "tune",
    "--strategy",
    FAST,
    "--param",
    "track=0:40",
    "--param",
    "block=0:3",
    "--games",
    "40",
    "--confirm-games",
    "100",
    "--seed",
    "2",
    "--quiet",
]


def test_cli_writes_every_output_and_a_usable_spec(tmp_path):
    out = tmp_path / "t"
    r = CliRunner().invoke(app, [*ARGS, "--budget", "3", "--out", str(out)])
    assert r.exit_code == 0, r.output
    for f in ("best.toml", "trials.csv", "history.png", "importance.png", "run.json", "study.db"):
        assert (out / f).exists(), f
    best = tomllib.loads((out / "best.toml").read_text())
    assert best["spec"].startswith("heuristic:") and best["search"]["trials"] == 3
    assert compiled_strategy(discover(), best["spec"], "test").name == "heuristic"
    assert best["params"]["search"] == 0
    import json

    info = json.loads((out / "run.json").read_text())
    assert info["command"] == "shedsim tune" and info["result"]["best_spec"] == best["spec"]
    # the same command again: the budget is reached, nothing new is played
    r = CliRunner().invoke(app, [*ARGS, "--budget", "3", "--out", str(out)])
    assert (
        r.exit_code == 0 and tomllib.loads((out / "best.toml").read_text())["search"]["trials"] == 3
    )
    # other options on the same study are refused
    other = [("80" if a == "40" else a) for a in ARGS]  # --games 80
    r = CliRunner().invoke(app, [*other, "--budget", "3", "--out", str(out)])
    assert r.exit_code == 2 and "another tuning run" in r.output


@pytest.mark.parametrize("space", [[], ["--param", "track=0:40"]])
def test_resume_alone_continues_with_the_stored_options(tmp_path, space):
    """tune --resume OUT alone plays on with the options of the run that made OUT (games,
    seed, --param, budget); --budget may be raised beside it; another --games is refused,
    naming it, and nothing is played."""
    out = tmp_path / "t"
    first = ["tune", "-S", FAST, "-b", "2", "-g", "40", "-s", "3", "--confirm-games", "0"]
    r = CliRunner().invoke(app, [*first, *space, "--quiet", "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["tune", "--resume", str(out), "--quiet"])
    assert r.exit_code == 0, r.output
    best = tomllib.loads((out / "best.toml").read_text())
    assert best["search"]["trials"] == 2
    r = CliRunner().invoke(app, ["tune", "--resume", str(out), "--budget", "3", "--quiet"])
    assert r.exit_code == 0, r.output
    assert tomllib.loads((out / "best.toml").read_text())["search"]["trials"] == 3
    r = CliRunner().invoke(app, ["tune", "--resume", str(out), "--games", "80", "--budget", "4"])
    assert r.exit_code == 2 and "--games (80 vs stored 40)" in r.output, r.output
    assert tomllib.loads((out / "best.toml").read_text())["search"]["trials"] == 3


def test_cli_refuses_bad_options(tmp_path):
    for extra, msg in (
        (["--budget", "0"], "--budget"),
        (["--param", "track=5:1"], "--param"),
        (["--field", "nosuch"], "unknown strategy"),
    ):
        r = CliRunner().invoke(app, [*ARGS, *extra, "--out", str(tmp_path / "x")])
        assert r.exit_code == 2 and msg in r.output, r.output


def test_ctrl_c_keeps_the_trials_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "t"
    cmd = [sys.executable, "-m", "shedsim", *ARGS, "--budget", "100000", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"sqlite:///{(out / 'study.db').resolve()}"
    n = 0
    for _ in range(600):  # wait (up to a minute or so) for a few completed trials
        time.sleep(0.2)
        if (out / "study.db").exists():
            try:
                n = len(TU.completed(_load(url)))
            except Exception:  # noqa: BLE001 - the study may not be created yet
                n = 0
            if n >= 3:
                break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "run the same command again" in err
    assert f"continue with: shedsim tune --resume {out}" in err
    kept = len(TU.completed(_load(url)))
    assert kept >= 3
    r = CliRunner().invoke(app, [*ARGS, "--budget", str(kept + 2), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert tomllib.loads((out / "best.toml").read_text())["search"]["trials"] == kept + 2


def _load(url):
    """The study at ``url`` as another process reads it: through
    :func:`shedsim.analysis.tune.open_storage`,
    which creates the storage's tables under the lock every shedsim process takes (optuna.load_study
    on
    the URL alone creates them too, racing the command that is creating them)."""
    import optuna

    return optuna.load_study(study_name=TU.STUDY_NAME, storage=TU.open_storage(url))


def _open_together(spec, url, barrier, results):
    barrier.wait()
    try:
        TU.open_study(spec, url)
        results.put("ok")
    except Exception as e:  # noqa: BLE001 - the test reports what failed
        results.put(f"{type(e).__name__}: {e}")


def _together(target, args_of, n=3):
    """Fork ``n`` processes running ``target(*args_of(i), barrier, results)``, released together
    by a barrier (forked from this process, they start within milliseconds); their results."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=target, args=(*args_of(i), barrier, results)) for i in range(n)]
    for p in procs:
        p.start()
    got = [results.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    return got


def test_processes_that_open_one_new_storage_at_once_all_get_it(tmp_path):
    """Three processes open one new SQLite storage at the same moment, three times over: every
    one gets the study (unguarded, optuna's creation of its tables collided in every round
    tried: "table studies already exists"), and the starting parameters are queued once."""
    spec = _spec()
    for r in range(3):
        url = f"sqlite:///{tmp_path / f'round{r}.db'}"
        got = _together(_open_together, lambda i: (spec, url))  # noqa: B023 - called at once
        assert got == ["ok"] * 3, got
        assert len(_load(url).trials) == 1  # the starting parameters, queued by one of them


def _tune_together(out, barrier, results):
    barrier.wait()
    r = CliRunner().invoke(app, [*ARGS, "--confirm-games", "0", "--budget", "2", "--out", str(out)])
    results.put((r.exit_code, r.output[-500:]))
    # a forked child runs no atexit hook, so its loky workers would idle out their timeout
    # (minutes) before the child could exit: stop them now
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)


def test_commands_started_together_on_one_new_directory_all_finish(tmp_path):
    """Three ``shedsim tune`` commands started at the same moment on one new --out all exit 0
    and share the study: the starting parameters are queued once, and it holds the budget."""
    # one run here first: the forked processes then start with the kernel, optuna and matplotlib
    # loaded
    assert (
        CliRunner().invoke(app, [*ARGS, "--budget", "1", "--out", str(tmp_path / "warm")]).exit_code
        == 0
    )
    out = tmp_path / "t"
    got = _together(_tune_together, lambda i: (out,))
    assert [code for code, _ in got] == [0, 0, 0], got
    study = _load(f"sqlite:///{(out / 'study.db').resolve()}")
    starts = [t for t in study.trials if t.system_attrs.get("fixed_params")]
    assert len(starts) == 1 and len(TU.completed(study)) >= 2


def test_a_trial_left_running_by_a_killed_process_is_marked_failed(tmp_path):
    """SIGKILL ``shedsim tune`` while a trial runs: that trial stays RUNNING in the study (its
    process cannot record anything) until the next start marks it failed; the same command
    then finishes its budget and trials.csv lists the failed trial."""
    import optuna

    RUNNING = optuna.trial.TrialState.RUNNING
    out = tmp_path / "t"
    url = f"sqlite:///{(out / 'study.db').resolve()}"
    args = [
        a if a != "40" else "2000" for a in ARGS
    ]  # --games 2000: a trial runs long after it is seen
    proc = subprocess.Popen(
        [sys.executable, "-m", "shedsim", *args, "--budget", "100000", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = []
    try:
        for _ in range(1500):  # up to a few minutes on a busy machine
            time.sleep(0.1)
            if proc.poll() is not None:
                break
            if (out / "study.db").exists():
                try:
                    study = _load(url)
                except KeyError:  # the study is not created yet
                    continue
                running = [
                    t for t in study.get_trials(states=(RUNNING,)) if TU.OWNER_ATTR in t.user_attrs
                ]
                if running:
                    break
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert running, "no trial was seen running"
    assert proc.returncode == -signal.SIGKILL
    left = [t.number for t in _load(url).get_trials(states=(RUNNING,))]
    assert left, "the killed process left no running trial"
    spec = TU.TuneSpec(FAST, ("greedy", FAST), preset("shithead"), 2, 2000, 2, PARAMS)
    study = TU.open_study(spec, url)
    assert not study.get_trials(states=(RUNNING,))
    assert [t.number for t in study.get_trials(states=(optuna.trial.TrialState.FAIL,))] == left
    assert not list(
        (out / "study.db.locks").glob("owner-*.lock")
    )  # the dead owner's lock file is gone
    n = len(TU.completed(study))
    r = CliRunner().invoke(
        app, [*args, "--confirm-games", "0", "--budget", str(n + 1), "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    rows = (out / "trials.csv").read_text().splitlines()
    assert sum(",fail," in row for row in rows) == len(left)


@pytest.mark.parametrize("confirm", ["0", "100"])
def test_a_signal_once_the_trials_are_done_lets_the_reports_be_written(
    confirm, tmp_path, sigint_when_called
):
    """SIGINT after the confirmation (or after the trials, without one), while the command
    builds run.json, is only noted: the reports are written and the command exits 0."""
    from shedsim.runs.execute import Session

    sigint_when_called(Session, "info")
    out = tmp_path / "t"
    r = CliRunner().invoke(
        app, [*ARGS, "--confirm-games", confirm, "--budget", "2", "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    assert (out / "best.toml").exists() and (out / "run.json").exists()


def test_ctrl_c_late_in_the_confirmation_keeps_the_study_and_the_same_command_finishes(
    tmp_path, monkeypatch, sigint_when_called
):
    """Stopped late: every trial of the budget done, SIGINT during the confirmation: exit 130,
    the study kept, no report; the same command then plays no trial and writes the reports."""
    out = tmp_path / "t"
    real = sigint_when_called(TR, "confirm")
    r = CliRunner().invoke(app, [*ARGS, "--budget", "2", "--out", str(out)])
    assert r.exit_code == 130, r.output
    assert (
        "during the confirmation: the study is kept" in r.output
        and not (out / "best.toml").exists()
    )
    monkeypatch.setattr(TR, "confirm", real)
    r = CliRunner().invoke(app, [*ARGS, "--budget", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert tomllib.loads((out / "best.toml").read_text())["search"]["trials"] == 2
