// On a narrow screen the site's links fold under "Menu" (static/css/site.css): the button opens
// and closes them; Escape or a tap outside closes them again.
(() => {
  const button = document.getElementById("nav-toggle");
  const header = button && button.closest(".site-header");
  if (!header) return;
  const set = (open) => {
    header.classList.toggle("nav-open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => set(!header.classList.contains("nav-open")));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && header.classList.contains("nav-open")) {
      set(false);
      button.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (!header.contains(event.target)) set(false);
  });
})();
