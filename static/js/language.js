// The header's language picker: choosing a language sends the form (without scripts, the
// form's button in <noscript> does).
(function () {
  const form = document.querySelector(".language-picker");
  if (!form) return;
  const select = form.querySelector("select[data-autosubmit]");
  if (select) select.addEventListener("change", () => form.submit());
})();
