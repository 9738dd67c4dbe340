// The rules page: draws each worked example's positions on small boards.
import { Board } from "./board.js";

const data = JSON.parse(document.getElementById("rules-data").textContent);
// The first six points' boards (the goal, a turn, six, capture, safe squares, home).
const first = document.getElementById("basics-data");
if (first) data.basics = JSON.parse(first.textContent);
for (const svg of document.querySelectorAll("svg.mini")) {
  const example = data[svg.dataset.preset][Number(svg.dataset.example)];
  const snapshot = example.frames[Number(svg.dataset.frame)];
  const board = new Board(svg, example.board, { label: svg.getAttribute("aria-label") });
  board.render(snapshot, { moves: snapshot.legal });
}

// The presets are folded (<details>): a link to one, or to an example inside one, opens it.
function openTarget() {
  const id = decodeURIComponent(window.location.hash.slice(1));
  const target = id && document.getElementById(id);
  const folded = target && target.closest("details");
  if (folded && !folded.open) {
    folded.open = true;
    target.scrollIntoView();
  }
}
window.addEventListener("hashchange", openTarget);
openTarget();
