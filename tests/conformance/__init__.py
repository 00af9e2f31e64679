"""The conformance suite: one set of comparisons that every back-end and every twin analysis runs.

`generated` writes the inputs (random models, expressions and states; the bundled models),
`backends` describes each candidate and its reference behind one protocol (`Pair`), and
`test_conformance` holds every pair to the same properties and shows, by breaking each
candidate on purpose, that the comparisons notice. `test_dispatch` checks that the analyses'
front doors take the compiled path and leave to the reference what it cannot run.
"""
