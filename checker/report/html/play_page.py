"""The page of `rulecheck play`: one position of a game, its legal moves to click, undo and redo.

It renders nothing itself: the script asks the server for the position its address names
(`/api/position`, then `/api/differs` for where the readings part), and keeps undo and redo as
lists of moves, so every position is a link. The style sheet is the report's.
"""

from __future__ import annotations

from checker.report.html.page import STYLE, esc, json_script

PLAY_STYLE = """
.play { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.5rem; }
.play h2 { margin: .5rem 0; font-size: 1.15rem; }
.bar-row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
.bar-row button, .bar-row select, .bar-row input { font: inherit; }
.mover { margin: .75rem 0; }
.mover h3 { margin: .25rem 0; font-size: 1rem; }
button.move { display: block; width: 100%; text-align: left; font: inherit; margin: .25rem 0; padding: .35rem .6rem;
  border: 1px solid var(--line); border-radius: .4rem; background: #f7f9fc; cursor: pointer; }
button.move:hover, button.move:focus { background: #eef3fb; }
button.move.suggested { outline: 3px solid #2e7d32; }
button.move .cites { display: block; color: var(--muted); font-size: .85em; }
button.move .chance { float: right; font-weight: 600; }
#watched li.breaks { color: #b3261e; font-weight: 600; }
#watched li.reached { color: #2e7d32; }
#watched li.earlier { color: #c15c00; }
#status { font-weight: 600; }
#cut, #error { color: #b3261e; }
#history li { margin: .1rem 0; }
#history li a { cursor: pointer; }
#differs li { margin: .3rem 0; }
.state td.changed { background: var(--hi); font-weight: 600; }
@media (max-width: 50rem) { .play { grid-template-columns: 1fr; } }
"""

# The position the address names is fetched and drawn; a click on a move appends it, undo moves
# the last one to the redo list. Every change of position replaces the address, so reloading or
# sharing it shows the same position.
PLAY_SCRIPT = r"""
(function () {
  var params = new URLSearchParams(location.search);
  var pos = {model: params.get('model') || '', init: parseInt(params.get('init') || '0', 10), c: params.get('c') || '{}',
             moves: JSON.parse(params.get('moves') || '[]'), readings: {}};
  params.forEach(function (v, k) { if (k.indexOf('r.') === 0) pos.readings[k.slice(2)] = v; });
  var redo = [], game = null, last = null;
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function $(id) { return document.getElementById(id); }
  function query() {
    var q = new URLSearchParams({model: pos.model, init: String(pos.init), moves: JSON.stringify(pos.moves)});
    if (pos.c !== '{}') q.set('c', pos.c);
    Object.keys(pos.readings).sort().forEach(function (k) { q.set('r.' + k, pos.readings[k]); });
    return q.toString();
  }
  // Without a server (a report's page of a small game), the embedded whole game answers.
  var whole = document.getElementById('whole-game') ? JSON.parse(document.getElementById('whole-game').textContent) : null;
  function ask(path) {
    if (whole) return Promise.resolve(answer(path));
    return fetch(path + '?' + query()).then(function (r) { return r.json(); });
  }
  function answer(path) {
    if (path === '/api/game') return whole.game;
    if (path === '/api/differs') return {error: 'this page plays one reading of each point; `rulecheck play` compares them'};
    var node = whole.initial[pos.init], history = [], visited = [node], cut = null, last = null;
    if (node === undefined) return {error: 'deal ' + pos.init + ' does not exist: the game has ' + whole.initial.length};
    for (var i = 0; i < pos.moves.length; i++) {
      var move = whole.nodes[node].moves.filter(function (m) { return m.key === pos.moves[i]; })[0];
      if (!move) { cut = {step: i + 1, why: 'move ' + (i + 1) + ' (it is not a legal move there)'}; break; }
      history.push({key: move.key, text: move.text, by: move.by, after: move.after}); last = move; node = move.to; visited.push(node);
    }
    var here = whole.nodes[node];
    if (path === '/api/suggest') {
      if (!here.moves.length) return {key: null, why: 'no move to suggest: nothing is legal here'};
      return {key: here.moves[Math.floor(Math.random() * here.moves.length)].key, why: 'a random legal move (perfect play needs `rulecheck play`)'};
    }
    var state = {}; here.state.forEach(function (kv) { state[whole.names[kv[0]]] = whole.values[kv[1]]; });
    return {model: whole.model, readings: whole.readings, constants: whole.constants, init: pos.init, initial: whole.initial.length,
            moves_taken: history.map(function (h) { return h.key; }), history: history, cut: cut, state: state,
            changed: last ? last.changes.map(function (c) { return c[0]; }) : [], terminal: here.terminal, outcome: here.outcome,
            moves: here.moves, error: null, properties: whole.properties,
            shows: visited.map(function (n) { return whole.nodes[n].shows; }), same_as: visited.map(function (n) { return visited.indexOf(n); })};
  }
  // What the play shows of each property: a state or a step that shows it (the first one), and
  // whether the current position does; a return to an earlier position is a loop.
  function shown(p) {
    var last = p.shows.length - 1, out = [];
    p.properties.forEach(function (prop) {
      var hits = [], now;
      if (prop.kind === 'after') { p.history.forEach(function (h, i) { if (h.after.indexOf(prop.id) >= 0) hits.push(i + 1); }); now = hits.length > 0 && hits[hits.length - 1] === last; }
      else if (prop.kind === 'terminates') { p.same_as.forEach(function (e, i) { if (e !== i && !hits.length) hits.push(e); }); now = hits.length > 0; }
      else { p.shows.forEach(function (s, i) { if (s.indexOf(prop.id) >= 0) hits.push(i); }); now = p.shows[last].indexOf(prop.id) >= 0; }
      if (hits.length) out.push({id: prop.id, kind: prop.kind, says: prop.says, step: hits[0], now: now});
    });
    return out;
  }
  function go() {
    history.replaceState(null, '', '?' + query());
    $('status').textContent = 'working\u2026';
    ask('/api/position').then(draw);
  }
  function draw(p) {
    if (p.error && !p.moves) { $('status').textContent = ''; $('error').textContent = p.error; return; }
    last = p; $('error').textContent = p.error || '';
    pos.moves = p.moves_taken;
    history.replaceState(null, '', '?' + query());
    var n = p.history.length;
    $('status').textContent = (n === 0 ? 'Start' : 'After step ' + n) + (p.terminal ? ': the game is over' + (p.outcome ? ' (' + p.outcome + ')' : '') : '');
    $('cut').textContent = p.cut ? 'Under these readings the play stops before ' + p.cut.why + '.' : '';
    $('deal').value = p.init; $('deal').max = p.initial - 1; $('deals').textContent = 'of ' + p.initial;
    $('undo').disabled = n === 0; $('redo').disabled = redo.length === 0;
    var hist = $('history'); hist.innerHTML = '';
    p.history.forEach(function (h, i) {
      var li = el('li'), a = el('a', '', h.text); a.title = 'back to the position after this step';
      a.addEventListener('click', function () { redo = pos.moves.slice(i + 1).reverse().concat(redo); pos.moves = pos.moves.slice(0, i + 1); go(); });
      li.appendChild(el('span', 'muted', h.by + ': ')); li.appendChild(a); hist.appendChild(li);
    });
    var watched = $('watched'); watched.innerHTML = '';
    shown(p).forEach(function (w) {
      var li;
      if (w.kind === 'reachable') li = el('li', 'reached', 'reaches ' + w.id + ' (at step ' + w.step + '): ' + w.says);
      else if (w.now) li = el('li', 'breaks', (w.kind === 'terminates' ? 'back at the position after step ' + w.step + ': a loop, ' : 'this position breaks ') + w.id + ': ' + w.says);
      else li = el('li', 'earlier', 'broke ' + w.id + ' at step ' + w.step + ' (not at this position): ' + w.says);
      li.dataset.property = w.id; li.dataset.status = li.className; watched.appendChild(li);
    });
    if (!watched.children.length) watched.appendChild(el('li', 'muted', 'no property that one play can show is broken here'));
    var table = $('state'), blank = ['0', 'no', 'none', 'empty'], hidden = 0; table.innerHTML = '';
    Object.keys(p.state).forEach(function (k) {
      var changed = p.changed.indexOf(k) >= 0;
      if ($('all-values').checked === false && blank.indexOf(p.state[k]) >= 0 && !changed) { hidden++; return; }
      var tr = el('tr'); tr.appendChild(el('th', '', k)); var td = el('td', '', p.state[k]);
      if (changed) td.className = 'changed'; tr.appendChild(td); table.appendChild(tr);
    });
    $('hidden-values').textContent = hidden ? hidden + ' values that are 0, no, none or empty not shown' : '';
    var moves = $('moves'); moves.innerHTML = ''; var groups = {};
    p.moves.forEach(function (m) {
      if (!groups[m.by]) { groups[m.by] = el('div', 'mover'); groups[m.by].appendChild(el('h3', '', m.by)); moves.appendChild(groups[m.by]); }
      var b = el('button', 'move'); b.type = 'button'; b.dataset.key = m.key;
      if (m.probability !== undefined) b.appendChild(el('span', 'chance', Math.round(m.probability * 1000) / 10 + ' %'));
      b.appendChild(el('span', 'text', m.text));
      var cites = m.clauses.map(function (c) { return c.id + (c.at ? ' (' + c.at + ')' : ''); }).join('; ');
      if (cites) { var s = el('span', 'cites', cites); s.title = m.clauses.map(function (c) { return '\u201c' + c.says + '\u201d'; }).join('\n'); b.appendChild(s); }
      b.title = m.changes.map(function (c) { return c[0] + ': ' + c[1] + ' \u2192 ' + c[2]; }).join('\n');
      b.addEventListener('click', function () { take(m.key); });
      groups[m.by].appendChild(b);
    });
    if (!p.moves.length) moves.appendChild(el('p', 'muted', p.terminal ? 'The game is over.' : 'No legal move.'));
    $('roll').hidden = !p.moves.some(function (m) { return m.probability !== undefined; });
    $('why').textContent = '';
    var differs = $('differs'); differs.innerHTML = ''; differs.appendChild(el('li', 'muted', 'comparing the readings here\u2026'));
    ask('/api/differs').then(function (d) {
      differs.innerHTML = '';
      if (d.error) { differs.appendChild(el('li', '', d.error)); return; }
      d.forEach(function (x) {
        var li = el('li'); li.appendChild(el('strong', '', x.reading + '=' + x.option)); li.appendChild(el('span', 'muted', ' (' + x.says + '): '));
        li.appendChild(document.createTextNode((x.only_there.length ? 'would allow ' + x.only_there.join('; ') : '') + (x.only_there.length && x.only_here.length ? ', and ' : '') + (x.only_here.length ? 'would not allow ' + x.only_here.join('; ') : '') + (x.more ? ' (and ' + x.more + ' more)' : '')));
        differs.appendChild(li);
      });
      if (!d.length) differs.appendChild(el('li', 'muted', 'every option of every reading allows the same moves here'));
    });
  }
  function take(key) { pos.moves = pos.moves.concat([key]); redo = []; go(); }
  $('all-values').addEventListener('change', function () { if (last) draw(last); });
  $('undo').addEventListener('click', function () { if (pos.moves.length) { redo.unshift(pos.moves[pos.moves.length - 1]); pos.moves = pos.moves.slice(0, -1); go(); } });
  $('redo').addEventListener('click', function () { if (redo.length) { pos.moves = pos.moves.concat([redo.shift()]); go(); } });
  $('restart').addEventListener('click', function () { redo = []; pos.moves = []; go(); });
  $('deal').addEventListener('change', function () { redo = []; pos.moves = []; pos.init = parseInt($('deal').value, 10) || 0; go(); });
  $('random-deal').addEventListener('click', function () { if (last) { redo = []; pos.moves = []; pos.init = Math.floor(Math.random() * last.initial); go(); } });
  $('roll').addEventListener('click', function () {
    var chance = last.moves.filter(function (m) { return m.probability !== undefined; }), r = Math.random(), acc = 0;
    for (var i = 0; i < chance.length; i++) { acc += chance[i].probability; if (r < acc || i === chance.length - 1) { take(chance[i].key); return; } }
  });
  $('suggest').addEventListener('click', function () {
    $('why').textContent = 'thinking\u2026';
    ask('/api/suggest').then(function (s) {
      $('why').textContent = s.error || s.why;
      document.querySelectorAll('button.move').forEach(function (b) { b.classList.toggle('suggested', b.dataset.key === s.key); });
    });
  });
  ask('/api/game').then(function (g) {
    game = g; var select = $('model'); select.innerHTML = '';
    g.models.forEach(function (m) { var o = el('option', '', m.id); o.value = m.id; select.appendChild(o); });
    if (!pos.model) pos.model = g.models[0].id;
    select.value = pos.model;
    select.addEventListener('change', function () { pos = {model: select.value, init: 0, c: '{}', moves: [], readings: {}}; redo = []; readingsFor(); go(); });
    readingsFor(); go();
  });
  function readingsFor() {
    var box = $('readings'); box.innerHTML = '';
    var model = game.models.filter(function (m) { return m.id === pos.model; })[0];
    model.readings.forEach(function (r) {
      var label = el('label'); label.title = r.question; label.appendChild(document.createTextNode(r.name + ' '));
      var s = el('select'); s.dataset.reading = r.name;
      Object.keys(r.options).forEach(function (o) { var opt = el('option', '', o + (o === r.default ? ' (default)' : '')); opt.value = o; opt.title = r.options[o]; s.appendChild(opt); });
      s.value = pos.readings[r.name] || r.default;
      s.addEventListener('change', function () { if (s.value === r.default) delete pos.readings[r.name]; else pos.readings[r.name] = s.value; redo = []; go(); });
      if (whole) { s.disabled = true; s.value = whole.readings[r.name]; }
      label.appendChild(s); box.appendChild(label);
    });
    if (!model.readings.length) box.appendChild(el('span', 'muted', 'this model has no readings'));
    if (whole) box.appendChild(el('span', 'muted', 'the readings of this trace; `rulecheck play` changes them'));
  }
})();
"""


def play_page(game: str, whole: dict | None = None) -> str:
    """The page's frame; everything on it is filled in by the script, from the server's answers
    or, for a page without a server, from `whole` (a game's every position: `PlayGame.whole_game`)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>rulecheck play: {esc(game)}</title>\n<style>{STYLE}{PLAY_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>Play the rules: {esc(game)}</h1>\n"
        '<div class="bar-row"><label>model <select id="model"></select></label>'
        '<label>deal <input id="deal" type="number" min="0" value="0" style="width:5em"></label><span id="deals" class="muted"></span>'
        '<button id="random-deal" type="button">random deal</button><button id="restart" type="button">restart</button></div>\n'
        '<details open><summary>Readings (the points the text leaves open; hover for the question and each option)</summary>'
        '<div id="readings" class="bar-row"></div></details>\n'
        '<div class="play"><div>\n<h2>Position</h2><p id="status"></p><p id="cut"></p><p id="error"></p>\n'
        '<h3>Properties</h3><ul id="watched"></ul>\n<details open><summary>State</summary>'
        '<label class="muted"><input id="all-values" type="checkbox"> every value (also 0, no, none, empty)</label> <span id="hidden-values" class="muted"></span>'
        '<table class="state"><tbody id="state"></tbody></table></details>\n'
        "</div><div>\n<h2>Moves</h2>"
        '<div class="bar-row"><button id="undo" type="button">\u2190 undo</button><button id="redo" type="button">redo \u2192</button>'
        '<button id="roll" type="button" hidden>roll for me</button><button id="suggest" type="button">suggest a move</button></div>'
        '<p id="why" class="muted"></p><div id="moves"></div>\n'
        '<h3>Where the readings part here</h3><ul id="differs"></ul>\n'
        '<h3>The play so far</h3><ol id="history"></ol>\n</div></div>\n'
        + (json_script("whole-game", whole) + "\n" if whole is not None else "")
        + f"<script>{PLAY_SCRIPT}</script>\n</body>\n</html>\n"
    )
