// On every page of a player entered in a tournament: when a game is made for them, the page
// takes them to it, or (in the middle of another game, or after they came back from it) says
// they must go now and when their clock starts. A light poll of /tournaments/next.json.
(() => {
  "use strict";
  const gettext = window.gettext || ((s) => s);
  const interpolate = window.interpolate || ((fmt, obj) => fmt.replace(/%\((\w+)\)s/g, (_, k) => obj[k]));
  const box = document.getElementById("paired-notice");
  if (!box) return;
  const text = document.getElementById("paired-text");
  const go = document.getElementById("paired-go");
  const url = box.dataset.url;
  const EVERY = 5000;
  let current = null;
  let clockAt = 0;

  function here(path) {
    return window.location.pathname === path;
  }

  // A game of theirs still being played in this page's room: never taken away from it.
  function busyHere() {
    const room = document.getElementById("room");
    const result = document.getElementById("result");
    return Boolean(room && result && result.hidden);
  }

  function went(path) {
    try { return window.sessionStorage.getItem(`paired:${path}`) === "1"; } catch (e) { return false; }
  }

  function remember(path) {
    try { window.sessionStorage.setItem(`paired:${path}`, "1"); } catch (e) { /* private mode */ }
  }

  function say() {
    if (!current) return;
    const left = Math.max(0, Math.round((clockAt - Date.now()) / 1000));
    const where = current.round
      ? interpolate(gettext("%(event)s, round %(round)s"), { event: current.event, round: current.round }, true)
      : current.event;
    text.textContent = left > 0
      ? interpolate(gettext("Your game in %(where)s has started: go now. Your clock starts in %(seconds)s s."), { where, seconds: left }, true)
      : interpolate(gettext("Your game in %(where)s has started and your clock is running: go now."), { where }, true);
  }

  function show(next) {
    if (!next || here(next.game)) {
      current = null;
      box.hidden = true;
      return;
    }
    current = next;
    clockAt = Date.now() + next.clock_in * 1000;
    go.href = next.game;
    say();
    box.hidden = false;
    if (!busyHere() && !went(next.game)) {
      remember(next.game);
      window.location.assign(next.game);
    }
  }

  async function poll() {
    try {
      const r = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (r.ok) show((await r.json()).next);
    } catch (e) {
      // Offline for a moment: the next poll tries again.
    }
    window.setTimeout(poll, EVERY);
  }

  window.setInterval(say, 1000);
  poll();
})();
