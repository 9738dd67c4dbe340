// A required checkbox left unticked (the sign-up's Terms): the error is said on the page, beside
// the box, in the words the server would use, instead of the browser's fading bubble.
for (const box of document.querySelectorAll(".check-field input[type=checkbox][required]")) {
  const error = document.getElementById(`${box.id}-error`);
  if (!error) continue;
  box.addEventListener("invalid", (event) => {
    event.preventDefault();
    error.textContent = error.dataset.required;
    error.hidden = false;
    if (box.form && box.form.querySelector(":invalid") === box) box.focus();
  });
  box.addEventListener("change", () => {
    if (box.checked) error.hidden = true;
  });
}
