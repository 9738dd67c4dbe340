// "When they open it you're in the same game" (docs/rules.md, "Around the board"): opening the invite link takes a
// free seat at once (as a guest if not signed in). Done by the page, not the GET, so that a
// link preview fetched by a chat app takes no seat; once per room and tab, so a refused
// join shows its reason instead of trying again. (A file, not inline: the
// Content-Security-Policy runs only the site's own script files.)
const form = document.querySelector("form[data-auto-join]");
if (form) {
  const key = `auto-join:${form.dataset.autoJoin}`;
  if (!sessionStorage.getItem(key)) {
    sessionStorage.setItem(key, "1");
    form.requestSubmit();
  }
}
