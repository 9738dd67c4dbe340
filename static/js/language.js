// The header's language picker: choosing a language sends the form (its button stays for
// pages read without scripts).
(function () {
  const form = document.querySelector(".language-picker");
  if (!form) return;
  const select = form.querySelector("select[data-autosubmit]");
  const button = form.querySelector(".language-go");
  if (button) button.hidden = true;
  if (select) select.addEventListener("change", () => form.submit());
})();
