"""The game as data: cards, rule sets and house toggles, the reference engine, scenario files.

* :mod:`shedsim.rules.cards`: card codes and names (docs/reference/rules.md#cards).
* :mod:`shedsim.rules.settings`: the one table of every rule setting and house toggle.
* :mod:`shedsim.rules.ruleset`: the five presets, house toggles, TOML rules files and the
  compiled rule arrays the kernel reads (docs/reference/rules.md#presets,
  docs/reference/rules.md#house), read from that table.
* :mod:`shedsim.rules.files`: reading TOML files (rules and scenario files).
* :mod:`shedsim.rules.engine`: the pure-Python reference engine (the specification in code).
* :mod:`shedsim.rules.scenario`: scenario files (docs/reference/scenarios.md): a position, moves,
  expectations.

The rule-set API is re-exported here, so ``from shedsim.rules import build`` works.
"""

from shedsim.rules.ruleset import (  # noqa: F401 - re-exported
    MAX_PLAYERS_TWO_DECKS,
    PICKUP_MODES,
    PRESETS,
    STALEMATE_MODES,
    START_RULES,
    TOGGLES,
    RuleSet,
    RulesError,
    apply_house,
    build,
    default_stall,
    load_rules_file,
    preset,
    rules_from_mapping,
)
