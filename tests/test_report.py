"""Tests of ``shedsim report``: the self-contained HTML page (every chart embedded, decoding,
unchanged; nothing external; every text escaped; tables kept as written and cut with a
note), the Markdown summary, determinism, and the refused inputs and outputs.

The inputs are a tiny real ``shedsim tournament`` (2,004 games, seed 0) plus hand-made
directories standing in for ``compare-rules``, ``swaps`` and ``sprt`` (run.json + CSV +
matplotlib PNG). Nothing here asserts on a time.
"""

from __future__ import annotations

import base64
import errno
import io
import json
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.image as mpimg  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from shedsim.base import atomic  # noqa: E402
from shedsim.output import report as R  # noqa: E402
from shedsim.cli import app  # noqa: E402

runner = CliRunner()
PNG_PREFIX = "data:image/png;base64,"
EVIL = "<script>alert('x')</script> & <b>bold</b>"


def cli(*args: str):
    return runner.invoke(app, ["report", *args])


def _png(path: Path, title: str) -> None:
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [1, 0, 2])
    ax.set_title(title)
    fig.savefig(path, format="png", dpi=40)
    plt.close(fig)


def _synthetic(
    root: Path,
    command: str,
    title: str | None,
    headline,
    tables: dict[str, str],
    charts: list[str],
    extra: dict | None = None,
    list_outputs: bool = True,
) -> Path:
    root.mkdir(parents=True)
    for name, text in tables.items():
        (root / name).write_text(text)
    for name in charts:
        _png(root / name, name)
    info = {
        "command": command,
        "rules": "shithead",
        "house": ["low7"],
        "players": 4,
        "strategies": ["greedy", "expert"],
        "games": 1000,
        "seed": 3,
        "definitions": {"win_rate": "share of games finished first", "odd<key>": "a & b"},
        "versions": {"shedsim": "0.1.0", "numpy": "2"},
        **(extra or {}),
    }
    if title is not None:
        info["title"] = title
    if headline is not None:
        info["headline"] = headline
    if list_outputs:
        info["outputs"] = sorted([*tables, *charts, "run.json"])
    (root / "run.json").write_text(json.dumps(info, indent=2))
    return root


LONG_ROWS = 45


def _long_csv() -> str:
    lines = ["rules,arm,win_rate,win_lo,win_hi,p_value"]
    lines += [f"rule{k:02d},A,0.4300,0.4100,0.4500,1.50e-03" for k in range(LONG_ROWS)]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("inputs")
    t = root / "tournament"
    r = runner.invoke(
        app,
        [
            "tournament",
            "--games",
            "2000",
            "--players",
            "3",
            "--strategies",
            "random,greedy",
            "--workers",
            "1",
            "--quiet",
            "--out",
            str(t),
        ],
    )
    assert r.exit_code == 0, r.output
    compare = _synthetic(
        root / "compare",
        "shedsim compare-rules --rules shithead,palace",
        "Rule comparison: shithead vs palace",
        ["palace games are 12% [10%, 14%] longer"],
        {"rules.csv": _long_csv(), "summary.csv": "rules,games\nshithead,1000\npalace,1000\n"},
        ["win_rates.png", "lengths.png"],
    )
    swaps = _synthetic(
        root / "swaps",
        "shedsim swaps",
        "Swaps: keep the 10s",
        ["keeping 10s wins +3.1 pp [1.2, 5.0]"],
        {"swaps.csv": "swap,delta\nkeep 10,0.031\n"},
        ["swaps.png"],
    )
    sprt = _synthetic(
        root / "sprt",
        "shedsim sprt",
        "SPRT " + EVIL,
        ["H1 accepted after 4,000 games", EVIL],
        {"steps.csv": "games,llr,note\n1000,0.5,<i>x</i> | y\n2000,1.2,ok\n"},
        ["llr.png"],
        extra={"alpha": 0.05, "nested": {"deep": {"x": [1, 2]}}},
    )
    return [t, compare, swaps, sprt]


def _pngs(dirs: list[Path]) -> list[Path]:
    out = []
    for d in dirs:
        info = json.loads((d / "run.json").read_text())
        out += [d / o for o in info["outputs"] if o.endswith(".png")]
    return out


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs: list[dict] = []
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.tags: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "img":
            self.imgs.append(a)
        if "href" in a:
            self.hrefs.append(a["href"])
        if "id" in a:
            self.ids.add(a["id"])


def _parse(text: str) -> _Page:
    p = _Page()
    p.feed(text)
    p.close()
    return p


@pytest.fixture(scope="module")
def built(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "report.html"
    r = cli(*map(str, inputs), "--out", str(out), "--title", "All <runs> & more")
    assert r.exit_code == 0, r.output
    return out


# ------------------------------------------------------------------ the page
def test_every_chart_is_embedded_decodes_and_is_unchanged(inputs, built):
    """Acceptance 6: every <img> is a data:image/png;base64 URI that decodes to an image
    with pixels; one per PNG of the inputs, with the files' bytes unchanged."""
    page = _parse(built.read_text())
    files = _pngs(inputs)
    assert len(files) == 5 + 2 + 1 + 1
    assert len(page.imgs) == len(files)
    decoded = []
    for img in page.imgs:
        src = img["src"]
        assert src.startswith(PNG_PREFIX)
        data = base64.b64decode(src[len(PNG_PREFIX) :], validate=True)
        pixels = mpimg.imread(io.BytesIO(data), format="png")
        assert pixels.shape[0] > 0 and pixels.shape[1] > 0
        assert (int(img["width"]), int(img["height"])) == (pixels.shape[1], pixels.shape[0])
        assert img.get("alt")
        decoded.append(data)
    assert sorted(decoded) == sorted(f.read_bytes() for f in files)


def test_page_references_nothing_external(built):
    text = built.read_text()
    low = text.lower()
    assert (
        'src="http' not in low and "<link" not in low and "<script" not in low and "url(" not in low
    )
    page = _parse(text)
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags
    for href in page.hrefs:  # links inside the page to an existing anchor, or to a run's CSV file
        if href.startswith("#"):
            assert href[1:] in page.ids, href
        else:  # relative to the page, and it resolves
            assert href.endswith(".csv") and ":" not in href and (built.parent / href).is_file(), (
                href
            )


def test_page_shows_each_run_with_its_parts(inputs, built):
    text = built.read_text()
    page = _parse(text)
    assert "<title>All &lt;runs&gt; &amp; more</title>" in text
    for k in range(1, len(inputs) + 1):  # table of contents: one link per run, in order
        assert f"#run-{k}" in page.hrefs and f"run-{k}" in page.ids
    order = [text.index(f'id="run-{k}"') for k in range(1, 5)]
    assert order == sorted(order)
    assert (
        "Rule comparison: shithead vs palace" in text
        and "palace games are 12% [10%, 14%] longer" in text
    )
    assert "<dt>win_rate</dt><dd>share of games finished first</dd>" in text  # glossary
    assert "<dt>odd&lt;key&gt;</dt><dd>a &amp; b</dd>" in text
    assert "<details><summary>Versions</summary>" in text
    assert (
        "<th>rules</th><td>shithead + low7</td></tr><tr><th>players</th><td>4</td>" in text
    )  # specification
    assert "<th>seed</th><td>3</td>" in text
    assert "nested.deep" in text  # every other run.json field, in the collapsed table
    # the tournament: summary table first, then its charts
    t = text[text.index('id="run-1"') : text.index('id="run-2"')]
    assert t.index("summary.csv") < t.index("rates.png") < t.index("lengths.csv")


def test_text_is_escaped(built):
    text = built.read_text()
    assert EVIL not in text
    assert html_escaped(EVIL) in text  # headline and title, escaped
    assert "<td>&lt;i&gt;x&lt;/i&gt; | y</td>" in text  # a CSV cell


def html_escaped(s: str) -> str:
    import html

    return html.escape(s, quote=True)


def test_tables_are_formatted_as_the_console_does_and_long_ones_are_cut(inputs, built):
    text = built.read_text()
    # a rate and its Wilson bounds in one cell, as percentages; a p-value in 2 significant digits
    assert '<td class="num">43.00% [41.00, 45.00]</td><td class="num">0.0015</td>' in text
    assert "0.4300" not in text and "1.50e-03" not in text
    csv_link = f'<a href="../{inputs[1].parent.name}/compare/rules.csv">rules.csv</a>'
    assert f"first 30 of {LONG_ROWS} rows: the full table is in {csv_link}" in text
    assert "<td>rule29</td>" in text and "<td>rule30</td>" not in text
    # the tournament's summary: the columns a reader needs, formatted; the rest named and linked
    header, first = [
        line.split(",") for line in (inputs[0] / "summary.csv").read_text().splitlines()[:2]
    ]
    row = dict(zip(header, first))
    win = float(row["win_rate"]), float(row["win_lo"]), float(row["win_hi"])
    assert (
        f'<td class="num">{int(row["games"]):,}</td><td class="num">{100 * win[0]:.2f}% '
        f"[{100 * win[1]:.2f}, {100 * win[2]:.2f}]</td>" in text
    )
    assert (
        "more column(s) (spec, wins, losses, rating_se, still_in_at_cap, stalled, loops, "
        "capped, ...)" in text
    )
    assert "<th>rating se</th>" not in text and "<th>packed</th>" not in text


def test_tournament_without_headline_gets_one_from_its_summary(inputs, tmp_path):
    import shutil

    assert R.load_run(inputs[0]).headline_source == "run.json"  # the tournament writes its own
    old = tmp_path / "old"
    shutil.copytree(inputs[0], old)
    info = json.loads((old / "run.json").read_text())
    del info["headline"]  # as a run written before the tournament recorded one
    (old / "run.json").write_text(json.dumps(info))
    run = R.load_run(old)
    assert (
        run.kind == "tournament"
    )  # run.json's command is null when not run by the `shedsim` script
    assert run.headline_source == "summary.csv"
    assert run.headline[0] == "Ranking: 1. greedy, 2. random"
    assert run.headline[1].startswith("greedy is first by rating: win rate ")
    assert run.title.startswith("Tournament: random, greedy (shithead, 3 players, 2,004 games")
    assert [c.name for c in run.charts] == [
        "rates.png",
        "places.png",
        "head_to_head.png",
        "seats.png",
        "lengths.png",
    ]
    assert run.tables[0].name == "summary.csv" and run.tables[0].n_rows == 2


def test_markdown_summary(inputs, built):
    md_path = built.with_suffix(".md")
    md = md_path.read_text()
    assert md.startswith(
        "<!-- generator: shedsim report -->\n# All <runs> & more\n"
    )  # the mark, hidden when shown
    assert (
        "- H1 accepted after 4,000 games" in md and "- palace games are 12% [10%, 14%] longer" in md
    )
    assert (
        "- Ranking by rating (Plackett-Luce strength of the finishing orders): 1. greedy, 2. random"
        in md
    )
    assert "| setting | value |" in md and "| rules | shithead + low7 |" in md
    assert (
        "| rank | strategy | games | win rate | loss rate | mean place | rating (Elo) |" in md
    )  # the main table
    assert (
        f"first 30 of {LONG_ROWS} rows: the full table is in "
        f"[rules.csv](../{inputs[1].parent.name}/compare/rules.csv)" in md
    )
    assert "| 43.00% [41.00, 45.00] | 0.0015 |" in md
    assert "\\| y" in md  # a pipe inside a cell is escaped
    links = [seg.split("](", 1)[1].split(")", 1)[0] for seg in md.split("[")[1:] if "](" in seg]
    charts = [link for link in links if link.endswith(".png")]
    assert len(charts) == len(_pngs(inputs))
    for link in charts:  # relative to the Markdown file, and they resolve
        assert not link.startswith("/") and (md_path.parent / link).resolve().is_file(), link


def test_same_inputs_give_the_same_bytes(inputs, built, tmp_path):
    out = tmp_path / "again.html"
    r = cli(*map(str, inputs), "--out", str(out), "--title", "All <runs> & more", "--quiet")
    assert r.exit_code == 0 and r.output == ""
    assert out.read_bytes() == built.read_bytes()


def test_outputs_missing_from_run_json_fall_back_to_the_directory(tmp_path):
    d = _synthetic(
        tmp_path / "old",
        "shedsim swaps",
        None,
        None,
        {"a.csv": "x,y\n1,2\nJ,3\n", "c.csv": "x,y\n"},
        ["b.png", "a.png"],
        list_outputs=False,
    )
    run = R.load_run(d)
    assert [i.name for i in run.items] == [
        "a.png",
        "a.csv",
        "b.png",
        "c.csv",
    ]  # a chart before its table
    assert run.title == "Swap analysis: old" and run.headline == [] and run.headline_source is None
    out = tmp_path / "r.html"
    r = cli(str(d), "--out", str(out), "--no-md")
    assert r.exit_code == 0, r.output
    assert len(_parse(out.read_text()).imgs) == 2 and not out.with_suffix(".md").exists()
    text = out.read_text()
    assert "this run recorded no headline" in text
    # a table with only its header in a run that played games is shown as damaged, not as a quiet
    # empty table
    assert (
        '<p class="warn">damaged? this file holds only its header line although the run played '
        "games" in text
    )
    assert '<tr><td>1</td><td class="num">2</td></tr>' in text  # alignment by column: x holds a J


# ------------------------------------------------------------------ refused inputs
def _damage(kind: str, d: Path) -> tuple[Path, str]:
    """Damage the synthetic directory ``d``; returns (the DIR to give, text the message must
    hold)."""
    if kind == "missing dir":
        return d.parent / "nope", "does not exist"
    if kind == "a file as dir":
        return d / "swaps.csv", "is not a directory"
    if kind == "no run.json":
        (d / "run.json").unlink()
        return d, "holds no run.json"
    if kind == "run.json not json":
        (d / "run.json").write_text('{"command": "shedsim swaps", ')
        return d, "run.json' is not valid JSON"
    if kind == "run.json nested too deeply":  # json gives up with RecursionError, not a ValueError
        (d / "run.json").write_text(
            '{"command": "shedsim swaps", "x": ' + "[" * 5000 + "]" * 5000 + "}"
        )
        return d, "run.json' is not valid JSON"
    if kind == "run.json a list":
        (d / "run.json").write_text("[1, 2]")
        return d, "run.json' is not a shedsim run.json"
    if kind == "run.json not utf8":
        (d / "run.json").write_bytes(b'{"command": "\xff"}')
        return d, "run.json' is not UTF-8"
    if kind == "run.json empty":
        (d / "run.json").write_text("")
        return d, "run.json' is empty"
    if kind == "run.json near-empty":
        (d / "run.json").write_text('{"seed": 3}')
        return d, "run.json' records none of command, spec, title, headline or outputs"
    if kind == "csv cut mid-line":  # the right number of cells, but the last one cut short
        (d / "swaps.csv").write_bytes(b"swap,delta\nkeep 10,0.031\nkeep 9,0.0")
        return d, "swaps.csv' is truncated: its last line has no line end"
    info = json.loads((d / "run.json").read_text())
    if kind == "headline a string":
        info["headline"] = "oops"
        (d / "run.json").write_text(json.dumps(info))
        return d, "'headline' must be a list"
    if kind == "output outside":
        info["outputs"].append("../secret.png")
        (d / "run.json").write_text(json.dumps(info))
        return d, "'../secret.png' is not a file name inside"
    if kind == "listed csv missing":
        (d / "swaps.csv").unlink()
        return d, "swaps.csv' is listed in run.json outputs but missing"
    if kind == "ragged csv":
        (d / "swaps.csv").write_text("swap,delta\nkeep 10,0.031,extra\n")
        return d, "swaps.csv' is corrupt: line 2 has 3 cells"
    if kind == "csv not utf8":
        (d / "swaps.csv").write_bytes(b"swap,delta\n\xff\xfe,1\n")
        return d, "swaps.csv' is not UTF-8"
    if kind == "empty csv":
        (d / "swaps.csv").write_text("")
        return d, "swaps.csv' is empty"
    if kind == "csv is a directory":
        (d / "swaps.csv").unlink()
        (d / "swaps.csv").mkdir()
        return d, "cannot read"
    if kind == "truncated png":
        data = (d / "swaps.png").read_bytes()
        (d / "swaps.png").write_bytes(data[: len(data) // 2])
        return d, "swaps.png' is a corrupt PNG"
    if kind == "not a png":
        (d / "swaps.png").write_text("GIF89a not really")
        return d, "swaps.png' is not a PNG"
    raise AssertionError(kind)


BAD = [
    "missing dir",
    "a file as dir",
    "no run.json",
    "run.json not json",
    "run.json a list",
    "run.json not utf8",
    "headline a string",
    "output outside",
    "listed csv missing",
    "ragged csv",
    "csv not utf8",
    "empty csv",
    "csv is a directory",
    "truncated png",
    "not a png",
    "run.json empty",
    "run.json near-empty",
    "csv cut mid-line",
    "run.json nested too deeply",
]


@pytest.mark.parametrize("kind", BAD)
def test_bad_input_exits_2_naming_the_file_and_writes_nothing(kind, tmp_path):
    good = _synthetic(
        tmp_path / "good", "shedsim sprt", "ok", ["fine"], {"a.csv": "x\n1\n"}, ["a.png"]
    )
    bad = _synthetic(
        tmp_path / "swaps",
        "shedsim swaps",
        "Swaps",
        ["h"],
        {"swaps.csv": "swap,delta\nkeep 10,0.031\n"},
        ["swaps.png"],
    )
    target, needle = _damage(kind, bad)
    out = tmp_path / "report.html"
    r = cli(str(good), str(target), "--out", str(out))
    assert r.exit_code == 2, r.output
    assert isinstance(r.exception, SystemExit)  # a message, not a traceback
    assert "Traceback" not in r.output and needle in r.output, r.output
    assert not out.exists() and not out.with_suffix(".md").exists()
    assert not list(tmp_path.glob(".*.tmp"))


def test_no_directory_is_refused(tmp_path):
    r = cli("--out", str(tmp_path / "r.html"))
    assert r.exit_code == 2 and "DIR" in r.output


# ------------------------------------------------------------------ refused outputs
def test_bad_out_and_md_are_refused(inputs, tmp_path):
    swaps = inputs[2]
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases = [
        (["--out", str(tmp_path / "missing" / "r.html")], "--out: the directory"),
        (["--out", str(tmp_path)], "is a directory"),
        (["--out", str(blocker / "r.html")], "is not a directory"),
        (
            ["--out", str(tmp_path / "r.html"), "--md", str(tmp_path / "nowhere" / "r.md")],
            "--md: the directory",
        ),
        (["--out", str(tmp_path / "r.md")], "is the --out file too"),
        (["--out", str(swaps / "swaps.csv"), "--no-md"], "--out"),
        (["--out", str(tmp_path / "r.html"), "--md", str(swaps / "swaps.csv")], "--md"),
    ]
    before = (swaps / "swaps.csv").read_bytes()
    for args, needle in cases:
        r = cli(str(swaps), *args)
        assert r.exit_code == 2, (args, r.output)
        assert needle in r.output, (args, r.output)
    assert (swaps / "swaps.csv").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_failed_write_exits_3_and_changes_nothing(inputs, tmp_path, monkeypatch):
    out = tmp_path / "r.html"
    out.write_text(f"{atomic.MARK_HTML} old page")  # an earlier report: shedsim may replace it
    real = atomic._write

    def full_disk(f, data, path):
        if Path(path).suffix == ".md":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(f, data, path)

    monkeypatch.setattr(atomic, "_write", full_disk)
    r = cli(str(inputs[2]), "--out", str(out))
    assert r.exit_code == 3, r.output
    assert "r.md" in r.output and "No space left on device" in r.output
    assert (
        out.read_text() == f"{atomic.MARK_HTML} old page" and not out.with_suffix(".md").exists()
    )  # both or neither
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_help_teaches():
    r = cli("--help")
    assert r.exit_code == 0
    for needle in ("self-contained", "Example", "--rows", "--md", "default", "Exit codes"):
        assert needle in r.output, needle


def test_library_round_trip(inputs, tmp_path):
    runs = R.load_runs(
        [inputs[2], inputs[2], inputs[3]], max_rows=1
    )  # a directory given twice is read once
    assert [r.kind for r in runs] == ["swaps", "sprt"]
    assert (
        runs[1].tables[0].rows == [["1000", "0.5", "<i>x</i> | y"]]
        and runs[1].tables[0].n_rows == 2
    )
    page = R.render_html(runs)
    md = R.render_markdown(runs, md_path=tmp_path / "s.md")
    R.write_report(page, tmp_path / "s.html", md, tmp_path / "s.md")
    assert (tmp_path / "s.html").read_text() == page and (tmp_path / "s.md").read_text() == md
    assert "<title>shedsim report</title>" in page
    with pytest.raises(R.ReportError, match="at least one"):
        R.load_runs([])


def test_table_view_formats_each_kind_as_the_console_does():
    from shedsim.output.tables import view

    header = [
        "variant",
        "metric",
        "unit",
        "baseline_value",
        "variant_value",
        "effect",
        "lo",
        "hi",
        "p_value",
        "significant",
        "statistic",
    ]
    rows = [
        [
            "low7",
            "mean_moves",
            "moves",
            "269.273656",
            "243.201564",
            "-26.072092",
            "-32.899978",
            "-19.244207",
            "7.7597e-14",
            "True",
            "-7.48",
        ],
        [
            "low7",
            "unfinished_rate",
            "share",
            "0.003997",
            "0.007594",
            "0.003597",
            "0.002392",
            "0.004802",
            "0.0000e+00",
            "False",
            "5.8",
        ],
    ]
    v = view("effects.csv", header, rows)
    assert v.header == [
        "variant",
        "metric",
        "baseline value",
        "variant value",
        "effect",
        "p",
        "significant",
    ]
    assert v.rows[0] == [
        "low7",
        "mean moves",
        "269.3",
        "243.2",
        "-26.1 [-32.9, -19.2]",
        "7.8e-14",
        "yes",
    ]
    assert v.rows[1] == [
        "low7",
        "unfinished rate",
        "0.40%",
        "0.76%",
        "+0.36 pp [+0.24, +0.48]",
        "< 1e-300",
        "no",
    ]
    assert v.hidden == ["unit", "statistic"]
    # bracketed per-strategy columns and a bare share_lo beside share_a_ahead
    v = view(
        "x.csv",
        [
            "a",
            "share_a_ahead",
            "share_lo",
            "share_hi",
            "skill_edge[greedy]",
            "skill_edge_lo[greedy]",
            "skill_edge_hi[greedy]",
            "comparisons",
        ],
        [["greedy", "0.516247", "0.511872", "0.520621", "-0.3756", "-0.3788", "-0.3725", "40008"]],
    )
    assert v.rows[0] == ["greedy", "51.62% [51.19, 52.06]", "-37.56 pp [-37.88, -37.25]", "40,008"]


# ------------------------------------------------------------------ every column of every table
EXAMPLE_RUNS = Path(__file__).resolve().parent.parent / "reports" / "example" / "runs"


def _tables_of(*roots: Path):
    """Every CSV of every run in ``roots`` (the ``every_run`` fixture, the example report's
    runs), as the report reads it (its first 2,000 rows)."""
    for root in roots:
        for d in sorted(p for p in root.iterdir() if (p / "run.json").is_file()):
            run = R.load_run(d, max_rows=2000)
            for t in run.tables:
                yield d.name, t


_NUM = r"-?\d{1,3}(?:,\d{3})*(?:\.\d+)?"
SHOWN = {  # kind -> (the shown estimate, the shown bound, scale: shown value / CSV value)
    "count": (r"\d{1,3}(?:,\d{3})*", r"\d{1,3}(?:,\d{3})*", 1),
    "index": (r"-?\d+", r"-?\d+", 1),
    "rate": (r"\d{1,3}\.\d{2}%", r"\d{1,3}\.\d{2}", 100),
    "percentage points": (r"[+-]\d{1,3}\.\d{2} pp", r"[+-]\d{1,3}\.\d{2}", 100),
    "p-value": (r"< 1e-300|\d(?:\.\d+)?(?:e-\d+)?|0\.\d+", None, 1),
    "Elo": (r"[+-]\d{1,3}(?:,\d{3})*\.\d", r"[+-]\d{1,3}(?:,\d{3})*\.\d", 1),
    "places": (r"\d+\.\d{3}", r"-?\d+\.\d{3}", 1),
    "places difference": (r"[+-]\d+\.\d{3}", r"[+-]\d+\.\d{3}", 1),
    "moves": (r"\d{1,3}(?:,\d{3})*(?:\.\d)?", r"\d{1,3}(?:,\d{3})*(?:\.\d)?", 1),
    "moves difference": (r"[+-]\d{1,3}(?:,\d{3})*\.\d", r"[+-]\d{1,3}(?:,\d{3})*\.\d", 1),
    "number": (_NUM, _NUM, 1),
    "signed number": (r"[+-]" + _NUM.lstrip("-?"), r"[+-]" + _NUM.lstrip("-?"), 1),
    "score": (r"\d\.\d{4}", r"-?\d\.\d{4}", 1),
    "log-likelihood ratio": (r"[+-]\d+\.\d{3}", None, 1),
    "seconds": (r"\d{1,3}(?:,\d{3})*\.\d{2}", None, 1),
    "relative change": (r"[+-]\d+\.\d%", None, 100),
    "parameter value": (r"-?\d+(?:\.\d+)?", None, 1),
    "direction": (r"[+-]1|0", None, 1),
}
"""How a cell of each numeric kind must read on the page (written here from the console's
formats, not taken from the code under test)."""


def _close(shown: str, csv_value: float, scale: float) -> bool:
    """Whether the shown number (separators, %, pp and signs stripped) is the CSV value to the
    shown number of decimals (or to two significant digits, for a p-value in e-notation)."""
    text = shown.replace(",", "").replace(" pp", "").rstrip("%")
    if text == "< 1e-300":
        return csv_value == 0
    got = float(text)
    if "e" in text:
        return abs(got - csv_value) <= 0.05 * abs(csv_value) + 1e-300
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(got - scale * csv_value) <= 0.5 * 10**-decimals * (1 + 1e-9) + 1e-12


def _check_cell(kind, shown: str, cells: list[str]) -> str | None:
    """What is wrong with ``shown`` for the CSV ``cells`` (estimate, then its bounds), or None."""
    import re

    if not kind.numeric:
        want = {
            "yes/no": {"True": "yes", "False": "no"}.get(cells[0], cells[0]),
            "name": cells[0].replace("_", " "),
        }.get(kind.name, cells[0])
        return None if shown == want else f"shows {shown!r}, expected {want!r}"
    if not cells[0].strip() or cells[0].strip().lower() == "nan":
        return None if shown in ("-", cells[0]) else f"shows {shown!r} for an empty cell"
    value_re, bound_re, scale = SHOWN[kind.name]
    values = [float(c) for c in cells]
    if len(cells) == 1:
        m = re.fullmatch(f"({value_re})", shown)
    else:
        m = re.fullmatch(
            f"({value_re}) \\[({bound_re or value_re}|-), ({bound_re or value_re}|-)\\]", shown
        )
    if not m:
        return f"shows {shown!r}: not the format of a {kind.name}"
    for text, v in zip(m.groups(), values):
        if text != "-" and not _close(text, v, scale):
            return f"shows {shown!r} for {cells}: not the CSV's value as a {kind.name}"
    if not kind.holds(values[0]):
        return f"holds {cells[0]}, which no {kind.name} can be"
    return None


def test_every_column_of_every_table_has_a_declared_kind_and_is_shown_in_it(every_run):
    """Walk every column of every table every command writes (a tiny run of each, and the
    example report's real runs): each has a declared kind (or is an interval bound of a column
    that has one), every value of it is one that kind can hold, and every cell the page shows
    reads in that kind's format with the CSV's value (a count of 25 is "25", never "2500.00%")."""
    from shedsim.output import kinds as K
    from shedsim.output.tables import _groups, column_kind, kinds_of, view

    problems, seen = [], set()
    tables = list(_tables_of(every_run, EXAMPLE_RUNS))
    assert {t.name for _, t in tables} >= {
        "summary.csv",
        "head_to_head.csv",
        "seats.csv",
        "lengths.csv",
        "matches.csv",
        "variants.csv",
        "effects.csv",
        "by_rank.csv",
        "face_up_values.csv",
        "policies.csv",
        "policies_head_to_head.csv",
        "regret.csv",
        "sprt.csv",
        "pairing.csv",
        "tips.csv",
        "trials.csv",
    }
    for run, t in tables:
        assert t.n_rows > 0, f"{run}/{t.name} has no rows: the walk would check nothing"
        groups = _groups(t.header)
        bounds = {j: v for v, lohi in groups.items() for j in lohi}
        kinds = kinds_of(t.name, t.header, t.rows)
        for i, c in enumerate(t.header):
            seen.add((t.name, c))
            declared = column_kind(t.name, c if i not in bounds else t.header[bounds[i]])
            if declared is None:
                problems.append(f"{run}/{t.name}: column {c!r} has no declared kind")
            elif kinds[i] is not declared:
                problems.append(
                    f"{run}/{t.name}: column {c!r} is read as {kinds[i].name}, declared "
                    f"{declared.name}"
                )
        v = view(t.name, t.header, t.rows)
        shown = [i for i in range(len(t.header)) if i not in bounds and t.header[i] not in v.hidden]
        assert len(shown) == len(v.header), (t.name, v.header)
        for k, i in enumerate(shown):
            for row, out in zip(t.rows, v.rows):
                kind = kinds[i]
                if kind is K.BY_UNIT:
                    kind = K.for_unit(row[t.header.index("unit")], t.header[i] == "effect")
                cells = [row[i]] + ([row[j] for j in groups[i]] if i in groups else [])
                why = _check_cell(kind, out[k], cells)
                if why:
                    problems.append(f"{run}/{t.name}: column {t.header[i]!r} ({kind.name}) {why}")
                    break
    assert not problems, "\n".join(problems)
    assert ("matches.csv", "shared_first") in seen and (
        "summary.csv",
        "stalled",
    ) in seen  # the optional columns


def test_a_count_is_never_shown_as_a_percentage():
    """matches.csv's shared_first (matches in which the strategy shared the best total) is a
    count: 25 reads "25" (it read "2500.00%": its name holds "share")."""
    from shedsim.output.tables import view

    v = view(
        "matches.csv",
        [
            "rank",
            "strategy",
            "matches",
            "shared_first",
            "match_win_rate",
            "match_win_lo",
            "match_win_hi",
        ],
        [["1", "greedy", "2500", "25", "0.3", "0.29", "0.31"]],
    )
    assert v.rows == [["1", "greedy", "2,500", "25", "30.00% [29.00, 31.00]"]]


# ------------------------------------------------------------------ the specification, in words
INTERNAL_WORDS = (
    "key",
    "format",
    "block",
    "chunk",
    "hash",
    "hashes",
    "checksum",
    "argv",
    "backend",
    "subtitle",
    "store",
    "rules input",
    "n chunks",
    "interrupted by",
    "strategy paths",
)
REQUIRED = {
    "tournament": {"rules", "players", "strategies", "games", "seed", "run time"},
    "compare-rules": {"baseline", "variants", "players", "strategies", "games per variant", "seed"},
    "swaps": {"rules", "players", "play policy", "swap policies", "seed"},
    "sprt": {"strategies", "rules", "players", "hypotheses", "error rates", "games", "seed"},
    "sprt --compare-pairing": {"strategies", "rules", "players", "games per design", "seed"},
    "tips": {"tested player", "opponents", "rules", "players", "tips", "seed"},
    "tune": {
        "strategy",
        "opponents",
        "rules",
        "tuned parameters",
        "trials",
        "games per trial",
        "seed",
    },
}


def _spec_problems(run) -> list[str]:
    import re

    out = []
    labels = [k for k, _ in run.spec]
    kind = run.kind + (
        " --compare-pairing" if (run.command or "").endswith("--compare-pairing") else ""
    )
    missing = REQUIRED.get(kind, set()) - set(labels)
    if missing:
        out.append(f"misses {sorted(missing)}")
    for label, value in run.spec:
        where = f"{label!r} = {value!r}"
        if "_" in label or any(re.search(rf"\b{w}\b", label) for w in INTERNAL_WORDS):
            out.append(f"{where}: an internal name, not words")
        if re.search(r"\b[0-9a-f]{16}\b", value):
            out.append(f"{where}: shows a hash")
        decimals = re.findall(r"(?<![\d.])\d+\.\d+(?![\d])", value)
        if (
            any(
                len(x.replace(".", "").lstrip("0")) > 4 for x in decimals
            )  # 66.002, 0.04791: more than 4 digits
            or re.search(r"(?<![\d.,])\d{3,}\.0(?![\d])", value)
        ):  # 3206.0: a whole number as a float
            out.append(f"{where}: a raw number (to be formatted for a reader)")
        if (
            label != "seed"
            and "/" not in value
            and re.search(r"(?<![\d.,:=])\d{4,}(?![\d,])", value)
        ):
            out.append(f"{where}: a number without thousands separators")
    return [f"{run.directory.name}: {p}" for p in out]


def test_every_specification_reads_in_words(every_run):
    """Every run's specification table (a tiny run of every command, and the committed example
    report's real runs) names what was played in words, with formatted numbers: no internals
    (spec key, format, block, chunk size, hashes, the command line again), no raw numbers such
    as 66.002 s or 3206.0 games/s."""
    dirs = [d for d in sorted(every_run.iterdir()) if d.is_dir()]
    dirs += [d for d in sorted(EXAMPLE_RUNS.iterdir()) if (d / "run.json").is_file()]
    problems, kinds = [], set()
    for d in dirs:
        run = R.load_run(d)
        kinds.add(
            run.kind
            + (" --compare-pairing" if (run.command or "").endswith("--compare-pairing") else "")
        )
        assert run.spec, f"{d}: no specification"
        problems += _spec_problems(run)
    assert kinds >= set(REQUIRED)
    assert not problems, "\n".join(problems)


def test_a_run_of_another_command_keeps_its_short_fields_formatted(tmp_path):
    d = _synthetic(
        tmp_path / "x",
        "shedsim newcommand",
        "A new command",
        ["fine"],
        {"a.csv": "x\n1\n"},
        [],
        extra={
            "wall_s": 66.002,
            "games_per_s": 3206.0,
            "key": "4bcb58f7f290d788",
            "block": 6,
            "ratio": 1.2912144313736036,
            "spec": {"format": 1, "chunk_size": 2502},
        },
    )
    run = R.load_run(d)
    spec = dict(run.spec)
    assert (
        spec["run time"] == "1 min 6 s"
        and spec["speed"] == "3,206 games/s"
        and spec["ratio"] == "1.291"
    )
    assert (
        spec["games"] == "1,000"
        and spec["house"] == "low7"
        and spec["strategies"] == "greedy, expert"
    )
    assert not {"key", "block", "format", "chunk size"} & set(spec)
    assert not _spec_problems(run)


def test_a_stopped_run_is_marked_partial_in_its_heading_and_an_unfinished_one_named(tmp_path):
    run = tmp_path / "t"
    r = runner.invoke(
        app,
        [
            "tournament", "--strategies", "greedy,random", "--players", "2", "--games", "4000",
        "--chunk-size", "500", "--workers", "1", "--no-plots", "--quiet", "--out", str(run),
            "--stop-after", "2",
        ],
    )  # fmt: skip
    assert r.exit_code == 130, r.output
    page = tmp_path / "r.html"
    r = cli(str(run), "--out", str(page))
    assert r.exit_code == 0, r.output
    heads = [h for h in page.read_text().split("<h2>")[1:] if h.startswith("1. ")]
    assert heads and "[PARTIAL: run interrupted]</h2>" in heads[0]
    assert "[PARTIAL: run interrupted]" in (tmp_path / "r.md").read_text()
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "spec.json").write_bytes((run / "spec.json").read_bytes())
    r = cli(str(bare), "--out", str(tmp_path / "b.html"))
    assert r.exit_code == 2
    assert "holds an unfinished shedsim tournament run" in r.output
    assert f"shedsim tournament --resume '{bare}'" in r.output
    assert not (tmp_path / "b.html").exists()
