// A level picker lists each level short ("Medium · wins 80%"); the chosen level's description
// (how it plays, its measured strength) is written apart, in the element the select's
// data-describe names, from the option's data-about. Without this script the page shows the
// default level's description.
for (const select of document.querySelectorAll("select[data-describe]")) {
  const about = document.getElementById(select.dataset.describe);
  if (!about) continue;
  const show = () => {
    const chosen = select.selectedOptions[0];
    if (chosen && chosen.dataset.about) about.textContent = chosen.dataset.about;
  };
  select.addEventListener("change", show);
  show(); // a choice the browser restored (back, reload) differs from the default
}
