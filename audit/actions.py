"""The audit log's actions as named constants, grouped by area (Zulip's RealmAuditLog event
types): every `audit.services.record` call names one of these, never a string literal. The
group is the part before the dot; `ACTIONS` is the model field's choices."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

# Accounts
USER_SIGNED_UP = "user.signed_up"
USER_SIGNED_IN = "user.signed_in"
USER_SIGN_IN_FAILED = "user.sign_in_failed"
USER_SIGNED_OUT = "user.signed_out"
USER_SIGN_IN_LIMITED = "user.sign_in_limited"
USER_PASSWORD_CHANGED = "user.password_changed"
USER_PASSWORD_RESET = "user.password_reset"
USER_GUEST_UPGRADED = "user.guest_upgraded"
USER_GUEST_MERGED = "user.guest_merged"
USER_RIGHTS_CHANGED = "user.rights_changed"

# Matches
MATCH_CREATED = "match.created"
MATCH_JOINED = "match.joined"
MATCH_STARTED = "match.started"
MATCH_RESIGNED = "match.resigned"
MATCH_FORFEITED = "match.forfeited"
MATCH_FINISHED = "match.finished"
MATCH_ABORTED = "match.aborted"
MATCH_VOIDED = "match.voided"
MATCH_UNVOIDED = "match.unvoided"
MATCH_RATING_PROTECTED = "match.rating_protected"
MATCH_SAME_IP = "match.same_ip"
MATCH_UNDONE = "match.undone"
MATCH_BOT_TOOK_SEAT = "match.bot_took_seat"
SEAT_CONNECTED = "seat.connected"
SEAT_DISCONNECTED = "seat.disconnected"
SEAT_AWAY = "seat.away"
# A match's own chain anchored into the global chain (its head's id and hash): when the match
# ends, and every few minutes while it runs.
MATCH_CHAIN_ANCHORED = "match.chain_anchored"

# Ranked
QUEUE_JOINED = "queue.joined"
QUEUE_LEFT = "queue.left"
QUEUE_MATCHED = "queue.matched"

# Disputes
DISPUTE_OPENED = "dispute.opened"
DISPUTE_SETTLED = "dispute.settled"
DISPUTE_VIEWED = "dispute.viewed"
DISPUTE_RECORD_VIEWED = "dispute.record_viewed"
DISPUTE_ASSIGNED = "dispute.assigned"
DISPUTE_NOTED = "dispute.noted"
DISPUTE_INFO_REQUESTED = "dispute.info_requested"
DISPUTE_INFO_GIVEN = "dispute.info_given"
DISPUTE_VOID_PROPOSED = "dispute.void_proposed"
DISPUTE_PROPOSAL_REFUSED = "dispute.proposal_refused"

# Ratings
RATING_CHANGED = "rating.changed"
RATING_RECOMPUTED = "rating.recomputed"

# Fair play (issue 33): blocks between players, sanctions by moderators.
PLAYER_BLOCKED = "fairplay.blocked"
PLAYER_UNBLOCKED = "fairplay.unblocked"
SANCTION_GIVEN = "fairplay.sanction_given"
SANCTION_LIFTED = "fairplay.sanction_lifted"
PLAYER_REPORTED = "fairplay.reported"
REPORTS_CLOSED = "fairplay.reports_closed"
SANCTION_APPEALED = "fairplay.appealed"
APPEAL_DECIDED = "fairplay.appeal_decided"

# Tournaments
TOURNAMENT_CREATED = "tournament.created"
TOURNAMENT_JOINED = "tournament.joined"
TOURNAMENT_WITHDRAWN = "tournament.withdrawn"
TOURNAMENT_RESULT = "tournament.result"
TOURNAMENT_GAME_VOIDED = "tournament.game_voided"
TOURNAMENT_FINISHED = "tournament.finished"

# Admin
ADMIN_ACTION = "admin.action"

ACTIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Accounts",
        [
            (USER_SIGNED_UP, "Signed up"),
            (USER_SIGNED_IN, "Signed in"),
            (USER_SIGN_IN_FAILED, "Sign-in failed"),
            (USER_SIGNED_OUT, "Signed out"),
            (USER_SIGN_IN_LIMITED, "Sign-in refused: too many attempts"),
            (USER_PASSWORD_CHANGED, "Password changed"),
            (USER_PASSWORD_RESET, "Password reset"),
            (USER_GUEST_UPGRADED, "Guest turned into an account"),
            (USER_GUEST_MERGED, "Guest's games moved to the account signed in to"),
            (USER_RIGHTS_CHANGED, "Staff or moderator rights granted or removed"),
        ],
    ),
    (
        "Matches",
        [
            (MATCH_CREATED, "Match created"),
            (MATCH_JOINED, "Seat taken"),
            (MATCH_STARTED, "Match started"),
            (MATCH_RESIGNED, "Player resigned"),
            (MATCH_FORFEITED, "Player forfeited"),
            (MATCH_FINISHED, "Match finished"),
            (MATCH_ABORTED, "Match aborted"),
            (MATCH_VOIDED, "Match voided"),
            (MATCH_UNVOIDED, "Void undone: the match counts again"),
            (MATCH_RATING_PROTECTED, "A player's rating protected from the match"),
            (MATCH_SAME_IP, "Same address on two sides"),
            (MATCH_UNDONE, "Local move undone"),
            (MATCH_BOT_TOOK_SEAT, "A bot took a leaving player's seat"),
            (SEAT_CONNECTED, "Player connected to the room"),
            (SEAT_DISCONNECTED, "Player's last connection closed"),
            (SEAT_AWAY, "The computer took the seat: the disconnect grace ran out"),
            (MATCH_CHAIN_ANCHORED, gettext_lazy("The match's own audit chain anchored")),
        ],
    ),
    (
        "Ranked",
        [
            (QUEUE_JOINED, "Joined a ranked queue"),
            (QUEUE_LEFT, "Left a ranked queue"),
            (QUEUE_MATCHED, "Matched from a queue"),
        ],
    ),
    (
        "Disputes",
        [
            (DISPUTE_OPENED, "Dispute opened"),
            (DISPUTE_SETTLED, "Dispute settled"),
            (DISPUTE_VIEWED, "Dispute reviewed (private data shown)"),
            (DISPUTE_RECORD_VIEWED, "Player record viewed (private data shown)"),
            (DISPUTE_ASSIGNED, "Dispute claimed or assigned"),
            (DISPUTE_NOTED, "Internal note added to a dispute"),
            (DISPUTE_INFO_REQUESTED, "Player asked for more information"),
            (DISPUTE_INFO_GIVEN, "Player answered a moderator's question"),
            (DISPUTE_VOID_PROPOSED, "Void proposed, waiting for a second moderator"),
            (DISPUTE_PROPOSAL_REFUSED, "Proposed void refused by a second moderator"),
        ],
    ),
    (
        "Ratings",
        [
            (RATING_CHANGED, "Rating changed"),
            (RATING_RECOMPUTED, "Ratings recomputed after a void"),
        ],
    ),
    (
        "Fair play",
        [
            (PLAYER_BLOCKED, "Player blocked another"),
            (PLAYER_UNBLOCKED, "Player unblocked another"),
            (SANCTION_GIVEN, "Sanction given by a moderator"),
            (SANCTION_LIFTED, "Sanction lifted"),
            (PLAYER_REPORTED, "Player reported another"),
            (REPORTS_CLOSED, "Reports of a player closed without a sanction"),
            (SANCTION_APPEALED, "Sanction appealed"),
            (APPEAL_DECIDED, "Appeal of a sanction decided"),
        ],
    ),
    (
        "Tournaments",
        [
            (TOURNAMENT_CREATED, "Tournament created"),
            (TOURNAMENT_JOINED, "Joined a tournament (or came back)"),
            (TOURNAMENT_WITHDRAWN, "Withdrew from a tournament (or paused)"),
            (TOURNAMENT_RESULT, "Tournament game result counted"),
            (TOURNAMENT_GAME_VOIDED, "Tournament game voided or counted again"),
            (TOURNAMENT_FINISHED, "Tournament finished: final standings"),
        ],
    ),
    ("Admin", [(ADMIN_ACTION, "Admin action")]),
]
ACTION_NAMES = frozenset(name for _, group in ACTIONS for name, _ in group)

# The entries a match makes while it is played (connections, the clock's seat changes, undos,
# bots taking seats) go to that match's own chain (`AuditEntry.chain`), not the global one, so
# that a socket opening takes no lock shared by the whole site. Everything else (accounts,
# a match created, started, finished, voided; ratings; disputes; the chains' anchors) stays in
# the global chain.
MATCH_OBJECT = "games.match"
MATCH_CHAIN_ACTIONS = frozenset(
    {SEAT_CONNECTED, SEAT_DISCONNECTED, SEAT_AWAY, MATCH_UNDONE, MATCH_BOT_TOOK_SEAT}
)
