"""rulecheck: a rules model checker for tabletop games."""

__version__ = "0.1.0"
