// The replay viewer: steps through a finished match and re-derives every die roll from
// the revealed seed in this browser, so nobody has to take the server's word for it.
import { colourName, fmt, gettext, ngettext } from "./i18n.js";
import { Board, markIcon } from "./board.js";
import { expandRolls, expandSteps } from "./replay_steps.js";

const cfg = JSON.parse(document.getElementById("replay-config").textContent);
const $ = (id) => document.getElementById(id);
const frames = expandSteps(cfg);
const board = new Board($("board"), cfg.board, { label: gettext("Ludo board") });
let at = 0;
let timer = null; // autoplay
const STEP_MS = 1100;
// The autoplay's speed (times STEP_MS's pace), as chosen last time on this device.
const SPEED_KEY = "ludo.replay.speed";
let speed = 1;

$("slider").max = String(frames.length - 1);
$("jump").max = String(frames[frames.length - 1].turn);

// Where the replay is, and who played the step when it was not the seat's player: one whole
// sentence for each `by` code (games.models.BY_CHOICES).
function stepWords(by) {
  if (by === "bot") return gettext("Step %(at)s of %(last)s · turn %(turn)s · played by the BOT");
  if (by === "timeout") return gettext("Step %(at)s of %(last)s · turn %(turn)s · played by the server when time ran out");
  if (by === "auto") return gettext("Step %(at)s of %(last)s · turn %(turn)s · played for the seat: its only legal move");
  return gettext("Step %(at)s of %(last)s · turn %(turn)s");
}

function show(i) {
  const next = Math.max(0, Math.min(frames.length - 1, i));
  // One step forward walks the pawns; a jump places them.
  const walk = next === at + 1;
  at = next;
  const f = frames[at];
  board.render(f.position, { animate: walk, turn: f.position.to_play === undefined || f.position.phase === "over" ? null : { corner: f.position.to_play, face: f.position.phase === "move" ? f.position.die || 0 : 0, clock: null } });
  $("slider").value = String(at);
  $("jump").value = String(f.in ?? f.turn); // the turn box follows the step shown
  const where = { at, last: frames.length - 1, turn: f.in ?? f.turn, by: f.by };
  $("where-am-i").textContent = fmt(stepWords(f.by), where);
  const ul = $("step-events");
  ul.replaceChildren();
  for (const w of f.words.length ? f.words : [f.title]) {
    const li = document.createElement("li");
    li.textContent = w;
    ul.appendChild(li);
  }
  $("prev").disabled = at === 0;
  $("first").disabled = at === 0;
  $("next").disabled = at === frames.length - 1;
  $("last").disabled = at === frames.length - 1;
  if (at === frames.length - 1) pause();
  for (const li of $("all-steps").children) li.classList.toggle("current", Number(li.dataset.step) === at);
}

function seats() {
  const ul = $("seats");
  for (const s of cfg.seats) {
    const li = document.createElement("li");
    li.className = "seat";
    li.appendChild(markIcon(s.colour));
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = s.name;
    name.dir = "auto"; // a player's own name: isolated from the page around it
    li.appendChild(name);
    ul.appendChild(li);
  }
}

function allSteps() {
  const ol = $("all-steps");
  for (let i = frames.length - 1; i >= 1; i -= 1) {
    const li = document.createElement("li");
    li.dataset.step = String(i);
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.textContent = `${i}. ${frames[i].words.join("; ")}`;
    b.addEventListener("click", () => show(i));
    li.appendChild(b);
    ol.appendChild(li);
  }
}

function pause() {
  clearInterval(timer);
  timer = null;
  $("play").textContent = gettext("▶ Play");
  $("play").setAttribute("aria-pressed", "false");
}

$("play").addEventListener("click", () => {
  if (timer) {
    pause();
    return;
  }
  if (at === frames.length - 1) show(0);
  $("play").textContent = gettext("❚❚ Pause");
  $("play").setAttribute("aria-pressed", "true");
  play();
});

function play() {
  clearInterval(timer);
  timer = setInterval(() => show(at + 1), STEP_MS / speed);
}

function chooseSpeed(value, remember) {
  const chosen = Number(value);
  if (![...$("speed").options].some((o) => Number(o.value) === chosen)) return;
  speed = chosen;
  $("speed").value = String(value);
  if (remember) {
    try {
      localStorage.setItem(SPEED_KEY, String(value));
    } catch {
      // Storage refused (a private window): the choice holds for this page only.
    }
  }
  if (timer) play(); // a replay running goes on at the new pace
}

$("speed").addEventListener("change", () => chooseSpeed($("speed").value, true));
try {
  const kept = localStorage.getItem(SPEED_KEY);
  if (kept) chooseSpeed(kept, false);
} catch {
  // No storage: the normal pace.
}
$("prev").addEventListener("click", () => show(at - 1));
$("next").addEventListener("click", () => show(at + 1));
$("first").addEventListener("click", () => show(0));
$("last").addEventListener("click", () => show(frames.length - 1));
$("slider").addEventListener("input", () => show(Number($("slider").value)));
$("jump").addEventListener("change", () => {
  const turn = Number($("jump").value);
  // A frame's `turn` is the turn after its action (a passing move says the next one), so
  // look for the first action played in that turn: its `in` (older pages: `turn`).
  const i = turn <= 1 ? 0 : frames.findIndex((f, k) => k > 0 && (f.in ?? f.turn) >= turn);
  if (i >= 0) show(i);
});
document.addEventListener("keydown", (evt) => {
  const tag = (evt.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select") return;
  if (evt.key === "ArrowLeft") show(at - 1);
  if (evt.key === "ArrowRight") show(at + 1);
});

// ------------------------------------------------------------------ dice proof

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
const enc = new TextEncoder();

async function derive(key, message) {
  for (let k = 0; ; k += 1) {
    const text = k === 0 ? message : `${message}:${k}`;
    const digest = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(text)));
    for (const byte of digest) if (byte < 252) return (byte % 6) + 1;
  }
}

async function proof() {
  const p = cfg.proof;
  $("commitment").textContent = p.commitment;
  $("server-seed").textContent = p.server_seed;
  $("client-seed").textContent = p.client_seed;
  const result = $("proof-result");
  if (!globalThis.crypto || !crypto.subtle) {
    result.textContent = gettext("This browser cannot check here (Web Crypto needs a secure page); the recipe below works with any HMAC tool.");
    return;
  }
  const committed = hex(await crypto.subtle.digest("SHA-256", enc.encode(p.server_seed))) === p.commitment;
  const key = await crypto.subtle.importKey("raw", enc.encode(p.server_seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const body = $("proof-rolls").querySelector("tbody");
  let bad = 0;
  let checked = 0;
  for (const r of expandRolls(p.rolls)) {
    const tr = document.createElement("tr");
    // The dice number: n, or after an undo the withdrawn roll's number it replays.
    const die = r.die ?? r.n;
    const derived = r.chosen ? null : await derive(key, `${p.client_seed}:${die}`);
    const ok = r.chosen || derived === r.face;
    if (!r.chosen) checked += 1;
    if (!ok) bad += 1;
    const seat = cfg.seats.find((s) => s.corner === r.corner);
    // Rolls are counted from 1 here; the seed message uses the stored number (from 0).
    for (const text of [die === r.n ? String(r.n + 1) : fmt(gettext("%(n)s (replays %(die)s)"), { n: r.n + 1, die: die + 1 }), seat ? colourName(seat.colour) : String(r.corner), String(r.face), r.chosen ? gettext("chosen (Dice control)") : String(derived)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    td.className = ok ? "ok" : "bad";
    td.textContent = ok ? "✓" : "✗";
    tr.appendChild(td);
    tr.addEventListener("click", () => show(r.frame));
    body.appendChild(tr);
  }
  result.className = committed && !bad ? "ok" : "bad";
  result.textContent = committed
    ? bad
      ? fmt(ngettext("The seed matches its commitment, but %(bad)s of %(checked)s roll does not match the seed.", "The seed matches its commitment, but %(bad)s of %(checked)s rolls do not match the seed.", checked), { bad, checked })
      : fmt(ngettext("Checked in your browser: the seed matches its commitment, and its %(checked)s roll matches the seed.", "Checked in your browser: the seed matches its commitment, and all %(checked)s rolls match the seed.", checked), { checked })
    : gettext("The revealed seed does NOT match the commitment.");
  result.id = "proof-result";
}

seats();
allSteps();
show(0);
proof();
