// Practice: the Hint button (issue 31) asks the server for the best move for the roll in
// hand and shows it in words, with the chance to win after it. The server says why in the
// page's language (`text`, from the hint's codes; `why` stays English for outside clients).
const gettext = window.gettext || ((s) => s);
const interpolate = window.interpolate || ((fmt, args) => fmt.replace(/%s/g, () => args.shift()));

const button = document.getElementById("hint");
const out = document.getElementById("hint-text");
const LANG = document.documentElement.lang || undefined;

button?.addEventListener("click", async () => {
  out.hidden = false;
  out.textContent = gettext("Thinking…");
  try {
    const response = await fetch(`/api/matches/${button.dataset.code}/hint${LANG ? `?lang=${encodeURIComponent(LANG)}` : ""}`, { credentials: "same-origin" });
    const body = await response.json();
    if (!response.ok) {
      out.textContent = body.text || body.message || gettext("No hint now.");
      return;
    }
    if (!body.move) {
      out.textContent = body.text;
      return;
    }
    const said = body.text || body.why;
    const why = said.charAt(0).toLocaleUpperCase(LANG) + said.slice(1);
    out.textContent = interpolate(gettext("Best: pawn %s. %s. Your chance to win after it: %s."), [
      String(body.best),
      why,
      new Intl.NumberFormat(LANG, { style: "percent" }).format(body.chance),
    ]);
  } catch {
    out.textContent = gettext("No hint now: the connection failed. Try again.");
  }
});
