"""Array layouts shared by the compiled kernel, the strategies and the reference engine.

Every constant here is a plain ``int``, so numba folds it into compiled code. Three
``int64`` arrays carry a game:

* the **rules** array (``R_*``), built by :meth:`shedsim.rules.RuleSet.compile`;
* the **public** array (``O_*``), which is also the observation a strategy receives:
  everything every player can see, plus the mover's own hand written in ``O_HAND`` just
  before the decision. Hidden cards (other hands, face-down cards, the stock order) are
  never in it (docs/reference/rules.md#observation);
* the kernel's private state (``P_*``: hands, face-down slots, stock), which no strategy
  gets (but a measuring tool that declares ``TRAITS['cheating']``, :mod:`shedsim.plugin_meta`).

Packed multisets use 4 bits per rank (:mod:`shedsim.rules.cards`).

Moves are ``int64`` codes:

* ``PICKUP`` (1), ``GAMBLE`` (2);
* ``FLIP + s``: turn face-down slot ``s`` (0-based);
* play: ``(rank << 8) | (k << 4) | j``: ``k`` cards of ``rank`` from the current stage,
  plus ``j`` face-up cards of the same rank with the last hand card (``mix_last_hand``).
"""

MAX_PLAYERS = 10
MAX_TABLE = 6
MAX_DECK = 104

# ---- rules array ---------------------------------------------------------------
R_PLAYABLE = 0  # 15 entries: packed mask of ranks playable on effective top t (0 = empty)
R_FLAGS = 15  # 15 entries: role flags of rank r (F_*)
R_BURN_MASK = 30
R_INVISIBLE_MASK = 31
R_SKIP_MASK = 32
R_REVERSE_MASK = 33
R_SPECIAL_MASK = 34  # ranks with any role
R_ORDINARY_MASK = (
    35  # ranks with no role (start rules: docs/reference/rules.md#ruling-lowest-card-start)
)
R_PLAYERS = 36
R_DECKS = 37
R_DECK_SIZE = 38
R_HAND_SIZE = 39
R_TABLE_SIZE = 40
R_BURN_RUN = 41
R_PICKUP = 42  # index in rules.PICKUP_MODES: 0 never, 1 hand, 2 hand+faceup, 3 always
R_GAMBLE = 43
R_START = 44  # index in rules.START_RULES
R_BURN_PASSES = 45
R_MIX_LAST = 46
R_MAX_MOVES = 47
R_STALL = 48  # no-progress limit in moves once the stock is empty (0 = off)
R_STALEMATE = 49  # how a stopped game is scored (STALEMATE_*)
R_RESET_MASK = 50  # ranks that reset the pile
R_SIZE = 51

F_BURN = 1
F_RESET = 2
F_INVISIBLE = 4
F_SKIP = 8
F_REVERSE = 16
F_MAGIC = 32
F_LOW = 64
F_ORDINARY = 128

PICKUP_NEVER = 0
PICKUP_HAND = 1
PICKUP_HAND_FACEUP = 2
PICKUP_ALWAYS = 3

START_DEALER_LEFT = 0
START_LOWEST_HAND = 1
START_LOWEST_FACEUP = 2
START_RANDOM = 3

STALEMATE_SHARE = 0  # seats still in share the remaining places (their place stays 0)
STALEMATE_MOST_CARDS = 1  # seats still in are placed by cards held, fewest first

# ---- how a game ended (the kernel's ``end`` record, :func:`shedsim.rules.engine.play_game`) ----
END_FINISHED = 0  # one player left: played out
END_STALLED = 1  # the no-progress rule (``stall:N``) stopped it
END_LOOP = 2  # a proven loop: the whole position repeated, every seat in deterministic
END_CAP = 3  # the move cap (``max_moves``) stopped it
END_NAMES = ("finished", "stalled", "loop", "cap")
LOOP_FROM = 128  # quiet moves (no burn, nobody out, no draw) before the loop check starts

# ---- stages --------------------------------------------------------------------
STAGE_HAND = 0
STAGE_FACE_UP = 1
STAGE_FACE_DOWN = 2
STAGE_OUT = 3

# ---- moves ---------------------------------------------------------------------
PICKUP = 1
GAMBLE = 2
FLIP = 16  # FLIP + slot, slot 0..MAX_TABLE-1
PLAY_MIN = 256  # any code >= PLAY_MIN is a play
OBS_WRITTEN = -(1 << 40)  # what a plugin's guarded move returns after writing into the observation
RNG_WRITTEN = -(
    1 << 41
)  # + S_STRATEGY or S_DEAL: what a plugin's guarded move or swap returns after
#                           writing into a random stream it does not own
# (kernel.core.stream_written)

# ---- public array (the observation) --------------------------------------------
O_SEAT = 0  # seat to move (whose decision this is)
O_PLAYERS = 1
O_STAGE = 2  # mover's stage (STAGE_*)
O_HAND = 3  # mover's own hand, packed (written just before a decision)
O_TOP = 4  # effective top rank, 0 = empty (invisible cards skipped)
O_TOP_RANK = 5  # physical top card's rank, 0 = empty pile
O_RUN = 6  # how many physical cards of O_TOP_RANK lie on top in a row
O_PILE = 7  # pile contents, packed
O_PILE_N = 8
O_BURNED = 9  # burned cards, packed
O_BURNED_N = 10
O_STOCK_N = 11
O_DIRECTION = 12  # +1 clockwise (seat order), -1 reversed
O_IN = 13  # players still in
O_MOVES = 14  # moves made so far in this game
O_DEALER = 15
O_SEATS = 24  # per-seat blocks follow, MAX_PLAYERS entries each:
O_FACE_UP = O_SEATS + 0 * MAX_PLAYERS  # packed face-up row
O_HAND_N = O_SEATS + 1 * MAX_PLAYERS  # hand card count
O_FACE_DOWN_N = O_SEATS + 2 * MAX_PLAYERS  # face-down card count
O_PLACE = O_SEATS + 3 * MAX_PLAYERS  # 0 while in, else finishing place (1 = first out)
O_KNOWN = O_SEATS + 4 * MAX_PLAYERS  # cards known to be in the hand (public pick-ups), packed
O_PICKUPS = O_SEATS + 5 * MAX_PLAYERS  # pick-ups so far
O_BURNS = O_SEATS + 6 * MAX_PLAYERS  # burns so far
O_VOID = O_SEATS + 7 * MAX_PLAYERS  # packed rank mask (all four bits per rank): ranks that the
#   hand cards not known (beyond O_KNOWN) hold none of, from forced pick-ups with the stock
#   empty (docs/reference/rules.md#observation)
O_SIZE = O_SEATS + 8 * MAX_PLAYERS

# ---- the kernel's private state (never given to a strategy) ---------------------
P_HANDS = 0  # packed hand per seat
P_FACE_DOWN = P_HANDS + MAX_PLAYERS  # MAX_TABLE slots per seat, ranks in slot order
P_DECK = P_FACE_DOWN + MAX_PLAYERS * MAX_TABLE  # the shuffled deck; the stock is its tail
P_CARDS_END = P_DECK + MAX_DECK  # the cards (hands, face-down, deck) end here: a move reads
# and writes only these (kernel.core.step_with), so a rollout copies only priv[:P_CARDS_END]
P_LOOP = P_CARDS_END  # the loop check's state (kernel.core.stop_check):
P_LOOP_POWER = P_LOOP  #   Brent's power and lambda,
P_LOOP_LAM = P_LOOP + 1
P_LOOP_ON = P_LOOP + 2  #   1 when every seat still in is deterministic,
P_LOOP_RNG = P_LOOP + 3  #   the strategy stream at the save (as int64),
P_SNAP = P_LOOP + 4  #   the saved position (kernel.core.save_position)
P_SNAP_SIZE = 6 + 4 * MAX_PLAYERS
P_SHUFFLE = P_SNAP + P_SNAP_SIZE  # the deal's scratch: the shuffle's swap positions
P_OBS_COPY = P_SHUFFLE + MAX_DECK  # the observation as it was before a plugin's decision
#                                           (kernel.build.dispatch_source compares it after)
P_SEAT_RNG = P_OBS_COPY + O_SIZE  # per seat, the stream of a plugin from outside strategies/
#                                           (as int64; lent to it for each decision:
# kernel.core.lend_stream)
P_SIZE = P_SEAT_RNG + MAX_PLAYERS

# ---- the game's random streams: one uint64 array, splitmix64 counters -------------
# A plugin from outside strategies/ decides with ``streams[S_LENT:S_LENT + 1]`` as its
# ``rng``, holding its seat's own stream; the entries after it are the streams it does not
# own, compared after its decision, so a write past its own entry is named, not obeyed.
S_BEAT = 0  # plugin decisions begun plus ended: odd while one runs (not a stream:
#                         the parent of a forked child times that decision, base.isolate)
S_LENT = 1  # the stream lent to a plugin for one decision (its seat's own)
S_STRATEGY = 2  # the game's strategy stream, which shedsim's own strategies share
S_DEAL = 3  # the deal stream (the shuffle, a random start)
S_SIZE = 4
STREAM_NAMES = {
    S_STRATEGY: "the game's strategy stream (the draws of the other seats' strategies)",
    S_DEAL: "the deal stream (the shuffle and a random start)",
}


_LENGTHS = {"R_SIZE", "O_SIZE", "P_SIZE", "P_SNAP_SIZE"}
"""Names of array lengths, not entries (``R_DECK_SIZE`` and the like are entries)."""


def entry_name(prefix: str, index: int) -> str:
    """The layout name of entry ``index`` of the rules (``prefix`` ``"R_"``)
    or observation (``"O_"``) array, e.g. ``R_PLAYABLE+5`` or ``O_FACE_UP+1``."""
    best = None
    for name, value in globals().items():
        if (
            name.startswith(prefix)
            and isinstance(value, int)
            and name not in _LENGTHS
            and value <= index
            and (best is None or value >= best[1])
        ):
            best = (name, value)
    if best is None:
        return f"entry {index}"
    return best[0] if best[1] == index else f"{best[0]}+{index - best[1]}"


def _drop_stale_caches() -> None:
    """Drop numba's on-disk caches of shedsim's own compiled functions (``*.nbi``, ``*.nbc`` in
    the ``__pycache__`` directories of ``shedsim/`` and ``strategies/``) once this file changes.

    numba keys a function's cache by its own source file alone, yet the function holds the
    constants above as they were when it compiled: after a change of the layout (an entry
    appended to the observation) an unchanged file such as ``strategies/mc.py`` would load
    code built for arrays of the old sizes. A stamp of this file's hash beside the caches
    (``shedsim/__pycache__/layout.stamp``) tells; where it differs the caches go, and every
    function compiles again on its first call. The same holds for a change of a compiled
    function that others call from another file (numba links the callee's code into the
    caller's cache): the stamp covers every source of :mod:`shedsim.kernel` too, and the
    learned value's weights (``shedsim/kernel/*.npz``, which :mod:`shedsim.kernel.value`
    compiles in as constants). Where the package cannot be written (a read-only install),
    nothing is done (numba cannot cache there either)."""
    import hashlib
    import os
    from pathlib import Path

    here = Path(__file__).resolve()
    h = hashlib.sha256(here.read_bytes())
    for p in sorted(
        [*(here.parent / "kernel").glob("*.py"), *(here.parent / "kernel").glob("*.npz")]
    ):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    digest = h.hexdigest()[:16]
    stamp = here.parent / "__pycache__" / "layout.stamp"
    try:
        if stamp.read_text() == digest:
            return
    except OSError:
        pass
    try:
        for root in (here.parent, here.parent.parent / "strategies"):
            for pattern in ("__pycache__/*.nbi", "__pycache__/*.nbc"):
                for p in root.rglob(pattern):
                    p.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        tmp = stamp.with_name(f"layout.stamp.{os.getpid()}")
        tmp.write_text(digest)
        os.replace(tmp, stamp)
    except OSError:
        pass


_drop_stale_caches()
