"""Facts on strategies instead of lists of names: every plugin's TRAITS and parameter
ranges (``shedsim.plugin_meta``), the choices commands make by them (``shedsim.plugins.select``),
and the refusal of a parameter outside its range.

Nothing here compiles: plugins are read (numba's ``@njit`` compiles on the first call),
and a user plugin is either broken before it compiles or plain Python.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import types
from pathlib import Path

import pytest

from shedsim.plugin_meta import (
    INT64_MAX,
    INT64_MIN,
    USES,
    PluginError,
    read_ranges,
    read_space,
    read_traits,
)
from shedsim.plugins import ROLES, candidates, discover, select, swap_policies

ROOT = Path(__file__).resolve().parents[1]
BUILTIN = discover([])


def module(**attrs) -> types.ModuleType:
    m = types.ModuleType("fake_plugin")
    m.__dict__.update(attrs)
    return m


# ------------------------------------------------------------------ declarations
@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_builtin_declares_traits_and_a_range_for_every_parameter(name):
    s = BUILTIN[name]
    assert isinstance(getattr(s.module, "TRAITS", None), dict), f"{name} declares no TRAITS"
    declared = getattr(s.module, "PARAM_RANGES", {})
    assert set(declared) == set(s.params), f"{name}: PARAM_RANGES must cover {sorted(s.params)}"
    for k, (lo, hi) in s.ranges.items():
        assert (lo, hi) != (INT64_MIN, INT64_MAX) and lo <= s.params[k] <= hi, (name, k)
    for k, r in s.param_space.items():  # what tune searches lies inside the range
        assert s.ranges[k][0] <= r[0] <= r[1] <= s.ranges[k][1], (name, k)


def test_expert_is_a_variant_of_heuristic_found_from_its_code():
    """A plugin whose move and swap are another plugin's (with other parameters) is that
    plugin's variant: found from where its functions are defined, no name list."""
    assert BUILTIN["expert"].variant_of == "heuristic"
    assert all(s.variant_of is None for n, s in BUILTIN.items() if n != "expert")
    assert BUILTIN["champion"].variant_of is None  # its own move: it stands in the ladder


def test_defaults_for_a_plugin_that_declares_nothing():
    t = read_traits(module(), "p", {"depth": 3}, {"depth": (INT64_MIN, INT64_MAX)}, inline=True)
    assert (t.cost, t.search, t.uses, t.swap, t.self_play_loops) == (
        "fast",
        False,
        USES,
        "own",
        False,
    )
    assert read_traits(module(), "p", {}, {}, inline=False).cost == "moderate"
    assert read_ranges(module(PARAMS={"depth": 3}), "p", {"depth": 3}) == {
        "depth": (INT64_MIN, INT64_MAX)
    }


@pytest.mark.parametrize(
    "traits,words",
    [
        ([], "TRAITS must be a dict"),
        ({"costs": "fast"}, "no key 'costs'"),
        ({"cost": "quick"}, "TRAITS['cost'] must be one of fast, moderate, slow; got 'quick'"),
        ({"search": "yes"}, "TRAITS['search'] must be True or False"),
        ({"uses": ("pile", "hand")}, "TRAITS['uses'] must be a tuple of distinct words"),
        ({"uses": "pile"}, "TRAITS['uses']"),
        ({"swap": "best"}, "TRAITS['swap'] must be one of greedy-high, expert-table, random, own"),
        ({"self_play_loops": 1}, "TRAITS['self_play_loops'] must be True or False"),
        ({"search_param": "width", "search": True}, "must name a parameter of PARAMS (depth)"),
        ({"search_param": "depth"}, "so TRAITS['search'] must be True"),
        (
            {"search_param": "depth", "search": True},
            "must accept 0 (search off); its range is 1..9",
        ),
    ],
)
def test_a_wrong_trait_is_refused_naming_the_key(traits, words):
    with pytest.raises(PluginError) as e:
        read_traits(
            module(TRAITS=traits),
            "strategy plugin 'x.py' (x)",
            {"depth": 3},
            {"depth": (1, 9)},
            True,
        )
    assert words in str(e.value) and "'x.py' (x)" in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "ranges,words",
    [
        ([1, 2], "PARAM_RANGES must be a dict"),
        ({"width": (0, 9)}, "PARAM_RANGES names 'width', which is not in PARAMS (depth)"),
        ({"depth": (9, 0)}, "must be (lo, hi), two integers with lo <= hi"),
        ({"depth": (0, 2**64)}, "inside the 64-bit range"),
        ({"depth": (0, 2.5)}, "two integers"),
        ({"depth": (4, 9)}, "the default depth=3 lies outside PARAM_RANGES['depth'] = (4, 9)"),
    ],
)
def test_a_wrong_range_is_refused_naming_the_parameter(ranges, words):
    with pytest.raises(PluginError) as e:
        read_ranges(module(PARAM_RANGES=ranges), "p", {"depth": 3})
    assert words in str(e.value), str(e.value)


def test_a_tuning_space_outside_the_range_is_refused():
    with pytest.raises(
        PluginError,
        match=r"PARAM_SPACE\['depth'\] = \(0, 20\) lies outside the parameter's "
        r"range 0\.\.9",
    ):
        read_space(module(PARAM_SPACE={"depth": (0, 20)}), "p", {"depth": (0, 9)})


# ------------------------------------------------------------------ ranges
@pytest.mark.parametrize("value", [-1, 1001, 999999999999999999999, -(2**80)])
def test_a_parameter_outside_its_range_is_refused_naming_everything(value):
    """heuristic:search=-1 was accepted; 999999999999999999999 ended in an OverflowError
    from numpy. Both are refused naming the strategy, the parameter, the value and the range."""
    with pytest.raises(PluginError) as e:
        BUILTIN["heuristic"].params_array({"search": value})
    assert (
        str(e.value)
        == f"strategy 'heuristic': parameter search={value} is outside its range 0..1000"
    )


def test_both_ends_of_a_range_are_accepted():
    h = BUILTIN["heuristic"]
    assert h.params_array({"search": 0})[15] == 0 and h.params_array({"search": 1000})[15] == 1000


def test_an_undeclared_range_is_the_int64_range(plain_python_plugins):
    (plain_python_plugins / "pydepth.py").write_text(
        'NAME = "pydepth"\nDESCRIPTION = "first legal move"\nDETERMINISTIC = True\nPARAMS = '
        '{"depth": 3}\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n"
    )
    s = discover([plain_python_plugins])["pydepth"]
    assert s.params_array({"depth": INT64_MAX})[0] == INT64_MAX
    with pytest.raises(
        PluginError, match=r"parameter depth=9223372036854775808 is outside its range any 64-bit"
    ):
        s.params_array({"depth": INT64_MAX + 1})


# ------------------------------------------------------------------ selection by traits
def renamed(known, prefix="x_"):
    """The same strategies under other names (and the variant pointing at its renamed
    original): what the commands choose must not change, since names decide nothing."""
    return {
        prefix + n: dataclasses.replace(
            s, name=prefix + n, variant_of=s.variant_of and prefix + s.variant_of
        )
        for n, s in known.items()
    }


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_choice_is_made_by_traits_not_by_names(role):
    assert select(renamed(BUILTIN), role) == ["x_" + n for n in select(BUILTIN, role)]


def test_the_choices_follow_the_rules_in_words():
    pool = candidates(BUILTIN)
    assert "expert" not in {s.name for s in pool}  # a variant
    assert select(BUILTIN, "default") == [s.name for s in pool if s.traits.cost != "slow"]
    assert select(BUILTIN, "ladder") == [s.name for s in pool]
    ref = BUILTIN[select(BUILTIN, "reference")[0]]
    assert ref.deterministic and ref.traits.cost == "fast" and not ref.traits.self_play_loops
    base = BUILTIN[select(BUILTIN, "baseline")[0]]
    assert not base.deterministic and base.traits.uses == ()
    pol = BUILTIN[select(BUILTIN, "policy")[0]]
    assert pol.traits.search and pol.traits.cost_rank == min(
        s.traits.cost_rank for s in pool if s.traits.search and s.traits.cost != "slow"
    )
    assert select(BUILTIN, "compare") == select(BUILTIN, "baseline") + select(
        BUILTIN, "reference"
    ) + select(BUILTIN, "policy")


def test_a_trait_changes_the_choice():
    """Declaring the reference opponent slow takes it out of the default field and another
    fast deterministic strategy whose self-play ends must then be found (there is none)."""
    ref = select(BUILTIN, "reference")[0]
    changed = dict(BUILTIN)
    changed[ref] = dataclasses.replace(
        BUILTIN[ref], traits=dataclasses.replace(BUILTIN[ref].traits, cost="slow")
    )
    assert ref not in select(changed, "default") and ref in select(changed, "ladder")
    with pytest.raises(
        PluginError, match="qualifies as the built-in strategy that is fast, deterministic"
    ):
        select(changed, "reference")


def test_swap_policies_are_one_per_declared_face_up_rule():
    got = swap_policies(BUILTIN)
    assert [lab for lab, _ in got] == [
        "greedy-high",
        "expert-table",
        "random",
    ]  # shedsim swaps' labels
    for lab, name in got:
        assert BUILTIN[name].traits.swap == lab and BUILTIN[name].variant_of is None


def test_user_plugins_are_never_chosen_by_default(plain_python_plugins):
    with_user = discover([plain_python_plugins])
    for role in ROLES:
        assert select(with_user, role) == select(BUILTIN, role)


# ------------------------------------------------------------------ no name lists in shedsim/
NOT_STRATEGIES = {
    ("shedsim/rules/settings.py", "random"),
    ("shedsim/rules/engine.py", "random"),
    ("shedsim/analysis/tune.py", "random"),
    ("shedsim/plugin_meta.py", "random"),
}
"""Strings equal to a strategy's name that mean something else: the ``random`` start rule,
optuna's random sampler, the ``random`` face-up rule of ``TRAITS['swap']``."""


def strategy_literals() -> list[str]:
    """Every string constant in shedsim/ (docstrings aside) that is a built-in strategy's
    name or a spec list of them (``heuristic:search=0``, ``greedy,random``)."""
    names = "|".join(map(re.escape, BUILTIN))
    spec = re.compile(rf"^({names})(:[\w=,]*)?(,({names})(:[\w=,]*)?)*$")
    found = []
    for f in sorted((ROOT / "shedsim").rglob("*.py")):
        tree = ast.parse(f.read_text())
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        rel = str(f.relative_to(ROOT))
        for n in ast.walk(tree):
            if (
                isinstance(n, ast.Constant)
                and isinstance(n.value, str)
                and id(n) not in docs
                and spec.match(n.value)
                and (rel, n.value) not in NOT_STRATEGIES
            ):
                found.append(f"{rel}:{n.lineno}: {n.value!r}")
    return found


def test_no_strategy_name_decides_anything_in_shedsim():
    assert strategy_literals() == []


def test_the_name_check_finds_one(tmp_path, monkeypatch):
    (tmp_path / "shedsim").mkdir()
    (tmp_path / "shedsim" / "a.py").write_text(
        '"""greedy in a docstring is fine."""\nX = ("mc", "ismcts")\nY = "heuristic:search=0"\n'
    )
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    assert sorted(x.split(": ", 1)[1] for x in strategy_literals()) == [
        "'heuristic:search=0'",
        "'ismcts'",
        "'mc'",
    ]


def test_the_skill_edge_reference_is_the_random_baseline_by_traits(plain_python_plugins):
    """compare-rules measures skill edges against the entry that plays at random (its
    traits: uses nothing, not deterministic), wherever it sits; else the first entry."""
    from shedsim.analysis.compare import reference_entry

    assert reference_entry([("a", "greedy"), ("b", "random:"), ("c", "random")]) == 1
    assert reference_entry([("a", "greedy"), ("b", "heuristic:search=0")]) == 0
    assert reference_entry([("a", "pyplayer"), ("b", "random")], [str(plain_python_plugins)]) == 1


def test_a_user_plugin_declares_its_own_range_and_a_wrong_trait_breaks_only_its_file(
    plain_python_plugins,
):
    """A plugin from --strategy-path declares PARAM_RANGES (play refuses a value outside it,
    exit 2, naming it); one with a wrong TRAITS value is listed broken with the key named,
    and the others load."""
    from typer.testing import CliRunner

    from shedsim.cli import app

    body = (
        "DESCRIPTION = 'first legal move'\nDETERMINISTIC = True\nPARAMS = {'depth': 3}\nEXTRA\n"
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n"
    )
    (plain_python_plugins / "pyrange.py").write_text(
        "NAME = 'pyrange'\n" + body.replace("EXTRA", "PARAM_RANGES = {'depth': (1, 9)}")
    )
    (plain_python_plugins / "pybad.py").write_text(
        "NAME = 'pybad'\n" + body.replace("EXTRA", "TRAITS = {'cost': 'quick'}")
    )
    known = discover([plain_python_plugins])
    assert known["pyrange"].ranges == {"depth": (1, 9)} and "pyplayer" in known
    assert [b.names for b in known.broken] == [("pybad",)]
    assert (
        "(pybad): TRAITS['cost'] must be one of fast, moderate, slow; got 'quick'"
        in known.broken[0].reason
    )
    r = CliRunner().invoke(
        app,
        ["play", "--opponents", "pyrange:depth=10", "--strategy-path", str(plain_python_plugins)],
        input="",
    )
    assert (
        r.exit_code == 2
        and "strategy 'pyrange': parameter depth=10 is outside its range 1..9" in r.output
    )
    assert "Traceback" not in r.output
