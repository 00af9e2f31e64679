// Steps the first trace player of an HTML report page with key presses, in jsdom, and prints
// what it shows after each press: the position line, the highlighted state elements, the loop
// note and the steps of the state graph's ringed state. Used by tests/test_html_player.py.
const { JSDOM } = require("jsdom");
const fs = require("fs");
const [page, keys] = [process.argv[2], process.argv[3].split(",")];
const dom = new JSDOM(fs.readFileSync(page, "utf8"), { runScripts: "dangerously" });
const doc = dom.window.document;
const player = doc.querySelector(".player");
player.focus();
if (keys[0] === "n" || keys[0] === "p") player.blur();  // finding navigation starts from the page
const seen = [];
function look(key) {
  seen.push({
    key,
    where: player.querySelector(".view .where").textContent,
    changed: [...player.querySelectorAll(".state td.changed")].map((td) => td.parentElement.dataset.el),
    values: Object.fromEntries([...player.querySelectorAll(".state tr[data-el]")].map((tr) => [tr.dataset.el, tr.querySelector("td").textContent])),
    loop: !!player.querySelector(".view .loop-note"),
    current: [...player.querySelectorAll(".steps > li")].findIndex((li) => li.classList.contains("current")),
    controls: !player.querySelector(".controls").hidden,
    focused: doc.activeElement === player,
    ringed: [...player.querySelectorAll(".state-graph .sg-node.current")].map((g) => g.getAttribute("data-at").split(" ").map(Number)),
  });
}
look("");
for (const key of keys) {
  const target = key === "n" || key === "p" ? doc.body : player;  // finding navigation listens on the page
  target.dispatchEvent(new dom.window.KeyboardEvent("keydown", { key, bubbles: true }));
  look(key);
}

process.stdout.write(JSON.stringify(seen));
