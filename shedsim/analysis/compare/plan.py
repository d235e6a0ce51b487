"""What a comparison plays: the defaults, the rule variants (``--rules``, ``--house``,
``each-toggle``), which of them deal alike (paired with the baseline) and the entries with
the reference strategy the skill edges are measured against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


import shedsim.rules.settings as S
from shedsim.rules.ruleset import PICKUP_MODES, RuleSet, RulesError, apply_house, build

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
        base, rest = text[: i + 5], text[i + 5 :]
    elif "+" in text:
        base, rest = text.split("+", 1)
        rest = "+" + rest
    if not base.strip():
        raise CompareError(f"--rules {text!r}: no preset or rules file before the toggles")
    toggles: list[str] = []
    if rest:
        for part in rest[1:].split("+"):
            part = part.strip()
            if (
                toggles
                and toggles[-1].startswith("pickup:")
                and f"{toggles[-1][7:]}+{part}" in PICKUP_MODES
            ):
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


def toggle_candidates(base: RuleSet, players: int | None = None) -> list[str]:
    """The toggles ``--each-toggle`` tries on ``base`` at ``players`` seats, in the table's
    order (:func:`shedsim.rules.settings.each_toggle_candidates`: every flag toggle;
    ``invisible:3/8/9``; ``reverse:K`` but not with two players; ``stall:0``; each pick-up
    mode and stalemate scoring that differs from ``base``'s; the integer toggles one below
    and one above ``base``'s, within their range; ``max_moves`` is left out)."""
    return S.each_toggle_candidates(base, players)[0]


def each_toggle_variants(
    text: str, house: Sequence[str], players: int
) -> tuple[list[Variant], list[dict[str, str]]]:
    """``text`` (with ``house``) and ``text+T`` for every :func:`toggle_candidates` T.

    Skipped, with the reason: the toggles :func:`~shedsim.rules.settings.each_toggle_candidates`
    does not try (``max_moves``; a rule that changes nothing at ``players``, as a reverse
    with two; ``text``'s own mode; an integer out of range), toggles that raise
    :class:`RulesError` (incompatible or unplayable), toggles whose compiled rules at
    ``players`` equal the base's (no change) and toggles giving the same compiled rules as
    an earlier one. Raises :class:`CompareError` when ``text`` itself is bad or does not
    allow ``players``.
    """
    rs, applied = parse_variant(text, house)
    try:
        rs.check_players(players)
    except RulesError as e:
        raise CompareError(f"--players: {text}: {e}") from None
    base_arr = rs.compile(players)
    variants = [Variant(text, text, rs, applied)]
    skipped: list[dict[str, str]] = [
        {"variant": f"{text}+{syntax}", "reason": why}
        for syntax, why in S.each_toggle_candidates(rs, players)[1]
    ]
    seen: dict[bytes, str] = {base_arr.tobytes(): text}
    for t in toggle_candidates(rs, players):
        label = f"{text}+{t}"
        try:
            v = apply_house(rs, [t])
            arr = v.compile(players)
        except RulesError as e:
            skipped.append({"variant": label, "reason": f"RulesError: {e}"})
            continue
        key = arr.tobytes()
        if key in seen:
            why = (
                "no change: the compiled rules equal the base's"
                if seen[key] == text
                else f"same compiled rules as {seen[key]}"
            )
            skipped.append({"variant": label, "reason": why})
            continue
        seen[key] = label
        variants.append(Variant(label, label, v, (*applied, t)))
    return variants, skipped


def plan_variants(
    rules: Sequence[str],
    house: Sequence[str] = (),
    players: int = DEFAULT_PLAYERS,
    each_toggle: bool = False,
) -> Plan:
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
            raise CompareError(
                "--rules: give at least two rule variants (e.g. --rules shithead "
                "--rules shithead+skip8), or one with --each-toggle"
            )
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
        raise CompareError(
            f"--rules: fewer than two variants can be played at --players {players} "
            f"(usable: {', '.join(v.label for v in variants) or 'none'}; skipped: "
            + ("; ".join(f"{s['variant']} ({s['reason']})" for s in skipped) or "none")
            + ")"
        )
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
    from shedsim.bot.process import BotStartError, check_bots
    from shedsim.bot.protocol import BotSpecError, is_bot

    try:
        known = discover(list(strategy_paths))
        for _, spec in entries:
            if not is_bot(spec):  # a bot (--bot) is started and greeted below, before any game
                compiled_strategy(known, spec, "compare-rules")
        check_bots(list(entries))
    except PluginError as e:
        raise CompareError(f"--strategies: {e}") from None
    except (BotSpecError, BotStartError) as e:
        raise CompareError(str(e)) from None


def normal_entries(entries: Sequence[str] | Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The entries as ``(label, spec)`` pairs (a bare spec is its own label). Raises
    :class:`CompareError` naming ``--strategies`` for a label given twice."""
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
