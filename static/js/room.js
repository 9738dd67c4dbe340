// A room: the socket, the controls and the panel beside the board. The server decides
// everything; this page sends intents (roll, move) and draws each snapshot it gets back.
import { Board, Geometry, describePlace, drawDie, markIcon } from "./board.js";
import { colourName, fmt, formatNumber, gettext, ngettext } from "./i18n.js";
import { muted, play, setMuted } from "./sound.js";

const cfg = JSON.parse(document.getElementById("room-config").textContent);
const $ = (id) => document.getElementById(id);
const geo = new Geometry(cfg.board);
const colours = cfg.board.colours;
const Name = (corner) => colourName(colours[corner]);
// The server plays a lone legal move by itself after a short pause; this is only a fallback.
const AUTO_MOVE_MS = 3000;

let snap = cfg.snapshot;
snap.watchers ??= cfg.watchers;
const watching = !cfg.mine.length && cfg.mode !== "local";
document.body.classList.toggle("spectator", watching);
const BASE_TITLE = document.title;
const reactionsShown = cfg.reactions || {};
// Corners of players this viewer blocked (fairplay): their reactions are not shown at all.
const hiddenReactions = new Set(cfg.hidden_reactions || []);
let wasMyTurn = false;
let rollFocus = false; // Roll had the focus when it was pressed: give it back when Roll is back
let walking = 0; // ms of pawn walking still to watch (a lone move waits for it)
const lostSeen = new Set(); // corners this page saw lose their connection
let resultShown = null; // the status the result panel was last opened for
let rematchCode = cfg.rematch_code || null;
const bubbles = new Map(); // corner -> the reaction shown beside that seat, and until when
let socket = null;
let retry = 0;
let autoTimer = null;
let lastMoved = null;
let rolling = false;
let face = 0;
let lone = null; // the only legal move on offer, which the server plays by itself
// Nothing is left to undo (the server said so, or the page came so), until a person rolls or moves.
let undoEmpty = cfg.undo_empty === true;
const history = [];
// Action ids: unique per page and action, so a repeated frame changes nothing twice.
const PAGE_ID = [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, "0")).join("");
let sent = 0;
// An action made while the socket was not open (page just loaded, or reconnecting): sent once
// the room's state arrives, so no button press is lost. The server still judges it.
let pending = null;

const board = new Board($("board"), cfg.board, { onChoose: sendMove, label: gettext("Ludo board") });

// ------------------------------------------------------------------ words

const REASONS = { six: gettext("a six"), capture: gettext("a capture"), home: gettext("a pawn home"), plus: gettext("the +1 square"), try: gettext("another try for a six"), unusable_six: gettext("a six no pawn could use") };

// A bot's reason, from the code and data the server sends beside its English text (issue 29),
// in this page's language (games/match/saying.py says it the same way).
const BONUS_NAMES = { double: gettext("Double roll"), control: gettext("Dice control"), shield: gettext("Shield"), plus: gettext("+1") };
const BOT_SAYS = {
  home: gettext("brings %(pawn)s home"),
  out: gettext("brings %(pawn)s out of the yard"),
  column: gettext("moves %(pawn)s into its home column"),
  to_column: gettext("moves %(pawn)s to its home column"),
  safe: gettext("moves %(pawn)s to a safe square"),
  behind: gettext("moves %(pawn)s, the pawn furthest behind"),
  along: gettext("moves %(pawn)s, the pawn furthest along"),
  away: gettext("moves %(pawn)s away from a rival pawn"),
  away_all: gettext("moves %(pawn)s away from rival pawns"),
  reach: gettext("moves %(pawn)s out of a rival's reach"),
  shield: gettext("moves %(pawn)s under a Shield"),
};

const PAGE_LANG = document.documentElement.lang || "en";

function botReason(why) {
  if (!why || !why.code) return "";
  if (why.code === "hunch") return fmt(gettext("%(reason)s on a hunch"), { reason: botReason(why.base) });
  if (why.code === "missed") return fmt(why.missed === "capture" ? gettext("%(reason)s (it missed a capture)") : gettext("%(reason)s (it missed a safe square)"), { reason: botReason(why.base) });
  const pawn = why.of === null || why.of === undefined ? fmt(gettext("pawn %(n)s"), { n: why.pawn }) : fmt(gettext("%(colour)s's pawn %(n)s"), { colour: Name(why.of), n: why.pawn });
  if (why.code === "capture" || why.code === "capture_with") {
    const rows = why.captured || [];
    const total = rows.reduce((sum, row) => sum + row[1], 0);
    const owners = rows.map((row) => Name(row[0]));
    const caught = owners.length === 1 ? fmt(ngettext("%(owner)s's pawn", "%(owner)s's %(n)s pawns", total), { owner: owners[0], n: total }) : fmt(gettext("the pawns of %(owners)s"), { owners: owners.slice(0, -1).join(gettext(", ")) + gettext(" and ") + owners[owners.length - 1] });
    return why.code === "capture" ? fmt(gettext("captures %(captured)s"), { captured: caught }) : fmt(gettext("captures %(captured)s with %(pawn)s"), { captured: caught, pawn });
  }
  if (why.code === "bonus") return fmt(gettext("moves %(pawn)s onto the %(bonus)s square"), { pawn, bonus: BONUS_NAMES[why.bonus] || why.bonus });
  if (why.code === "steps") return fmt(ngettext("moves %(pawn)s %(n)s square", "moves %(pawn)s %(n)s squares", why.n), { pawn, n: why.n });
  return BOT_SAYS[why.code] ? fmt(BOT_SAYS[why.code], { pawn }) : "";
}

// The engine says why a roll is no use in English; the page says it again from its facts.
function noMoveReason(reason, die) {
  const found = /^no pawn is out, and only a ([\d or]+) brings one out/.exec(reason || "");
  if (found && found[1] === "6") return gettext("no pawn is out, and only a 6 brings one out of the yard");
  if (found) return fmt(gettext("no pawn is out, and only a %(faces)s brings one out of the yard"), { faces: found[1].replace(" or ", gettext(" or ")) });
  return fmt(gettext("no pawn can move %(die)s"), { die });
}
const STALE_HINT = new Set(["rolled", "moved", "released", "turn_passed", "undone"]);
const OUT_REASONS = { resigned: gettext("resigned"), timeout: gettext("timeout"), left: gettext("left"), disconnected: gettext("disconnected") };

const LEVEL_NAMES = { beginner: gettext("Beginner"), easy: gettext("Easy"), medium: gettext("Medium"), hard: gettext("Hard"), greedy: gettext("Greedy"), expert: gettext("Expert") };

// A person's name isolated, its bidi controls dropped; a bot's in the page's language.
const isolate = (t) => (t = String(t || "").replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")) && `\u2068${t}\u2069`;
function shownName(seat) {
  // (English keeps the wire's own words: "Kai, medium bot".)
  if (seat && seat.bot && seat.bot_name && seat.level && PAGE_LANG !== "en") return fmt(gettext("%(name)s, %(level)s bot"), { name: seat.bot_name, level: LEVEL_NAMES[seat.level] || seat.level });
  if (seat && seat.guest_tag && PAGE_LANG !== "en") return fmt(gettext("Guest %(tag)s"), { tag: seat.guest_tag });
  return seat ? (seat.bot ? seat.name : isolate(seat.name)) : "";
}

function seatName(corner) {
  const seat = (snap.seats || []).find((s) => s.corner === corner);
  if (!seat || !seat.name || seat.name === Name(corner)) return Name(corner);
  return fmt(gettext("%(colour)s (%(name)s)"), { colour: Name(corner), name: shownName(seat) });
}

function words(e) {
  const who = e.corner !== undefined ? Name(e.corner) : "";
  switch (e.kind) {
    case "rolled":
      return e.bonus === "double" ? fmt(gettext("%(who)s rolls %(face)s (Double roll: moves %(value)s)"), { who, face: e.face, value: e.value }) : fmt(gettext("%(who)s rolls %(face)s"), { who, face: e.face });
    case "no_move":
      return fmt(gettext("%(who)s cannot move: %(reason)s"), { who, reason: noMoveReason(e.reason, e.value) });
    case "six_forfeited":
      return fmt(gettext("%(who)s's six number %(sixes)s in a row is forfeited: no move"), { who, sixes: e.sixes });
    case "released":
      return fmt(gettext("%(who)s brings pawn %(pawn)s out onto the start square"), { who, pawn: e.pawn + 1 });
    case "moved":
      return e.square < 0 ? fmt(gettext("%(who)s moves pawn %(pawn)s up the home column"), { who, pawn: e.pawn + 1 }) : fmt(gettext("%(who)s moves pawn %(pawn)s to square %(square)s"), { who, pawn: e.pawn + 1, square: e.square });
    case "captured":
      return fmt(gettext("%(by)s captures %(who)s's pawn %(pawn)s: back to the yard"), { by: Name(e.by), who, pawn: e.pawn + 1 });
    case "home":
      return fmt(gettext("%(who)s's pawn %(pawn)s reaches home"), { who, pawn: e.pawn + 1 });
    case "finished":
      return fmt(gettext("%(who)s has every pawn home: place %(place)s"), { who, place: e.place });
    case "extra_roll":
      return fmt(gettext("%(who)s rolls again for %(reasons)s"), { who, reasons: (e.reasons || []).map((r) => REASONS[r] || r).join(gettext(" and ")) });
    case "turn_passed":
      return fmt(gettext("%(who)s to play"), { who: seatName(e.to) });
    case "won":
      return fmt(gettext("%(who)s wins"), { who: seatName(e.corner) });
    case "bonus_picked":
      return fmt(gettext("%(who)s picks up a %(bonus)s bonus"), { who, bonus: e.bonus });
    case "shielded":
      return fmt(gettext("%(who)s shields a pawn"), { who });
    case "resigned":
      return fmt(gettext("%(who)s is out (%(reason)s)"), { who, reason: OUT_REASONS[e.reason] || e.reason });
    case "started":
      return fmt(gettext("The match starts: %(who)s plays first"), { who: seatName(e.first) });
    case "joined":
      return fmt(gettext("%(who)s takes the %(colour)s seat"), { who: seatName(e.corner), colour: colourName(colours[e.corner]).toLowerCase() });
    case "timeout":
      return fmt(gettext("%(who)s ran out of time"), { who });
    case "leave":
      return e.reason === "disconnected" ? fmt(gettext("%(who)s was away too long: out of the match"), { who: seatName(e.corner) }) : fmt(gettext("%(who)s left the match (%(reason)s)"), { who: seatName(e.corner), reason: OUT_REASONS[e.reason] || e.reason });
    case "bot_took_seat":
      return fmt(gettext("%(who)s left: a bot plays the seat"), { who });
    case "away":
      return fmt(gettext("%(who)s is away: the computer plays until they are back"), { who });
    case "back":
      return fmt(gettext("%(who)s is back"), { who });
    case "disconnected":
      return fmt(gettext("%(who)s lost the connection"), { who: seatName(e.corner) });
    case "connected":
      return lostSeen.has(e.corner) ? fmt(gettext("%(who)s is back"), { who: seatName(e.corner) }) : "";
    case "reaction":
      if (hiddenReactions.has(e.corner)) return "";
      return fmt(gettext("%(who)s: %(text)s"), { who: seatName(e.corner), text: reactionsShown[e.r] || e.r });
    case "rematch":
      return fmt(gettext("%(who)s opened a rematch"), { who: seatName(e.by) });
    case "bot_said":
      return fmt(gettext("%(who)s: %(text)s"), { who: seatName(e.corner), text: (PAGE_LANG !== "en" && botReason(e.why)) || e.text });
    case "voided":
      return fmt(gettext("The match was voided: %(reason)s"), { reason: e.reason });
    case "unvoided":
      return gettext("A moderator undid the void: the match counts again");
    case "undone":
      return fmt(gettext("Undo: back to %(who)s's turn (the rolls and moves since are taken back)"), { who: seatName(e.corner) });
    case "ended":
      return gettext("The match is over; the dice seed is revealed");
    default:
      return "";
  }
}

/** Where a legal move goes and what it does, in words ("from square 3 to square 7: lands on a
 * safe square"), without naming the pawn. */
function movePath(m) {
  const from = describePlace(geo, m.corner, m.from, "from");
  let to;
  if (m.from < 0) to = gettext("onto its start square");
  else if (m.home) to = gettext("home");
  else to = describePlace(geo, m.corner, m.to, "to");
  const notes = [];
  if (m.captures && m.captures.length) {
    const pawns = m.captures.map(([c, p]) => fmt(gettext("%(colour)s's pawn %(pawn)s"), { colour: Name(c), pawn: p + 1 }));
    notes.push(fmt(gettext("captures %(pawns)s"), { pawns: pawns.join(gettext(" and ")) }));
  }
  if (m.safe) notes.push(gettext("lands on a safe square"));
  if (m.bonus) notes.push(fmt(gettext("picks up %(bonus)s"), { bonus: m.bonus === "plus" ? "+1" : m.bonus }));
  const path = fmt(gettext("%(from)s %(to)s"), { from, to });
  return notes.length ? fmt(gettext("%(path)s: %(notes)s"), { path, notes: notes.join(", ") }) : path;
}

/** A legal move in words: which pawn, from where to where, and what it does. */
function moveWords(m) {
  const values = { colour: Name(m.corner), pawn: m.pawn + 1, path: movePath(m) };
  if (m.corner === snap.to_play) return fmt(gettext("Pawn %(pawn)s %(path)s"), values);
  return fmt(gettext("%(colour)s's Pawn %(pawn)s %(path)s"), values);
}

// ------------------------------------------------------------------ whose turn

function seatOf(corner) {
  return (snap.seats || []).find((s) => s.corner === corner) || null;
}

function myTurn() {
  if (snap.status !== "active" || snap.to_play === null || snap.to_play === undefined) return false;
  const seat = seatOf(snap.to_play);
  // A seat the computer plays while its player is away is not theirs to act in until they
  // take it back (by connecting again: the "Take my seat back" button).
  if (!seat || seat.bot || seat.away) return false;
  return cfg.mine.includes(snap.to_play);
}

// ------------------------------------------------------------------ socket

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}${cfg.ws}`);
  socket.addEventListener("open", () => {
    retry = 0;
    document.body.classList.remove("offline");
  });
  socket.addEventListener("message", (evt) => {
    heardAt = Date.now(); // heartbeat (below)
    receive(JSON.parse(evt.data));
  });
  socket.addEventListener("close", () => {
    document.body.classList.add("offline");
    setStatus(gettext("Connection lost: reconnecting…"));
    retry = Math.min(retry + 1, 6);
    setTimeout(connect, 300 * 2 ** retry);
  });
}

// ------------------------------------------------------------------ heartbeat
// The server sends every socket a frame at least every 7.5 s (a "ping" when nothing happened).
// A socket silent for much longer is dead without being closed (a lost connection, a server
// killed): close it, and the reconnect brings the whole state back.
const SILENT_MS = 20000;
let heardAt = Date.now();
setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN && Date.now() - heardAt > SILENT_MS) {
    heardAt = Date.now();
    socket.close();
  }
}, 5000);

function send(t, d = {}) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    pending = { t, d };
    setStatus(gettext("Connecting to the room: your action goes as soon as it answers…"));
    return false;
  }
  sent += 1;
  const id = `${PAGE_ID}-${sent}`;
  socket.send(JSON.stringify({ t, v: snap.v, id, d }));
  return true;
}

function receive(frame) {
  if (frame.t === "state") {
    apply(frame.d, []);
    if (pending) {
      const { t, d } = pending;
      pending = null;
      if (t === "roll") rolling = true; // no second roll while this one is on its way
      send(t, d);
      render();
    }
  } else if (frame.t === "update") {
    const d = frame.d || {};
    const events = d.events || [];
    const next = d.state || d.snapshot;
    const first = events.find((e) => typeof e.seq === "number");
    if (first && typeof snap.v === "number" && first.seq > snap.v + 1) {
      // A gap: some change never reached us. Ask for the whole state.
      socket.send(JSON.stringify({ t: "resync" }));
      for (const e of events) note(e);
      if (next) apply(next, []);
      return;
    }
    if (next) apply(next, events);
  } else if (frame.t === "ping") {
    // Heartbeat (below): the server's v for this socket is ahead of ours: a change was missed.
    if (typeof frame.v === "number" && typeof snap.v === "number" && frame.v > snap.v) {
      socket.send(JSON.stringify({ t: "resync" }));
    }
  } else if (frame.t === "error") {
    // `text` is the refusal in this page's language (the server renders it from the code).
    const { code, message, text, state } = frame.d || {};
    if (code === "stale") {
      // The state the action missed comes with the answer (else ask for it).
      if (state) apply(state, []);
      else socket.send(JSON.stringify({ t: "resync" }));
      return;
    }
    rolling = false;
    stopShaking();
    if (code === "no_undo") undoEmpty = true;
    showError(text || message || code);
    render();
  }
}

// ------------------------------------------------------------------ actions

function sendRoll() {
  if (!canRoll()) return;
  rolling = true;
  rollFocus = [$("roll"), $("die-button"), document.body].includes(document.activeElement) || !document.activeElement;
  $("die").classList.remove("rolling");
  $("die").classList.add("shaking"); // until the server's face arrives
  play("roll");
  const bonus = document.querySelector("input[name=bonus]:checked")?.value || "";
  const d = {};
  if (bonus && !$("bonuses").hidden) {
    d.bonus = bonus;
    if (bonus === "control") d.face = Number($("control-face").value);
  }
  send("roll", d);
  const none = document.querySelector("input[name=bonus][value='']");
  if (none) none.checked = true;
  render();
}

function stopShaking() {
  $("die").classList.remove("shaking");
}

// A reaction as the site draws it: a face from static/reactions.svg (named in words for screen
// readers), or its short phrase; the same in the picker, on the board, the seats and history.
const reactionIcons = new Set(cfg.reaction_icons || []);
function reactionNode(key, className = "bubble") {
  const node = document.createElement("span");
  node.className = className;
  const words = reactionsShown[key] || key;
  if (!reactionIcons.has(key) || !cfg.reaction_sprite) {
    node.textContent = words;
    return node;
  }
  node.classList.add("icon");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", words);
  node.title = words;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "react-icon");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
  use.setAttribute("href", `${cfg.reaction_sprite}#r-${key}`);
  svg.appendChild(use);
  node.appendChild(svg);
  return node;
}

function showReaction(e) {
  if (muteReactions() || hiddenReactions.has(e.corner)) return;
  const bubble = reactionNode(e.r);
  bubble.dataset.corner = e.corner;
  // Beside the sender in the list of players (drawn with the seats, which are redrawn often).
  bubbles.set(e.corner, { r: e.r, until: Date.now() + 3500 });
  setTimeout(renderSeats, 3600);
  // Beside the sender's corner on the board too.
  const yard = document.querySelector(`#board .yard[data-corner="${e.corner}"]`);
  const wrap = document.querySelector(".board-wrap");
  if (yard && wrap) {
    const r = yard.getBoundingClientRect();
    const w = wrap.getBoundingClientRect();
    const over = bubble.cloneNode(true);
    over.classList.add("on-board");
    over.style.left = `${r.left - w.left + r.width / 2}px`;
    over.style.top = `${r.top - w.top + r.height / 2}px`;
    wrap.appendChild(over);
    setTimeout(() => over.remove(), 3500);
  }
}

function muteReactions() {
  try {
    return localStorage.getItem("ludo.reactions") === "off";
  } catch {
    return false;
  }
}

function renderBonuses(canR) {
  // Power: the viewer's own stock (the server hides everyone else's).
  const box = $("bonuses");
  const stock = snap.stock;
  box.hidden = !canR || !Array.isArray(stock) || !stock.some((n) => n > 0);
  if (box.hidden) return;
  for (const span of box.querySelectorAll("[data-count]")) {
    const n = stock[Number(span.dataset.count)] || 0;
    span.textContent = `(${n})`;
    span.closest("label").querySelector("input").disabled = n < 1;
  }
}

function sendMove(m) {
  if (!myTurn() || snap.phase !== "move") return;
  clearTimeout(autoTimer);
  lone = null;
  const d = { pawn: m.pawn };
  if (m.corner !== snap.to_play) d.corner = m.corner;
  // Power: a Shield chosen after the roll goes with the move (the server says if it cannot).
  if (!$("shield-box")?.hidden && $("shield-move")?.checked) d.shield = true;
  send("move", d);
  board.render(snap, { interactive: false });
}

function renderShield(moves) {
  // Power: Shield may be chosen after the roll too, for the pawn about to move.
  const box = $("shield-box");
  if (!box) return;
  const n = Array.isArray(snap.stock) ? snap.stock[2] || 0 : 0;
  const was = !box.hidden;
  box.hidden = !moves.length || n < 1 || Boolean(snap.bonus);
  if (box.hidden || !was) $("shield-move").checked = false;
  $("shield-count").textContent = `(${n})`;
}

function canUndo() {
  // Local games: something was played (a roll or a turn gone by); the server checks the rest.
  return cfg.mode === "local" && snap.status === "active" && cfg.mine.length > 0 && !undoEmpty && (snap.turn > 1 || snap.phase === "move");
}

function canRoll() {
  return myTurn() && snap.phase === "roll" && !rolling;
}

function legalMoves() {
  return myTurn() && snap.phase === "move" ? snap.legal || [] : [];
}

// ------------------------------------------------------------------ drawing

function apply(next, events) {
  if (typeof snap.v === "number" && typeof next.v === "number" && next.v < snap.v) return;
  const watchers = next.watchers ?? snap.watchers;
  snap = next;
  snap.watchers = watchers;
  rolling = false;
  clearTimeout(autoTimer);
  const sounds = new Set();
  for (const e of events) {
    note(e);
    if (e.kind === "rolled") {
      face = e.face;
      stopShaking();
      $("die").classList.remove("rolling");
      void $("die").getBoundingClientRect();
      $("die").classList.add("rolling");
      sounds.add("roll");
    }
    if (e.kind === "moved" || e.kind === "released") {
      lastMoved = { corner: e.corner, pawn: e.pawn };
      sounds.add("move");
    }
    if (e.kind === "captured") sounds.add("capture");
    if (e.kind === "home") sounds.add("home");
    if (e.kind === "disconnected") lostSeen.add(e.corner);
    if (e.kind === "connected" || e.kind === "back") {
      if (lostSeen.has(e.corner)) flash(fmt(gettext("%(who)s is back"), { who: seatName(e.corner) }));
      lostSeen.delete(e.corner);
    }
    if (e.kind === "reaction") showReaction(e);
    if (e.kind === "timeout") missedTurn(e);
    if (e.kind === "rematch") rematchCode = e.code;
    if (e.kind === "undone") {
      lastMoved = null;
      face = 0; // the withdrawn roll's face is no longer in play
    }
    if (["rolled", "moved", "released"].includes(e.kind) && cfg.mine.includes(e.corner)) undoEmpty = false;
  }
  // A hint is for the position it was asked in: stale once a roll or a move changed it.
  if ($("hint-text") && events.some((e) => STALE_HINT.has(e.kind))) $("hint-text").hidden = true;
  const said = events.map(words).filter(Boolean);
  if (said.length) announce(said.join(". "));
  const moved = events.some((e) => ["moved", "released", "captured", "undone"].includes(e.kind));
  render(moved);
  // The loudest news only: a capture over a move, a pawn home over both.
  for (const name of ["home", "capture", "move", "roll"]) {
    if (sounds.has(name)) {
      setTimeout(() => play(name), name === "roll" ? 0 : Math.max(0, walking - 150));
      break;
    }
  }
}

function note(e) {
  let text = words(e);
  if (e.kind === "undone") {
    // What the undo took back stays in the history, struck through.
    for (const h of history) if (typeof h.seq === "number" && h.seq >= (e.from ?? Infinity) && h.seq <= (e.to ?? -1)) h.undone = true;
  }
  if (!text) return;
  const prev = history[0];
  // A forfeit or resignation is one line: the engine's "resigned" repeats the service's "leave".
  if (e.kind === "resigned" && prev && prev.kind === "leave" && prev.corner === e.corner) return;
  if (lone && (e.kind === "moved" || e.kind === "released") && e.corner === lone.corner && e.pawn === lone.pawn) {
    text = fmt(gettext("%(does)s (the only move: played by itself)"), { does: text });
    lone = null;
  }
  history.unshift({ text, kind: e.kind, seq: e.seq, corner: e.kind === "turn_passed" ? e.to : e.corner, r: e.kind === "reaction" ? e.r : undefined });
}

function turnShare() {
  // The share of the player's turn left, for the clock ring; null when no clock runs.
  const seat = seatOf(snap.to_play);
  const clocked = !["practice", "local"].includes(snap.mode || cfg.mode) && seat && !seat.bot && !seat.away;
  if (!snap.deadline || snap.status !== "active" || !clocked || !snap.turn_seconds) return null;
  return (Date.parse(snap.deadline) - Date.now()) / 1000 / snap.turn_seconds;
}

function render(animate = false) {
  const mine = myTurn();
  const moves = legalMoves();
  const active = snap.status === "active" && snap.to_play !== null && snap.to_play !== undefined;
  // `tap`: your roll: the die in your yard says so (it rolls when tapped, like the board).
  const turn = active ? { corner: snap.to_play, face: snap.phase === "move" ? snap.face || face : 0, rolling, clock: turnShare(), tap: canRoll() } : null;
  walking = board.render(snap, { interactive: mine && moves.length > 0, moves, last: lastMoved, turn, animate });
  drawDie($("die"), snap.face || face);
  const waiting = document.querySelector(".waiting");
  if (waiting) waiting.hidden = snap.status !== "waiting";
  const canR = canRoll();
  $("roll").disabled = !canR;
  $("die-button").disabled = !canR;
  if (canR && rollFocus && (document.activeElement === document.body || !document.activeElement)) $("roll").focus();
  renderBonuses(canR);
  renderSeats();
  renderTurn(mine, moves);
  renderLegal(moves);
  renderWhere();
  renderHistory();
  renderPeople();
  $("sixes").textContent = String(snap.sixes || 0);
  const over = snap.status === "finished" || snap.status === "aborted" || snap.status === "void";
  $("replay-link").hidden = snap.status !== "finished";
  // Over: no Roll button left standing; the result panel instead.
  $("roll").hidden = over || watching;
  // Reactions close with the match (the server refuses them then: code "over").
  if ($("reactions")) $("reactions").hidden = over;
  $("die-button").classList.toggle("watch-only", watching);
  renderResult();
  const handed = (snap.seats || []).some((s) => s.you && s.away);
  const placed = cfg.mine.length === 1 && (snap.placings || []).includes(cfg.mine[0]); // playing on
  $("resign").hidden = over || snap.status !== "active" || !cfg.mine.length || handed || placed;
  if ($("undo")) $("undo").hidden = !canUndo();
  renderShield(mine ? moves : []);
  lone = moves.length === 1 && mine ? moves[0] : null;
  if (moves.length === 1 && mine) {
    autoTimer = setTimeout(() => sendMove(moves[0]), AUTO_MOVE_MS + walking);
  }
  // Your turn: said in the tab's title, and with a buzz and a chime when it begins.
  const yours = mine && cfg.mode !== "local";
  document.title = yours ? fmt(gettext("● Your turn · %(title)s"), { title: BASE_TITLE }) : BASE_TITLE;
  if (yours && !wasMyTurn) {
    if (navigator.vibrate && navigator.userActivation?.hasBeenActive) navigator.vibrate(120);
    if (snap.phase === "roll") setTimeout(() => play("turn"), walking);
  }
  wasMyTurn = yours;
  renderPromises();
}

function renderResult() {
  const panel = $("result");
  const done = snap.status === "finished";
  if (!done) {
    panel.hidden = true;
    $("show-result").hidden = true;
    return;
  }
  if (resultShown !== snap.status) {
    resultShown = snap.status;
    panel.hidden = false;
    if (snap.v > (cfg.snapshot.v || 0) || cfg.snapshot.status !== "finished") {
      panel.classList.add("fresh"); // the winner's moment: only when it happens here
      panel.scrollIntoView?.({ block: "nearest" });
      setTimeout(() => play("end"), walking);
    }
  }
  const order = snap.placings || [];
  const winner = order.length ? order[0] : snap.winner;
  const me = winner !== null && winner !== undefined && cfg.mine.includes(winner) && cfg.mine.length === 1;
  $("result-title").textContent = winner === null || winner === undefined ? gettext("The match is over") : me ? gettext("You win!") : fmt(gettext("%(who)s wins!"), { who: seatName(winner) });
  const ol = $("places");
  ol.replaceChildren();
  order.forEach((corner, i) => {
    const seat = seatOf(corner) || {};
    const li = document.createElement("li");
    li.className = `place place-${i + 1}`;
    const n = document.createElement("span");
    n.className = "place-n";
    n.textContent = [gettext("1st"), gettext("2nd"), gettext("3rd"), gettext("4th")][i] || fmt(gettext("%(n)sth"), { n: i + 1 });
    li.append(n, markIcon(colours[corner], seat.mark));
    const name = document.createElement("span");
    name.className = "place-name";
    name.textContent = seat.you && cfg.mode !== "local" ? fmt(gettext("You (%(colour)s)"), { colour: Name(corner) }) : seatName(corner);
    li.appendChild(name);
    if (typeof seat.rating_change === "number") {
      const d = document.createElement("span");
      const up = seat.rating_change >= 0;
      d.className = `change ${up ? "up" : "down"}`;
      d.textContent = fmt(gettext("%(change)s rating"), { change: `${up ? "+" : "−"}${formatNumber(Math.abs(seat.rating_change), 1)}` });
      li.appendChild(d);
    }
    ol.appendChild(li);
  });
  // A dispute only where another person played: not after a game against bots.
  const report = $("end-report");
  if (report) report.hidden = !(snap.seats || []).some((s) => s.taken && !s.bot && !s.you);
  const re = $("rematch");
  if (re && rematchCode) re.textContent = gettext("Join the rematch");
  $("show-result").hidden = !panel.hidden;
}

function renderPeople() {
  // Someone else's connection lost: a notice with the grace counting down.
  const box = $("notices");
  const rows = [];
  if (snap.status === "active" && cfg.mode !== "local") {
    for (const s of snap.seats || []) {
      if (s.you || s.bot || !s.taken || s.connected || s.left || s.away || !s.disconnected_at) continue;
      const grace = snap.grace_seconds;
      let text = fmt(gettext("%(who)s lost the connection"), { who: seatName(s.corner) });
      if (grace) {
        const left = Math.max(0, Math.ceil((Date.parse(s.disconnected_at) + grace * 1000 - Date.now()) / 1000));
        const robot = snap.ruleset === "mensch" || snap.ruleset === "party";
        const then = robot ? gettext("%(who)s lost the connection: %(left)s s to come back before the computer plays for them") : gettext("%(who)s lost the connection: %(left)s s to come back before they forfeit");
        text = fmt(then, { who: seatName(s.corner), left });
      }
      rows.push({ corner: s.corner, text });
    }
  }
  const key = rows.map((r) => r.corner).join(",");
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.replaceChildren(...rows.map((r) => Object.assign(document.createElement("p"), { className: "notice away-notice", id: `lost-${r.corner}` })));
  }
  for (const r of rows) $(`lost-${r.corner}`).textContent = r.text;
  const count = $("watch-count");
  const n = snap.watchers || 0;
  const k = Math.max(n, 1); // nobody watching: the words keep their place, unseen
  if (count) count.textContent = watching ? fmt(ngettext("· %(n)s spectator", "· %(n)s spectators", k), { n: k }) : fmt(gettext("%(n)s watching"), { n: k });
  $("watching")?.classList.toggle("none", !n && !watching);
}

function flash(text, className = "back-notice", ms = 5000) {
  const p = document.createElement("p");
  p.className = `notice ${className}`;
  p.textContent = text;
  $("flashes").appendChild(p);
  setTimeout(() => p.remove(), ms);
  return p;
}

// A turn the clock played for this viewer: said over the board, above the die, with a sound.
function missedTurn(e) {
  if (!cfg.mine.includes(e.corner)) return;
  const n = e.missed || 1;
  const left = (cfg.board.timeouts_to_forfeit || 0) - n;
  let text = cfg.mine.length > 1 ? fmt(gettext("%(who)s missed a turn: time ran out and it was played for them."), { who: Name(e.corner) }) : gettext("You missed your turn: time ran out and it was played for you.");
  if (n > 1) text += " " + fmt(ngettext("%(n)s turn missed in a row.", "%(n)s turns missed in a row.", n), { n });
  if (left > 0) text += " " + fmt(ngettext("%(n)s more missed turn and you are out of the match.", "%(n)s more missed turns and you are out of the match.", left), { n: left });
  for (const old of document.querySelectorAll("#flashes .missed-notice")) old.remove();
  flash(text, "missed-notice", 8000);
  play("missed");
}

function renderSeats() {
  const list = $("seats");
  list.replaceChildren();
  for (const s of snap.seats || []) {
    const li = document.createElement("li");
    li.className = "seat";
    li.dataset.corner = s.corner;
    if (s.corner === snap.to_play && snap.status === "active") li.classList.add("to-play");
    if (s.left) li.classList.add("left");
    li.appendChild(markIcon(s.colour, s.mark));
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = s.taken ? shownName(s) || Name(s.corner) : fmt(gettext("%(colour)s: empty seat"), { colour: Name(s.corner) });
    li.appendChild(name);
    if (s.bot || s.away) {
      // An away seat is a person's the computer plays until they are back: labelled too.
      const tag = document.createElement("span");
      tag.className = "bot-tag";
      // The wire's `label` is English data ("BOT", for outside clients): the page says its own.
      tag.textContent = gettext("BOT");
      if (s.away && !s.bot) tag.title = fmt(gettext("a bot is playing for %(who)s"), { who: shownName(s) || Name(s.corner) });
      li.appendChild(tag);
    }
    if (s.you && cfg.mode !== "local") {
      const you = document.createElement("span");
      you.className = "you-tag";
      you.textContent = gettext("you");
      li.appendChild(you);
    }
    const info = document.createElement("span");
    info.className = "seat-info";
    const bits = [];
    // Playing on for 2nd and 3rd place: a seat that finished shows its place at once.
    const place = s.place || (snap.status === "active" ? (snap.placings || []).indexOf(s.corner) + 1 : 0);
    if (place) bits.push(fmt(gettext("place %(place)s"), { place }));
    if (s.left) bits.push(gettext("out"));
    if (s.away && !s.bot && !s.left && !s.you) bits.push(fmt(gettext("bot playing for %(who)s"), { who: shownName(s) || Name(s.corner) }));
    if (s.missed_turns) bits.push(fmt(gettext("%(n)s missed"), { n: s.missed_turns }));
    info.textContent = bits.join(", ");
    li.appendChild(info);
    if (s.taken && !s.bot && snap.mode !== "local") {
      const dot = document.createElement("span");
      dot.className = `conn ${s.connected ? "on" : "off"}`;
      dot.title = s.connected ? gettext("connected") : gettext("not connected");
      dot.setAttribute("aria-label", dot.title);
      dot.setAttribute("role", "img");
      li.appendChild(dot);
    }
    const said = bubbles.get(s.corner);
    if (said && said.until > Date.now()) {
      li.appendChild(reactionNode(said.r));
    }
    list.appendChild(li);
    if (s.you && s.away && !s.left && snap.status === "active" && cfg.mode !== "local") {
      // Coming back is connecting again: the server gives the seat back to a new connection.
      const row = document.createElement("li");
      row.className = "seat";
      const note = document.createElement("span");
      note.className = "seat-info";
      note.textContent = gettext("A bot is playing your seat.");
      const back = document.createElement("button");
      back.type = "button";
      back.className = "btn subtle";
      back.textContent = gettext("Take my seat back");
      back.addEventListener("click", () => socket && socket.close());
      row.append(note, back);
      list.appendChild(row);
    }
  }
}

function renderTurn(mine, moves) {
  let text;
  if (snap.status === "waiting") text = gettext("Waiting for players to take their seats.");
  else if (snap.status === "finished") {
    const order = (snap.placings || []).map((c, i) => `${i + 1}. ${seatName(c)}`).join(", ");
    text = fmt(gettext("The match is over. %(order)s"), { order });
  } else if (snap.status !== "active") text = fmt(gettext("The match is %(status)s."), { status: snap.status });
  else {
    const who = seatName(snap.to_play);
    const seat = seatOf(snap.to_play);
    const done = cfg.mine.length === 1 ? (snap.placings || []).indexOf(cfg.mine[0]) + 1 : 0;
    if (done) text = fmt(gettext("You finished in place %(place)s: the others play on for the places after you. %(who)s is playing."), { place: done, who });
    else if (seat && seat.away && seat.you) text = gettext("A bot is playing your turn: take your seat back in the list of players.");
    else if (mine && snap.phase === "roll") text = cfg.mine.length > 1 ? fmt(gettext("%(who)s's turn: roll the die."), { who }) : gettext("Your turn: roll the die.");
    else if (mine && moves.length === 1) text = fmt(gettext("Only one move: %(move)s. It plays by itself in a moment."), { move: moveWords(moves[0]).toLowerCase() });
    else if (mine) text = fmt(cfg.mine.length > 1 ? gettext("%(who)s: pick a pawn to move %(n)s squares.") : gettext("Pick a pawn to move %(n)s squares."), { who, n: snap.die });
    else if (seat && seat.bot) text = fmt(gettext("%(who)s is playing."), { who });
    else if (seat && seat.away) text = fmt(gettext("The computer is playing for %(who)s."), { who });
    else text = fmt(snap.phase === "move" ? gettext("%(who)s to move.") : gettext("%(who)s to roll."), { who });
  }
  $("turn").textContent = text;
  setStatus(text);
  tickClock();
}

function tickClock() {
  board.setClock(turnShare());
  renderPeople();
  const el = $("turn");
  let clock = el.querySelector(".clock");
  // The time left in words also stands beside the status, under the board, on every size
  // (the ring around the die is not a countdown anyone can read).
  const beside = $("time-left");
  // The turn clock runs for people in online rooms; a bot's or an auto-move's deadline is
  // the server's pause, not a clock anyone races.
  const seat = seatOf(snap.to_play);
  const clocked = !["practice", "local"].includes(snap.mode || cfg.mode) && seat && !seat.bot && !seat.away;
  if (!snap.deadline || snap.status !== "active" || !clocked) {
    if (clock) clock.remove();
    if (beside) beside.hidden = true;
    return;
  }
  const left = Math.max(0, Math.ceil((Date.parse(snap.deadline) - Date.now()) / 1000));
  if (!clock) {
    clock = document.createElement("span");
    clock.className = "clock";
    el.appendChild(clock);
  }
  const words = fmt(gettext("%(time)s left"), { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` });
  clock.textContent = ` ${words}`;
  clock.classList.toggle("low", left <= 5);
  if (beside) {
    beside.textContent = words;
    beside.hidden = false;
    beside.classList.toggle("low", left <= 5);
  }
}

function renderLegal(moves) {
  const ol = $("legal");
  ol.replaceChildren();
  if (!moves.length) {
    const li = document.createElement("li");
    li.className = "muted";
    if (snap.status === "waiting") li.textContent = gettext("Once the match starts.");
    else if (snap.status !== "active") li.textContent = gettext("None: the match is over.");
    else if (snap.phase === "move" && !myTurn()) li.textContent = fmt(gettext("%(who)s is choosing a move."), { who: seatName(snap.to_play) });
    else li.textContent = gettext("After a roll.");
    ol.appendChild(li);
    return;
  }
  // Moves that do the same thing (four pawns out of the yard onto one start square) are one.
  const same = new Map();
  for (const m of moves) {
    const key = `${m.corner}:${m.from}:${m.to}`;
    if (!same.has(key)) same.set(key, []);
    same.get(key).push(m);
  }
  const numbered = new Set(moves.map((m) => `${m.corner}.${m.pawn}`)).size > 1 && same.size > 1;
  for (const group of same.values()) {
    const m = group[0];
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move-choice";
    if (m.captures && m.captures.length) b.classList.add("captures");
    if (m.safe) b.classList.add("safe");
    if (group.length > 1) {
      const pawns = group.map((x) => x.pawn + 1);
      b.textContent = fmt(gettext("A pawn (%(pawns)s or %(last)s) %(path)s"), { pawns: pawns.slice(0, -1).join(", "), last: pawns[pawns.length - 1], path: movePath(m) });
    } else {
      b.textContent = `${numbered ? `${m.pawn + 1}: ` : ""}${moveWords(m)}`;
    }
    b.addEventListener("click", () => sendMove(m));
    li.appendChild(b);
    ol.appendChild(li);
  }
}

// "Home": how many pawns are home of the number that finishes a seat (four; in Quick the first
// pawn home finishes, so the column says so rather than "0 of 4").
function homeWords(n, squares) {
  const need = cfg.board.win_pawns ?? 4;
  if (need === 4) return fmt(gettext("%(n)s of 4%(squares)s"), { n, squares });
  return fmt(gettext("%(n)s of %(need)s to win%(squares)s"), { n, need, squares });
}

function renderWhere() {
  const body = $("where").querySelector("tbody");
  body.replaceChildren();
  for (const s of snap.seats || []) {
    const pawns = (snap.pawns || [])[s.corner] || [];
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.appendChild(markIcon(s.colour, s.mark));
    th.append(` ${Name(s.corner)}`);
    tr.appendChild(th);
    const yard = pawns.filter((p) => p < 0).length;
    // Each pawn on the track by the squares it still has to go (the board numbers no square).
    const finishAt = cfg.board.finish_from ?? geo.goal;
    const track = pawns.filter((p) => p >= 0 && p <= geo.lastTrack).map((p) => finishAt - p).sort((a, b) => a - b);
    const finish = cfg.board.finish_from ?? geo.goal;
    const column = pawns.filter((p) => p > geo.lastTrack && p < finish).map((p) => p - geo.lastTrack);
    const homed = pawns.filter((p) => p >= finish);
    const rowSquares = geo.size === 40 && homed.length ? fmt(gettext(" (squares %(squares)s)"), { squares: homed.map((p) => p - geo.lastTrack).sort().join(", ") }) : "";
    for (const text of [String(yard), track.join(", ") || "–", column.join(", ") || "–", homeWords(homed.length, rowSquares)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

// The whole game stays in the history: each line drawn once, new ones added on top (an undo,
// striking lines through, draws them all again).
let drawn = 0;
let struck = 0;

function historyLine(h) {
  const li = document.createElement("li");
  const text = h.undone ? document.createElement("del") : li;
  text.textContent = h.text;
  if (h.undone) li.className = "undone";
  if (h.undone) li.appendChild(text);
  if (h.corner !== undefined && colours[h.corner]) li.dataset.colour = colours[h.corner];
  if (h.r && !h.undone && reactionIcons.has(h.r)) li.append(" ", reactionNode(h.r, "history-react"));
  return li;
}

function renderHistory() {
  const ol = $("history");
  const undone = history.filter((h) => h.undone).length;
  if (undone !== struck || drawn > history.length) {
    ol.replaceChildren();
    drawn = 0;
    struck = undone;
  }
  if (history.length > drawn) ol.prepend(...history.slice(0, history.length - drawn).map(historyLine));
  drawn = history.length;
}

function setStatus(text) {
  $("status").textContent = text;
}

function announce(text) {
  $("announce").textContent = text;
}

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => {
    box.hidden = true;
  }, 4000);
}

// ------------------------------------------------------------------ controls

$("roll").addEventListener("click", sendRoll);
$("die-button").addEventListener("click", sendRoll);
$("undo")?.addEventListener("click", () => {
  if (!canUndo()) return;
  clearTimeout(autoTimer);
  lone = null;
  send("undo");
});
$("resign").addEventListener("click", () => {
  const party = snap.ruleset === "party" && cfg.mode === "friendly";
  const what = cfg.mode === "local" || cfg.mode === "practice" ? gettext("End this game?") : party ? gettext("Leave this match? A bot will play your seat until you take it back.") : gettext("Resign this match? You will be placed last.");
  if (window.confirm(what)) send("resign");
});
// The phone's share sheet beside Copy link, only where the browser has one.
for (const b of document.querySelectorAll("[data-share]")) {
  const data = { text: b.dataset.shareText, url: b.dataset.share };
  b.hidden = !navigator.share || navigator.canShare?.(data) === false;
  b.onclick = () => navigator.share(data).catch(() => {}); // closed without sharing: nothing
}
for (const b of document.querySelectorAll("[data-copy]")) {
  b.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(b.dataset.copy);
      b.textContent = gettext("Copied");
    } catch {
      b.textContent = gettext("Copy it by hand");
    }
  });
}

document.addEventListener("keydown", (evt) => {
  if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
  const tag = (evt.target.tagName || "").toLowerCase();
  // Typing goes to text fields; a ticked box (a bonus, the Shield) leaves the keys to the game.
  const box = tag === "input" && ["checkbox", "radio"].includes(evt.target.type);
  if ((tag === "input" && !box) || tag === "select" || tag === "textarea") return;
  const key = evt.key.toLowerCase();
  if (key === " " || key === "r") {
    if (key === " " && (tag === "button" || box)) return; // Space presses the focused control
    if (canRoll()) {
      evt.preventDefault();
      sendRoll();
    }
  } else if (["1", "2", "3", "4"].includes(key)) {
    const m = legalMoves().find((x) => x.pawn === Number(key) - 1);
    if (m) {
      evt.preventDefault();
      sendMove(m);
    }
  } else if (key === "u" && !$("undo")?.hidden) {
    $("undo")?.click();
  }
});

function renderSound() {
  const off = muted();
  $("sound").setAttribute("aria-pressed", String(!off));
  $("sound").title = off ? gettext("Sound is off: turn it on") : gettext("Sound is on: turn it off");
}
$("sound").addEventListener("click", () => {
  setMuted(!muted());
  renderSound();
});
for (const b of document.querySelectorAll("#reactions .react")) {
  b.addEventListener("click", () => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ t: "react", d: { r: b.dataset.r } }));
    $("reactions").open = false;
    // A short pause on the buttons: the server allows one reaction every two seconds.
    for (const x of document.querySelectorAll("#reactions .react")) x.disabled = true;
    setTimeout(() => {
      for (const x of document.querySelectorAll("#reactions .react")) x.disabled = false;
    }, 2000);
  });
}
if ($("mute-reactions")) {
  $("mute-reactions").checked = muteReactions();
  $("mute-reactions").addEventListener("change", (evt) => {
    try {
      localStorage.setItem("ludo.reactions", evt.target.checked ? "off" : "on");
    } catch {
      // kept for this page only
    }
  });
}
$("result-close").addEventListener("click", () => {
  $("result").hidden = true;
  $("result").classList.remove("fresh");
  $("show-result").hidden = false;
  $("show-result").focus();
});
$("show-result").addEventListener("click", () => {
  $("result").hidden = false;
  $("show-result").hidden = true;
});

// ------------------------------------------------------------------ the room's promises
// Kept apart: what the room promises about rolling, on top of the controls
// (docs/rules.md, "Around the board").

// "Tap anywhere on the board to roll the die": when it is your roll, a tap or a
// click on the board rolls (the Roll button, the die and the keys stay).
$("board").addEventListener("click", () => {
  if (canRoll() && !passing()) sendRoll();
});

// After a roll no pawn can use, the game pauses before the die passes on (the
// server takes no roll before `pause_until`): the controls wait with it.
function passing() {
  return Boolean(snap.pause_until) && Date.parse(snap.pause_until) > Date.now();
}

let passTimer = null;

function renderPromises() {
  clearTimeout(passTimer);
  const die = $("die-button");
  if (canRoll() && passing()) {
    $("roll").disabled = true;
    die.disabled = true;
    passTimer = setTimeout(render, Date.parse(snap.pause_until) - Date.now() + 20);
  }
  // After two missed turns (party) the bot plays on "until you tap the die at the start of
  // your turn": while that window is open, the die says so.
  const reclaim = Boolean(snap.reclaim) && canRoll();
  die.classList.toggle("reclaim", reclaim);
  die.setAttribute("aria-label", reclaim ? gettext("Tap the die to play this turn yourself") : gettext("Roll the die"));
  const turn = $("turn").firstChild;
  if (reclaim && turn && turn.nodeType === Node.TEXT_NODE) {
    turn.nodeValue = gettext("You missed two turns: tap the die now to play this turn yourself, or the bot plays it.");
  }
}

setInterval(tickClock, 500);
for (const e of cfg.history || []) {
  note(e); // what happened before this page opened
  if (e.kind === "rolled") face = e.face; // the last roll shows on the die, for everyone
  if (e.kind === "undone") face = 0;
  if (e.kind === "disconnected") lostSeen.add(e.corner);
}
if (snap.status === "finished") resultShown = snap.status;
renderSound();
render();
connect();
