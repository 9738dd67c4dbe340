// The guide's boards: each position drawn from the engine's snapshot, as on the rules page
// (a file, not inline: the Content-Security-Policy runs only the site's own script files).
import { Board } from "./board.js";

const data = JSON.parse(document.getElementById("guide-data").textContent);
for (const svg of document.querySelectorAll("svg.mini")) {
  const example = data[Number(svg.dataset.board)];
  const snapshot = example.frames[Number(svg.dataset.frame)];
  new Board(svg, example.board, { label: svg.getAttribute("aria-label") }).render(snapshot, { moves: snapshot.legal });
}
