"""Exact values of end games: two seats still in, the stock empty and no face-down card.

Such a position has perfect information when the seat to move tracked the cards: with the
stock empty every card it has not seen is in the other hand, so it knows that hand
(:func:`perfect_information` checks that the position says so: the burned cards listed, or
the other hand's cards seen picked up), and no card is left to turn blind, so nothing is
left to chance. :func:`solve`
finds the value of every legal move of the seat to move exactly: ``win`` (the seat goes out
first of the two against every reply), ``loss`` (the other seat can force it to be last) or
``draw`` (neither can force the end: best play goes round until the game is stopped).

Method: the positions reachable from the root are enumerated with the reference engine's
own move generator and transition (:func:`shedsim.rules.moves.legal_moves`,
:func:`shedsim.rules.moves.apply_move`), so every house toggle applies, and merged in a
transposition table keyed by what the rules depend on (:func:`position_key`). The values
then come from retrograde analysis of that finite graph (the method of end-game tablebases:
K. Thompson, "Retrograde analysis of certain endgames", ICCA Journal 9(3), 1986; the
win/loss/draw labelling of a game graph with cycles is that of C. A. B. Smith, "Graphs and
composite games", J. Combinatorial Theory 1, 1966): a finished game is won by the seat that
went out; a position is won for the seat to move when one move reaches a position won for
it, lost when every move reaches a position lost for it, labelled in order of distance,
so a won position's ``moves`` is the fewest moves to the end the winner can force and a
lost one's the most the loser can hold out. Positions never labelled are draws: from them
neither seat can force the end, and play that goes round forever is stopped by the rules
for games that cannot end (a proven loop, the stall limit or the move cap,
docs/reference/rules.md#cannot-end), which under ``stalemate:share`` leave both seats
unplaced: a draw. (A move may hand the turn back to its own seat, after a burn: the graph
records whose turn each position is, so that needs nothing special.)

The limits of play are checked, not assumed: the graph is built without the move counter
and the count of quiet moves (they are not part of a position), so a value holds only when
the end comes before the move cap and the stall limit can stop the game. Every won or lost
move's ``moves`` must be less than the moves left to the cap and to the stall limit from the
position (the quiet count only restarts on progress, so this bound is safe); else
:class:`NotSolved`. Under ``stalemate:most_cards`` a stopped game is placed by the cards
held where it stops, so a draw there is no value: a position with a drawn move is not solved
either.
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from dataclasses import dataclass

from shedsim.rules.cards import RANKS, pack
from shedsim.rules.moves import apply_move, legal_moves
from shedsim.rules.state import GameState, Move, Seat

MAX_POSITIONS = 20_000
"""The most positions :func:`solve` enumerates before it gives up (:class:`NotSolved`):
about a few seconds of the reference engine."""

WIN, DRAW, LOSS = "win", "draw", "loss"
RESULTS = (WIN, DRAW, LOSS)
"""A move's value for the seat that makes it, best first."""


class NotSolved(Exception):
    """The position cannot be solved exactly; the message says why, in words that follow
    "not solved: "."""


@dataclass(frozen=True)
class MoveValue:
    """The exact value of one move: ``result`` (``win``, ``draw`` or ``loss`` for the seat
    that makes it) and ``moves``, the moves of both seats until the game ends under best
    play, this one included (None for a draw)."""

    move: str
    result: str
    moves: int | None

    def sort_key(self) -> tuple[int, int]:
        """Best first: wins soonest, then draws, then losses latest."""
        rank = RESULTS.index(self.result)
        m = self.moves or 0
        return rank, (m if self.result == WIN else -m)

    def words(self) -> str:
        """``wins in 3 moves``, ``draws``, ``loses in 6 moves``."""
        if self.result == DRAW:
            return "draws"
        verb = "wins" if self.result == WIN else "loses"
        return f"{verb} in {self.moves} move{'s' if self.moves != 1 else ''}"


@dataclass
class Solution:
    """What :func:`solve` found: the ``seat`` advised, its ``values`` best first (one per
    legal move) and how many ``positions`` the search enumerated."""

    seat: int
    values: list[MoveValue]
    positions: int

    @property
    def result(self) -> str:
        """The position's value for the seat: its best move's."""
        return self.values[0].result

    def summary(self) -> str:
        """The verdict in words: ``play 7x2 wins against every reply (in 3 moves)``, ``every
        move loses against best play; pickup holds out longest (loses in 6 moves)`` or ``no
        move wins against best play; play Kx1 draws (...)``."""
        best = self.values[0]
        if best.result == WIN:
            return f"{best.move} wins against every reply (in {best.moves} moves)"
        if best.result == LOSS:
            if len(self.values) == 1:
                return f"{best.move}, the only move, loses against best play ({best.words()})"
            return (
                f"every move loses against best play; {best.move} holds out longest "
                f"({best.words()})"
            )
        return (
            f"no move wins against best play; {best.move} draws (neither seat can force the "
            "end: the game goes round until it is stopped, and a stopped game places neither)"
        )


def end_game(state: GameState) -> bool:
    """Whether ``state`` is an end game :func:`solve` is for: the game on, exactly two
    seats still in, the stock empty and neither seat holding a face-down card."""
    live = state.in_seats()
    return (
        not (state.finished or state.unfinished)
        and len(live) == 2
        and not state.stock
        and not any(state.seats[s].face_down for s in live)
    )


def unseen_cards(state: GameState) -> tuple[Counter, int]:
    """What the seat to move has not seen and where it could be: ``(pool, hidden)``, the
    deck (4 of each rank a deck) minus the cards the seat saw (its hand, every face-up row,
    the pile, the burned cards of known rank, the other seats' known hand cards), as rank
    counts, and how many of the other seats' hand cards are not known (the places the pool
    fills; cards of the pool beyond those are burned unseen or left out of the position).
    The same view as the playouts' re-deal (:func:`shedsim.kernel.policies.determinise_any`)
    when no face-down card and no stock is left."""
    me = state.to_move
    seen = Counter(state.seats[me].hand) + Counter(state.pile) + state.burned_cards
    hidden = 0
    for i, s in enumerate(state.seats):
        seen.update(s.face_up)
        if i != me:
            seen.update(s.known)
            hidden += len(s.hand) - sum(s.known.values())
    per = 4 * state.rules.decks
    pool = Counter({r: per - seen[r] for r in RANKS if per > seen[r]})
    return pool, hidden


def perfect_information(state: GameState) -> str | None:
    """Why ``state`` is not a perfect-information end game :func:`solve` takes, in words
    (None when it is one): an :func:`end_game` in which the seat to move knows the other
    seat's hand. It does when that hand holds no card the seat has not seen
    (:func:`unseen_cards`: every card of it was seen picked up, a ``known`` card), or when
    the unseen cards can only be that hand's (as many as its unknown cards, or all of one
    rank): a position that tracked every burned card (``burned_cards``). Otherwise the
    same view could hide other hands, and the answer would depend on a card the seat
    cannot see."""
    if not end_game(state):
        if state.finished or state.unfinished:
            return "the game is over"
        live = state.in_seats()
        if len(live) != 2:
            return f"{len(live)} seats still in (an exact end game needs two)"
        if state.stock:
            return "the stock still has cards"
        return "face-down cards are left (their ranks are chance)"
    pool, hidden = unseen_cards(state)
    size = sum(pool.values())
    if hidden and hidden != size and len(pool) > 1:
        return (
            f"the other seat's hand is not known: {hidden} of its cards could be any "
            f"{hidden} of {size} unseen cards (a position tracks them with burned_cards and "
            "known)"
        )
    return None


def position_key(state: GameState) -> tuple:
    """What the rules depend on in an end game, as a hashable key: the pile (as rank counts,
    its effective top, physical top rank and run: all the rules read of it), the seat to
    move, the direction and every seat's hand, face-up row and whether it is out. The
    engine's loop key (:func:`shedsim.rules.moves.position_key`) without what only a
    strategy reads (known cards, the strategy stream)."""
    top, run = state.top_run()
    return (
        pack(state.pile),
        state.effective_top(),
        top,
        run,
        state.to_move,
        state.direction,
        tuple((pack(s.hand), pack(s.face_up), s.out) for s in state.seats),
    )


def _bare(state: GameState) -> GameState:
    """A copy of ``state`` that no stop rule can end (counters at zero, no loop search):
    the graph is of positions, the limits are checked on the result. Built field by field
    (``copy.copy`` costs most of the search), with fresh lists and counters for everything
    a move changes."""
    st = object.__new__(GameState)
    st.__dict__.update(state.__dict__)
    seats = []
    for s in state.seats:
        t = object.__new__(Seat)
        t.__dict__.update(s.__dict__)
        t.hand, t.face_up, t.face_down, t.known = list(s.hand), list(s.face_up), [], _counter()
        seats.append(t)
    st.seats = seats
    st.pile, st.stock, st.places = list(state.pile), [], list(state.places)
    st.burned_cards, st.burned_order = _counter(), []
    st.moves, st.quiet, st.progress_mark = 0, 0, None
    st.loop_on, st.loop_saved, st.deterministic, st.stream = False, None, [], None
    return st


def _counter() -> Counter:
    """An empty :class:`~collections.Counter` without ``Counter.__init__``'s checks."""
    return Counter.__new__(Counter)


def _child(state: GameState, move: Move, legal: list[Move]) -> GameState:
    st = _bare(state)
    apply_move(st, move, legal)
    return st


def solve(
    state: GameState, seat: int | None = None, max_positions: int = MAX_POSITIONS
) -> Solution:
    """The exact value of every legal move of ``seat`` (default: the seat to move; another
    seat is solved as if it were its turn) in ``state``, best first (wins soonest, draws,
    losses latest). Method and sources: the module docstring.

    Raises :class:`NotSolved` when the position is not a perfect-information end game
    (:func:`perfect_information`), when more than ``max_positions`` positions are reachable,
    when the move cap or the stall limit could stop the game before a won or lost move's end,
    or when a move draws under ``stalemate:most_cards``.
    """
    view = copy.copy(state)
    if seat is not None:
        view.to_move = seat
    why = perfect_information(view)
    root = _bare(view)
    if why:
        raise NotSolved(why)
    if max_positions < 1:
        raise NotSolved("the exact search is off")
    # enumerate the graph: node i's mover, its children (one per legal move), its parents
    index: dict[tuple, int] = {}
    states: list[GameState] = []
    mover: list[int] = []
    children: list[list[int]] = []
    winner: dict[int, int] = {}  # finished positions: the seat that went out of the two
    live = root.in_seats()

    def node(st: GameState) -> int:
        key = position_key(st)
        i = index.get(key)
        if i is None:
            if len(states) >= max_positions:
                raise NotSolved(
                    f"the end game has more than {max_positions:,} positions (the exact "
                    "search's limit)"
                )
            i = index[key] = len(states)
            states.append(st)
            mover.append(st.to_move)
            children.append([])
            if st.finished:
                winner[i] = next(s for s in live if s != st.places[-1])
        return i

    root_moves = legal_moves(root)
    node(root)
    done = 0
    while done < len(states):
        st = states[done]
        if not st.finished:
            legal = legal_moves(st)
            children[done] = [node(_child(st, m, legal)) for m in legal]
        states[done] = None  # type: ignore[call-overload] - the key is all that is needed now
        done += 1
    # retrograde analysis, in order of distance to the end
    parents: list[list[int]] = [[] for _ in children]
    for p, kids in enumerate(children):
        for c in kids:
            parents[c].append(p)
    left = [len(k) for k in children]
    won: dict[int, tuple[int, int]] = {i: (w, 0) for i, w in winner.items()}  # (winner, moves)
    queue = deque(sorted(winner))
    while queue:
        c = queue.popleft()
        w, d = won[c]
        for p in parents[c]:
            if p in won:
                continue
            if mover[p] == w:  # one move to a position won for the mover
                won[p] = (w, d + 1)
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0:  # every move reaches a position won for the other seat
                    won[p] = (w, d + 1)
                    queue.append(p)
    me = root.to_move
    values = []
    for m, c in zip(root_moves, children[0]):
        if c in won:
            w, d = won[c]
            values.append(MoveValue(str(m), WIN if w == me else LOSS, d + 1))
        else:
            values.append(MoveValue(str(m), DRAW, None))
    _check_limits(state, values)
    values.sort(key=MoveValue.sort_key)
    return Solution(me, values, len(states))


def _check_limits(state: GameState, values: list[MoveValue]) -> None:
    """Raise :class:`NotSolved` when a stop rule could change a value (module docstring)."""
    rules = state.rules
    longest = max((v.moves for v in values if v.moves is not None), default=0)
    to_cap = rules.max_moves - state.moves
    if longest >= to_cap:
        raise NotSolved(
            f"best play takes up to {longest} moves but the move cap (max_moves "
            f"{rules.max_moves}) stops the game in {to_cap}"
        )
    stall = rules.stall_moves(state.players)
    if stall and longest >= stall - state.quiet:
        raise NotSolved(
            f"best play takes up to {longest} moves but the stall limit (stall {stall}) "
            f"could stop the game in {stall - state.quiet}"
        )
    if rules.stalemate == "most_cards" and any(v.result == DRAW for v in values):
        raise NotSolved(
            "a move draws, and under stalemate:most_cards a stopped game is placed by the cards "
            "held where it stops"
        )


__all__ = [
    "MAX_POSITIONS",
    "RESULTS",
    "MoveValue",
    "NotSolved",
    "Solution",
    "end_game",
    "perfect_information",
    "unseen_cards",
    "position_key",
    "solve",
]
