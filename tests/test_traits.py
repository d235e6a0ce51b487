"""Parameter ranges (``shedsim.plugin_meta``): every built-in declares one for each
parameter, a wrong declaration is refused, and so is a parameter outside its range.

Nothing here compiles: plugins are read (numba's ``@njit`` compiles on the first call),
and a user plugin is either broken before it compiles or plain Python.
"""

from __future__ import annotations

import types

import pytest

from shedsim.plugin_meta import INT64_MAX, INT64_MIN, PluginError, read_ranges, read_space
from shedsim.plugins import discover

BUILTIN = discover([])


def module(**attrs) -> types.ModuleType:
    m = types.ModuleType("fake_plugin")
    m.__dict__.update(attrs)
    return m


# ------------------------------------------------------------------ declarations
@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_builtin_declares_a_range_for_every_parameter(name):
    s = BUILTIN[name]
    declared = getattr(s.module, "PARAM_RANGES", {})
    assert set(declared) == set(s.params), f"{name}: PARAM_RANGES must cover {sorted(s.params)}"
    for k, (lo, hi) in s.ranges.items():
        assert (lo, hi) != (INT64_MIN, INT64_MAX) and lo <= s.params[k] <= hi, (name, k)
    for k, r in s.param_space.items():  # what tune searches lies inside the range
        assert s.ranges[k][0] <= r[0] <= r[1] <= s.ranges[k][1], (name, k)


def test_an_undeclared_range_is_the_whole_int64_range():
    assert read_ranges(module(PARAMS={"depth": 3}), "p", {"depth": 3}) == {"depth": (INT64_MIN, INT64_MAX)}


@pytest.mark.parametrize("ranges,words", [
    ([1, 2], "PARAM_RANGES must be a dict"),
    ({"width": (0, 9)}, "PARAM_RANGES names 'width', which is not in PARAMS (depth)"),
    ({"depth": (9, 0)}, "must be (lo, hi), two integers with lo <= hi"),
    ({"depth": (0, 2 ** 64)}, "inside the 64-bit range"),
    ({"depth": (0, 2.5)}, "two integers"),
    ({"depth": (4, 9)}, "the default depth=3 lies outside PARAM_RANGES['depth'] = (4, 9)"),
])
def test_a_wrong_range_is_refused_naming_the_parameter(ranges, words):
    with pytest.raises(PluginError) as e:
        read_ranges(module(PARAM_RANGES=ranges), "p", {"depth": 3})
    assert words in str(e.value), str(e.value)


def test_a_tuning_space_outside_the_range_is_refused():
    with pytest.raises(PluginError, match=r"PARAM_SPACE\['depth'\] = \(0, 20\) lies outside the parameter's "
                                          r"range 0\.\.9"):
        read_space(module(PARAM_SPACE={"depth": (0, 20)}), "p", {"depth": (0, 9)})


# ------------------------------------------------------------------ ranges
@pytest.mark.parametrize("value", [-1, 1001, 999999999999999999999, -(2 ** 80)])
def test_a_parameter_outside_its_range_is_refused_naming_everything(value):
    """heuristic:search=-1 was accepted; 999999999999999999999 ended in an OverflowError
    from numpy. Both are refused naming the strategy, the parameter, the value and the range."""
    with pytest.raises(PluginError) as e:
        BUILTIN["heuristic"].params_array({"search": value})
    assert str(e.value) == f"strategy 'heuristic': parameter search={value} is outside its range 0..1000"


def test_both_ends_of_a_range_are_accepted():
    h = BUILTIN["heuristic"]
    assert h.params_array({"search": 0})[15] == 0 and h.params_array({"search": 1000})[15] == 1000


def test_an_undeclared_range_is_the_int64_range(plain_python_plugins):
    (plain_python_plugins / "pydepth.py").write_text(
        'NAME = "pydepth"\nDESCRIPTION = "first legal move"\nDETERMINISTIC = True\nPARAMS = {"depth": 3}\n'
        "def choose_swap(visible, seat, players, rules, rng):\n    return sorted(visible)[-3:]\n"
        "def choose_move(obs, legal, rng):\n    return 0\n")
    s = discover([plain_python_plugins])["pydepth"]
    assert s.params_array({"depth": INT64_MAX})[0] == INT64_MAX
    with pytest.raises(PluginError, match=r"parameter depth=9223372036854775808 is outside its range any 64-bit"):
        s.params_array({"depth": INT64_MAX + 1})
