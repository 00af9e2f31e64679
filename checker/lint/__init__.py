"""`rulecheck lint`: what a model's text says of its own coverage, read without checking it.

`checks` finds unexplained clauses, readings and self-fulfilling properties, `citations` the
steps that cite a clause not in effect, `explained` the choices left unexplained, `scope` which
models and suites one invocation covers, and `table` renders the per-model table.
"""
