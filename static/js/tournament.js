// A tournament's page: live standings (the socket sends them on every change; the JSON
// endpoint is polled as well, slower while the socket is open), the games being played,
// and the player's own next game: when a new one is made for them, the page opens it.
(() => {
  "use strict";
  const gettext = window.gettext || ((s) => s);
  const interpolate = window.interpolate || ((fmt, obj) => fmt.replace(/%\((\w+)\)s/g, (_, k) => obj[k]));
  const root = document.getElementById("tournament");
  if (!root) return;
  const url = root.dataset.standings;
  const code = root.dataset.code;
  const kind = root.querySelector("th[title]") ? "swiss" : "arena";
  const you = document.getElementById("your-game");
  let lastGame = you && !you.hidden ? you.getAttribute("href") : null;
  let socketOpen = false;
  let lastState = root.dataset.state;

  function cell(text, cls) {
    const td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    return td;
  }

  function renderRows(rows) {
    const body = document.querySelector("#standings tbody");
    if (!body) return;
    const me = root.dataset.me || null;
    const frag = document.createDocumentFragment();
    for (const r of rows) {
      const tr = document.createElement("tr");
      tr.dataset.user = r.user;
      if (String(r.user) === me) tr.className = "me";
      tr.appendChild(cell(r.rank, "fig"));
      const who = document.createElement("td");
      const a = document.createElement("a");
      a.href = `/players/${encodeURIComponent(r.username)}/`;
      a.textContent = r.name;
      a.dir = "auto"; // a player's own name: isolated from the page around it
      who.appendChild(a);
      if (r.status !== "active") {
        const tag = document.createElement("span");
        tag.className = "tag";
        tag.textContent = r.status === "paused" ? gettext("paused") : gettext("withdrawn");
        who.append(" ", tag);
      }
      tr.appendChild(who);
      const pts = cell("", "fig");
      const strong = document.createElement("strong");
      strong.textContent = r.score;
      pts.appendChild(strong);
      tr.appendChild(pts);
      tr.appendChild(cell(r.games, "fig"));
      tr.appendChild(cell(r.wins, "fig wide-only"));
      if (kind === "arena") tr.appendChild(cell((r.streak >= 2 ? "🔥 " : "") + r.streak, "fig wide-only"));
      else tr.appendChild(cell(r.buchholz, "fig"));
      frag.appendChild(tr);
    }
    if (rows.length) body.replaceChildren(frag);
  }

  function renderGames(games) {
    const list = document.getElementById("live-games");
    if (!list) return;
    const frag = document.createDocumentFragment();
    for (const g of games) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = g.url;
      g.players.forEach((p, i) => {
        const name = document.createElement("bdi");
        name.textContent = p;
        a.append(...(i ? [" – ", name] : [name]));
      });
      li.appendChild(a);
      frag.appendChild(li);
    }
    if (!games.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = gettext("No game is being played.");
      frag.appendChild(li);
    }
    list.replaceChildren(frag);
  }

  function apply(data) {
    renderRows(data.rows || []);
    renderGames(data.games || []);
    const state = document.getElementById("event-state");
    if (state && data.state !== state.dataset.state) {
      state.dataset.state = data.state;
      state.textContent = {
        upcoming: gettext("Upcoming"),
        running: gettext("Running"),
        finished: gettext("Finished"),
        cancelled: gettext("Cancelled"),
      }[data.state] || data.state;
    }
    const round = document.getElementById("event-round");
    if (round && data.round) {
      round.textContent = interpolate(gettext("Round %(round)s of %(rounds)s"), { round: data.round, rounds: data.rounds }, true);
    }
    if (data.state === "finished") {
      const title = document.getElementById("standings-title");
      if (title) title.textContent = gettext("Final standings");
    }
    if (data.state !== lastState && (data.state === "finished" || lastState === "upcoming")) {
      lastState = data.state;
      // The entry box and the results change with the state: the server draws them.
      if (data.state === "finished") window.setTimeout(() => window.location.reload(), 500);
    }
    if (data.you && you) {
      const game = data.you.game;
      const wait = document.getElementById("your-wait");
      if (wait) wait.hidden = Boolean(game) || data.state !== "running";
      if (game) {
        you.href = game;
        you.hidden = false;
        if (game !== lastGame) {
          lastGame = game;
          window.location.assign(game);
        }
      } else {
        you.hidden = true;
      }
    }
  }

  async function poll() {
    try {
      const r = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (r.ok) apply(await r.json());
    } catch (e) {
      // Offline for a moment: the next poll tries again.
    }
    window.setTimeout(poll, socketOpen ? 10000 : 2000);
  }

  function connect() {
    if (!("WebSocket" in window)) return;
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${window.location.host}/ws/tournaments/${code}/`);
    ws.onopen = () => { socketOpen = true; };
    ws.onmessage = (e) => {
      let frame;
      try { frame = JSON.parse(e.data); } catch (err) { return; }
      if (frame.t === "standings") {
        // The broadcast has no viewer's part: ask for ours when it may have changed.
        apply({ ...frame.d, you: undefined });
        if (you) fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
          .then((r) => (r.ok ? r.json() : null)).then((d) => d && apply(d)).catch(() => {});
      }
    };
    ws.onclose = () => {
      socketOpen = false;
      window.setTimeout(connect, 3000);
    };
  }

  connect();
  window.setTimeout(poll, 2000);
})();
