"""A game's page of the HTML report: the summary of results, the findings ranked as on the
errata page (severity, clauses quoted, scenario, proposed wording, where it shows) each with a
player for every distinct trace that shows it (with the state graph of a small configuration, the
trace's path on it), and a picture of each model's phases."""

from __future__ import annotations

from collections import defaultdict

from checker.evidence.findings import suite_findings
from checker.evidence.results import Result
from checker.evidence.trace import to_json
from checker.lang.model import Model
from checker.report.appendix import CLAUSE_STATES, clause_states, located, verdict_line, where
from checker.report.errata_details import CLASS_WORDS
from checker.report.evidence_files import trace_identity
from checker.report.findings import NOT_A_DEFECT, SEVERITIES, FindingEvidence, evidence_order, group_findings
from checker.report.html.page import esc, page, plain
from checker.report.html.phase_graph import phase_svg
from checker.report.html.player import player_html
from checker.report.html.state_graph import StateGraphs


def game_page(folder: str, results: list[Result], impact_html: str = "", graphs: StateGraphs | None = None) -> str:
    """The page; `graphs`: the state graphs of its traces (`graph_results` names the results
    drawn), made by the pipeline."""
    models = list({r.model.id: r.model for r in results}.values())
    entries = group_findings(results, suite_findings(results))
    defects = [e for e in entries if e.severity != NOT_A_DEFECT]
    combos = len({(r.model.id, r.reading_label) for r in results})
    unexpected = [r for r in results if not r.matches]
    counts = ", ".join(f"{sum(1 for e in defects if e.severity == s)} {s}" for s in SEVERITIES if any(e.severity == s for e in defects))
    body = ['<p class="no-print"><a href="index.html">\u2190 all games</a></p>', f"<h1>{esc(models[0].game)}</h1>",
            f"<p>{len(defects)} finding(s){f' ({esc(counts)})' if counts else ''} from {len({r.prop.id for r in results})} properties "
            f"checked on {len(models)} model(s) under {combos} variant/reading combinations; "
            f"{len(unexpected)} result(s) differ from the suite's <code>expect</code>. Below the findings: "
            '<a href="#results">every property\'s verdicts</a> and <a href="#clauses">the clause index</a>.</p>']
    body.append("<h2>Findings</h2>")
    if entries:
        body.append("<ol>" + "".join(f'<li><a href="#{esc(_anchor(e))}">{esc(e.title)}</a> {_badge(e)}</li>' for e in entries) + "</ol>")
    else:
        body.append("<p>No failing property: no defect of the text found within the checked bounds.</p>")
    graphs = graphs or StateGraphs({})
    for number, entry in enumerate(entries, start=1):
        body.append(_finding(number, entry, combos, graphs))
    body.append('<h2 id="results">Results</h2>')
    body.append(_results_table(results))
    body.append('<h2 id="clauses">Clause index</h2>')
    body.append(_clause_table(models, results))
    if impact_html:
        body.append("<h2>Readings: outcome odds</h2>" + impact_html)
    body.append("<h2>Phases</h2>")
    for model in models:
        body.append(f"<h3>{esc(model.id)}</h3>\n{phase_svg(model)}")
    return page(f"{models[0].game}: rulecheck report", "\n".join(body))


def _anchor(entry: FindingEvidence) -> str:
    return "finding-" + entry.id.lower().replace(" ", "-")


def _badge(entry: FindingEvidence) -> str:
    css = entry.severity if entry.severity in SEVERITIES else "none"
    return f'<span class="sev sev-{css}">{esc(entry.severity)}</span>'


def _finding(number: int, entry: FindingEvidence, combos: int, graphs: StateGraphs) -> str:
    model = entry.results[0].model
    shown = len({(r.model.id, r.reading_label) for r in entry.results})
    out = [f'<section class="finding" id="{esc(_anchor(entry))}">', f"<h3>{number}. {esc(entry.title)} {_badge(entry)}</h3>",
           f"<p><b>Severity:</b> {esc(entry.severity)}: {esc(plain(entry.severity_reason))}. <b>Class:</b> {esc(CLASS_WORDS[entry.cls])}. "
           f"Shown in {shown} of {combos} combinations.</p>"]
    clauses = entry.finding.clauses if entry.finding and entry.finding.clauses else [c for r in entry.results for c in r.prop.clauses]
    for cid in dict.fromkeys(clauses):
        clause = model.clauses.get(cid)
        if clause is not None:
            out.append(f'<blockquote>\u201c{esc(clause.says)}\u201d<div class="muted">\u2014 {esc(clause.at or cid)} ({esc(cid)})</div></blockquote>')
    if entry.finding is not None:
        out.append(f"<p><b>Scenario.</b> {esc(' '.join(entry.finding.scenario.split()))}</p>")
        out.append(f"<p><b>Proposed wording.</b> {esc(entry.finding.proposed)}</p>")
    else:
        out.append(f"<p><i>Unfiled: no finding in the suite claims this failure yet. The property says: "
                   f"{esc(entry.results[0].prop.says or entry.results[0].prop.id)}</i></p>")
    out.append("<p><b>Where it shows:</b> " + esc(", ".join(f"{r.prop.id} in {plain(where(r))}" for r in entry.results)) + "</p>")
    for index, (key, result) in enumerate(_traces(entry).items()):
        assert result.trace is not None  # `traces` holds only results with a trace
        title = f"{result.prop.id}: {plain(where(result))} ({len(result.trace.steps)} steps, {result.trace.shape})"
        element_id = f"trace-{_anchor(entry)}-{key}"
        player = player_html(result.trace, element_id, title, graphs.figure(result, element_id), result.model.folder, graphs.play_link(result))
        out.append(player if index == 0 else f"<details><summary>Also: {esc(title)}</summary>\n{player}\n</details>")
    out.append("</section>")
    return "\n".join(out)


def _traces(entry: FindingEvidence) -> dict[str, Result]:
    """The distinct traces a finding shows, shortest first, by trace identity."""
    traces: dict[str, Result] = {}
    for result in sorted((r for r in entry.results if r.trace is not None), key=evidence_order):
        assert result.trace is not None  # as filtered just above
        traces.setdefault(f"{result.prop.id}.{trace_identity(to_json(result.trace))}", result)
    return traces


def graph_results(results: list[Result]) -> list[Result]:
    """The results whose trace the page plays with a state graph beside it."""
    return [r for entry in group_findings(results, suite_findings(results)) for r in _traces(entry).values()]


def _clause_table(models: list[Model], results: list[Result]) -> str:
    """Every clause of the game's index with how the models account for it (the details page's
    clause index, from the same `clause_states`), each row anchored by the clause id."""
    if not models[0].clauses:
        return f"<p>This game has no clause index yet (<code>models/{esc(models[0].folder)}/clauses.yaml</code>).</p>"
    states = clause_states(models, results)
    counts = ", ".join(f"{sum(1 for st in states.values() if s in st)} {s}" for s in CLAUSE_STATES)
    rows = []
    for cid, st in states.items():
        said = "; ".join(f"{state}: {', '.join(plain(w) for w in what)}" if what else state for state, what in st.items())
        css = ' class="changed"' if "not handled" in st else ""
        rows.append(f'<tr id="{esc(cid)}"><td><code>{esc(cid)}</code></td><td>{esc(located(models[0], cid))}</td><td{css}>{esc(said)}</td></tr>')
    return (f"<p>{len(states)} clauses: {esc(counts)}.</p><table><tr><th>clause</th><th>where</th><th>how the models account for it</th></tr>"
            f"{''.join(rows)}</table>")


def _results_table(results: list[Result]) -> str:
    by_prop: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_prop[r.prop.id].append(r)
    rows = []
    for pid, rs in by_prop.items():
        tally = {s: sum(1 for r in rs if r.status == s) for s in ("holds", "fails", "undecided", "error")}
        unexpected = sum(1 for r in rs if not r.matches)
        mark = '<td class="changed">' if unexpected else "<td>"
        rows.append(f"<tr><td><code>{esc(pid)}</code></td><td>{esc(rs[0].prop.kind)}</td>"
                    + "".join(f"<td>{tally[s]}</td>" for s in tally)
                    + f"{mark}{unexpected}</td><td>{esc(plain(verdict_line(rs)))}</td></tr>")
    head = "<tr><th>property</th><th>kind</th><th>holds</th><th>fails</th><th>undecided</th><th>error</th><th>unexpected</th><th>in words</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"

