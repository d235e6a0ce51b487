"""An example bot: the built-in ``greedy`` strategy's rule, written with :mod:`shedsim.bot.client`.

Run it as a bot with ``python -m shedsim.bot.example``, e.g.
``shedsim tournament --bot greedy-py='python -m shedsim.bot.example' --strategies greedy,random``;
it plays every game exactly as ``greedy`` does (``tests/test_bot_clients.py`` checks it).

Move: in the face-down stage, flip the first slot; otherwise play the lowest playable
rank that has no role in the rules, every copy the stage holds; when only special ranks
fit, one card of the lowest; when nothing fits, pick up. Swap: the strongest cards face up
(burn ranks, then reset ranks, then other special ranks, then ordinary ranks; higher first
within each).
"""

from __future__ import annotations

from shedsim.bot.client import VALUE, Bot, State, run


def plays(legal: list[str]) -> dict[str, int]:
    """The ranks ``legal`` lets the seat play, each with the most cards of it one plain play
    takes (``play Rxk`` without ``+j``: the copies the current stage holds)."""
    out: dict[str, int] = {}
    for m in legal:
        if m.startswith("play ") and "+" not in m:
            rank, _, k = m[5:].partition("x")
            out[rank] = max(out.get(rank, 0), int(k))
    return out


class Greedy(Bot):
    name = "greedy (python example)"
    version = "1"
    deterministic = True

    def swap(self, state: State) -> list[str]:
        burn = set(state.rules.get("burn") or ())
        reset = set(state.rules.get("reset") or ()) - burn

        def band(r: str) -> int:
            return 0 if r in burn else 1 if r in reset else 2 if state.special(r) else 3

        cards = sorted(state.hand + state.face_up, key=lambda r: (band(r), -VALUE[r]))
        return cards[: len(state.face_up)]

    def move(self, state: State, legal: list[str]) -> str:
        if state.stage == "face_down":
            return "flip 1"
        ok = plays(legal)
        plain = [r for r in ok if not state.special(r)]
        if plain:
            r = min(plain, key=VALUE.__getitem__)
            return f"play {r}x{ok[r]}"
        if ok:
            return f"play {min(ok, key=VALUE.__getitem__)}x1"
        return "pickup"


if __name__ == "__main__":
    raise SystemExit(run(Greedy()))
