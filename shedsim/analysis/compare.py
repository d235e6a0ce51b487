"""Rule variants against each other: same strategies, same deals, per-deal statistics.

``shedsim compare-rules`` plays every rule variant with the same entries, the same seed and
the tournament schedule (:class:`shedsim.runs.simulate.RunSpec`), variant i on strategy stream
i. Game g then has the same seating and dealer in every variant and, when two rule sets
deal alike (same ``decks``, ``hand_size`` and ``table_size``), the same cards; only the
strategies' coin flips are independent. Such variants are **paired** with the baseline
(the first usable variant); the others are **unpaired**.

The unit of independence is the **deal**: the N rotations of one deal (games
``b*N .. b*N+N-1``, N = players) share their cards and are correlated, different deals are
independent. Every interval and test below is computed from per-deal aggregates (a
deal's mean over its N games), never from games as if they were independent.

Memory: per variant and deal the module keeps the N game lengths (int16, int32 when the
move cap exceeds 32767), N unfinished flags (bool) and end codes (int8), the pick-up and
burn totals (int32), the starting player's losses (int8) and each entry's losses (int8[E]): about 4 bytes per
game plus 9 + E bytes per deal, so a few million games per variant fit in tens of MB.
Full per-game records are dropped as soon as each chunk is aggregated. The game lengths
are kept per game (2 bytes) because the cluster-robust quantile intervals need each
deal's count of games at or below the estimated quantile.

Design: game g = deal b = g // N under rotation g % N; deal b is played at table
``b % T`` of the schedule (:func:`shedsim.runs.simulate.tournament_tables`, T tables), and the
number of games is rounded up to whole blocks, so every table is played equally often.
The table is a fixed, balanced factor of the design, not sampling noise: the standard
errors are the stratified-sampling ones with the tables as strata (within-table
variance; :func:`stratified_mean`). Treating the table mix as random makes intervals too
wide and unpaired tests almost never reject (measured: 0% false positives at 5%).

Statistics (all 95%; library functions named):

* Means (moves, rounds, pick-ups and burns per game) and rates (unfinished, starter's
  loss): mean of the per-deal values, stratified standard error (Cochran, *Sampling
  Techniques*, 1977, eqs. 5.6-5.7), t interval with D - T df (``scipy.stats.t``). Rates'
  intervals are widened to contain the Wilson interval over games
  (:func:`shedsim.stats.wilson`), so that a rate of 0 still gets a width.
* Median and 95th percentile of game length: the distribution-free order-statistic
  interval (Conover, *Practical Nonparametric Statistics*, 1999, sec. 3.2: ranks
  ``scipy.stats.binom.ppf(0.025, n, q)`` and ``binom.ppf(0.975, n, q) + 1``) for the
  effective sample size ``n / deff``, the design effect ``deff`` (at least 1) measured at
  the estimate (Woodruff, JASA 47, 1952; Kish, *Survey Sampling*, 1965).
* Per-strategy loss rate over seat-games: a ratio estimator, linearised per deal
  (Cochran 1977 sec. 6.9; :func:`ratio_values`), stratified standard error. **Skill edge** = the
  reference's loss rate (``random``, or the first entry without it) minus the strategy's:
  positive = the strategy loses less often than the reference (does better than random),
  from the difference of the linearised values.

Each variant against the baseline (per-deal values x_b of both; :func:`effect_test`):

* paired, lengths and counts: ``scipy.stats.wilcoxon`` on the per-deal differences;
  effect = mean difference, interval from the differences' stratified standard error.
* paired, rates: paired t test on the per-deal rate differences (stratified standard error).
* unpaired, lengths and counts: Mann-Whitney U (``scipy.stats.mannwhitneyu``) on the
  per-deal means within each table, combined over tables (van Elteren's stratified
  test, :func:`stratified_mannwhitney`); effect interval: Welch (two stratified
  standard errors, Welch-Satterthwaite df).
* unpaired, rates: Welch t test on the per-deal rates (two stratified standard errors).
* skill edges: difference of the edges, normal (z) interval and test; standard error from
  the two edges' standard errors (unpaired) or from the per-deal differences of the
  linearised values (paired: the shared deals' covariance is kept). A positive effect:
  the variant widens the strategy's edge over random (rewards skill more).
* Holm's correction over every test of the run together: each variant x metric
  comparison's test of the effect, for lengths and counts its rank test, and for game
  length a median test (:func:`median_test`: the share of each deal's games at or below
  the baseline's median; Mood 1950, counted by deal) (:func:`shedsim.stats.holm`,
  ``statsmodels.stats.multitest.multipletests``). A finding is an effect significant by
  any of its tests; the rank test's direction (the sign of ``W+ - E[W+]`` for Wilcoxon,
  of the combined z for Mann-Whitney) and the median's are reported with it, since with
  skewed game lengths the typical game can get longer while the mean falls (fewer very
  long games), and a rank test of per-deal means, which weighs how much each deal
  changes, can point with the mean.
* The starting player's fairness: the starter's loss rate against its fair share, the
  share of games with a loser divided by N (1/N when every game finishes; less when
  unfinished games have no loser under stalemate:share), t test over per-deal
  differences, Holm-corrected over the variants; below the fair share the starter is
  favoured.

:func:`findings` says each finding in words: longer or shorter typical game (median) and
mean, more skill or more luck (skill edges), fairer or less fair (the starter's loss rate
moving toward or away from its fair share), more or fewer unfinished games, pick-ups and
burns.

Calibration (tests/test_compare.py): A/A comparisons (one rule set under two names) over
200 seeds reject mean length at p < 0.05 in 2-8% of repeats. Rank tests and mean
intervals answer different questions: with game lengths this skewed a rank test can
flag a shift of the typical deal while the mean's interval still includes 0.

Unpaired variants still share the deal keys (the same shuffle, dealt into other shapes),
so their deals are not strictly independent; positive dependence makes the unpaired
tests conservative.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from shedsim.layout import END_CAP, END_FINISHED, END_LOOP, END_NAMES, END_STALLED
import shedsim.rules.settings as S
from shedsim.rules.ruleset import PICKUP_MODES, RuleSet, RulesError, apply_house, build
from shedsim.stats.stratified import (  # noqa: F401 - re-exported
    Estimate, quantile_interval, ratio_values, stratified_mannwhitney, stratified_mean, welch,
)

DEFAULT_OUT = "reports/compare"
def default_strategies() -> str:
    """The default ``--strategies``: the random baseline, the reference opponent and hint's
    default policy, as the built-in strategies' traits select them
    (:func:`shedsim.plugins.select`, role ``compare``; ``random,greedy,heuristic``). Raises
    :class:`shedsim.plugins.PluginError` when a role has no built-in strategy."""
    from shedsim.plugins import choice
    return ",".join(choice("compare"))


DEFAULT_PLAYERS = 4
DEFAULT_GAMES = 100_000
TARGET_CHUNK = 20_000
ALPHA = 0.05
KEEP = ("places", "start", "moves", "unfinished", "end", "pickups", "burns")
"""Record fields each chunk returns (the others are never transferred)."""

class CompareError(ValueError):
    """Bad input for a comparison; the message starts with the option at fault."""


# ----------------------------------------------------------------- variants
@dataclass(frozen=True)
class Variant:
    """One rule variant: ``label`` (unique display name), the ``text`` it came from (a
    ``--rules`` value or ``X+toggle``), its :class:`RuleSet` and the toggles applied on
    top of the preset or file (its own ``+`` parts, then ``--house``)."""

    label: str
    text: str
    rules: RuleSet
    toggles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """The usable variants (the first is the baseline) and those skipped, each skipped
    one as ``{"variant": text, "reason": why}``."""

    variants: tuple[Variant, ...]
    skipped: tuple[dict[str, str], ...]
    players: int
    house: tuple[str, ...] = ()


def split_variant(text: str) -> tuple[str, list[str]]:
    """``"shithead+skip8+pickup:hand+faceup"`` -> ``("shithead", ["skip8", "pickup:hand+faceup"])``.

    The base is a preset name or a path ending in ``.toml`` (which may itself hold ``+``).
    A ``+`` inside a pick-up mode (``hand+faceup``) stays in its toggle. Raises
    :class:`CompareError` (``--rules``) for an empty base or an empty toggle.
    """
    text = text.strip()
    base, rest = text, ""
    low = text.lower()
    i = low.rfind(".toml")
    if i >= 0 and (i + 5 == len(text) or text[i + 5] == "+"):
        base, rest = text[:i + 5], text[i + 5:]
    elif "+" in text:
        base, rest = text.split("+", 1)
        rest = "+" + rest
    if not base.strip():
        raise CompareError(f"--rules {text!r}: no preset or rules file before the toggles")
    toggles: list[str] = []
    if rest:
        for part in rest[1:].split("+"):
            part = part.strip()
            if toggles and toggles[-1].startswith("pickup:") and f"{toggles[-1][7:]}+{part}" in PICKUP_MODES:
                toggles[-1] = f"{toggles[-1]}+{part}"
            elif not part:
                raise CompareError(f"--rules {text!r}: empty house toggle after '+'")
            else:
                toggles.append(part)
    return base.strip(), toggles


def parse_variant(text: str, house: Sequence[str] = ()) -> tuple[RuleSet, tuple[str, ...]]:
    """The rule set of one ``--rules`` value plus the ``--house`` toggles, and the toggles
    applied. Raises :class:`CompareError` naming ``--rules`` (bad preset, file or ``+``
    toggle) or ``--house`` (a house toggle that is bad or contradicts the variant)."""
    base, own = split_variant(text)
    try:
        rs = build(base, own)
    except RulesError as e:
        raise CompareError(f"--rules {text!r}: {e}") from None
    house = [h.strip() for h in house if h.strip()]
    if house:
        try:
            rs = build(base, [*own, *house])
        except RulesError as e:
            raise CompareError(f"--house (with --rules {text!r}): {e}") from None
    return rs, (*own, *house)


def _unique_labels(texts: Sequence[str]) -> list[str]:
    """The texts as labels; a text given again gets ``#2``, ``#3``, ..."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for t in texts:
        seen[t] = seen.get(t, 0) + 1
        lab = t if seen[t] == 1 else f"{t}#{seen[t]}"
        while lab in out:
            seen[t] += 1
            lab = f"{t}#{seen[t]}"
        out.append(lab)
    return out


def toggle_candidates(base: RuleSet) -> list[str]:
    """The toggles ``--each-toggle`` tries on ``base``, in the table's order
    (:func:`shedsim.rules.settings.each_toggle_candidates`: every flag toggle;
    ``invisible:3/8/9``; ``reverse:K``; ``stall:0``; each pick-up mode and stalemate
    scoring that differs from ``base``'s; the integer toggles one below and one above
    ``base``'s; ``max_moves`` is left out)."""
    return S.each_toggle_candidates(base)[0]


def each_toggle_variants(text: str, house: Sequence[str], players: int
                         ) -> tuple[list[Variant], list[dict[str, str]]]:
    """``text`` (with ``house``) and ``text+T`` for every :func:`toggle_candidates` T.

    Skipped, with the reason: toggles that raise :class:`RulesError` (incompatible or
    unplayable), toggles whose compiled rules at ``players`` equal the base's (no
    change), toggles giving the same compiled rules as an earlier one, and
    ``max_moves``. Raises :class:`CompareError` when ``text`` itself is bad or does not
    allow ``players``.
    """
    rs, applied = parse_variant(text, house)
    try:
        rs.check_players(players)
    except RulesError as e:
        raise CompareError(f"--players: {text}: {e}") from None
    base_arr = rs.compile(players)
    variants = [Variant(text, text, rs, applied)]
    skipped: list[dict[str, str]] = [{"variant": f"{text}+{syntax}", "reason": why}
                                     for syntax, why in S.each_toggle_candidates(rs)[1]]
    seen: dict[bytes, str] = {base_arr.tobytes(): text}
    for t in toggle_candidates(rs):
        label = f"{text}+{t}"
        try:
            v = apply_house(rs, [t])
            arr = v.compile(players)
        except RulesError as e:
            skipped.append({"variant": label, "reason": f"RulesError: {e}"})
            continue
        key = arr.tobytes()
        if key in seen:
            why = ("no change: the compiled rules equal the base's" if seen[key] == text
                   else f"same compiled rules as {seen[key]}")
            skipped.append({"variant": label, "reason": why})
            continue
        seen[key] = label
        variants.append(Variant(label, label, v, (*applied, t)))
    return variants, skipped


def plan_variants(rules: Sequence[str], house: Sequence[str] = (), players: int = DEFAULT_PLAYERS,
                  each_toggle: bool = False) -> Plan:
    """Parse the ``--rules`` values (and ``--house``, ``--each-toggle``) into a :class:`Plan`.

    Variants that do not allow ``players`` are skipped with the reason; the first usable
    variant is the baseline. Raises :class:`CompareError` naming the option: a bad
    variant or toggle (``--rules``/``--house``), ``players`` < 2 or fewer than two usable
    variants (``--players`` or ``--rules``), ``--each-toggle`` with other than one
    ``--rules``.
    """
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise CompareError(f"--players: must be an integer of at least 2, got {players!r}")
    rules = [r for r in rules]
    house = tuple(h.strip() for h in house if h.strip())
    if each_toggle:
        if len(rules) != 1:
            raise CompareError(f"--each-toggle: give exactly one --rules (got {len(rules)})")
        variants, skipped = each_toggle_variants(rules[0], house, players)
    else:
        if not rules:
            raise CompareError("--rules: give at least two rule variants (e.g. --rules shithead "
                               "--rules shithead+skip8), or one with --each-toggle")
        variants, skipped = [], []
        for label, text in zip(_unique_labels(rules), rules):
            rs, applied = parse_variant(text, house)
            try:
                rs.check_players(players)
            except RulesError as e:
                skipped.append({"variant": label, "reason": str(e)})
                continue
            variants.append(Variant(label, text, rs, applied))
    if len(variants) < 2:
        raise CompareError(f"--rules: fewer than two variants can be played at --players {players} "
                           f"(usable: {', '.join(v.label for v in variants) or 'none'}; skipped: "
                           + ("; ".join(f"{s['variant']} ({s['reason']})" for s in skipped) or "none") + ")")
    return Plan(tuple(variants), tuple(skipped), players, house)


def deal_alike(a: RuleSet, b: RuleSet) -> bool:
    """Whether two rule sets deal the same cards from the same deal key: same ``decks``,
    ``hand_size`` and ``table_size`` (the shuffle depends only on the deck, the deal only
    on these sizes)."""
    return (a.decks, a.hand_size, a.table_size) == (b.decks, b.hand_size, b.table_size)


def check_entries(entries: Sequence[tuple[str, str]], strategy_paths: Sequence[str] = ()) -> None:
    """Check every ``(label, spec)`` entry names a compiled strategy with valid
    parameters. Raises :class:`CompareError` naming ``--strategies``."""
    from shedsim.plugins import PluginError, compiled_strategy, discover
    if not entries:
        raise CompareError("--strategies: name at least one strategy")
    try:
        known = discover(list(strategy_paths))
        for _, spec in entries:
            compiled_strategy(known, spec, "compare-rules")
    except PluginError as e:
        raise CompareError(f"--strategies: {e}") from None


def _normal_entries(entries: Sequence[str] | Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    out = [(e, e) if isinstance(e, str) else (str(e[0]), str(e[1])) for e in entries]
    labels = [lab for lab, _ in out]
    if len(set(labels)) != len(labels):
        raise CompareError(f"--strategies: labels must be distinct, got {', '.join(labels)}")
    return out


def reference_entry(entries: Sequence[tuple[str, str]], strategy_paths: Sequence[str] = ()) -> int:
    """Index of the skill-edge reference: the first entry whose strategy is a random
    baseline (its ``TRAITS`` say it uses nothing but its legal moves, and it is not
    deterministic: ``random``), else 0. An entry whose strategy cannot be found (in
    ``strategy_paths`` and the built-ins) is passed over."""
    from shedsim.plugins import PluginError, discover, is_random_baseline, parse_spec
    try:
        known = discover(list(strategy_paths))
    except PluginError:
        known = discover([])
    for i, (_, spec) in enumerate(entries):
        try:
            s = known.get(parse_spec(spec)[0])
        except PluginError:
            continue
        if s is not None and is_random_baseline(s):
            return i
    return 0


# ------------------------------------------------------------------ tallies
@dataclass
class Tally:
    """Per-deal aggregates of one variant: D deals of N games (N = players), E entries.

    ``lengths`` int16[D, N] (int32 when the move cap exceeds 32767): moves of rotation r
    of deal b (unfinished games count the moves made before the stop); ``unfinished``
    bool[D, N]; ``ends`` int8[D, N] (how each game ended, ``layout.END_*``); ``pickups``,
    ``burns`` int32[D]: totals over the deal's N games and all seats; ``starter_lost``
    int8[D]: games of the deal in which the starting seat finished last; ``losses``
    int8[D, E]: the entry's seat-games of the deal that finished last; ``done`` bool[D]:
    deals aggregated so far.
    """

    lengths: np.ndarray
    unfinished: np.ndarray
    pickups: np.ndarray
    burns: np.ndarray
    starter_lost: np.ndarray
    losses: np.ndarray
    done: np.ndarray
    ends: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int8))

    @classmethod
    def empty(cls, deals: int, players: int, entries: int, max_moves: int) -> Tally:
        """Zeroed arrays for ``deals`` deals."""
        ldt = np.int16 if max_moves <= np.iinfo(np.int16).max else np.int32
        return cls(np.zeros((deals, players), ldt), np.zeros((deals, players), np.bool_),
                   np.zeros(deals, np.int32), np.zeros(deals, np.int32), np.zeros(deals, np.int8),
                   np.zeros((deals, entries), np.int8), np.zeros(deals, np.bool_),
                   np.zeros((deals, players), np.int8))

    def add_chunk(self, start: int, stop: int, records: dict[str, np.ndarray], seating: np.ndarray) -> None:
        """Aggregate games ``start..stop-1`` (whole deals: both multiples of N) from the
        kernel's records (``places`` int8[n, N], ``start`` int8[n], ``moves`` int32[n],
        ``unfinished`` bool[n], ``pickups``/``burns`` int16[n, N]) and ``seating``
        int64[n, N] (entry per seat, :func:`shedsim.runs.simulate.schedule_games`)."""
        n_players = self.lengths.shape[1]
        n_entries = self.losses.shape[1]
        if start % n_players or stop % n_players:
            raise ValueError(f"chunk {start}..{stop} is not made of whole deals of {n_players} games")
        n = stop - start
        nd = n // n_players
        b0 = start // n_players
        sl = slice(b0, b0 + nd)
        self.lengths[sl] = records["moves"].reshape(nd, n_players)
        self.unfinished[sl] = records["unfinished"].reshape(nd, n_players)
        end = records["end"] if "end" in records else np.where(records["unfinished"], END_CAP, 0)
        self.ends[sl] = end.reshape(nd, n_players)
        self.pickups[sl] = records["pickups"].sum(axis=1, dtype=np.int64).reshape(nd, n_players).sum(axis=1)
        self.burns[sl] = records["burns"].sum(axis=1, dtype=np.int64).reshape(nd, n_players).sum(axis=1)
        lost = records["places"] == n_players  # [n, N]: last place (under stalemate:share nobody in an unfinished game)
        starter = lost[np.arange(n), records["start"].astype(np.int64)]
        self.starter_lost[sl] = starter.reshape(nd, n_players).sum(axis=1)
        local = (np.arange(n) // n_players)[:, None] * n_entries + seating
        self.losses[sl] = np.bincount(local[lost], minlength=nd * n_entries).reshape(nd, n_entries)
        self.done[sl] = True


def seat_games(players: int, n_entries: int, deals: int) -> np.ndarray:
    """``int64[deals, E]``: seat-games of each entry in each deal under the tournament
    schedule (deal b plays table ``b % n_tables`` under all N rotations)."""
    from shedsim.runs.simulate import tournament_tables
    tables = np.array(tournament_tables(n_entries, players), np.int64)
    per_table = np.stack([(tables == e).sum(axis=1) for e in range(n_entries)], axis=1) * players
    return per_table[np.arange(deals) % len(tables)]


# ---------------------------------------------------------------- statistics
def table_strata(deals: int, players: int, n_entries: int) -> np.ndarray:
    """``int64[deals]``: the table of each deal (deal b plays table ``b % n_tables`` of
    :func:`shedsim.runs.simulate.tournament_tables`). The tables are the strata of the design."""
    from shedsim.runs.simulate import tournament_tables
    return np.arange(deals, dtype=np.int64) % len(tournament_tables(n_entries, players))


def _rate(per_deal: np.ndarray, games_per_deal: int, strata: np.ndarray) -> tuple[Estimate, float, float]:
    """A rate from per-deal rates: :func:`stratified_mean`, and its interval widened to
    contain the Wilson interval over games (:func:`shedsim.stats.wilson`) so that a rate of
    0 or 1 still gets a width; clipped to [0, 1]. Returns (estimate, lo, hi)."""
    from shedsim import stats
    e = stratified_mean(per_deal, strata)
    games = len(per_deal) * games_per_deal
    wlo, whi = stats.wilson(round(float(per_deal.sum()) * games_per_deal), games)
    lo = float(np.clip(np.fmin(e.lo, wlo), 0, 1))
    hi = float(np.clip(np.fmax(e.hi, whi), 0, 1))
    return e, lo, hi


METRICS: tuple[tuple[str, str, str], ...] = (
    ("mean_moves", "length", "moves"),
    ("unfinished_rate", "rate", "share"),
    ("pickups_per_game", "count", "per game"),
    ("burns_per_game", "count", "per game"),
    ("starter_loss_rate", "rate", "share"),
)
"""Per-deal metrics compared between variants: (name, kind, unit). Rounds are moves / N,
so their comparison would repeat the moves'; skill edges are added per strategy."""


def deal_values(t: Tally) -> dict[str, np.ndarray]:
    """Per-deal means (float64[D]) of the compared metrics, keyed as in :data:`METRICS`."""
    n = t.lengths.shape[1]
    return {"mean_moves": t.lengths.sum(axis=1, dtype=np.int64) / n,
            "unfinished_rate": t.unfinished.sum(axis=1) / n,
            "pickups_per_game": t.pickups / n,
            "burns_per_game": t.burns / n,
            "starter_loss_rate": t.starter_lost.astype(np.float64) / n}


@dataclass
class VariantStats:
    """One variant's metrics: ``row`` (the variants.csv row), ``est`` (the
    :class:`Estimate` of each compared metric) and ``edge_values`` (linearised per-deal
    values of each skill edge, float64[D], see :func:`ratio_values`)."""

    row: dict[str, Any]
    est: dict[str, Estimate]
    edge_values: dict[str, np.ndarray] = field(default_factory=dict)


def variant_stats(v: Variant, t: Tally, labels: Sequence[str], ref: int, paired: bool) -> VariantStats:
    """The variants.csv row of one variant (see :data:`DEFINITIONS`)."""
    d, n = t.lengths.shape
    strata = table_strata(d, n, len(labels))
    row: dict[str, Any] = {"variant": v.label, "rules": v.rules.name, "toggles": " ".join(v.toggles),
                           "paired": paired, "games": d * n, "deals": d}
    est: dict[str, Estimate] = {}
    vals = deal_values(t)
    mm = est["mean_moves"] = stratified_mean(vals["mean_moves"], strata)
    row.update(mean_moves=mm.value, mean_moves_lo=mm.lo, mean_moves_hi=mm.hi)
    qs = {}
    for name, q in (("median", 0.5), ("p95", 0.95)):
        e, lo, hi, deff = quantile_interval(t.lengths, q, strata)
        qs[name] = (e, lo, hi)
        row.update({f"{name}_moves": e, f"{name}_moves_lo": lo, f"{name}_moves_hi": hi, f"{name}_deff": deff})
    row.update(mean_rounds=mm.value / n, mean_rounds_lo=mm.lo / n, mean_rounds_hi=mm.hi / n)
    for name, (e, lo, hi) in qs.items():
        row.update({f"{name}_rounds": e / n, f"{name}_rounds_lo": lo / n, f"{name}_rounds_hi": hi / n})
    u, lo, hi = _rate(vals["unfinished_rate"], n, strata)
    est["unfinished_rate"] = u
    row.update(unfinished_rate=u.value, unfinished_lo=lo, unfinished_hi=hi)
    for key in ("pickups_per_game", "burns_per_game"):
        m = est[key] = stratified_mean(vals[key], strata)
        row.update({key: m.value, f"{key}_lo": m.lo, f"{key}_hi": m.hi})
    s, lo, hi = _rate(vals["starter_loss_rate"], n, strata)
    est["starter_loss_rate"] = s
    fair = t.losses.sum(axis=1, dtype=np.int64) / (n * n)  # per deal: games with a loser / N, per game
    gap = stratified_mean(vals["starter_loss_rate"] - fair, strata)
    p_fair = gap.test(0.0)[1] if gap.se > 0 else (1.0 if gap.value == 0 else 0.0)
    row.update(starter_loss_rate=s.value, starter_loss_lo=lo, starter_loss_hi=hi,
               starter_loss_p_value=p_fair, starter_fair_rate=float(fair.mean()))
    seats = seat_games(n, len(labels), d).astype(np.float64)
    losses = t.losses.astype(np.float64)
    z = {e: ratio_values(losses[:, e], seats[:, e]) for e in range(len(labels))}
    for e, lab in enumerate(labels):
        r = stratified_mean(z[e], strata)
        row.update({f"loss_rate[{lab}]": r.value, f"loss_lo[{lab}]": max(0.0, r.lo),
                    f"loss_hi[{lab}]": min(1.0, r.hi)})
    edge_z: dict[str, np.ndarray] = {}
    for e, lab in enumerate(labels):
        if e == ref:
            continue
        key = f"skill_edge[{lab}]"
        edge_z[key] = z[ref] - z[e]  # the reference's loss rate minus S's: positive = S does better
        g = est[key] = stratified_mean(edge_z[key], strata)
        row.update({key: g.value, f"skill_edge_lo[{lab}]": g.lo, f"skill_edge_hi[{lab}]": g.hi})
    return VariantStats(row, est, edge_z)


def effect_test(x0: np.ndarray, x1: np.ndarray, kind: str, paired: bool,
                strata: np.ndarray | None = None) -> dict[str, Any]:
    """Effect ``mean(x1) - mean(x0)`` of per-deal values (float64[D] each; deal b of both
    at table ``strata[b]``) with a 95% interval, the test of that effect, and for lengths
    and counts also a rank test of the distributions (``kind``: ``"length"``, ``"count"``
    or ``"rate"``):

    * paired: interval and t test from :func:`stratified_mean` of the differences
      d = x1 - x0 (within-table variance); rank test ``scipy.stats.wilcoxon(d)`` (Wilcoxon
      signed-rank, zero differences dropped).
    * unpaired: interval and Welch t test from the two :func:`stratified_mean` standard
      errors (Welch-Satterthwaite df); rank test :func:`stratified_mannwhitney` (Mann-
      Whitney U within each table, combined: van Elteren).

    The t test decides ``p_value`` (so a significant effect's interval excludes 0 before
    the Holm correction); the rank test's ``p_rank`` says whether the typical deal shifts,
    which for skewed game lengths can differ from the mean (reported, not corrected).
    ``rank_direction``: which way the rank test points, +1 (the variant's deals are
    typically higher), -1 (lower) or 0: the sign of ``W+ - n (n + 1) / 4`` over the n
    non-zero differences (paired; ``W+`` = ``scipy.stats.wilcoxon(d, alternative="greater")``'s
    statistic, the sum of the ranks of the positive differences), of the combined z
    (unpaired); NaN when there is no rank test.
    Returns dict(effect, lo, hi, test, statistic, p_value, rank_test, rank_statistic,
    p_rank, rank_direction); p NaN (``not tested``) when the values do not vary.
    """
    from scipy import stats as ss
    x0 = np.asarray(x0, np.float64)
    x1 = np.asarray(x1, np.float64)
    strata = np.zeros(len(x0), np.int64) if strata is None else strata
    effect = float(x1.mean() - x0.mean())
    stat = p = rstat = rp = rdir = math.nan
    rtest = ""
    if paired:
        dlt = x1 - x0
        e = stratified_mean(dlt, strata)
        lo, hi = e.lo, e.hi
        if not e.se > 0:
            lo = hi = effect
            test = "paired (no variation: not tested)"
        else:
            test = "paired t (per-deal differences, within-table variance)"
            stat, p = e.test()
            if kind != "rate":
                rtest = "Wilcoxon signed-rank (per-deal differences)"
                w = ss.wilcoxon(dlt)
                rstat, rp = float(w.statistic), float(w.pvalue)
                nz = int(np.count_nonzero(dlt))
                w_plus = float(ss.wilcoxon(dlt, alternative="greater").statistic)
                rdir = float(np.sign(w_plus - nz * (nz + 1) / 4))
    else:
        e0, e1 = stratified_mean(x0, strata), stratified_mean(x1, strata)
        se, df = welch(e0, e1)
        if not se > 0:
            lo = hi = effect
            test = "unpaired (no variation: not tested)"
        else:
            q = float(ss.t.ppf(1 - ALPHA / 2, df))
            lo, hi = effect - q * se, effect + q * se
            test = "Welch t (per-deal values, within-table variances)"
            stat = effect / se
            p = float(min(1.0, 2 * ss.t.sf(abs(stat), df)))
            if kind != "rate":
                rtest = "stratified Mann-Whitney U (per-deal means, within tables; z)"
                rstat, rp = stratified_mannwhitney(x1, x0, strata)
                rdir = float(np.sign(rstat)) if rstat == rstat else math.nan
    return {"effect": effect, "lo": float(lo), "hi": float(hi), "test": test, "statistic": float(stat),
            "p_value": float(p), "rank_test": rtest, "rank_statistic": float(rstat), "p_rank": float(rp),
            "rank_direction": float(rdir)}


def median_test(lengths0: np.ndarray, lengths1: np.ndarray, paired: bool,
                strata: np.ndarray | None = None) -> dict[str, Any]:
    """Does the typical game get longer or shorter? A median test of game length that
    counts a deal as one cluster: the share of each deal's games at or below the
    baseline's median ``m0`` (``lengths0``/``lengths1`` int[D, N], per deal and rotation),
    compared between the variants as a rate by :func:`effect_test` (paired t on the
    per-deal differences, or Welch t; Mood's median test, Mood 1950, on clustered data).
    Fewer of the variant's games at or below ``m0`` means a longer typical game.

    Returns dict(median_baseline, median_variant (inverse-ECDF medians, as in
    variants.csv), median_shift (+1: the typical game is longer, -1: shorter, 0: the
    same share), p_median); p NaN when the shares do not vary."""
    m0 = float(np.quantile(lengths0.ravel(), 0.5, method="inverted_cdf"))
    m1 = float(np.quantile(lengths1.ravel(), 0.5, method="inverted_cdf"))
    s0 = (lengths0 <= m0).mean(axis=1)
    s1 = (lengths1 <= m0).mean(axis=1)
    r = effect_test(s0, s1, "rate", paired, strata)
    return {"median_baseline": m0, "median_variant": m1, "median_shift": float(-np.sign(r["effect"])),
            "p_median": r["p_value"]}


def edge_effect(z0: np.ndarray, z1: np.ndarray, paired: bool, strata: np.ndarray | None = None) -> dict[str, Any]:
    """Difference of two skill edges from their linearised per-deal values ``z0``, ``z1``
    (float64[D], :func:`ratio_values` differences): normal (z) interval and test
    (``scipy.stats.norm``). Unpaired: ``se = sqrt(se0^2 + se1^2)`` from the two edges'
    :func:`stratified_mean` standard errors; paired: the :func:`stratified_mean` standard
    error of ``z1 - z0`` (keeps the covariance of the shared deals)."""
    from scipy.stats import norm

    from shedsim.stats import Z95
    strata = np.zeros(len(z0), np.int64) if strata is None else strata
    effect = float(z1.mean() - z0.mean())
    if paired:
        se = stratified_mean(z1 - z0, strata).se
    else:
        se = math.hypot(stratified_mean(z0, strata).se, stratified_mean(z1, strata).se)
    if not se > 0:
        return {"effect": effect, "lo": effect, "hi": effect, "test": "z (no variation: not tested)",
                "statistic": math.nan, "p_value": math.nan}
    z = effect / se
    test = "z (difference of edges, " + ("paired per-deal linearisation)" if paired else "two standard errors)")
    return {"effect": effect, "lo": effect - Z95 * se, "hi": effect + Z95 * se, "test": test,
            "statistic": z, "p_value": float(2 * norm.sf(abs(z)))}


# ------------------------------------------------------------------- running
@dataclass
class ComparisonResult:
    """A finished comparison.

    ``variants`` (one row per variant), ``effects`` (variant x metric vs the baseline) and
    ``lengths`` (length histogram per variant) are the CSV tables; ``tallies`` the
    per-deal aggregates (one :class:`Tally` per variant); ``info`` the run's
    specification and summary (for run.json).
    """

    variants: Any
    effects: Any
    lengths: Any
    tallies: list[Tally]
    info: dict[str, Any]
    plan: Plan
    entries: list[tuple[str, str]]

    def headline(self, limit: int | None = None) -> list[str]:
        """The findings in words, one sentence per variant (see :func:`headline`); or a
        line saying there are none."""
        return headline(self, limit)


def round_games(games: int, players: int, n_entries: int) -> tuple[int, int]:
    """``(games rounded up to whole blocks, block)``: a block is every table of the
    schedule (:func:`shedsim.runs.simulate.tournament_tables`) under every rotation, so every
    table and rotation is played equally often."""
    from shedsim.runs.simulate import tournament_tables
    block = players * len(tournament_tables(n_entries, players))
    return math.ceil(games / block) * block, block


def chunk_size_for(games: int, block: int) -> int:
    """Games per chunk: about ``games / 16``, at most :data:`TARGET_CHUNK`, whole blocks.
    Depends only on ``games`` (results never depend on chunking anyway)."""
    target = min(TARGET_CHUNK, max(1, math.ceil(games / 16)))
    return max(block, math.ceil(target / block) * block)


def compare(variants: Plan | Sequence[Variant], players: int | None = None,
            entries: Sequence[str] | Sequence[tuple[str, str]] | None = None,
            games: int = DEFAULT_GAMES, seed: int = 0, workers: int = 1,
            strategy_paths: Sequence[str] = (), on_progress: Callable[[int], None] | None = None,
            chunk_size: int | None = None, backend: str = "loky") -> ComparisonResult:
    """Play every variant on the same schedule and deals and compare them.

    ``variants``: a :class:`Plan` (from :func:`plan_variants`) or variants (the first is
    the baseline; ``players`` then required). ``entries``: strategy specs or
    ``(label, spec)`` pairs (default: :func:`default_strategies`). ``games`` per variant
    is rounded up to whole blocks (every table of the schedule x every rotation). Variant i plays ``RunSpec(rules_i, players,
    entries, labels, seed, games, "tournament", stream=i)``; chunks are aggregated as they
    arrive (:func:`shedsim.runs.simulate.run_chunks` with ``on_result``), so the results are
    identical for any ``workers`` and ``chunk_size``. ``on_progress(k)`` is called with
    the games of each finished chunk.

    Raises :class:`CompareError` (bad input), :class:`shedsim.runs.simulate.SimulationError`
    (a strategy failed) and ``KeyboardInterrupt``.
    """
    from shedsim.runs.simulate import RunSpec, backend_config, run_chunks, schedule_games
    plan = variants if isinstance(variants, Plan) else Plan(tuple(variants), (), int(players or 0))
    if players is not None and players != plan.players:
        raise CompareError(f"--players: the plan is for {plan.players} players, got {players}")
    n = plan.players
    if len(plan.variants) < 2:
        raise CompareError("--rules: need at least two variants")
    if len({v.label for v in plan.variants}) != len(plan.variants):
        raise CompareError("--rules: variant labels must be distinct")
    for v in plan.variants:
        try:
            v.rules.check_players(n)
        except RulesError as e:
            raise CompareError(f"--players: {v.label}: {e}") from None
    if entries is None:
        from shedsim.plugins import PluginError
        try:
            entries = default_strategies().split(",")
        except PluginError as e:
            raise CompareError(f"--strategies: {e}") from None
    ent = _normal_entries(entries)
    check_entries(ent, strategy_paths)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise CompareError(f"--games: must be at least 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise CompareError(f"--seed: must be a non-negative integer, got {seed!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise CompareError(f"--workers: must be at least 1, got {workers!r}")
    labels = tuple(lab for lab, _ in ent)
    specs = tuple(s for _, s in ent)
    total, block = round_games(games, n, len(ent))
    chunk = chunk_size_for(total, block) if chunk_size is None else max(n, math.ceil(chunk_size / n) * n)
    deals = total // n
    max_moves = max(v.rules.max_moves for v in plan.variants)
    tallies = [Tally.empty(deals, n, len(ent), max_moves) for _ in plan.variants]
    run_specs = [RunSpec(v.rules, n, specs, labels, seed=seed, games=total, schedule="tournament",
                         strategy_paths=tuple(strategy_paths), chunk_size=chunk, stream=i)
                 for i, v in enumerate(plan.variants)]
    import contextlib
    import time
    t0 = time.perf_counter()
    with backend_config(backend, workers) if workers > 1 or backend != "loky" else contextlib.nullcontext():
        for tally, spec in zip(tallies, run_specs):
            def on_result(c: int, r, tally=tally, spec=spec) -> None:
                a, b = spec.chunk_bounds(c)
                seating = schedule_games(spec, a, b)["seating"]
                tally.add_chunk(a, b, r.records, seating)
                r.records.clear()  # run_chunks keeps the results: keep only the empty shell
                if on_progress:
                    on_progress(b - a)
            run_chunks(spec, list(range(spec.n_chunks())), workers=workers, backend=backend,
                       on_result=on_result, keep=KEEP)
    play_s = time.perf_counter() - t0
    res = analyse(plan, ent, tallies, strategy_paths)
    res.info.update(games_requested=games, games=total, block=block, chunk_size=chunk, seed=seed,
                    play_s=round(play_s, 3),
                    games_per_s=round(total * len(tallies) / play_s, 1) if play_s > 0 else None,
                    strategy_paths=list(strategy_paths))
    return res


def analyse(plan: Plan, entries: Sequence[tuple[str, str]], tallies: Sequence[Tally],
            strategy_paths: Sequence[str] = ()) -> ComparisonResult:
    """Statistics and tables from the per-deal tallies (one per variant of ``plan``);
    ``strategy_paths`` find the entries' plugins (the skill-edge reference: :func:`reference_entry`)."""
    import pandas as pd

    from shedsim import stats
    ent = list(entries)
    labels = [lab for lab, _ in ent]
    ref = reference_entry(ent, strategy_paths)
    base = plan.variants[0]
    paired = [deal_alike(base.rules, v.rules) for v in plan.variants]
    vs = [variant_stats(v, t, labels, ref, p) for v, t, p in zip(plan.variants, tallies, paired)]
    vdf = pd.DataFrame([s.row for s in vs])
    vdf.insert(3, "baseline", [i == 0 for i in range(len(vs))])
    vdf["starter_loss_p_holm"] = stats.holm(vdf["starter_loss_p_value"].to_numpy(float))
    vdf["starter_verdict"] = [starter_verdict(r) for r in vdf.to_dict("records")]
    if any(np.isin(t.ends, (END_STALLED, END_LOOP)).any() for t in tallies):
        # how the unfinished games ended (only when some stalled or looped: otherwise all hit the cap)
        at = vdf.columns.get_loc("unfinished_hi") + 1
        for k, (col, code) in enumerate((("stalled", END_STALLED), ("loops", END_LOOP), ("capped", END_CAP))):
            vdf.insert(at + k, col, [int((t.ends == code).sum()) for t in tallies])
    rows = []
    base_vals = deal_values(tallies[0])
    d, n = tallies[0].lengths.shape
    strata = table_strata(d, n, len(labels))
    for i in range(1, len(plan.variants)):
        vals = deal_values(tallies[i])
        for name, kind, unit in METRICS:
            r = effect_test(base_vals[name], vals[name], kind, paired[i], strata)
            if name == "mean_moves":
                r.update(median_test(tallies[0].lengths, tallies[i].lengths, paired[i], strata))
            rows.append(_effect_row(plan.variants[i].label, base.label, name, unit, paired[i],
                                    vs[0].row[name], vs[i].row[name], r, vs[0].est[name], vs[i].est[name], d))
        for e, lab in enumerate(labels):
            if e == ref:
                continue
            key = f"skill_edge[{lab}]"
            r = edge_effect(vs[0].edge_values[key], vs[i].edge_values[key], paired[i], strata)
            rows.append(_effect_row(plan.variants[i].label, base.label, key, "share", paired[i],
                                    vs[0].row[key], vs[i].row[key], r, vs[0].est[key], vs[i].est[key], d))
    edf = pd.DataFrame(rows)
    for c, default in (("rank_test", ""), ("rank_statistic", math.nan), ("p_rank", math.nan),
                       ("rank_direction", math.nan), ("median_baseline", math.nan), ("median_variant", math.nan),
                       ("median_shift", math.nan), ("p_median", math.nan)):
        if c not in edf:
            edf[c] = default
    # one Holm family: every effect's test, every rank test and every median test of the run
    k = len(edf)
    family = stats.holm(np.concatenate([edf[c].to_numpy(float) for c in ("p_value", "p_rank", "p_median")]))
    edf["p_holm"] = family[:k]
    edf["significant"] = edf["p_holm"] < ALPHA
    edf["p_rank_holm"] = family[k:2 * k]
    edf["significant_rank"] = edf["p_rank_holm"] < ALPHA
    edf["p_median_holm"] = family[2 * k:]
    edf["significant_median"] = edf["p_median_holm"] < ALPHA
    cols = ["variant", "baseline", "metric", "unit", "paired", "baseline_value", "variant_value", "effect",
            "lo", "hi", "relative", "std_effect", "test", "statistic", "p_value", "p_holm", "significant",
            "rank_test", "rank_statistic", "p_rank", "rank_direction", "p_rank_holm", "significant_rank",
            "median_baseline", "median_variant", "median_shift", "p_median", "p_median_holm", "significant_median"]
    for c, default in (("rank_test", ""), ("rank_statistic", math.nan), ("p_rank", math.nan)):
        if c not in edf:
            edf[c] = default
        edf[c] = edf[c].fillna(default) if c == "rank_test" else edf[c]
    edf = edf[cols]
    ldf = length_table(plan, tallies)
    info = {
        "players": plan.players, "baseline": base.label, "labels": labels,
        "entries": [s for _, s in ent], "reference_strategy": labels[ref],
        "variants": [{"label": v.label, "text": v.text, "toggles": list(v.toggles), "paired": p,
                      "rules": v.rules.to_dict()} for v, p in zip(plan.variants, paired)],
        "skipped": [dict(s) for s in plan.skipped], "house": list(plan.house),
        "deals": d, "significant_effects": int(edf["significant"].sum()), "comparisons": int(len(edf)),
        "unfinished_games": {v.label: int(t.unfinished.sum()) for v, t in zip(plan.variants, tallies)},
        "ends": {v.label: {name: int((t.ends == k).sum()) for k, name in enumerate(END_NAMES)}
                 for v, t in zip(plan.variants, tallies)},
        "max_moves": {v.label: v.rules.max_moves for v in plan.variants},
    }
    return ComparisonResult(vdf, edf, ldf, list(tallies), info, plan, ent)


def _effect_row(variant: str, baseline: str, metric: str, unit: str, paired: bool, b: float, v: float,
                r: dict[str, Any], e0: Estimate, e1: Estimate, deals: int) -> dict[str, Any]:
    pooled = math.sqrt(deals) * math.sqrt((e0.se ** 2 + e1.se ** 2) / 2) if deals > 0 else math.nan
    rel = r["effect"] / abs(b) if b else math.nan
    std = r["effect"] / pooled if pooled > 0 else math.nan
    return {"variant": variant, "baseline": baseline, "metric": metric, "unit": unit, "paired": paired,
            "baseline_value": b, "variant_value": v, "relative": rel, "std_effect": std, **r}


def _nice_width(span: float, target_bins: int = 60) -> int:
    raw = max(1.0, span / target_bins)
    mag = 10 ** int(math.floor(math.log10(raw)))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return int(m * mag)
    return int(10 * mag)


def length_table(plan: Plan, tallies: Sequence[Tally]):
    """Game-length histogram per variant (long format): finished games in common bins of
    ``moves_from..moves_to`` (about 60 bins over the finished games of all variants),
    then, where there are any, ``stalled`` and ``proven loop`` games in the same bins
    (non-empty bins only), then one ``unfinished (move cap)`` row per variant; ``share``
    of the variant's games and ``cumulative_share``."""
    import pandas as pd
    fin = [t.lengths[t.ends == END_FINISHED] for t in tallies]
    allfin = [f for f in fin if f.size]
    rows = []
    if allfin:
        lo = int(min(int(f.min()) for f in allfin))
        hi = int(max(int(f.max()) for f in allfin))
        width = _nice_width(hi - lo + 1)
        first = (lo // width) * width
        nb = (hi - first) // width + 1
    for v, t, f in zip(plan.variants, tallies, fin):
        g = t.lengths.size
        cum = 0
        if allfin:
            counts = np.bincount((f.astype(np.int64) - first) // width, minlength=nb)
            for k in range(nb):
                cum += int(counts[k])
                rows.append((v.label, "finished", first + k * width, first + (k + 1) * width - 1,
                             int(counts[k]), counts[k] / g, cum / g))
        for kind, code in (("stalled", END_STALLED), ("proven loop", END_LOOP)):
            stopped = t.lengths[t.ends == code].astype(np.int64)
            if not stopped.size:
                continue
            w = width if allfin else _nice_width(int(stopped.max()) - int(stopped.min()) + 1)
            f0 = first if allfin else (int(stopped.min()) // w) * w
            ks, counts = np.unique((stopped - f0) // w, return_counts=True)
            for k, c in zip(ks.tolist(), counts.tolist()):
                cum += c
                rows.append((v.label, kind, f0 + k * w, f0 + (k + 1) * w - 1, c, c / g, cum / g))
        unf = int((t.ends == END_CAP).sum())
        cum += unf
        rows.append((v.label, "unfinished (move cap)", v.rules.max_moves, v.rules.max_moves, unf, unf / g, cum / g))
    return pd.DataFrame(rows, columns=["variant", "kind", "moves_from", "moves_to", "games", "share",
                                       "cumulative_share"])


# -------------------------------------------------------------- presentation
METRIC_NAMES = {
    "mean_moves": "mean game length", "unfinished_rate": "unfinished rate",
    "pickups_per_game": "pick-ups per game", "burns_per_game": "burns per game",
    "starter_loss_rate": "starting player's loss rate",
}


def metric_title(metric: str) -> str:
    """Readable name of a metric key (``skill_edge[expert]`` -> ``skill edge of expert``; the
    reference it is measured against, :func:`reference_entry`, is not in the key)."""
    if metric.startswith("skill_edge["):
        return f"skill edge of {metric[11:-1]}"
    return METRIC_NAMES.get(metric, metric)


def format_effect(metric: str, effect: float, lo: float, hi: float) -> str:
    """``+12.3 moves [+10.1, +14.5]``; rates and skill edges in percentage points."""
    if metric == "mean_moves":
        return f"{effect:+.1f} moves [{lo:+.1f}, {hi:+.1f}]"
    if metric.endswith("_rate") or metric.startswith("skill_edge["):
        return f"{100 * effect:+.2f} pp [{100 * lo:+.2f}, {100 * hi:+.2f}]"
    return f"{effect:+.3f} per game [{lo:+.3f}, {hi:+.3f}]"


def format_p(p: float) -> str:
    """A p-value in 2 significant digits; ``< 1e-300`` for one that underflowed to 0."""
    if p != p:
        return "-"
    return "< 1e-300" if p == 0 else f"{p:.2g}"


def starter_verdict(row: dict[str, Any]) -> str:
    """The starting player's position in one variants.csv row: ``favoured`` (loses less
    often than its fair share, ``starter_fair_rate``, Holm p < 0.05 over the variants),
    ``disfavoured`` (more often) or ``fair within noise``."""
    p = row.get("starter_loss_p_holm", math.nan)
    if not p < ALPHA:
        return "fair within noise"
    return "favoured" if row["starter_loss_rate"] < row["starter_fair_rate"] else "disfavoured"


def _pc(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def starter_sentence(row: dict[str, Any], players: int) -> str:
    """The starter's fairness in one variant, in words: ``under shithead the starting
    player is favoured: it loses 20.4% [19.9, 20.9] of games, its fair share being 24.8%
    (p ...)``."""
    v, fair = row["starter_loss_rate"], row["starter_fair_rate"]
    verdict = starter_verdict(row)
    what = {"favoured": "the starting player is favoured", "disfavoured": "the starting player is at a disadvantage",
            "fair within noise": "the start is fair within noise"}[verdict]
    return (f"under {row['variant']} {what}: the starter loses {_pc(v)} [{_pc(row['starter_loss_lo'])}, "
            f"{_pc(row['starter_loss_hi'])}] of games, its fair share being {_pc(fair)} (1/{players} of the games "
            f"with a loser; Holm p {format_p(row.get('starter_loss_p_holm', math.nan))})")


_SHIFT_WORDS = {
    "pickups_per_game": ("more pick-ups", "fewer pick-ups"),
    "burns_per_game": ("more burns", "fewer burns"),
}


def _shift_sentence(r: dict[str, Any], vrow: dict[str, Any], brow: dict[str, Any]) -> str | None:
    """A length or count finding in words; None when no test of it is significant.

    Game length: the typical game (the medians and :func:`median_test`), the mean (t test)
    and, when significant, the direction of the rank test of the per-deal lengths (which
    weighs the deals' sizes of change, so it can point with the mean against the median).
    Counts: the typical deal (the rank test's direction) and the mean."""
    mean_sig, rank_sig = bool(r["significant"]), bool(r.get("significant_rank", False))
    med_sig = bool(r.get("significant_median", False))
    if not (mean_sig or rank_sig or med_sig):
        return None
    rdir, mdir = r.get("rank_direction", math.nan), float(np.sign(r["effect"]))
    eff = format_effect(r["metric"], r["effect"], r["lo"], r["hi"])
    pr, pt = f"rank test Holm p {format_p(r['p_rank_holm'])}", f"t test Holm p {format_p(r['p_holm'])}"
    if r["metric"] == "mean_moves":
        def w(d: float) -> str:
            return "longer" if d > 0 else "shorter"
        rel = f", {100 * r['relative']:+.0f}%" if r["relative"] == r["relative"] else ""
        sdir = r.get("median_shift", math.nan)
        med = (f"median {r['median_baseline']:.0f} -> {r['median_variant']:.0f} moves; median test Holm p "
               f"{format_p(r['p_median_holm'])}")
        mean = f"{r['baseline_value']:.0f} -> {r['variant_value']:.0f} moves, {eff}{rel}; {pt}"
        if med_sig and mean_sig and sdir == mdir:
            text = f"games get {w(sdir)}: the typical game ({med}) and the mean ({mean})"
        elif med_sig and mean_sig:
            text = (f"the typical game gets {w(sdir)} ({med}) but the mean {'rises' if mdir > 0 else 'falls'} "
                    f"({mean}): {'fewer' if sdir > 0 else 'more'} very long games")
        elif med_sig:
            text = f"the typical game gets {w(sdir)} ({med}) while the mean does not change significantly ({mean})"
        elif mean_sig:
            text = (f"games get {w(mdir)} on average ({mean}) while the typical game does not change "
                    f"significantly ({med})")
        else:
            text = (f"neither the typical game ({med}) nor the mean ({mean}) changes significantly")
        if rank_sig and med_sig and rdir == sdir:
            text += f"; the rank test of the per-deal lengths agrees (Holm p {format_p(r['p_rank_holm'])})"
        elif rank_sig:
            text += (f"; the rank test of the per-deal lengths points {w(rdir)} (Holm p {format_p(r['p_rank_holm'])}), "
                     f"as it weighs how much each deal changes")
        return text
    up, down = _SHIFT_WORDS[r["metric"]]

    def c(d: float) -> str:
        return up if d > 0 else down
    mean = f"{r['baseline_value']:.2f} -> {r['variant_value']:.2f} per game, {eff}"
    if mean_sig and rank_sig and rdir == mdir:
        return f"{c(mdir)}, in the typical deal and on average: {mean} ({pr}, {pt})"
    if mean_sig and rank_sig:
        return f"{c(rdir)} in the typical deal ({pr}) but {c(mdir).split()[0]} on average ({mean}; {pt})"
    if rank_sig:
        return f"{c(rdir)} in the typical deal ({pr}) while the mean does not change significantly ({mean}; {pt})"
    return f"{c(mdir)} on average ({mean}; {pt}) while the typical deal does not change significantly ({pr})"


def _edge_sentences(rows: list[dict[str, Any]], reference: str) -> list[str]:
    """Skill-edge findings, grouped by direction: more skill (a strategy's edge over the
    reference grows) or more luck (it falls)."""
    out = []
    for sign, words in ((1, "more skill"), (-1, "more luck")):
        got = [r for r in rows if np.sign(r["effect"]) == sign]
        if not got:
            continue
        each = [f"{r['metric'][11:-1]} {'rises' if sign > 0 else 'falls'} {100 * r['baseline_value']:.1f} -> "
                f"{100 * r['variant_value']:.1f} pp ({format_effect(r['metric'], r['effect'], r['lo'], r['hi'])}; "
                f"Holm p {format_p(r['p_holm'])})" for r in got]
        out.append(f"{words}: the edge over {reference} of " + ", ".join(each))
    return out


def _fair_sentence(r: dict[str, Any], vrow: dict[str, Any], brow: dict[str, Any]) -> str:
    """A starter's-loss finding: fairer or less fair (toward or away from the fair share),
    with the variant's own verdict (:func:`starter_verdict`)."""
    b, v = r["baseline_value"], r["variant_value"]
    fb, fv = brow["starter_fair_rate"], vrow["starter_fair_rate"]
    db, dv = b - fb, v - fv
    was, now = starter_verdict(brow), starter_verdict(vrow)
    verdict = "fairer" if abs(dv) < abs(db) else "less fair"
    if now == "fair within noise":
        how = "the start becomes fair within noise"
    elif was == "fair within noise":
        how = f"the starter becomes {'favoured' if now == 'favoured' else 'disadvantaged'}"
    elif was != now:
        how = ("the starter's advantage turns into a disadvantage" if was == "favoured" else
               "the starter's disadvantage turns into an advantage")
    else:
        what = "advantage" if db < 0 else "disadvantage"
        how = f"the starter's {what} {'shrinks' if abs(dv) < abs(db) else 'grows'}"
    return (f"{verdict}: {how}, its loss rate {_pc(b, 2)} -> {_pc(v, 2)} against a fair share of {_pc(fv, 2)} "
            f"({format_effect(r['metric'], r['effect'], r['lo'], r['hi'])}; Holm p {format_p(r['p_holm'])})")


def _unfinished_sentence(r: dict[str, Any]) -> str:
    more = "more" if r["effect"] > 0 else "fewer"
    return (f"{more} games end unfinished: {_pc(r['baseline_value'], 2)} -> {_pc(r['variant_value'], 2)} "
            f"({format_effect(r['metric'], r['effect'], r['lo'], r['hi'])}; Holm p {format_p(r['p_holm'])})")


def findings(res: ComparisonResult) -> dict[str, list[str]]:
    """Every finding of every variant in words, keyed by variant label (variants with none
    are left out): each Holm-significant effect of either test (the effect's test or the
    rank test), as what it means for a player: longer or shorter typical game (median and
    rank test) and mean, more or fewer pick-ups and burns, more skill or more luck (skill
    edges), fairer or less fair (the starter's loss rate toward or away from its fair
    share), more or fewer unfinished games. Each part quotes the values, the effect's 95%
    interval and the Holm p-value it rests on."""
    e = res.effects
    v = res.variants.set_index("variant", drop=False)
    base = res.info["baseline"]
    ref = res.info["reference_strategy"]
    brow = v.loc[base].to_dict()
    out: dict[str, list[str]] = {}
    for lab in [x.label for x in res.plan.variants[1:]]:
        rows = {r["metric"]: r for r in e[e["variant"] == lab].to_dict("records")}
        vrow = v.loc[lab].to_dict()
        parts = []
        for metric in ("mean_moves",):
            if metric in rows and (t := _shift_sentence(rows[metric], vrow, brow)):
                parts.append(t)
        parts += _edge_sentences([r for m, r in rows.items() if m.startswith("skill_edge[") and r["significant"]], ref)
        if "starter_loss_rate" in rows and rows["starter_loss_rate"]["significant"]:
            parts.append(_fair_sentence(rows["starter_loss_rate"], vrow, brow))
        if "unfinished_rate" in rows and rows["unfinished_rate"]["significant"]:
            parts.append(_unfinished_sentence(rows["unfinished_rate"]))
        for metric in ("pickups_per_game", "burns_per_game"):
            if metric in rows and (t := _shift_sentence(rows[metric], vrow, brow)):
                parts.append(t)
        if parts:
            out[lab] = parts
    return out


def headline(res: ComparisonResult, limit: int | None = None) -> list[str]:
    """See :meth:`ComparisonResult.headline`: the baseline's fairness in words
    (:func:`starter_sentence`), then one sentence per variant with every finding of
    :func:`findings` (at most ``limit`` variants, in the order given; None: all), then a
    count of the significant comparisons."""
    e = res.effects
    base = res.info["baseline"]
    n_var = len(res.plan.variants) - 1
    v = res.variants.set_index("variant", drop=False)
    out = [_sentence(starter_sentence(v.loc[base].to_dict(), res.info["players"]))]
    found = findings(res)
    n_tests = int(sum(e[c].notna().sum() for c in ("p_value", "p_rank", "p_median")))
    if not found:
        out.append(f"no variant differs significantly from the baseline {base} in any metric "
                   f"({len(e)} comparisons, {n_tests} tests, Holm-corrected 5%)")
        return out
    for lab, parts in list(found.items())[:limit]:
        out.append(f"{lab} against {base}: " + "; ".join(parts) + ".")
    sig = int((e["significant"] | e["significant_rank"] | e["significant_median"]).sum())
    out.append(f"{sig} of {len(e)} comparisons significant by the effect's test, the rank test or the median test "
               f"({n_tests} tests, Holm-corrected 5%) across {n_var} variant(s) vs {base}")
    return out


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


DEFINITIONS: dict[str, str] = {
    "variant": "the rule variant as given (--rules text, X+toggle with --each-toggle; a repeat gets #2)",
    "baseline": "the first variant that allows the player count; every effect is variant minus baseline",
    "rules, toggles": "the preset (or rules file) the variant starts from, and the house toggles applied to it",
    "games, deals": "games played per variant (rounded up to whole blocks of every table x every rotation) and "
                    "deals (games / players)",
    "deal": "the unit of independence: the N games (rotations of the seating) that share one deal; every interval "
            "and test is computed over per-deal values",
    "paired": "the variant deals the same cards as the baseline (same decks, hand_size, table_size); seating and "
              "dealer are always the same, strategy randomness is independent (own stream)",
    "mean_moves": "mean game length in moves (one move = one turn: a play, pick-up or gamble); unfinished games "
                  "count the moves made before they were stopped; t interval over per-deal means with the within-table (stratified) standard "
                  "error",
    "mean_rounds": "mean game length in rounds, a round being N moves (N = players): mean_moves / N",
    "median_moves": "median game length in moves (inverse-ECDF quantile); order-statistic interval "
                    "(scipy.stats.binom ranks) with the effective sample size games / deff",
    "p95_moves": "95th percentile of game length in moves; interval as for the median",
    "median_deff": "design effect of the deals' clustering at the median: cluster-robust over binomial variance of "
                   "the share of games at or below it (at least 1); p95_deff likewise",
    "unfinished_rate": "share of games stopped before one player was left (a proven loop, stalled by stall:N, or "
                       "the move cap); cluster-robust interval over deals widened to contain the Wilson interval "
                       "over games",
    "stalled": "games stopped by the no-progress rule stall:N; loops: proven loops (the whole position repeated, "
               "every seat still in deterministic); capped: games stopped at the move cap (these three columns "
               "appear when some game stalled or looped)",
    "strata": "the schedule's tables: deal b is played at table b % T, every table equally often; standard errors "
              "are within-table (stratified sampling, Cochran 1977 eq. 5.6), df = deals - tables",
    "pickups_per_game": "pick-ups per game, summed over all seats; t interval over per-deal means (stratified)",
    "burns_per_game": "burns per game, summed over all seats; t interval over per-deal means (stratified)",
    "starter_loss_rate": "share of games in which the seat that started finished last; a fair game gives "
                         "starter_fair_rate",
    "starter_fair_rate": "the starter's fair share of losses: games with a loser / N (1/N when every game "
                         "finishes; less when unfinished games have no loser under stalemate:share)",
    "starter_loss_p_value": "two-sided p-value of starter_loss_rate = starter_fair_rate (t test over per-deal "
                            "differences, stratified standard error); starter_loss_p_holm: Holm-corrected over the "
                            "variants",
    "starter_verdict": "favoured: the starter loses less often than its fair share (starter_loss_p_holm < 0.05); "
                       "disfavoured: more often; fair within noise: otherwise. A variant that moves the starter's "
                       "loss rate toward its fair share makes the game fairer",
    "loss_rate[S]": "share of strategy S's seat-games finished in last place (a strategy seated twice at a table "
                    "plays two seat-games); ratio estimator linearised per deal, stratified t interval",
    "skill_edge[S]": "the reference strategy's loss rate (random, or the first entry without it) minus "
                     "loss_rate[S]: positive = S loses less often than the reference (S does better than random); "
                     "t interval from linearised per-deal contributions",
    "effect": "variant minus baseline, in the metric's unit (rates and skill edges as shares: x100 for percentage "
              "points); for a skill edge, positive = the variant widens S's edge over the reference (rewards skill "
              "more), negative = it narrows it (more luck)",
    "relative": "effect / |baseline value|",
    "std_effect": "effect / (sqrt(deals) x root mean square of the two standard errors): the effect in per-deal "
                  "standard deviations (Cohen's d on the deal scale)",
    "test": "the test of the effect shown (it decides p_value, p_holm and significant): paired t on per-deal "
            "differences (paired), Welch t on per-deal values (unpaired), both with within-table variances; skill "
            "edges: z test of the difference of edges",
    "rank_test, p_rank": "lengths and counts only: Wilcoxon signed-rank on per-deal differences "
                         "(paired) or Mann-Whitney U on per-deal means within each table combined over tables "
                         "(van Elteren; statistic = combined z) (unpaired). It asks whether the typical deal "
                         "shifts, which for skewed game lengths can differ from the mean (the typical game can "
                         "get longer while the mean falls: fewer very long games)",
    "rank_direction": "which way the rank test points: +1 the variant's deals are typically higher (longer games, "
                      "more pick-ups), -1 lower; the sign of W+ - n(n+1)/4 (Wilcoxon) or of the combined z",
    "p_rank_holm, significant_rank": "the rank test's p-value Holm-corrected in the same family as p_holm, and "
                                     "p_rank_holm < 0.05",
    "median_baseline, median_variant": "mean_moves rows: the median game length of the baseline and the variant "
                                       "(moves, inverse-ECDF as in variants.csv)",
    "median_shift, p_median": "mean_moves rows: does the typical game get longer (+1) or shorter (-1)? The median "
                              "test: the share of each deal's games at or below the baseline's median, compared as a "
                              "rate (paired t on per-deal differences, or Welch t); p_median_holm and "
                              "significant_median: Holm-corrected in the same family as p_holm",
    "lo, hi": "95% interval; for effects: t interval of the mean per-deal difference (paired), Welch interval "
              "(unpaired), normal interval (skill edges); all with within-table standard errors",
    "p_holm": "Holm-corrected p-value of the effect's test; the family is every test of the run: each variant x "
              "metric comparison's test of the effect and its rank test (lengths and counts)",
    "significant": "p_holm < 0.05 (the effect's test); a finding is significant by any of its tests "
                   "(significant, significant_rank or significant_median)",
    "headline": "the findings in words, one sentence per variant: every effect significant by either test, as "
                "longer or shorter typical game (median, rank test) and mean, more skill or more luck (skill "
                "edges), fairer or less fair (starter's loss rate toward or away from its fair share), more or "
                "fewer unfinished games, pick-ups and burns",
    "games, share (lengths.csv)": "games of the variant in the length bin, and their share of all its games",
}


def subtitle(res: ComparisonResult) -> str:
    """One line: players, strategies, games per variant, seed."""
    i = res.info
    house = f", house toggles on every variant: {' '.join(i['house'])}" if i.get("house") else ""
    return (f"{i['players']} players, strategies {', '.join(i['labels'])}, {i.get('games', 0):,} games per "
            f"variant, seed {i.get('seed', 0)}{house}")


def title(res: ComparisonResult) -> str:
    """The run's one-line title."""
    return (f"Rule variants compared with {res.info['baseline']} "
            f"({len(res.plan.variants)} variants, {res.info['players']} players)")


def _write_csv(df, path: Path) -> None:
    """:func:`shedsim.analysis.tournament.write_csv`, with every p-value column in e-notation."""
    from shedsim.analysis.tournament import PVALUE_COLUMNS, write_csv
    out = df.copy()
    for c in out.columns:
        if (c.startswith("p_") or c.endswith(("p_value", "p_holm"))) and c not in PVALUE_COLUMNS:
            out[c] = [("" if np.isnan(v) else f"{v:.4e}") for v in out[c].astype(float)]
    write_csv(out, path)


def write_outputs(res: ComparisonResult, out: Path, plots: bool = True) -> list[str]:
    """Write variants.csv, effects.csv, lengths.csv and (with ``plots``) forest.png and
    lengths.png into ``out``; returns the file names. Each file is written atomically
    (raises :class:`shedsim.base.atomic.WriteError` naming the file)."""
    out = Path(out)
    files = []
    for name, df in (("variants.csv", res.variants), ("effects.csv", res.effects), ("lengths.csv", res.lengths)):
        _write_csv(df, out / name)
        files.append(name)
    if plots:
        plot_forest(res, out / "forest.png")
        plot_lengths(res, out / "lengths.png")
        files += ["forest.png", "lengths.png"]
    return sorted(files)


def run_info(res: ComparisonResult, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run.json contents (without ``outputs``, which :func:`shedsim.analysis.tournament.write_run_json` adds)."""
    from shedsim.analysis.tournament import versions
    i = dict(res.info)
    info = {"command": "shedsim compare-rules", "title": title(res), "subtitle": subtitle(res),
            "spec": {"variants": i.pop("variants"), "baseline": i.pop("baseline"), "players": i.pop("players"),
                     "strategies": i.pop("labels"), "entries": i.pop("entries"), "seed": i.get("seed"),
                     "games_requested": i.get("games_requested"), "games": i.get("games"),
                     "house": i.pop("house"), "skipped": i.pop("skipped"),
                     "reference_strategy": i.pop("reference_strategy")},
            "definitions": DEFINITIONS, "headline": res.headline(), "versions": versions(), **i}
    if extra:
        info.update(extra)
    return info


# -------------------------------------------------------------------- charts
OVERLAY_MAX = 8
"""Most variants drawn overlaid in one lengths chart (distinct tab10 colours); more get small multiples."""


def _save(fig, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    """Write the chart as every chart is written (:func:`shedsim.output.plots.save_figure`), keeping
    ``rect`` free for a figure legend."""
    from shedsim.output.charts import figure as F
    return F.save_figure(fig, path, rect)


def _rate_like(metric: str) -> bool:
    return metric.endswith("_rate") or metric.startswith("skill_edge[")


def plot_forest(res: ComparisonResult, path: Path) -> Path:
    """Forest plot: one panel per metric, one row per variant, the effect against the
    baseline with its 95% interval (rates and skill edges in percentage points). Colour says
    significance (red: significant after Holm's correction, grey: not), the marker says the
    design (filled circle: paired deals, open square: unpaired); the legend keeps the two
    apart (colour swatches, black markers)."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    from shedsim.output import plots as P
    from shedsim.output.plots import plt
    e = res.effects
    metrics = list(dict.fromkeys(e["metric"]))
    variants = [v.label for v in res.plan.variants[1:]]
    nv = len(variants)
    ncols = 1 if len(metrics) == 1 else 3 if nv > 6 and len(metrics) > 4 else 2
    nrows = math.ceil(len(metrics) / ncols)
    longest = max(len(v) for v in variants)
    height = nrows * (0.27 * nv + 1.3) + 1.4
    labels_in = 0.09 * longest + 0.8  # the variants' names on the left
    fig, axes = plt.subplots(nrows, ncols, sharey=True, squeeze=False,  # at most as wide as the report's page
                             figsize=(min(4.2 * ncols, P.WIDEST - labels_in) + labels_in, height))
    y = np.arange(nv)[::-1]
    for k, metric in enumerate(metrics):
        ax = axes[k // ncols][k % ncols]
        d = e[e["metric"] == metric].set_index("variant").reindex(variants)
        scale = 100.0 if _rate_like(metric) else 1.0
        for yi, (lab, r) in zip(y, d.iterrows()):
            if np.isnan(r["effect"]):
                continue
            col = "tab:red" if bool(r["significant"]) else "0.45"
            eff, lo, hi = scale * r["effect"], scale * r["lo"], scale * r["hi"]
            ax.errorbar([eff], [yi], xerr=P.bars([eff], [lo], [hi]), fmt="o" if r["paired"] else "s",
                        color=col, mfc=col if r["paired"] else "white", capsize=3, ms=5)
        ax.axvline(0, color="0.2", lw=0.8, ls="--")
        unit = ("percentage points" if _rate_like(metric) else "moves" if metric == "mean_moves" else "per game")
        ax.set_xlabel(f"difference vs {res.info['baseline']} ({unit})")
        ax.set_title(metric_title(metric), fontsize="medium")
        ax.grid(axis="x", alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))
        ax.set_yticks(y, variants)
        ax.set_ylim(-0.7, nv - 0.3)
    for k in range(len(metrics), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    from matplotlib.patches import Patch
    drawn = e[e["effect"].notna() & e["variant"].isin(variants)]
    sig, paired = drawn["significant"].astype(bool), drawn["paired"].astype(bool)
    handles = [h for h, shown in (  # legend entries only for what the chart holds
        (Patch(color="tab:red", label="colour: significant (Holm 5%)"), sig.any()),
        (Patch(color="0.45", label="colour: not significant"), (~sig).any()),
        (Line2D([], [], color="black", marker="o", ls="", label="filled circle: paired deals"), paired.any()),
        (Line2D([], [], color="black", marker="s", mfc="white", ls="", label="open square: unpaired deals"),
         (~paired).any())) if shown]
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize="small", frameon=False)
    fig.suptitle(f"Effect of each variant vs the baseline {res.info['baseline']}, 95% intervals\n{subtitle(res)}")
    return _save(fig, path, rect=(0, 0.4 / height, 1, 1 - 0.75 / height))  # room for the two-line title


def plot_lengths(res: ComparisonResult, path: Path) -> Path:
    """Game-length distributions on a log scale of moves (the lengths are very skewed).

    Up to :data:`OVERLAY_MAX` variants: all overlaid, each in its own colour (``tab10``, no
    colour repeated): step histograms over log-spaced bins (share of the variant's games per
    bin) and ECDFs of the finished games. More variants: small multiples, one panel per
    variant with its ECDF (blue) over the baseline's (grey), so that each stays readable
    shrunk into the report. The move cap is the dotted line; each variant's share of
    unfinished games (stalled, proven loops, at the cap) is in its legend entry or panel
    title. Variants with no game draw nothing (an empty partial run)."""
    from matplotlib.ticker import FuncFormatter

    from shedsim.output import plots as P
    from shedsim.output.plots import plt
    labels = [v.label for v in res.plan.variants]
    caps = sorted({v.rules.max_moves for v in res.plan.variants})
    fins = [t.lengths[t.ends == END_FINISHED].astype(np.int64) for t in res.tallies]
    lo = max(1, min((int(f.min()) for f in fins if f.size), default=1))
    hi = max(caps)
    edges = np.unique(np.round(np.geomspace(lo, hi + 1, 60)).astype(np.int64))

    def unfinished(t) -> tuple[str, str]:
        g = t.lengths.size
        unf = t.unfinished.sum() / g if g else 0.0
        short = f"unfinished {100 * unf:.2f}%"
        if g and np.isin(t.ends, (END_STALLED, END_LOOP)).any():  # how they ended: only the ways some did
            ways = [f"{name} {100 * (t.ends == c).sum() / g:.2f}" for c, name in
                    ((END_STALLED, "stalled"), (END_LOOP, "loops"), (END_CAP, "cap")) if (t.ends == c).any()]
            return short, f"{short}: {', '.join(ways)}"
        return short, short

    def ecdf(ax, fin, g, **kw):
        if fin.size:
            vals, cnt = np.unique(fin, return_counts=True)
            ax.step(vals, np.cumsum(cnt) / g * 100, where="post", **kw)

    def log_axis(ax):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.grid(alpha=0.3, which="both")
        for c in caps:
            ax.axvline(c, color="0.3", ls=":", lw=1.2)
        ax.set_xlim(lo * 0.9, hi * 1.15)

    if len(labels) > OVERLAY_MAX:
        n = len(labels) - 1
        ncols = 4 if n <= 16 else 5
        nrows = math.ceil(n / ncols)
        fig, axes = plt.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False,
                                 figsize=(P.WIDEST / 5 * ncols, 2.5 * nrows + 1.3))
        base_t, base_fin = res.tallies[0], fins[0]
        for k in range(nrows * ncols):
            ax = axes[k // ncols][k % ncols]
            if k >= n:
                ax.set_visible(False)
                continue
            t, fin = res.tallies[k + 1], fins[k + 1]
            ecdf(ax, base_fin, base_t.lengths.size, color="0.55", lw=1.2, label=f"baseline {labels[0]}")
            ecdf(ax, fin, t.lengths.size, color="tab:blue", lw=1.4, label="this variant")
            log_axis(ax)
            ax.set_ylim(0, 100)
            ax.set_title(f"{labels[k + 1]}\n{unfinished(t)[0]}", fontsize="small")
            ax.tick_params(labelsize=9)
            if k % ncols == 0:
                ax.set_ylabel("finished within (%)", fontsize="small")
            if k // ncols == nrows - 1 or k + ncols >= n:
                ax.set_xlabel("moves (log scale)", fontsize="small")
                ax.xaxis.set_tick_params(labelbottom=True)
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, [f"baseline {labels[0]} ({unfinished(base_t)[0]})", "the panel's variant"],
                   loc="lower center", ncol=2, fontsize="small", frameon=False)
        height = 2.5 * nrows + 1.3
        fig.suptitle(f"Game length by rule variant: share of games finished within N moves (ECDF), "
                     f"each variant against the baseline; dotted: move cap {', '.join(f'{c:,}' for c in caps)}"
                     f"\n{subtitle(res)}", fontsize="medium")
        return _save(fig, path, rect=(0, 0.35 / height, 1, 1 - 0.7 / height))

    cmap = plt.get_cmap("tab10")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5.4))
    for i, (lab, t, fin) in enumerate(zip(labels, res.tallies, fins)):
        col = cmap(i)
        g = t.lengths.size
        name = f"{lab} ({unfinished(t)[1]})"
        if fin.size:
            counts = np.histogram(fin, bins=edges)[0]
            ax1.stairs(counts / g * 100, edges, color=col, lw=1.4, label=name)
            ecdf(ax2, fin, g, color=col, lw=1.3, label=name)
    for ax in (ax1, ax2):
        log_axis(ax)
    ax1.text(caps[-1], ax1.get_ylim()[1] * 0.97, " move cap", rotation=90, va="top", ha="right", fontsize="small",
             color="0.3")
    ax1.set_xlabel(f"game length (moves, log scale; a round is {res.info['players']} moves)")
    ax1.set_ylabel("share of the variant's games in the bin (%)")
    ax1.set_title("Distribution of finished games (log-spaced bins)", fontsize="medium")
    ax2.set_xlabel("game length (moves, log scale)")
    ax2.set_ylabel("games finished within that many moves (%)")
    ax2.set_title("Cumulative distribution (ECDF); the rest were stopped unfinished", fontsize="medium")
    ax2.set_ylim(0, 100)
    if any(f.size for f in fins):
        ax2.legend(fontsize="small", loc="upper left",
                   title=f"move cap: {', '.join(f'{c:,}' for c in caps)} moves", title_fontsize="small")
    fig.suptitle(f"Game length by rule variant\n{subtitle(res)}")
    return _save(fig, path)
