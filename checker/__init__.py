"""rulecheck: a rules model checker for tabletop games."""

__version__ = "0.1.0"

# The distribution's name on PyPI (pyproject's `[project] name`), for installation hints and
# metadata lookups: `rulecheck` on PyPI is an unrelated source-code convention checker, so the
# name a user installs differs from the command (`rulecheck`) and the import packages.
DISTRIBUTION = "tabletop-rulecheck"
