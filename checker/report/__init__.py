"""Reporters: the terminal table, JSON, the counterexample files and the errata pages."""
