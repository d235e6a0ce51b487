"""Record the golden checksums: small runs of every command that plays games, with fixed
seeds, and the sha256 of each CSV they write (``tests/golden/checksums.json``).

``tests/test_golden.py`` runs the same commands and compares: a change that alters any
CSV byte of these runs fails it. Whoever changes an output **on purpose** (a new column,
another rounding) regenerates the file and says so in the commit message::

    .venv/bin/python tools/golden.py            # rewrite tests/golden/checksums.json
    .venv/bin/python tools/golden.py --check    # compare only (exit 1 on a difference)

The first recording was made from main at commit 2a23a65, before the run machinery
was ported onto the commands; the tournament's again from main at 35fb181
(expert became heuristic with search=32), with that main's code. To record from another
checkout's code with this venv: ``PYTHONPATH=/path/to/checkout .venv/bin/python tools/golden.py``
run inside that checkout.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "checksums.json"

RUNS: dict[str, list[str]] = {
    "tournament": [
        "tournament",
        "--strategies",
        "greedy,random,expert",
        "--players",
        "3",
        "--games",
        "600",
        "--seed",
        "4",
        "--chunk-size",
        "120",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "tournament-rounds": [
        "tournament",
        "--strategies",
        "greedy,random",
        "--players",
        "2",
        "--games",
        "400",
        "--rounds",
        "2",
        "--seed",
        "9",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "compare-rules": [
        "compare-rules",
        "-r",
        "shithead",
        "-r",
        "shithead+pickup:always",
        "-p",
        "3",
        "-S",
        "random,greedy",
        "-g",
        "240",
        "-s",
        "1",
        "-w",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "swaps": [
        "swaps",
        "--games",
        "600",
        "--deals",
        "2",
        "--rollouts",
        "4",
        "--seed",
        "3",
        "--workers",
        "1",
        "--no-plots",
        "--quiet",
    ],
    "sprt": ["sprt", "--a", "greedy", "--b", "random", "--seed", "2", "--quiet"],
}
"""Name -> the ``shedsim`` arguments (``--out DIR`` is added)."""


def checksums(name: str, args: list[str]) -> dict[str, str]:
    """Run ``shedsim ARGS --out TMP`` and return {CSV name: sha256 hex} of what it wrote.
    Raises RuntimeError with the command's stderr when it exits non-zero."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / name
        r = subprocess.run(
            [sys.executable, "-m", "shedsim", *args, "--out", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise RuntimeError(
                f"shedsim {' '.join(args)} exited {r.returncode}:\n{r.stderr[-3000:]}"
            )
        return {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.glob("*.csv"))
        }


def record() -> dict[str, dict[str, str]]:
    """Every run of :data:`RUNS` -> its CSV checksums."""
    return {name: checksums(name, args) for name, args in RUNS.items()}


def main(argv: list[str]) -> int:
    got = record()
    if "--check" in argv:
        want = json.loads(GOLDEN.read_text())
        bad = [
            f"{n}/{f}"
            for n in want
            for f in set(want[n]) | set(got.get(n, {}))
            if want[n].get(f) != got.get(n, {}).get(f)
        ]
        print("golden: " + ("all equal" if not bad else "differ: " + ", ".join(sorted(bad))))
        return 1 if bad else 0
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN.relative_to(ROOT)} ({sum(len(v) for v in got.values())} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
