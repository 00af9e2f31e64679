"""The pipeline: the stages that run analyses for the pages, when, where and with which cache.

Analyses (`checker.analysis`) are functions of what they are given; reports (`checker.report`)
render data. What starts a thread, submits jobs to a pool, reads or writes a cached page section,
or decides that one stage's output feeds another lives here.
"""
