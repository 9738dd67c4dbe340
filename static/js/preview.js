// The home page's preview board (a file, not inline: the Content-Security-Policy runs only
// the site's own script files). Its data is in the page's json_script block.
import { Board } from "./board.js";

// The board's label is translated in the template (data-preview-label on this script's tag).
const config = JSON.parse(document.getElementById("preview-board").textContent);
const label = document.querySelector("script[data-preview-label]").dataset.previewLabel;
const board = new Board(document.querySelector("svg.preview"), config, { label });
board.render({ pawns: [[-1, 4, 20, 53], [-1, -1, 10, 56], [-1, -1, -1, 0], [30, -1, -1, -1]] });
