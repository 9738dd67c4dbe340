// The match report beside the replay (issue 31): each seat's winning chances as a chart, the
// dice luck and decisions, and the costliest moves; a tap on the chart or a costly move shows
// that step on the board (through the replay's own slider).
import { colourName } from "./i18n.js";
import { botReason, lostReason } from "./reasons.js";

const gettext = window.gettext || ((s) => s);
const interpolate = window.interpolate || ((fmt, args) => fmt.replace(/%s/g, () => args.shift()));

const cfg = JSON.parse(document.getElementById("replay-config").textContent);
const reportEl = document.getElementById("replay-report");
const $ = (id) => document.getElementById(id);
const NS = "http://www.w3.org/2000/svg";
const INK = { red: "#d33", green: "#2a2", yellow: "#c90", blue: "#36c" };
const W = 320;
const H = 170;
const PAD = { l: 30, r: 6, t: 8, b: 22 };

// Numbers in the page's language: its digits, decimal sign and percent sign's place
// ("+18.0%", "+18,0 %" in German, "+١٨٫٠٪" in Arabic).
const LANG = document.documentElement.lang || undefined;
const percent = (digits, sign) => new Intl.NumberFormat(LANG, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits, signDisplay: sign ? "exceptZero" : "auto" });
const SHARE = percent(1, false);
const CHANGE = percent(1, true);
const WHOLE = percent(0, false);
const ONE_PLACE = new Intl.NumberFormat(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const COUNT = new Intl.NumberFormat(LANG);
const pct = (x, sign = false) => (sign ? CHANGE : SHARE).format(x);
const seatName = (corner) => (cfg.seats.find((s) => s.corner === Number(corner)) || {}).name || corner;
const seatColour = (corner) => (cfg.seats.find((s) => s.corner === Number(corner)) || {}).colour || "grey";
// A corner's colour as the page says it (the reasons name captured and partners' pawns so).
const cornerName = (corner) => colourName((cfg.seats.find((s) => s.corner === Number(corner)) || {}).colour || (cfg.board.colours || [])[corner] || String(corner));

// The frame of the replay a stored seq is shown at (the state after that action).
function frameOf(seq) {
  // The steps' seqs are sent as the change from the step before (replay_steps.js).
  let at = 0;
  const i = cfg.steps.seq.findIndex((change) => (at += change) >= seq);
  return i < 0 ? cfg.steps.seq.length - 1 : i;
}

function jump(frame) {
  const slider = $("slider");
  slider.value = String(frame);
  slider.dispatchEvent(new Event("input"));
  $("board").scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

function chart(report) {
  const svg = $("chances-chart");
  svg.replaceChildren();
  const points = report.chances;
  const n = Math.max(1, points.length - 1);
  const x = (i) => PAD.l + ((W - PAD.l - PAD.r) * i) / n;
  const y = (p) => PAD.t + (H - PAD.t - PAD.b) * (1 - p);
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    el("line", { x1: PAD.l, x2: W - PAD.r, y1: y(p), y2: y(p), class: "grid" }, svg);
    el("text", { x: PAD.l - 4, y: y(p) + 3, class: "axis", "text-anchor": "end" }, svg).textContent = WHOLE.format(p);
  }
  const last = points[points.length - 1];
  el("text", { x: W - PAD.r, y: H - 6, class: "axis", "text-anchor": "end" }, svg).textContent =
    interpolate(gettext("turn %s"), [COUNT.format(last.turn)]);
  el("text", { x: PAD.l, y: H - 6, class: "axis" }, svg).textContent = interpolate(gettext("turn %s"), [COUNT.format(1)]);
  for (const corner of Object.keys(report.seats)) {
    const d = points.map((pt, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(pt.chances[corner]).toFixed(1)}`).join("");
    el("path", { d, class: "line", stroke: INK[seatColour(corner)] || "#555", "data-corner": corner }, svg);
  }
  const index = new Map(points.map((pt, i) => [pt.seq, i]));
  for (const s of report.swings || []) {
    const i = index.get(s.seq);
    if (i === undefined) continue;
    const ring = el("circle", { cx: x(i), cy: y(points[i].chances[s.corner]), r: 4.5, class: "swing", stroke: INK[seatColour(s.corner)] || "#555" }, svg);
    const title = el("title", {}, ring);
    title.textContent = interpolate(gettext("%s: %s in one turn"), [seatName(s.corner), pct(s.change, true)]);
  }
  const cursor = el("line", { x1: 0, x2: 0, y1: PAD.t, y2: H - PAD.b, class: "cursor", visibility: "hidden" }, svg);
  svg.addEventListener("click", (evt) => {
    const box = svg.getBoundingClientRect();
    const at = ((evt.clientX - box.left) / box.width) * W;
    const i = Math.max(0, Math.min(points.length - 1, Math.round(((at - PAD.l) / (W - PAD.l - PAD.r)) * n)));
    cursor.setAttribute("x1", x(i));
    cursor.setAttribute("x2", x(i));
    cursor.setAttribute("visibility", "visible");
    jump(frameOf(points[i].seq));
  });
}

// A figure with a second, smaller line under it (sixes under the dice, best moves under the
// moves): five columns fit a phone.
function cell(text, under) {
  const td = document.createElement("td");
  td.textContent = text;
  if (under) {
    const small = document.createElement("small");
    small.textContent = under;
    td.append(document.createElement("br"), small);
  }
  return td;
}

function figures(report) {
  const body = $("report-figures").querySelector("tbody");
  body.replaceChildren();
  const costly = [];
  const yours = new Set(($("match-report").dataset.yours || "").split(",").filter(Boolean));
  const first = report.chances[0].chances;
  const last = report.chances[report.chances.length - 1].chances;
  for (const [corner, s] of Object.entries(report.seats)) {
    const tr = document.createElement("tr");
    const start = first[corner];
    const end = last[corner];
    // The rest, whatever the report's version: the change less the dice and the moves.
    const rest = end - start - s.luck + s.lost;
    const name = colourName(seatColour(corner));
    const who = cell(yours.has(corner) ? interpolate(gettext("%s (you)"), [name]) : name);
    who.classList.add(`ink-${seatColour(corner)}`);
    if (yours.has(corner)) tr.classList.add("yours");
    tr.append(
      who,
      cell(pct(s.luck, true), interpolate(gettext("sixes %s (%s)"), [COUNT.format(s.sixes), ONE_PLACE.format(s.expected_sixes)])),
      cell(s.lost > 0.0005 ? pct(-s.lost, true) : pct(0), s.best_share === null ? "" : interpolate(gettext("best %s"), [pct(s.best_share)])),
      cell(pct(rest, true)),
      cell(WHOLE.format(end), interpolate(gettext("from %s"), [WHOLE.format(start)])),
    );
    body.appendChild(tr);
    for (const c of s.costliest) costly.push({ ...c, corner });
  }
  costly.sort((a, b) => b.lost - a.lost);
  const ol = $("report-costliest");
  ol.replaceChildren();
  for (const c of costly.slice(0, 6)) {
    const li = document.createElement("li");
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "btn small costly-move";
    btn.dataset.seq = String(c.seq);
    btn.textContent = gettext("Show");
    // The position the move was chosen in (just before it), then the move itself.
    btn.addEventListener("click", () => jump(Math.max(0, frameOf(c.seq) - 1)));
    const words = document.createElement("span");
    // A report stored before the codes (version 1) says its moves in English only.
    const why = lostReason(c.why_said, cornerName) || c.why;
    words.textContent = interpolate(gettext("%s %s (%s); better: %s. %s"), [
      colourName(seatColour(c.corner)),
      botReason(c.played_said, cornerName) || c.played,
      pct(-c.lost, true),
      botReason(c.better_said, cornerName) || c.better,
      why.charAt(0).toLocaleUpperCase(LANG) + why.slice(1),
    ]);
    li.append(btn, " ", words);
    ol.appendChild(li);
  }
  if (!costly.length) {
    const li = document.createElement("li");
    li.textContent = gettext("Every move with a choice was the best one.");
    ol.appendChild(li);
  }
}

function render(report) {
  $("report-pending").hidden = true;
  $("report-ready").hidden = false;
  $("match-report").dataset.state = "ready";
  chart(report);
  figures(report);
}

async function poll(code) {
  // Until the report is stored: ask again every few seconds.
  for (let i = 0; i < 120; i++) {
    await new Promise((r) => setTimeout(r, 4000));
    try {
      const response = await fetch(`/api/matches/${code}/replay`, { credentials: "same-origin" });
      if (!response.ok) continue;
      const record = await response.json();
      if (record.report && record.report.state === "ready") {
        render(record.report);
        return;
      }
    } catch {
      // the network blinked: try again
    }
  }
}

if (reportEl) {
  const report = JSON.parse(reportEl.textContent);
  if (report && report.state === "ready") render(report);
  else if (report && report.state === "pending") poll($("match-report").dataset.code);
}
