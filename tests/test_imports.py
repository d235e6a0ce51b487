"""The project's own modules import each other in one direction: no cycles.

The import graph is read from the source with :mod:`ast` (module-level and function-level
imports alike, relative ones resolved), and searched for strongly connected components.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_graph(packages: tuple[str, ...] = ("shedsim", "strategies")) -> dict[str, set[str]]:
    """Map each module (dotted name) to the project modules it imports."""
    files = {}
    for pkg in packages:
        for f in (ROOT / pkg).rglob("*.py"):
            parts = f.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            files[name] = f
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, f in files.items():
        package = mod if f.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                subs = [f"{prefix}.{a.name}" for a in node.names]
                # ``from P import sub`` (a submodule) imports P.sub, as ``import P.sub``
                # does; only a name defined in P itself makes P a dependency
                names = subs + ([prefix] if any(n not in files for n in subs) else [])
            else:
                continue
            graph[mod] |= {n for n in names if n in files and n != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_the_checker_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_from_a_package_import_a_submodule_is_an_edge_to_the_submodule(tmp_path):
    """``from P import sub`` depends on P.sub (as ``import P.sub`` does), not on what P's
    ``__init__`` imports; ``from P import name`` (a name P defines) depends on P."""
    pkg = tmp_path / "pk"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("def f():\n    from pk import b\n")
    (pkg / "a.py").write_text("from pk import sub\n")
    (pkg / "c.py").write_text("from pk import sub, VERSION\n")
    (pkg / "b.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    globals()["ROOT"], old = tmp_path, ROOT
    try:
        graph = module_graph(("pk",))
    finally:
        globals()["ROOT"] = old
    assert graph["pk.a"] == {"pk.sub"}
    assert graph["pk.c"] == {"pk.sub", "pk"}
    assert graph["pk"] == {"pk.b"}


def test_no_import_cycles_in_shedsim_or_strategies():
    graph = module_graph()
    assert "shedsim.cli" in graph and graph["shedsim.cli"], "the graph was not read"
    assert cycles(graph) == []


def private_imports(packages: tuple[str, ...] = ("shedsim", "strategies")) -> list[str]:
    """``from M import _name`` where M is another project module, and imports of a private
    module (``_loop``, ``_stub``) from outside its own package: one line each."""
    out = []
    for pkg in packages:
        for f in (ROOT / pkg).rglob("*.py"):
            parts = f.relative_to(ROOT).with_suffix("").parts
            package = ".".join(parts[:-1])
            for node in ast.walk(ast.parse(f.read_text())):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] not in packages:
                    continue
                where = f"{f.relative_to(ROOT)}:{node.lineno}"
                for a in node.names:
                    if a.name.startswith("_") and not a.name.endswith("__"):
                        out.append(f"{where}: {a.name} from {node.module}")
                private_mod = [p for p in node.module.split(".") if p.startswith("_")]
                if private_mod and node.module.rpartition(".")[0] != package:
                    out.append(f"{where}: private module {node.module}")
    return out


def test_no_private_names_are_taken_across_modules():
    """A module uses another's public names only (a private one may change freely)."""
    assert private_imports() == []


def test_the_private_import_check_finds_one(tmp_path):
    """The check itself can fail: a module that takes a private name is reported."""
    pkg = tmp_path / "shedsim"
    pkg.mkdir()
    (pkg / "a.py").write_text("from shedsim.b import _helper\nfrom shedsim.kernel._loop import x\n")
    globals()["ROOT"], old = tmp_path, ROOT
    try:
        found = private_imports(("shedsim",))
    finally:
        globals()["ROOT"] = old
    assert len(found) == 2 and "_helper" in found[0] and "private module" in found[1]


KERNEL_MAY_IMPORT = (
    "shedsim",
    "shedsim.kernel",
    "shedsim.layout",
    "shedsim.plugin_meta",
    "shedsim.base",
)
"""What :mod:`shedsim.kernel` may import from the project: itself, the ground-level package,
the array layouts and the plugin metadata below it (never :mod:`shedsim.plugins`, the analyses, the
runs or the CLI)."""


def test_the_kernel_imports_no_layer_above_it():
    graph = module_graph()
    above = {
        m: sorted(
            n
            for n in deps
            if not (n in KERNEL_MAY_IMPORT or n.startswith(("shedsim.kernel.", "shedsim.base.")))
        )
        for m, deps in graph.items()
        if m == "shedsim.kernel" or m.startswith("shedsim.kernel.")
    }
    assert {m: d for m, d in above.items() if d} == {}
    from shedsim.kernel.build import dispatch_source
    from shedsim.plugins import discover

    source = dispatch_source([discover([])["greedy"]])  # the generated kernel's imports too
    assert (
        "shedsim.plugins" not in source and "from shedsim.plugin_meta import load_module" in source
    )


LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("shedsim.base.*", "shedsim.version")),
    ("ground", ("shedsim.layout", "shedsim.seeding", "shedsim.plugin_meta")),
    ("stats", ("shedsim.stats.*",)),
    ("rules", ("shedsim.rules.*",)),
    ("kernel", ("shedsim.kernel.*",)),
    ("strategies", ("strategies.*",)),
    ("plugins", ("shedsim.plugins", "shedsim.plugin_player", "shedsim.entries")),
    ("bots", ("shedsim.bot.*",)),
    ("runs", ("shedsim.runs.*",)),
    ("output", ("shedsim.output.*",)),
    ("analysis", ("shedsim.analysis.*",)),
    ("api", ("shedsim", "shedsim.api", "shedsim.api_results")),
    ("cli", ("shedsim.cli.*", "shedsim.__main__")),
)
"""The project's layers, lowest first, each with the modules it holds (``P.*``: the module
P and every module under it; the longest match decides). A module imports only from its
own layer or a lower one:

* base: :mod:`shedsim.base` (the process sandbox, atomic writes, plain-words warnings) and
  the installed version, which import nothing of shedsim;
* ground: the array layouts, the random streams and the plugin metadata the kernel reads;
* stats: pure formulas (:mod:`shedsim.stats`);
* rules: rule sets, cards, the reference engine, scenario files;
* kernel: the compiled kernel, then the built-in strategies (``strategies/``) it compiles;
* plugins: the strategy registry and the ``--strategies`` entries;
* bots: the bot protocol's host side and clients (:mod:`shedsim.bot`), which play on the
  reference engine;
* runs: the run machinery (workers, the run store, resume, the run driver);
* output: CSV formats, charts, tables and the report, which take the analyses' results
  as plain data and never import them;
* analysis: the studies, which write their files through output;
* api: the Python API (:mod:`shedsim.api`) and the package's root, which hands its names
  out (``shedsim.tournament``);
* cli: the command line on top of everything.
"""


def layer_of(module: str, layers=LAYERS) -> int | None:
    """The index in ``layers`` of the layer holding ``module`` (the longest matching entry),
    or None when no layer holds it."""
    best, length = None, -1
    for i, (_, entries) in enumerate(layers):
        for e in entries:
            name = e[:-2] if e.endswith(".*") else e
            if (module == name or (e.endswith(".*") and module.startswith(name + "."))) and len(
                name
            ) > length:
                best, length = i, len(name)
    return best


def layer_violations(graph: dict[str, set[str]], layers=LAYERS) -> list[str]:
    """One line for each module no layer holds and for each import of a higher layer."""
    out = []
    for mod in sorted(graph):
        lm = layer_of(mod, layers)
        if lm is None:
            out.append(f"{mod}: in no layer (add it to LAYERS)")
            continue
        for dep in sorted(graph[mod]):
            ld = layer_of(dep, layers)
            if ld is not None and ld > lm:
                out.append(
                    f"{mod} ({layers[lm][0]}) imports {dep} ({layers[ld][0]}), a higher layer"
                )
    return out


def test_every_module_imports_only_its_own_layer_or_lower_ones():
    assert layer_violations(module_graph()) == []


def test_the_layer_check_finds_an_import_from_above():
    layers = (("low", ("p.low.*",)), ("high", ("p", "p.high.*")))
    graph = {
        "p": {"p.low.c"},
        "p.low.a": {"p.high.b"},
        "p.high.b": {"p.low.c"},
        "p.low.c": set(),
        "p.other": set(),
    }
    assert layer_violations(graph, layers) == [
        "p.low.a (low) imports p.high.b (high), a higher layer",
        "p.other: in no layer (add it to LAYERS)",
    ]


def third_party_imports(package: str, library: str) -> list[str]:
    """``path:line`` of every import of ``library`` (or a module under it) in the modules
    under ``package`` (a dotted name under ROOT)."""
    out = []
    for f in sorted((ROOT / package.replace(".", "/")).rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            if any(n == library or n.startswith(library + ".") for n in names):
                out.append(f"{f.relative_to(ROOT).as_posix()}:{node.lineno}")
    return out


def test_the_analyses_draw_no_chart_themselves():
    """Every chart is drawn in :mod:`shedsim.output.charts`: no analysis imports matplotlib."""
    assert third_party_imports("shedsim.analysis", "matplotlib") == []
    assert third_party_imports("shedsim.output.charts", "matplotlib")  # the check can see one


MAX_LINES = 700
"""The longest a module under ``shedsim/`` may be, the compiled kernel (``shedsim/kernel/``,
whose jitted functions keep a game's loop in one place) aside: a longer one holds more than
one job and is split by what its parts do."""


def long_modules(root: Path = ROOT, limit: int = MAX_LINES) -> list[str]:
    """``path: N lines`` for every ``.py`` file under ``root/shedsim`` outside ``kernel/``
    longer than ``limit`` lines."""
    out = []
    for f in sorted((root / "shedsim").rglob("*.py")):
        rel = f.relative_to(root)
        if rel.parts[1] == "kernel":
            continue
        n = len(f.read_text().splitlines())
        if n > limit:
            out.append(f"{rel.as_posix()}: {n} lines")
    return out


def test_no_module_outside_the_kernel_is_longer_than_700_lines():
    assert long_modules() == []


def test_the_length_check_measures_every_module_but_the_kernels(tmp_path):
    (tmp_path / "shedsim" / "kernel").mkdir(parents=True)
    (tmp_path / "shedsim" / "a").mkdir()
    (tmp_path / "shedsim" / "kernel" / "core.py").write_text("x = 1\n" * 5)
    (tmp_path / "shedsim" / "a" / "long.py").write_text("x = 1\n" * 5)
    (tmp_path / "shedsim" / "short.py").write_text("x = 1\n" * 4)
    assert long_modules(tmp_path, 4) == ["shedsim/a/long.py: 5 lines"]
