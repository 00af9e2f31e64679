"""The frame of every page of the HTML report: escaping, the inline style sheet and script.

Everything a page needs is inside it (no external file, font or script, no network), so the
report opens from a disk, an e-mail attachment or a CI artifact alike.
"""

from __future__ import annotations

import html
import json
from typing import Any


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


def plain(markdown: str) -> str:
    """Text written for the Markdown page, without its code marks."""
    return markdown.replace("`", "").replace("*", "")


def json_script(element_id: str, data: Any) -> str:
    """Data for the script, inert until read (`</` cannot end the element early)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, default=str).replace("</", "<\\/")
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


STYLE = """
:root { --fg: #1d1d1f; --muted: #5f6368; --line: #d0d4da; --hi: #fff1a8; --loop: #7b3fb3; }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem; }
h1, h2, h3 { line-height: 1.25; }
a { color: #1a56a8; }
.muted { color: var(--muted); }
.sev { display: inline-block; padding: 0 .5em; border-radius: .8em; font-size: .85em; font-weight: 600; color: #fff; }
.sev-game-breaking { background: #b3261e; } .sev-outcome-changing { background: #c15c00; }
.sev-rules-visible { background: #7a6a00; } .sev-cosmetic { background: #5f6368; } .sev-none { background: #9aa0a6; }
table { border-collapse: collapse; margin: .5rem 0; }
td, th { border: 1px solid var(--line); padding: .2rem .5rem; text-align: left; vertical-align: top; }
blockquote { margin: .5rem 0; padding: .25rem .75rem; border-left: 4px solid var(--line); }
.finding { border-top: 2px solid var(--line); margin-top: 2rem; }
.player { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem 1rem; margin: 1rem 0; }
.player:focus { outline: 3px solid #1a56a8; }
.controls button { font: inherit; margin-right: .25rem; }
.play-from { display: inline; }
.steps li { margin: .2rem 0; }
.steps li.current { background: #eef3fb; }
.steps li.in-loop { border-left: 4px solid var(--loop); padding-left: .4rem; }
.loop-note { color: var(--loop); font-weight: 600; }
.changed, mark { background: var(--hi); }
.state td.changed { font-weight: 600; }
.bar { display: inline-block; height: .9em; background: #1a56a8; vertical-align: middle; }
svg text { font: 12px system-ui, sans-serif; }
.state-graph-box { margin: .75rem 0; overflow-x: auto; }
.state-graph .sg-edge { stroke: #c4cbd4; }
.state-graph .on-path line, .state-graph .on-path path { stroke: #c62828; stroke-width: 2.5; }
.state-graph .on-path.current line, .state-graph .on-path.current path { stroke-width: 4.5; }
.state-graph .sg-node circle, .state-graph .sg-node rect { fill: #9fb3c8; }
.state-graph .sg-node.initial circle { stroke: #1d1d1f; stroke-width: 1.5; }
.state-graph .sg-node.on-path circle, .state-graph .sg-node.on-path rect { fill: #c62828; }
.state-graph .sg-node.current circle { r: 7px; fill: #fff; stroke: #1a56a8; stroke-width: 3; }
.state-graph .sg-node.current rect { fill: #fff; stroke: #1a56a8; stroke-width: 3; }
.state-graph text { font: 600 10px system-ui, sans-serif; fill: #c62828; }
.js .static-only { display: none; }
@media print {
  .controls, .no-print { display: none !important; }
  .player { break-inside: avoid; }
  .state-graph-box { overflow: visible; }
  .js .static-only { display: block; }
  details { display: block; } details > * { display: block; }
  a { color: inherit; text-decoration: none; }
}
"""

# The trace player: each `.player` reads its trace from the JSON element its `data-trace` names.
# Left/right arrows (or j/k) step the focused player, Home/End jump; the state table highlights
# what the current step changed and the state graph rings the current state; at the end of a lasso,
# forward goes round the loop again.
# n/p move between findings. 'play from here' posts the trace and the current step to a running
# `rulecheck play`.
SCRIPT = r"""
document.documentElement.classList.add('js');
(function () {
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function setup(player) {
    var data = JSON.parse(document.getElementById(player.dataset.trace).textContent);
    var n = data.steps.length, at = 0, states = [data.initial];
    data.steps.forEach(function (s) { var next = Object.assign({}, states[states.length - 1]); s.changes.forEach(function (c) { next[c[0]] = c[2]; }); states.push(next); });
    var view = player.querySelector('.view'), items = player.querySelectorAll('.steps > li');
    function show(k) {
      at = Math.max(0, Math.min(n, k));
      view.innerHTML = '';
      var head = el('div', 'where', at === 0 ? 'Start (step 0 of ' + n + ')' : 'Step ' + at + ' of ' + n);
      view.appendChild(head);
      if (at > 0) {
        var s = data.steps[at - 1];
        view.appendChild(el('p', 'action', s.text));
        s.clauses.forEach(function (c) {
          var q = el('blockquote', 'clause'); q.appendChild(el('span', '', '\u201c' + c.says + '\u201d'));
          q.appendChild(el('div', 'muted', '\u2014 ' + (c.at || c.id) + ' (' + c.id + ')')); view.appendChild(q);
        });
        if (s.changes.length) {
          var ul = el('ul', 'changes');
          s.changes.forEach(function (c) { var li = el('li'); li.appendChild(el('mark', '', c[0])); li.appendChild(document.createTextNode(': ' + c[1] + ' \u2192 ' + c[2])); ul.appendChild(li); });
          view.appendChild(ul);
        }
      }
      if (data.loop_start !== null && at === n) view.appendChild(el('p', 'loop-note', '\u21ba The play is back where it was after step ' + data.loop_start + ': the loop repeats forever.'));
      var changed = {}; if (at > 0) data.steps[at - 1].changes.forEach(function (c) { changed[c[0]] = true; });
      player.querySelectorAll('.state tr[data-el]').forEach(function (tr) {
        var cell = tr.querySelector('td'); cell.textContent = states[at][tr.dataset.el];
        cell.classList.toggle('changed', !!changed[tr.dataset.el]);
      });
      items.forEach(function (li, i) { li.classList.toggle('current', i === at - 1); });
      player.querySelectorAll('.play-from input[name=step]').forEach(function (input) { input.value = String(at); });
      player.querySelectorAll('a.play-offline').forEach(function (a) {
        var q = new URLSearchParams(JSON.parse(a.dataset.query)); q.set('moves', JSON.stringify(JSON.parse(a.dataset.moves).slice(0, at)));
        a.href = a.dataset.page + '?' + q.toString();
      });
      function here(attr, g) { return g.getAttribute(attr).split(' ').indexOf(String(at)) >= 0; }
      player.querySelectorAll('.state-graph [data-at]').forEach(function (g) { g.classList.toggle('current', here('data-at', g)); });
      player.querySelectorAll('.state-graph [data-steps]').forEach(function (g) { g.classList.toggle('current', here('data-steps', g)); });
    }
    function forward() { if (at === n && data.loop_start !== null) show(data.loop_start + 1); else show(at + 1); }
    player.querySelector('.prev').addEventListener('click', function () { show(at - 1); });
    player.querySelector('.next').addEventListener('click', forward);
    player.addEventListener('keydown', function (e) {
      if (e.key === 'ArrowRight' || e.key === 'j') { forward(); e.preventDefault(); }
      else if (e.key === 'ArrowLeft' || e.key === 'k') { show(at - 1); e.preventDefault(); }
      else if (e.key === 'Home') { show(0); e.preventDefault(); }
      else if (e.key === 'End') { show(n); e.preventDefault(); }
    });
    player.querySelectorAll('.controls').forEach(function (c) { c.hidden = false; });
    show(0);
  }
  document.querySelectorAll('.player').forEach(setup);
  // n / p: the next or previous finding; its first player takes the focus, ready for the arrows.
  var findings = Array.prototype.slice.call(document.querySelectorAll('.finding')), current = -1;
  document.addEventListener('keydown', function (e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || !findings.length) return;
    if (e.key !== 'n' && e.key !== 'p') return;
    current = Math.max(0, Math.min(findings.length - 1, current + (e.key === 'n' ? 1 : -1)));
    var target = findings[current], player = target.querySelector('.player');
    if (target.scrollIntoView) target.scrollIntoView();
    (player || target).focus();
    e.preventDefault();
  });
})();
"""
