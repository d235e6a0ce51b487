"""Deal-set files: the deals a run plays, one a line (docs/reference/deals.md).

A deal-set file is UTF-8 text. Its first line that is neither blank nor a comment (``#``)
is the header; every later such line is one deal::

    shedsim-deals 1 rules=shithead players=2
    # seat 0 | seat 1 | stock
    down=3,9,K up=4,4,Q hand=2,5,7 | down=10,6,2 up=J,A,8 hand=5,5,9 | stock=7,K,3,...

The header gives the format version (:data:`VERSION`), the rule set's name and the player
count. A deal line has one field per seat, in seat order, then the stock, separated by
``|``. A seat's field is ``down=`` (its face-down cards, slot 0 first), ``up=`` (its
face-up cards as dealt, before the swap) and ``hand=`` (its hand); the stock lists the
cards left in the order they are drawn. Cards are ranks (suits play no part in the
rules): ``2``-``10``, ``J``, ``Q``, ``K``, ``A`` (``T`` is read as 10), separated by
commas. Every line holds the whole deck of the rules (52 cards a deck: 4 of each rank a
deck) exactly once.

A seat keeps its cards whoever deals: the kernel's deck order for a game (the order
:func:`shedsim.kernel.core.deal_out` deals from the dealer's left) is rebuilt from the seats'
cards by :func:`deck_order`.

Errors: :class:`DealsError` names the file, the line number and what is wrong.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable, Iterator

import numpy as np

from shedsim.rules.cards import RANKS, CardError, parse_rank, rank_name

VERSION = 1
"""The format version this module reads and writes."""
MAGIC = "shedsim-deals"
"""The header line's first word."""


class DealsError(ValueError):
    """A deal-set file that cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class Deal:
    """One deal: per seat its face-down cards (slot order), face-up cards and hand (as
    dealt, before the swap), and the stock in drawing order; cards are ranks 2..14."""

    down: tuple[tuple[int, ...], ...]
    up: tuple[tuple[int, ...], ...]
    hand: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]


@dataclass(frozen=True)
class DealSet:
    """A deal-set file read and checked: its absolute ``path``, header, deals and the
    ``sha256`` of its bytes."""

    path: str
    rules: str
    players: int
    deals: tuple[Deal, ...]
    sha256: str


def _cards_text(cards) -> str:
    return ",".join(rank_name(int(c)) for c in cards)


def format_deal(deal: Deal) -> str:
    """One deal as a line of the file (without the newline)."""
    seats = [
        f"down={_cards_text(d)} up={_cards_text(u)} hand={_cards_text(h)}"
        for d, u, h in zip(deal.down, deal.up, deal.hand)
    ]
    return " | ".join(seats + [f"stock={_cards_text(deal.stock)}"])


def header(rules_name: str, players: int) -> str:
    """The header line for ``players`` seats under the rule set named ``rules_name``."""
    return f"{MAGIC} {VERSION} rules={rules_name} players={players}"


def from_state(state) -> Deal:
    """The deal of a :class:`shedsim.rules.state.GameState` as dealt (before the swap)."""
    return Deal(
        down=tuple(tuple(s.face_down) for s in state.seats),
        up=tuple(tuple(sorted(s.face_up)) for s in state.seats),
        hand=tuple(tuple(sorted(s.hand)) for s in state.seats),
        stock=tuple(state.stock),
    )


def seeded_deals(rules, players: int, count: int, seed: int) -> Iterator[Deal]:
    """Deals ``0..count-1`` of run seed ``seed``, one at a time: the deals a tournament or
    sprt run with that seed plays (deal d dealt by seat ``d % players``, as
    :func:`shedsim.runs.simulate.schedule_games` deals it), on the reference engine."""
    from shedsim.rules.engine import deal
    from shedsim.seeding import game_keys

    idx = np.arange(count, dtype=np.int64)
    dk, _ = game_keys(seed, idx, idx)
    for d in range(count):
        yield from_state(deal(rules, players, int(dk[d]), d % players)[0])


def write(
    path: str | Path, rules_name: str, players: int, deals: Iterable[Deal], comment: str = ""
) -> int:
    """Write ``deals`` (:class:`Deal`, any iterable: each is formatted as it comes, none
    kept) to ``path`` atomically (a temporary file renamed); returns how many were written."""
    from shedsim.base.atomic import write_text

    lines = [header(rules_name, players)]
    if comment:
        lines += [f"# {c}" for c in comment.splitlines()]
    lines.append("# " + " | ".join([f"seat {s}" for s in range(players)] + ["stock"]))
    head = len(lines)
    lines += [format_deal(d) for d in deals]
    write_text(Path(path), "\n".join(lines) + "\n")
    return len(lines) - head


def _parse_cards(text: str, where: str) -> tuple[int, ...]:
    if not text.strip():
        return ()
    out = []
    for tok in text.split(","):
        try:
            out.append(parse_rank(tok.strip()))
        except CardError:
            raise DealsError(
                f"{where}: unknown card {tok.strip()!r} (ranks 2-10, J, Q, K, A; 1 is the ace)"
            ) from None
    return tuple(out)


def _parse_seat(text: str, where: str) -> tuple[tuple[int, ...], ...]:
    parts: dict[str, tuple[int, ...]] = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or key not in ("down", "up", "hand"):
            raise DealsError(f"{where}: expected down=CARDS up=CARDS hand=CARDS, got {item!r}")
        if key in parts:
            raise DealsError(f"{where}: {key}= given twice")
        parts[key] = _parse_cards(value, f"{where}, {key}=")
    missing = [k for k in ("down", "up", "hand") if k not in parts]
    if missing:
        raise DealsError(f"{where}: {', '.join(k + '=' for k in missing)} missing")
    return parts["down"], parts["up"], parts["hand"]


def parse_line(text: str, where: str, rules, players: int) -> Deal:
    """One deal line, checked against ``rules`` (a :class:`shedsim.rules.RuleSet`) at
    ``players`` seats. Raises :class:`DealsError` prefixed by ``where``."""
    fields = [f.strip() for f in text.split("|")]
    if len(fields) != players + 1:
        raise DealsError(
            f"{where}: {len(fields)} field(s) separated by '|'; expected {players} seat(s) "
            f"and the stock ({players + 1})"
        )
    stock_f = fields[-1]
    if not stock_f.startswith("stock="):
        raise DealsError(f"{where}: the last field must be stock=CARDS, got {stock_f[:30]!r}")
    seats = [_parse_seat(f, f"{where}, seat {s}") for s, f in enumerate(fields[:-1])]
    stock = _parse_cards(stock_f[len("stock=") :], f"{where}, stock=")
    for s, (d, u, h) in enumerate(seats):
        for key, cards, want in (
            ("down", d, rules.table_size),
            ("up", u, rules.table_size),
            ("hand", h, rules.hand_size),
        ):
            if len(cards) != want:
                raise DealsError(
                    f"{where}, seat {s}: {key}= has {len(cards)} card(s); the rules deal {want}"
                )
    every = [c for seat in seats for part in seat for c in part] + list(stock)
    per = 4 * rules.decks
    counts = {r: every.count(r) for r in RANKS}
    for r in RANKS:
        if counts[r] > per:
            raise DealsError(
                f"{where}: card {rank_name(r)} appears {counts[r]} times; the deck holds {per}"
            )
    if len(every) != rules.deck_size:
        missing = [rank_name(r) for r in RANKS for _ in range(per - counts[r])]
        raise DealsError(
            f"{where}: {len(every)} cards; the deck has {rules.deck_size} "
            f"(missing: {','.join(missing)})"
        )
    return Deal(
        down=tuple(s[0] for s in seats),
        up=tuple(tuple(sorted(s[1])) for s in seats),
        hand=tuple(tuple(sorted(s[2])) for s in seats),
        stock=stock,
    )


def read(path: str | Path, rules, players: int) -> DealSet:
    """Read and check a deal-set file for a run of ``players`` seats under ``rules``.

    Raises :class:`DealsError` naming the file and line: unreadable file, no header,
    wrong version, rules or players other than the run's, no deal, or a bad deal line
    (unknown card, a card more often than the deck holds, wrong number of cards)."""
    p = Path(path)
    try:
        data = p.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DealsError(f"{path}: cannot be read ({e})") from None
    head = None
    deals = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{path} line {no}"
        if head is None:
            head = _parse_header(line, where, rules, players)
            continue
        deals.append(parse_line(line, where, rules, players))
    if head is None:
        raise DealsError(f"{path}: no header line ({header(rules.name, players)!r} expected)")
    if not deals:
        raise DealsError(f"{path}: no deal lines after the header")
    return DealSet(
        str(p.resolve()), rules.name, players, tuple(deals), hashlib.sha256(data).hexdigest()
    )


def _parse_header(line: str, where: str, rules, players: int) -> dict[str, str]:
    words = line.split()
    if len(words) < 2 or words[0] != MAGIC:
        raise DealsError(
            f"{where}: the header must start with {MAGIC!r} and the version, got {line[:40]!r}"
        )
    if words[1] != str(VERSION):
        raise DealsError(
            f"{where}: format version {words[1]!r}; this shedsim reads version {VERSION}"
        )
    fields = {}
    for w in words[2:]:
        k, eq, v = w.partition("=")
        if not eq:
            raise DealsError(f"{where}: expected KEY=VALUE in the header, got {w!r}")
        fields[k] = v
    if "players" not in fields or "rules" not in fields:
        raise DealsError(f"{where}: the header needs rules=NAME and players=N")
    if fields["players"] != str(players):
        raise DealsError(f"{where}: players={fields['players']}, but the run has {players} players")
    if fields["rules"] != rules.name:
        raise DealsError(f"{where}: rules={fields['rules']}, but the run plays {rules.name}")
    return fields


def file_sha256(path: str | Path | None) -> str | None:
    """The SHA-256 (hex) of the file at ``path`` (None for None): how a stored run names the
    deal set it played. Raises :class:`DealsError` when the file cannot be read."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as e:
        raise DealsError(f"{path}: cannot be read ({e})") from None


def deck_order(deal: Deal, dealer: int) -> np.ndarray:
    """``int64[deck size]``: the deck in the order :func:`shedsim.kernel.core.deal_out` (and
    :func:`shedsim.rules.engine.deal`) deal it from ``dealer``'s left so that every seat gets
    its cards of ``deal``: face-down rounds, face-up rounds, hand rounds, then the stock."""
    n = len(deal.down)
    order = [(dealer + 1 + i) % n for i in range(n)]
    out = []
    for layer in (deal.down, deal.up, deal.hand):
        for t in range(len(layer[0])):
            out.extend(layer[s][t] for s in order)
    out.extend(deal.stock)
    return np.array(out, np.int64)


def game_decks(deals: tuple[Deal, ...], rows: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """``int64[n, deck size]``: game g's deck order, deal ``deals[rows[g]]`` dealt by seat
    ``dealers[g]`` (:func:`deck_order`)."""
    cache: dict[tuple[int, int], np.ndarray] = {}
    out = []
    for r, d in zip(rows.tolist(), dealers.tolist()):
        if (r, d) not in cache:
            cache[(r, d)] = deck_order(deals[r], d)
        out.append(cache[(r, d)])
    size = len(deck_order(deals[0], 0)) if deals else 0
    return np.stack(out) if out else np.zeros((0, size), np.int64)
