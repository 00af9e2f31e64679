"""The package's imports form no cycle, counting every import statement wherever it stands.

An import inside a function hides a cycle from Python (the module is complete by the time the
function runs) but not from the design: two modules that need each other are one module in two
files, and the next change to either has to know both. The graph is read from the source with
`ast`, so imports inside functions, methods and `TYPE_CHECKING` blocks all count; `from package
import name` counts as an import of the submodule when `name` is one, else of the package's own
module.
"""

from __future__ import annotations

import ast
import os
import sys

import networkx as nx
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "checker"


def modules() -> dict[str, str]:
    """Every module of the package by dotted name, with its file."""
    found = {}
    for folder, _, files in os.walk(os.path.join(ROOT, PACKAGE)):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                found[dotted.removesuffix(".__init__")] = path
    return found


def import_graph() -> nx.DiGraph:
    """An edge from each module to each module of the package it imports, labelled with the line."""
    known = modules()
    graph = nx.DiGraph()
    for name, path in known.items():
        graph.add_node(name)
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                if target in known and target != name:
                    graph.add_edge(name, target, line=node.lineno)
    return graph


def test_the_graph_sees_imports_inside_functions():
    """The reader finds a function-level import (else the test below would pass vacuously):
    `checker.engines.statespace` imports the native engine only when it explores."""
    graph = import_graph()
    assert graph.number_of_nodes() > 100
    assert graph.has_edge("checker.engines.statespace", "checker.engines.native.engine")
    assert graph.has_edge("checker.cli", "checker.commands.common")


def test_no_import_cycle():
    cycles = [sorted(component) for component in nx.strongly_connected_components(import_graph()) if len(component) > 1]
    graph = import_graph()
    shown = [" ; ".join(f"{a}:{graph.edges[a, b]['line']} -> {b}" for a, b in graph.subgraph(component).edges()) for component in cycles]
    assert not cycles, "import cycles:\n" + "\n".join(shown)


# What starts work: the pipeline's and the runner's modules, pools, threads and processes, and the
# entry points of every search and analysis that explores. A report imports none of them.
RUNS = ("checker.pipeline.runner", "checker.pipeline", "checker.pipeline.dispatch", "checker.engines.cluster", "threading", "concurrent", "subprocess", "multiprocessing")
SEARCHES = frozenset({
    "explore", "explore_space", "explore_and_decide", "simulate", "find_divergence", "decide", "analyse", "analyse_model", "analyse_models",
    "analyse_for_errata", "recheck_readings", "check_config", "check_paths", "check_selection", "sample_violation", "find_verdict",
})


def report_imports() -> list[tuple[str, int, str, list[str]]]:
    """Every import in `checker/report/`: (module, line, imported module, imported names)."""
    found = []
    for name, path in modules().items():
        if not name.startswith("checker.report"):
            continue
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level:
                found.append((name, node.lineno, node.module or "", [alias.name for alias in node.names]))
            elif isinstance(node, ast.Import):
                found += [(name, node.lineno, alias.name, []) for alias in node.names]
    return found


def test_reports_render_data_and_run_nothing():
    imports = report_imports()
    assert any(module == "checker.analysis.divergence" for _, _, module, _ in imports)  # the reader sees the report's imports
    wrong = [f"{name}:{line} imports {module} {names}" for name, line, module, names in imports
             if module.startswith(RUNS) or SEARCHES.intersection(names)]
    assert not wrong, "reports that start work:\n" + "\n".join(wrong)


# The packages in the order the pipeline runs them: a module imports only from its own package or
# from one earlier in this list. `checker` itself holds the errors and limits every layer raises
# (and `__init__`'s version), and the command-line entry point `checker.cli` comes last.
LAYERS = ("base", "lang", "engines", "evidence", "analysis", "report", "pipeline", "lint", "commands", "cli")
ROOT_MODULES = {"checker": "base", "checker.errors": "base", "checker.limits": "base", "checker.cli": "cli"}


def layer_of(module: str) -> str:
    """The layer a module belongs to: its subpackage, or the root module's fixed place."""
    if module in ROOT_MODULES:
        return ROOT_MODULES[module]
    return module.split(".")[1]


def test_every_module_sits_in_a_layer():
    """No top-level module but the root's own, and no subpackage the order does not place: a new
    package or a module left at the top fails here rather than escaping the order below."""
    stray = sorted(name for name in modules() if name.count(".") == 1 and name not in ROOT_MODULES and layer_of(name) not in LAYERS)
    unplaced = sorted({layer_of(name) for name in modules()} - set(LAYERS))
    assert not stray and not unplaced, f"modules outside the layers: {stray}, packages not in LAYERS: {unplaced}"


def test_imports_point_down_the_pipeline():
    """Every import (inside functions and `TYPE_CHECKING` blocks too) points to the same layer
    or an earlier one."""
    graph = import_graph()
    assert layer_of("checker.evidence.confirm") == "evidence" and LAYERS.index("engines") < LAYERS.index("report")
    upward = [f"{a}:{graph.edges[a, b]['line']} -> {b} ({layer_of(a)} -> {layer_of(b)})" for a, b in sorted(graph.edges())
              if LAYERS.index(layer_of(b)) > LAYERS.index(layer_of(a))]
    assert not upward, "imports against the package order:\n" + "\n".join(upward)


def test_an_upward_import_is_caught(monkeypatch):
    """The order test is not vacuous: an analysis importing the runner is reported."""
    graph = import_graph()
    graph.add_edge("checker.analysis.impact", "checker.pipeline.runner", line=1)
    monkeypatch.setattr(sys.modules[__name__], "import_graph", lambda: graph)
    with pytest.raises(AssertionError, match="analysis -> pipeline"):
        test_imports_point_down_the_pipeline()
