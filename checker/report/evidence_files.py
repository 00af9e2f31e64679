"""Writing counterexamples to `counterexamples/<game>/`, deterministically.

Each failing result with a trace becomes `<model>.<property>.<reading>.json` (the project's
trace format) and `.md` (the narrative), and `.itf.json` on request. Trace files in a game's
folder that the run no longer produces are removed, so the folder always equals what the checks
say; only files the checker recognises as its own traces are ever removed. The same run writes
byte-identical files.
"""

from __future__ import annotations

import json
import os

from checker.report.files import is_trace_file, write_if_changed
from checker.results import Result
from checker.trace import narrative, to_itf, to_json


def trace_stem(result: Result) -> str:
    label = result.reading_label.replace("/", "_")
    return f"{result.model.id}.{result.prop.id}.{label}"


def write_evidence(results: list[Result], out_dir: str, itf: bool = False, prune: bool = True) -> list[str]:
    """Write every trace; returns the paths written."""
    written: list[str] = []
    folders: set[str] = set()
    for result in results:
        folder = os.path.join(out_dir, result.model.folder)
        folders.add(folder)
        if result.trace is None:
            continue
        os.makedirs(folder, exist_ok=True)
        stem = os.path.join(folder, trace_stem(result))
        doc = to_json(result.trace)
        files = {f"{stem}.json": json.dumps(doc, indent=2, default=str) + "\n", f"{stem}.md": narrative(doc)}
        if itf:
            files[f"{stem}.itf.json"] = json.dumps(to_itf(result.trace), indent=2, default=str) + "\n"
        for path, text in files.items():
            write_if_changed(path, text)
            written.append(path)
    if prune:
        models = {(os.path.join(out_dir, r.model.folder), r.model.id) for r in results}
        keep = set(written)
        for folder in folders:
            if not os.path.isdir(folder):
                continue
            stale = []
            for name in os.listdir(folder):
                path = os.path.join(folder, name)
                model_id = name.split(".", 1)[0]
                if (folder, model_id) in models and path not in keep and not (not itf and name.endswith(".itf.json")) and is_trace_file(path):
                    stale.append(path)  # decided before removing any: a narrative is recognised by its .json
            for path in stale:
                os.remove(path)
    return written
