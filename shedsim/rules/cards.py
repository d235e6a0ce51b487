"""Cards as ranks, and rank multisets packed into one integer.

Suits never matter (docs/reference/rules.md#cards), so a card is its rank: an ``int`` from 2 to 14
(J=11, Q=12, K=13, A=14). Rank 0 stands for "no card" (an empty pile's effective top).

A multiset of ranks (a hand, a face-up row, the pile's contents) is packed into one
non-negative Python/NumPy ``int64``: 4 bits per rank, rank ``r`` in bits
``4*(r-2) .. 4*(r-2)+3``. Thirteen ranks use 52 bits, so the value stays positive in a
signed 64-bit integer; a count is at most 15 (two decks hold 8 of a rank).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

RANKS: tuple[int, ...] = tuple(range(2, 15))
"""Every rank, low to high: 2..14."""

EMPTY = 0
"""The effective top of an empty pile (or of a pile holding only invisible cards)."""

RANK_NAMES: dict[int, str] = {r: str(r) for r in range(2, 11)} | {
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
}
_NAME_TO_RANK: dict[str, int] = {v: k for k, v in RANK_NAMES.items()}
_NAME_TO_RANK.update({"T": 10, "JACK": 11, "QUEEN": 12, "KING": 13, "ACE": 14, "1": 14})


class CardError(ValueError):
    """An unknown card name or an impossible multiset of cards."""


def rank_name(rank: int) -> str:
    """The display name of a rank (``"2"``..``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``)."""
    if rank == EMPTY:
        return "empty"
    return RANK_NAMES[rank]


_RANK_WORDS = "write a rank 2..10, J, Q, K or A (or 1 for the ace)"


def parse_rank(text: str | int) -> int:
    """Read a rank written as ``2``..``10``, ``J``, ``Q``, ``K`` or ``A`` (case-insensitive;
    also ``T`` for the 10, ``Jack``, ``Queen``, ``King``, ``Ace`` and ``1`` for the ace).

    Integers 2..14 are accepted as they are, and 1 as the ace (as the text ``"1"`` is), so
    a toggle (``reverse:1``), a rules file (``burn = [1]``) and a scenario read the same
    spellings. Raises :class:`CardError` naming the text.
    """
    if isinstance(text, bool):
        raise CardError(f"unknown card {text!r}: {_RANK_WORDS}")
    if isinstance(text, int):
        if 2 <= text <= 14:
            return text
        if text == 1:
            return 14
        raise CardError(
            f"unknown card {text!r}: ranks are 2..14 (J=11, Q=12, K=13, A=14; 1 is also the ace)"
        )
    if not isinstance(text, str):
        raise CardError(f"unknown card {text!r}: {_RANK_WORDS}")
    key = text.strip().upper()
    if key in _NAME_TO_RANK:
        return _NAME_TO_RANK[key]
    raise CardError(f"unknown card {text!r}: {_RANK_WORDS}")


def parse_cards(items: Iterable[str | int]) -> list[int]:
    """Read a list of card names into ranks, in order. Raises :class:`CardError`."""
    if isinstance(items, (str, bytes)):
        raise CardError(f"expected a list of cards, got the string {items!r}")
    return [parse_rank(x) for x in items]


def shift(rank: int) -> int:
    """Bit offset of ``rank``'s 4-bit count in a packed multiset."""
    return 4 * (rank - 2)


def pack(ranks: Iterable[int]) -> int:
    """Pack ranks into one integer of 4-bit counts. Raises :class:`CardError` past 15 of a rank."""
    packed = 0
    for r in ranks:
        s = 4 * (r - 2)  # shift(r), inlined: the reference engine packs several times a move
        if (packed >> s) & 0xF == 15:
            raise CardError(f"more than 15 cards of rank {rank_name(r)}")
        packed += 1 << s
    return packed


def pack_counts(counts: Mapping[int, int]) -> int:
    """Pack a rank -> count mapping (e.g. a ``Counter``; ranks outside 2-14 and counts
    below 1 are left out) into one integer of 4-bit counts: the same value as ``pack`` of
    the ranks it holds, without listing them. Raises :class:`CardError` past 15 of a rank."""
    packed = 0
    for r, n in counts.items():
        if n > 0 and 2 <= r <= 14:
            if n > 15:
                raise CardError(f"more than 15 cards of rank {rank_name(r)}")
            packed += n << (4 * (r - 2))
    return packed


def count(packed: int, rank: int) -> int:
    """How many cards of ``rank`` the packed multiset holds."""
    return (packed >> shift(rank)) & 0xF


def total(packed: int) -> int:
    """How many cards the packed multiset holds."""
    return sum(count(packed, r) for r in RANKS)


def unpack(packed: int) -> list[int]:
    """The ranks of a packed multiset, low to high (with repeats)."""
    out: list[int] = []
    for r in RANKS:
        out.extend([r] * count(packed, r))
    return out


def rank_mask(ranks: Iterable[int]) -> int:
    """A packed mask with all four bits set for each rank in ``ranks`` (for ``&`` tests)."""
    m = 0
    for r in ranks:
        m |= 0xF << shift(r)
    return m


def format_cards(ranks: Iterable[int]) -> str:
    """Ranks as a readable space-separated string, e.g. ``"3 7 7 J"``; ``"-"`` when empty."""
    names = [rank_name(r) for r in ranks]
    return " ".join(names) if names else "-"
