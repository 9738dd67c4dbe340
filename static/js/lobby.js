// The quick-match page: join a queue, see the waiting time and the rating window, cancel.
// The server matches; the lobby socket says where the room is, and the page polls the status
// endpoint as a fallback whenever the socket is down.
import { fmt, formatNumber, gettext } from "./i18n.js";
const cfg = JSON.parse(document.getElementById("lobby-config").textContent);
const rules = JSON.parse(document.getElementById("lobby-settings").textContent);
const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;

let state = cfg.initial || { state: "idle" };
let waitedAt = 0; // seconds waited when `sinceMs` was taken
let sinceMs = performance.now();
let ticker = null;
let poller = null;
let socket = null;
let retry = 0;
let leaving = false;

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${formatNumber(Math.floor(s / 60))}:${formatNumber(s % 60).padStart(2, formatNumber(0))}`;
}

function waited() {
  return waitedAt + (performance.now() - sinceMs) / 1000;
}

function showError(message) {
  $("lobby-error").textContent = message || "";
}

function tick() {
  if (state.state !== "waiting") return;
  const w = waited();
  $("waited").textContent = clock(w);
  if (state.ranked) {
    const reach = rules.window_start + rules.window_growth * w;
    $("window").textContent = `±${formatNumber(reach, 1)}`;
  }
}

// `go`: a match made while this page waited sends the player to the room at once; one found
// on arriving (a match still on) is only offered as a link.
function show(next, go = true) {
  state = next;
  $("waiting").hidden = state.state !== "waiting";
  $("matched").hidden = state.state !== "matched";
  // A casual match still on does not stop a player from queueing again; a ranked one does.
  $("queues").hidden = !(state.state === "idle" || (state.state === "matched" && !state.ranked && !go));
  clearInterval(ticker);
  ticker = null;
  if (state.state === "waiting") {
    waitedAt = state.waited || 0;
    sinceMs = performance.now();
    $("waiting-queue").textContent = fmt(state.ranked ? gettext("%(queue)s (ranked)") : gettext("%(queue)s (casual)"), { queue: state.label });
    $("window-line").hidden = !state.ranked;
    $("bot-line").hidden = !!state.ranked;
    tick();
    ticker = setInterval(tick, 250);
  } else if (state.state === "matched") {
    const link = $("room-link");
    link.href = state.url;
    link.textContent = fmt(gettext("go to room %(code)s"), { code: state.code });
    if (go && !leaving) {
      // Once: the join answer, the lobby socket and a poll may all bring the same news, and
      // a second assign would abort the navigation already under way.
      leaving = true;
      window.location.assign(state.url);
    }
  }
  schedulePoll();
}

// ------------------------------------------------------------------ the server

async function post(form) {
  showError("");
  const body = new FormData(form);
  let response;
  try {
    response = await fetch(form.action, {
      method: "POST",
      body,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
  } catch {
    showError(gettext("The server could not be reached. Check your connection and try again."));
    return;
  }
  const data = await response.json().catch(() => null);
  if (!response.ok || !data) {
    const fallback = response.status === 403 ? gettext("Your session has changed: reload the page and try again.") : fmt(gettext("The server refused (%(status)s)."), { status: response.status });
    showError((data && data.error && (data.error.text || data.error.message)) || fallback);
    return;
  }
  if (data.csrf) {
    // Joining as a new guest starts a session, and with it a new token for the other forms.
    for (const input of document.querySelectorAll("input[name=csrfmiddlewaretoken]")) input.value = data.csrf;
  }
  show(data);
}

async function poll() {
  try {
    const response = await fetch(cfg.status, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (response.ok) show(await response.json(), state.state === "waiting");
  } catch {
    // Offline for a moment: the next poll tries again.
  }
}

function schedulePoll() {
  clearTimeout(poller);
  poller = null;
  const socketUp = socket && socket.readyState === WebSocket.OPEN;
  if (state.state === "waiting" && !socketUp) poller = setTimeout(poll, POLL_MS);
  else if (state.state === "waiting") poller = setTimeout(poll, POLL_MS * 5); // a slow check
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${window.location.host}${cfg.ws}`);
  socket.addEventListener("open", () => {
    retry = 0;
    schedulePoll();
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "matched") show({ state: "matched", code: message.code, url: message.url });
    else if (message.type === "status") show(message, state.state === "waiting");
  });
  socket.addEventListener("close", () => {
    socket = null;
    if (leaving) return;
    schedulePoll();
    retry = Math.min(retry + 1, 6);
    setTimeout(connect, 500 * 2 ** retry);
  });
}

for (const form of document.querySelectorAll("form.join-form, #cancel-form")) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    post(form).finally(() => {
      button.disabled = false;
    });
  });
}

window.addEventListener("pagehide", () => {
  leaving = true;
});

show(state, false);
connect();
