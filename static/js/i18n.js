// The scripts' words (issue 29): Django's JavaScriptCatalog (/i18n/js/, loaded by base.html)
// defines the globals; these fall back to English when a page runs without it.
export const gettext = window.gettext || ((s) => s);
export const ngettext = window.ngettext || ((s, p, n) => (n === 1 ? s : p));
const interpolateAny = window.interpolate || ((f, o) => f.replace(/%\((\w+)\)s/g, (_, k) => String(o[k])));
/** `fmt(gettext("%(who)s rolls %(face)s"), { who, face })`: named placeholders, so a
 * translation may put them in any order. */
export const fmt = (format, values) => interpolateAny(format, values, true);

// The colours of the seats, as the board's config names them.
const COLOURS = {
  red: gettext("Red"),
  green: gettext("Green"),
  yellow: gettext("Yellow"),
  blue: gettext("Blue"),
};
/** A colour's name to read ("Red"), from its code ("red"). */
export const colourName = (colour) => COLOURS[colour] || colour[0].toUpperCase() + colour.slice(1);

// Numbers, shares and dates in the page's language (issue 29): Arabic digits where the
// language writes them, its decimal sign, its percent sign's place.
const LANG = document.documentElement.lang || undefined;
/** `formatNumber(12.5, 1)`: "12.5", "12,5" (de), "١٢٫٥" (ar). */
export const formatNumber = (n, digits = 0) => new Intl.NumberFormat(LANG, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
/** `formatPercent(0.56)`: "56%", "%56" (tr), "56 %" (fr, de). */
export const formatPercent = (share, digits = 0) => new Intl.NumberFormat(LANG, { style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits }).format(share);
/** A date and time as the page's language writes it. */
export const formatDate = (date, options = { dateStyle: "medium", timeStyle: "short" }) => new Intl.DateTimeFormat(LANG, options).format(date);
