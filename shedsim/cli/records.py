"""The game-record side of ``shedsim trace`` (``trace FILE``, ``trace --record FILE``) and
``shedsim play --from FILE`` (:mod:`shedsim.analysis.records`)."""

from __future__ import annotations

from pathlib import Path

import typer

from shedsim.cli.common import fail, load_rules


def load_record(
    path: Path, house: list[str] | None, rules_file: Path | None, rules: str | None = None
):
    """The record in ``path`` (rules from ``--rules-file`` when given), exiting 2 with the
    file and line named when it cannot be used."""
    from shedsim.analysis.records import RecordError, read

    given = load_rules(rules or "shithead", house, rules_file) if rules_file is not None else None
    try:
        return read(path, given)
    except RecordError as e:
        fail(str(e))


def tell_record(path: Path, house: list[str] | None, rules_file: Path | None) -> None:
    """``shedsim trace FILE``: the recorded game told move by move."""
    from shedsim.analysis.records import tell

    for line in tell(load_record(path, house, rules_file)):
        typer.echo(line)


def write_record(path: Path, spec, rep) -> None:
    """``shedsim trace --record FILE``: game ``rep`` of ``spec`` written as a record; an
    existing file that is not a record is refused (exit 2), a write that fails exits 3."""
    from shedsim.analysis.records import RECORD, record_lines, write

    if path.is_dir() or (path.exists() and RECORD.encode() not in path.read_bytes()[:200]):
        fail(
            f"--record: {str(path)!r} exists and is not a game record; shedsim never replaces "
            "a file it did not "
            f"write: give another file name"
        )
    try:
        write(path, record_lines(spec, rep, [spec.entries[e] for e in rep.seating]))
    except OSError as e:
        fail(f"--record: {path}: cannot be written ({e})", 3)
    typer.echo(
        f"wrote the game's record to {path} (shedsim trace {path}; shedsim play --from {path})"
    )


def play_from(
    path: Path,
    move: int | None,
    seat: int,
    house: list[str] | None,
    rules_file: Path | None,
    **game_options,
):
    """``shedsim play --from FILE [--move N]``: the game and its opening lines
    (:func:`shedsim.analysis.records.continue_game`); a bad record or option exits 2."""
    from shedsim.analysis.play import PlayError
    from shedsim.analysis.records import RecordError, continue_game

    rec = load_record(path, house, rules_file)
    try:
        return continue_game(rec, move, seat, **game_options)
    except (RecordError, PlayError) as e:
        fail(str(e))


def again_from(
    path: Path,
    move: int | None,
    seat: int,
    house: list[str] | None,
    rules_file: Path | None,
    paths: tuple[str, ...],
    inputs: list[str],
    hint_policy: str | None = None,
    hint_budget: int = 1000,
    hint_objective: str | None = None,
) -> str:
    """The command line that goes on with a game begun with ``play --from`` (its options and
    ``--moves``).
    """
    import shlex

    args = ["shedsim", "play", "--from", str(path)]
    args += ["--move", str(move)] if move is not None else []
    args += ["--seat", str(seat)] if seat else []
    args += ["--rules-file", str(rules_file)] if rules_file is not None else []
    args += [x for h in house or [] for x in ("--house", h)]
    args += ["--hint-policy", hint_policy] if hint_policy is not None else []
    args += ["--hint-budget", str(hint_budget)] if hint_budget != 1000 else []
    args += ["--hint-objective", hint_objective] if hint_objective is not None else []
    args += [x for p in paths for x in ("--strategy-path", p)]
    args += ["--moves", ";".join(inputs)] if inputs else []
    return shlex.join(args)


def with_deals(spec, path: Path | None):
    """``trace --deals FILE``: ``spec`` (a :class:`shedsim.runs.simulate.RunSpec`) dealing that
    deal set's deals (:meth:`~shedsim.runs.simulate.RunSpec.decks`); a bad file exits 2."""
    if path is None:
        return spec
    import dataclasses

    from shedsim.cli.deals import load_deals

    ds = load_deals(path, spec.rules, spec.players)
    return dataclasses.replace(spec, deals=ds.deals, deals_path=ds.path)
