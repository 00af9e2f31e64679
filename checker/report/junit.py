"""`rulecheck check --junit FILE`: the results as JUnit XML, for a CI system's test view.

One test suite per (game, variant) and one test case per (property, reading combination) in it,
so a CI page lists `showngo.base` / `game-ends[agreement=never_agree]` like any test. A result
that matches its `expect` passes; an unexpected verdict is a `failure` (an `error` when the
check itself met a modelling error), whose message says what was expected and what was found
and whose text gives the property's words and the path of the evidence trace. The verdict and
the expectation of every case are also recorded as case properties, so a passing expected
`fails` stays visible. Written with the standard library: JUnit XML needs no dependency.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from checker.evidence.results import Result
from checker.report.evidence_files import evidence_path


def case_name(result: Result) -> str:
    return f"{result.prop.id}[{result.reading_label}]"


def unexpected_message(result: Result) -> str:
    """One line: what the suite expected, what the check found, and how far the verdict reaches."""
    return f"expected {result.expected}, found {result.verdict_text} ({result.engine}, {result.bound})"


def junit_document(results: list[Result], out: str | None) -> ET.ElementTree:
    """The JUnit XML of `results`; `out` is where traces were written (None: not written)."""
    root = ET.Element("testsuites", name="rulecheck")
    suites: dict[tuple[str, str], list[Result]] = {}
    for result in results:
        suites.setdefault((result.model.folder, result.model.id), []).append(result)
    for (game, variant), members in suites.items():
        suite = ET.SubElement(root, "testsuite", name=f"{game}.{variant}", tests=str(len(members)),
                              failures=str(sum(1 for r in members if not r.matches and r.status != "error")),
                              errors=str(sum(1 for r in members if not r.matches and r.status == "error")),
                              skipped="0", time=_seconds(_exploring(members)))
        for result in members:
            _case(suite, result, out)
    _totals(root)
    ET.indent(root)
    return ET.ElementTree(root)


def _case(suite: ET.Element, result: Result, out: str | None) -> None:
    case = ET.SubElement(suite, "testcase", classname=suite.get("name", ""), name=case_name(result), time=_seconds(result.seconds))
    case.set("file", repository_path(result.prop.loc.file))
    case.set("line", str(result.prop.loc.line))
    props = ET.SubElement(case, "properties")
    for name, value in (("verdict", result.verdict_text), ("expected", result.expected), ("kind", result.prop.kind),
                        ("engine", result.engine), ("bound", result.bound)):
        ET.SubElement(props, "property", name=name, value=value)
    for check in result.growth:  # a failure a filed finding claims: does it survive larger bounds?
        label = "bound artefact" if check.artefact else str(check.outcome)
        ET.SubElement(props, "property", name=f"growth:{check.finding}", value=label)
    if result.matches:
        return
    tag = "error" if result.status == "error" else "failure"
    element = ET.SubElement(case, tag, message=unexpected_message(result), type=f"unexpected-{result.status}")
    lines = [f"{result.prop.id} ({result.prop.kind}): {result.prop.says}".rstrip(": "), f"property at {result.prop.loc}"]
    if result.detail:
        lines.append(result.detail)
    if result.trace is not None and out is not None:
        lines.append(f"evidence: {evidence_path(out, result)} (rulecheck explain narrates it)")
    element.text = "\n".join(lines)


def _exploring(members: list[Result]) -> float:
    """The suite's time: the properties of one reading combination are checked in one
    exploration and each reports its time, so count each combination once."""
    per_combination: dict[str, float] = {}
    for result in members:
        per_combination[result.reading_label] = max(per_combination.get(result.reading_label, 0.0), result.seconds)
    return sum(per_combination.values())


def repository_path(path: str) -> str:
    """A path relative to the working directory (the repository root in CI), or a file URI
    when it lies outside it; CI systems match these against the files of the checkout."""
    rel = os.path.relpath(os.path.abspath(path))
    if rel.startswith(".."):
        return "file://" + os.path.abspath(path).replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def _totals(root: ET.Element) -> None:
    for key in ("tests", "failures", "errors"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    root.set("time", _seconds(sum(float(s.get("time", "0")) for s in root)))


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def write_junit(results: list[Result], path: str, out: str | None) -> None:
    """Write the JUnit file atomically (a CI step never reads a half-written file)."""
    tmp = f"{path}.tmp{os.getpid()}"
    junit_document(results, out).write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, path)
