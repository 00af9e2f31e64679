"""Helpers for the symbolic engine's tests: models written inline, both engines side by side."""

from __future__ import annotations

import os
import textwrap

from checker.engines.explicit import Budget
from checker.lang.build import load_model
from checker.lang.properties import bind, load_suite, properties_for
from checker.pipeline.runner import CheckOptions, check_config

CLAUSES = "clauses:\n  r-1: {at: '1', says: 'a rule'}\n"


def write_game(root: str, name: str, model_yaml: str, props_yaml: str = "") -> str:
    """models/<name>/m.yaml and properties/<name>.yaml under `root`; returns the model path."""
    folder = os.path.join(root, "models", name)
    os.makedirs(folder, exist_ok=True)
    os.makedirs(os.path.join(root, "properties"), exist_ok=True)
    path = os.path.join(folder, "m.yaml")
    with open(path, "w") as fh:
        fh.write(textwrap.dedent(model_yaml))
        if "clauses:" not in model_yaml:
            fh.write(CLAUSES)
    with open(os.path.join(root, "properties", f"{name}.yaml"), "w") as fh:
        fh.write(f"game: {name}\nproperties:\n" + (textwrap.indent(textwrap.dedent(props_yaml), "  ") if props_yaml.strip() else "  []\n"))
    return path


def bound_props(path: str, ids: set[str] | None = None):
    model = load_model(path)
    suite = load_suite(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(path))), "properties", f"{model.folder}.yaml"))
    props = [bind(p, model) for p in properties_for(model, suite) if ids is None or p.id in ids]
    return model, props


def run(path: str, engine: str, depth: int = 30, ids: set[str] | None = None, config=None, timeout: float = 120.0, **extra):
    """{property id: Result} for one engine on the model's default configuration."""
    model, props = bound_props(path, ids)
    options = CheckOptions(engine=engine, depth=depth, budget=Budget(200_000, timeout))
    for key, value in extra.items():
        setattr(options, key, value)
    results = check_config(model, config or model.default_config(), props, options)
    return {r.prop.id: r for r in results}


def trace_len(result) -> int | None:
    return len(result.trace.steps) if result.trace is not None else None
