// The home page's preview board (a file, not inline: the Content-Security-Policy runs only
// the site's own script files). Its data is in the page's json_script block.
import { Board } from "./board.js";

const gettext = window.gettext || ((s) => s);
const config = JSON.parse(document.getElementById("preview-board").textContent);
const board = new Board(document.querySelector("svg.preview"), config, {
  label: gettext("A Ludo board with pawns out on the track"),
});
board.render({ pawns: [[-1, 4, 20, 53], [-1, -1, 10, 56], [-1, -1, -1, 0], [30, -1, -1, -1]] });
