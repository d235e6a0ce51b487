"""A run's specification as the report shows it: what was played, in words, with each value
in its kind's format (:mod:`shedsim.output.kinds`).

Each known command declares its rows once (:data:`SPECS`): a label in words and where the
value comes from in ``run.json``. The run store's internals (spec keys, format numbers,
chunk and block sizes, strategy hashes, checksums, the command line recorded twice) are
left out: they stay in the page's collapsed table of every run.json field. A run of an
unknown command gets the generic rows (:func:`generic`): its short fields, internals left
out, numbers formatted.

Durations read ``50 s`` or ``1 min 6 s``, speeds ``3,206 games/s``, counts carry thousands
separators, shares are percentages.
"""

from __future__ import annotations

import math
from typing import Any
from collections.abc import Callable

from shedsim.output import kinds as K

PARTIAL_MARK = " [PARTIAL: run interrupted]"
"""What follows the title of a run stopped before its end, wherever it is shown (the
console's tables, the report's headings)."""

__all__ = ["rows", "generic", "SPECS", "INTERNAL_FIELDS", "rules_text", "ends_text"]

Rows = list[tuple[str, str]]

INTERNAL_FIELDS = frozenset(
    {
        "key",
        "format",
        "checksum",
        "block",
        "chunk_size",
        "n_chunks",
        "chunks_done",
        "chunks_per_variant",
        "strategy_hashes",
        "store_spec",
        "sessions",
        "argv",
        "command",
        "subtitle",
        "rules_input",
        "tables",
        "rounded_games",
        "interrupted_by",
        "notes",
        "strategy_paths",
        "backend",
        "play_s",
        "peak_rss_mb_main",
        "entries",
        "labels",
        "variants",
        "lengths",
        "rating_fit",
        "end_shares",
        "ends",
        "definitions",
        "versions",
        "headline",
        "outputs",
        "title",
        "degenerate",
        "result",
        "start",
        "space",
        "policies",
        "storage",
        "mode",
        "batch",
        "games_in_results",
        "games_requested",
    }
)
"""run.json fields that are the machinery's, not what a reader needs to know what was played
(the rows that need them read them themselves)."""


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _spec(info: dict[str, Any]) -> dict[str, Any]:
    s = info.get("spec")
    return s if isinstance(s, dict) else {}


def _get(info: dict[str, Any], *keys: str) -> Any:
    """The first of ``keys`` found in the run's ``spec`` object, then in run.json itself."""
    for src in (_spec(info), info):
        for k in keys:
            if k in src and src[k] is not None:
                return src[k]
    return None


def count(v: Any) -> str | None:
    """A whole number with thousands separators (None for a missing value)."""
    if not _num(v):
        return None if v is None else str(v)
    return f"{int(v):,}" if float(v).is_integer() else K.plain(float(v))


def listed(v: Any) -> str | None:
    """A list as ``a, b, c`` (None for a missing or empty one)."""
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v) or None
    return None if v in (None, "") else str(v)


def rules_text(r: Any, house: Any = None) -> str:
    """A rule set as its name plus its house toggles (``shithead + low7, skip8``): ``r`` is a
    rules object of run.json (``name``, ``house``) or a name."""
    if isinstance(r, dict):
        name = str(r.get("name", "?"))
        house = r.get("house", house)
    elif isinstance(r, (list, tuple)):
        name = ", ".join(str(x) for x in r)
    else:
        name = str(r)
    if isinstance(house, list) and house:
        return f"{name} + {', '.join(str(h) for h in house)}"
    if isinstance(house, str) and house:
        return f"{name} + {house}"
    return name


END_WORDS = (("stalled", "stalled"), ("loop", "proven loops"), ("cap", "at the move cap"))
"""How an unfinished game ended, in the words the page uses (run.json's ``end_shares`` keys)."""


def ends_text(info: dict[str, Any]) -> str:
    """How the unfinished games ended, from run.json's ``end_shares`` (a tournament's): only
    the ways some game ended, e.g. ``stalled 8.90%, proven loops 2.25%``; runs written before
    it was recorded had only the move cap."""
    sh = info.get("end_shares")
    if not isinstance(sh, dict) or not all(_num(sh.get(k)) for k, _ in END_WORDS):
        return "reached the move cap"
    parts = [f"{words} {_pct(sh[k])}" for k, words in END_WORDS if sh[k] > 0]
    return ", ".join(parts) or "none"


def _pct(share: float) -> str:
    """A share as a percentage with two decimals; ``< 0.01%`` for a share above 0 that would
    read 0.00%."""
    return "< 0.01%" if 0 < share < 0.00005 else f"{100 * share:.2f}%"


def _games(info: dict[str, Any]) -> str | None:
    games = info.get("games_in_results", _get(info, "games"))
    if games is None:
        return None
    text = count(games)
    req = info.get("games_requested", _spec(info).get("games_requested"))
    if _num(req) and req != games:
        text += f" (requested {count(req)})"
    return text


def _complete(info: dict[str, Any]) -> str | None:
    c = info.get("complete")
    if c is None:
        return None
    if c:
        return "yes"
    done, total = info.get("chunks_done"), info.get("n_chunks")
    stop = f"stopped by {info['interrupted_by']}" if info.get("interrupted_by") else "stopped"
    part = f" after {count(done)} of {count(total)} parts" if _num(done) and _num(total) else ""
    return f"no: {stop}{part}; these are the results so far (--resume finishes the run)"


def _run_time(info: dict[str, Any]) -> str | None:
    wall = info.get("wall_s")
    if not _num(wall):
        return None
    text = K.duration(float(wall))
    bits = []
    gps = info.get("games_per_s")
    if _num(gps) and gps > 0:
        bits.append(f"{gps:,.0f} games/s")
    w = info.get("workers")
    if _num(w):
        bits.append(f"{int(w)} worker{'s' if w != 1 else ''}")
    b = info.get("backend")
    if isinstance(b, str) and b and b != "loky":
        bits.append(f"{b} backend")
    return text + (f" ({', '.join(bits)})" if bits else "")


def _move_cap(info: dict[str, Any]) -> str | None:
    r = _get(info, "rules")
    caps = info.get("max_moves")
    if isinstance(caps, dict) and caps:
        values = sorted(set(caps.values()), key=str)
        if len(values) == 1:
            return f"{count(values[0])} moves"
        return "; ".join(f"{k} {count(v)}" for k, v in caps.items()) + " moves"
    if isinstance(r, dict) and _num(r.get("max_moves")):
        return f"{count(r['max_moves'])} moves"
    return None


def _rules(info: dict[str, Any]) -> str | None:
    r = _get(info, "rules")
    if r is None:
        return None
    inp = _spec(info).get("rules_input")
    house = _get(info, "house")
    if isinstance(inp, dict):
        house = inp.get("house", house)
    text = rules_text(r, house)
    if isinstance(inp, dict) and inp.get("rules_file"):
        text += f" (rules file {inp['rules_file']})"
    return text


def _strategies(info: dict[str, Any]) -> str | None:
    s = _spec(info)
    labels, entries = s.get("labels"), s.get("entries")
    if isinstance(labels, list) and isinstance(entries, list) and len(labels) == len(entries):
        return ", ".join(str(a) if a == b else f"{a} = {b}" for a, b in zip(labels, entries))
    return listed(_get(info, "strategies", "labels", "entries"))


def _unfinished(info: dict[str, Any]) -> str | None:
    share = info.get("unfinished_share")
    if not _num(share):
        return None
    if share == 0:
        return "none"
    return f"{_pct(share)} of games ({ends_text(info)})"


def _seat_orders(info: dict[str, Any]) -> str | None:
    so = _get(info, "seat_orders")
    return {
        "all": "every table in every seating order",
        "sorted": "one seating order per table",
    }.get(so, so)


def _variants(info: dict[str, Any]) -> str | None:
    v = _get(info, "variants")
    base = _get(info, "baseline")
    if not isinstance(v, list):
        return None
    labels = [str(x.get("label")) for x in v if isinstance(x, dict) and x.get("label") != base]
    text = ", ".join(labels)
    if _get(info, "each_toggle"):
        text = f"every house toggle ({len(labels)}): {text}"
    return text or None


def _variant_counts(info: dict[str, Any]) -> str | None:
    u = info.get("unfinished_games")
    g = info.get("games_in_results", _get(info, "games"))
    if not isinstance(u, dict):
        return None
    if not any(u.values()):
        return "none"

    def one(k: str, n: Any) -> str:
        return f"{k} {count(n)}" + (f" ({_pct(n / g)})" if _num(g) and g else "")

    return "; ".join(one(k, n) for k, n in u.items() if n)


def _skipped(info: dict[str, Any]) -> str | None:
    sk = _get(info, "skipped")
    if not isinstance(sk, list) or not sk:
        return None
    return "; ".join(
        f"{x.get('variant')} ({x.get('reason')})" if isinstance(x, dict) else str(x) for x in sk
    )


def _comparisons(info: dict[str, Any]) -> str | None:
    n, sig = info.get("comparisons"), info.get("significant_effects")
    if not _num(n):
        return None
    return f"{count(n)}" + (
        f", {count(sig)} significant by any of their tests (Holm-corrected, 5%)"
        if _num(sig)
        else ""
    )


def _swap_policies(info: dict[str, Any]) -> str | None:
    p = info.get("swap_policies")
    if not isinstance(p, dict):
        return None
    return ", ".join(k if v in (k, None) else f"{k} ({v})" for k, v in p.items())


def _regret_study(info: dict[str, Any]) -> str | None:
    deals, rollouts, seat = _get(info, "deals"), _get(info, "rollouts"), _get(info, "seat")
    if not _num(deals):
        return None
    if deals == 0:
        return "not run"
    return (
        f"{count(deals)} deals, every face-up choice of seat {seat} scored over {count(rollouts)} "
        f"re-deals of the unseen cards"
    )


def _face_up_table(info: dict[str, Any]) -> str | None:
    f, m = info.get("face_up_multisets"), _get(info, "min_games")
    if not isinstance(f, dict):
        return None
    return f"{count(f.get('in_table'))} of the {count(f.get('seen'))} face-up rows seen" + (
        f" (those with at least {count(m)} seat-games)" if _num(m) else ""
    )


def _versus(info: dict[str, Any]) -> str | None:
    a, b = _get(info, "a"), _get(info, "b")
    return f"{a} vs {b}" if a is not None and b is not None else None


def _pairing(info: dict[str, Any]) -> str | None:
    p = _get(info, "paired")
    if p is None:
        return None
    return (
        "paired: each deal played twice, the seats swapped"
        if p
        else "unpaired: every game a new deal"
    )


def _hypotheses(info: dict[str, Any]) -> str | None:
    e0, e1 = _get(info, "elo0"), _get(info, "elo1")
    if not (_num(e0) and _num(e1)):
        return None
    a, b = _get(info, "a"), _get(info, "b")
    diff = f"{a} minus {b}" if a is not None and b is not None else "A minus B"
    return f"H0: {K.ELO.fmt(float(e0))} Elo, H1: {K.ELO.fmt(float(e1))} Elo ({diff}, logistic Elo)"


def _errors(info: dict[str, Any]) -> str | None:
    a, b = _get(info, "alpha"), _get(info, "beta")
    if not (_num(a) and _num(b)):
        return None
    return f"alpha {K.PROBABILITY.fmt(a)} (accepting H1 when H0 holds), beta {K.PROBABILITY.fmt(b)}"


def _sprt_games(info: dict[str, Any]) -> str | None:
    lo, hi = _get(info, "min_games"), _get(info, "max_games")
    if not _num(hi):
        return None
    return f"at least {count(lo)}, at most {count(hi)}" if _num(lo) else f"at most {count(hi)}"


def _llr(info: dict[str, Any]) -> str | None:
    m = _get(info, "llr", "llr_method")
    return {
        "normal": "normal approximation",
        "mle": "exact ratio of the maximum-likelihood pentanomial or trinomial distributions",
    }.get(m, m)


def _space(info: dict[str, Any]) -> str | None:
    space = _spec(info).get("space")
    if not isinstance(space, list):
        return None
    parts = []
    for p in space:
        if isinstance(p, (list, tuple)) and len(p) >= 3:
            parts.append(
                f"{p[0]} {count(p[1])} to {count(p[2])}"
                + (" (log scale)" if len(p) > 3 and p[3] else "")
            )
    return ", ".join(parts) or None


def _study(info: dict[str, Any]) -> str | None:
    name, url = _get(info, "study_name"), _get(info, "storage")
    if name is None:
        return None
    return f"{name}" + (f" in {url}" if url else "")


def _field(*keys: str, fmt: Callable[[Any], str | None] = lambda v: None if v is None else str(v)):
    """A row read from the first of ``keys`` found (:func:`_get`), formatted by ``fmt``."""
    return lambda info: fmt(_get(info, *keys))


Row = tuple[str, Callable[[dict[str, Any]], "str | None"]]

_COMMON_END: list[Row] = [
    ("seed", _field("seed")),
    ("complete", _complete),
    ("run time", _run_time),
]

SPECS: dict[str, list[Row]] = {
    "tournament": [
        ("rules", _rules),
        ("players", _field("players", fmt=count)),
        ("strategies", _strategies),
        ("games", _games),
        (
            "rounds per match",
            lambda i: count(_get(i, "rounds")) if (_get(i, "rounds") or 1) > 1 else None,
        ),
        ("seating", _seat_orders),
        ("move cap", _move_cap),
        ("unfinished games", _unfinished),
        *_COMMON_END,
    ],
    "compare-rules": [
        ("baseline", _field("baseline")),
        ("variants", _variants),
        ("house toggles for every variant", _field("house", fmt=listed)),
        ("players", _field("players", fmt=count)),
        ("strategies", _field("strategies", fmt=listed)),
        ("skill edges measured against", _field("reference_strategy")),
        ("games per variant", _games),
        ("deals per variant", _field("deals", fmt=count)),
        ("move cap", _move_cap),
        ("unfinished games", _variant_counts),
        ("comparisons", _comparisons),
        ("skipped", _skipped),
        *_COMMON_END,
    ],
    "swaps": [
        ("rules", _rules),
        ("players", _field("players", fmt=count)),
        ("play policy", _field("strategy")),
        ("games by rank and face-up row", _field("games", fmt=count)),
        ("games per swap policy comparison", _field("policy_games", fmt=count)),
        ("swap policies", _swap_policies),
        ("face-up table", _face_up_table),
        ("regret study", _regret_study),
        *_COMMON_END,
    ],
    "sprt": [
        ("strategies", _versus),
        ("rules", _rules),
        ("players", _field("players", fmt=count)),
        ("deals", _pairing),
        ("hypotheses", _hypotheses),
        ("error rates", _errors),
        ("games", _sprt_games),
        ("log-likelihood ratio", _llr),
        *_COMMON_END,
    ],
    "tips": [
        ("tested player", _field("base")),
        ("opponents", _field("opponents")),
        ("rules", _rules),
        ("players", _field("players", fmt=listed)),
        ("tips", _field("tips", fmt=listed)),
        ("games per variant and cell", _field("games", fmt=count)),
        *_COMMON_END,
    ],
    "tune": [
        ("strategy", _field("strategy")),
        ("opponents", _field("field", fmt=listed)),
        ("rules", _rules),
        ("players", _field("players", fmt=count)),
        ("tuned parameters", _space),
        ("trials", _field("budget", fmt=count)),
        ("games per trial", _field("games", fmt=count)),
        ("confirmation games", _field("confirm_games", fmt=count)),
        ("sampler", _field("sampler")),
        ("study", _study),
        *_COMMON_END,
    ],
}
"""Per known command (the second word of run.json's ``command``): the specification rows,
(label, how to read the value), in order; a row whose value is missing is left out."""

SPECS["sprt --compare-pairing"] = [
    ("strategies", _versus),
    ("rules", _rules),
    ("players", _field("players", fmt=count)),
    ("games per design", _field("games", fmt=count)),
    *_COMMON_END,
]


def rows(kind: str, info: dict[str, Any]) -> Rows:
    """The specification rows (label, text) of a run of command ``kind`` with run.json
    ``info``: the command's declared rows (:data:`SPECS`), else :func:`generic`."""
    if kind == "sprt" and str(info.get("command") or "").endswith("--compare-pairing"):
        kind = "sprt --compare-pairing"
    spec = SPECS.get(kind)
    if spec is None:
        return generic(info)
    out = []
    for label, read in spec:
        text = read(info)
        if text not in (None, ""):
            out.append((label, text))
    return out


# ------------------------------------------------------------------ an unknown command
_NAMES = {"wall_s": "run time", "play_s": "play time", "games_per_s": "speed"}


def _label(k: str) -> str:
    return _NAMES.get(
        k, k.removesuffix("_s").replace("_", " ") if k.endswith("_s") else k.replace("_", " ")
    )


def _value(k: str, v: Any) -> str | None:
    """A short field's value in words, or None when it is bulky or empty."""
    scalar = (str, int, float, bool)
    if k == "rules" and isinstance(v, dict):
        return rules_text(v)
    if v is None or v == [] or v == {}:
        return None
    if isinstance(v, bool):
        return "yes" if v else "no"
    if _num(v):
        if k == "games_per_s":
            return f"{v:,.0f} games/s" if v > 0 else None
        if k.endswith("_s"):
            return K.duration(float(v))
        if isinstance(v, int) or float(v).is_integer():
            return count(v)
        return K.plain(float(v)) if math.isfinite(v) else str(v)
    if isinstance(v, str):
        return v if len(v) <= 300 else v[:299] + "\u2026"
    if isinstance(v, list) and all(isinstance(x, scalar) for x in v):
        return ", ".join(_value("", x) or "-" for x in v)
    if (
        isinstance(v, dict)
        and 0 < len(v) <= 12
        and all(x is None or isinstance(x, scalar) for x in v.values())
    ):
        return "; ".join(
            f"{str(a).replace('_', ' ')} {_value(str(a), x) or '-'}" for a, x in v.items()
        )
    return None


def generic(info: dict[str, Any]) -> Rows:
    """The rows of a run of a command without declared rows: run.json's short fields (then
    those of its ``spec`` object not already shown), internals (:data:`INTERNAL_FIELDS`)
    and empty values left out, numbers formatted (durations in words, counts with
    separators, other numbers in about four significant digits)."""
    items: Rows = []
    seen: set[str] = set()
    for src in (info, _spec(info)):
        for k, v in src.items():
            k = str(k)
            if k in INTERNAL_FIELDS or k in seen or k == "spec":
                continue
            text = _value(k, v)
            if text is not None:
                items.append((_label(k), text))
                seen.add(k)
    return items
