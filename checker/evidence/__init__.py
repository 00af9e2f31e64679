"""Evidence: what a verdict rests on, in the reference interpreter's terms.

A counterexample is replayed and confirmed in `lang.interp` before it is reported (`confirm`),
becomes a trace in players' terms (`trace`), and a `Result` with its re-checks (`results`,
`growth_check`, `size_check`, `value_check`); the findings filed in `counterexamples/`
(`findings`), the scenarios played in the interpreter (`scenario_run`) and the verdict cache
keyed by what was read (`verdict_cache`) sit beside them. The analyses and reports above
consume these types; nothing here starts a pool or renders a page.
"""
