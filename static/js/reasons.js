// Reasons told in the page's language from the codes and data the server sends beside their
// English text (issue 29): what a move does (games/bots/words.py `say`, a bot's reason; the
// same words as room.js's botReason and games/match/saying.py) and why another move was
// better (games/bots/analysis.py `explain`, the match report's costliest moves). `name(corner)`
// is the colour of a corner as the page says it.
import { fmt, gettext, ngettext } from "./i18n.js";

const BONUS_NAMES = { double: gettext("Double roll"), control: gettext("Dice control"), shield: gettext("Shield"), plus: gettext("+1") };
const BOT_SAYS = {
  home: gettext("brings %(pawn)s home"),
  out: gettext("brings %(pawn)s out of the yard"),
  column: gettext("moves %(pawn)s into its home column"),
  to_column: gettext("moves %(pawn)s to its home column"),
  safe: gettext("moves %(pawn)s to a safe square"),
  behind: gettext("moves %(pawn)s, the pawn furthest behind"),
  along: gettext("moves %(pawn)s, the pawn furthest along"),
  away: gettext("moves %(pawn)s away from a rival pawn"),
  away_all: gettext("moves %(pawn)s away from rival pawns"),
  reach: gettext("moves %(pawn)s out of a rival's reach"),
  shield: gettext("moves %(pawn)s under a Shield"),
};

/** "pawn 2", or "Yellow's pawn 2" for a partner's pawn (`of` its corner). */
export function pawnName(why, name) {
  if (why.of === null || why.of === undefined) return fmt(gettext("pawn %(n)s"), { n: why.pawn });
  return fmt(gettext("%(colour)s's pawn %(n)s"), { colour: name(why.of), n: why.pawn });
}

/** The pawns a move captures, from rows of [corner, count]. */
export function capturedNames(rows, name) {
  const total = rows.reduce((sum, row) => sum + row[1], 0);
  const owners = rows.map((row) => name(row[0]));
  if (owners.length === 1) return fmt(ngettext("%(owner)s's pawn", "%(owner)s's %(n)s pawns", total), { owner: owners[0], n: total });
  return fmt(gettext("the pawns of %(owners)s"), { owners: owners.slice(0, -1).join(gettext(", ")) + gettext(" and ") + owners[owners.length - 1] });
}

/** A bot's reason, or what a move does: `why` is `{code, ...data}`; "" for an unknown code. */
export function botReason(why, name) {
  if (!why || !why.code) return "";
  if (why.code === "hunch") return fmt(gettext("%(reason)s on a hunch"), { reason: botReason(why.base, name) });
  if (why.code === "missed") return fmt(why.missed === "capture" ? gettext("%(reason)s (it missed a capture)") : gettext("%(reason)s (it missed a safe square)"), { reason: botReason(why.base, name) });
  const pawn = pawnName(why, name);
  if (why.code === "capture" || why.code === "capture_with") {
    const caught = capturedNames(why.captured || [], name);
    return why.code === "capture" ? fmt(gettext("captures %(captured)s"), { captured: caught }) : fmt(gettext("captures %(captured)s with %(pawn)s"), { captured: caught, pawn });
  }
  if (why.code === "bonus") return fmt(gettext("moves %(pawn)s onto the %(bonus)s square"), { pawn, bonus: BONUS_NAMES[why.bonus] || why.bonus });
  if (why.code === "steps") return fmt(ngettext("moves %(pawn)s %(n)s square", "moves %(pawn)s %(n)s squares", why.n), { pawn, n: why.n });
  return BOT_SAYS[why.code] ? fmt(BOT_SAYS[why.code], { pawn }) : "";
}

const LOST_SAYS = {
  could_go_home: gettext("%(pawn)s could have gone home"),
  could_escape: gettext("%(pawn)s could have moved out of a rival's reach"),
  could_come_out: gettext("bringing %(pawn)s out of the yard kept better chances"),
  could_move: gettext("moving %(pawn)s instead kept better chances"),
};

/** Why the better move beat the one played (a report's costliest move); "" for an unknown
 * code. */
export function lostReason(why, name) {
  if (!why || !why.code) return "";
  const pawn = pawnName(why, name);
  if (why.code === "could_capture") return fmt(gettext("%(pawn)s could have captured %(captured)s"), { pawn, captured: capturedNames(why.captured || [], name) });
  if (why.code === "left_in_reach") return fmt(ngettext("moving %(pawn)s left it in reach of a rival pawn", "moving %(pawn)s left it in reach of %(n)s rival pawns", why.n), { pawn, n: why.n });
  return LOST_SAYS[why.code] ? fmt(LOST_SAYS[why.code], { pawn }) : "";
}
