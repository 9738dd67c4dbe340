"""The audit log's actions as named constants, grouped by area (Zulip's RealmAuditLog event
types): every `audit.services.record` call names one of these, never a string literal. The
group is the part before the dot; `ACTIONS` is the model field's choices."""

from __future__ import annotations

from django.utils.functional import Promise
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
MATCH_RATING_UNPROTECTED = "match.rating_unprotected"
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
QUEUE_HELD = "queue.held"
QUEUE_HOLD_DECIDED = "queue.hold_decided"

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

ACTIONS: list[tuple[str | Promise, list[tuple[str, str | Promise]]]] = [
    (
        gettext_lazy("Accounts"),
        [
            (USER_SIGNED_UP, gettext_lazy("Signed up")),
            (USER_SIGNED_IN, gettext_lazy("Signed in")),
            (USER_SIGN_IN_FAILED, gettext_lazy("Sign-in failed")),
            (USER_SIGNED_OUT, gettext_lazy("Signed out")),
            (USER_SIGN_IN_LIMITED, gettext_lazy("Sign-in refused: too many attempts")),
            (USER_PASSWORD_CHANGED, gettext_lazy("Password changed")),
            (USER_PASSWORD_RESET, gettext_lazy("Password reset")),
            (USER_GUEST_UPGRADED, gettext_lazy("Guest turned into an account")),
            (USER_GUEST_MERGED, gettext_lazy("Guest's games moved to the account signed in to")),
            (USER_RIGHTS_CHANGED, gettext_lazy("Staff or moderator rights granted or removed")),
        ],
    ),
    (
        gettext_lazy("Matches"),
        [
            (MATCH_CREATED, gettext_lazy("Match created")),
            (MATCH_JOINED, gettext_lazy("Seat taken")),
            (MATCH_STARTED, gettext_lazy("Match started")),
            (MATCH_RESIGNED, gettext_lazy("Player resigned")),
            (MATCH_FORFEITED, gettext_lazy("Player forfeited")),
            (MATCH_FINISHED, gettext_lazy("Match finished")),
            (MATCH_ABORTED, gettext_lazy("Match aborted")),
            (MATCH_VOIDED, gettext_lazy("Match voided")),
            (MATCH_UNVOIDED, gettext_lazy("Void undone: the match counts again")),
            (MATCH_RATING_PROTECTED, gettext_lazy("A player's rating protected from the match")),
            (
                MATCH_RATING_UNPROTECTED,
                gettext_lazy("A player's rating protection from the match undone"),
            ),
            (MATCH_SAME_IP, gettext_lazy("Same address on two sides")),
            (MATCH_UNDONE, gettext_lazy("Local move undone")),
            (MATCH_BOT_TOOK_SEAT, gettext_lazy("A bot took a leaving player's seat")),
            (SEAT_CONNECTED, gettext_lazy("Player connected to the room")),
            (SEAT_DISCONNECTED, gettext_lazy("Player's last connection closed")),
            (SEAT_AWAY, gettext_lazy("The computer took the seat: the disconnect grace ran out")),
            (MATCH_CHAIN_ANCHORED, gettext_lazy("The match's own audit chain anchored")),
        ],
    ),
    (
        gettext_lazy("Ranked"),
        [
            (QUEUE_JOINED, gettext_lazy("Joined a ranked queue")),
            (QUEUE_LEFT, gettext_lazy("Left a ranked queue")),
            (QUEUE_MATCHED, gettext_lazy("Matched from a queue")),
            (
                QUEUE_HELD,
                gettext_lazy("Ranked play held for a moderator: linked to a suspended account"),
            ),
            (QUEUE_HOLD_DECIDED, gettext_lazy("Held ranked play decided by a moderator")),
        ],
    ),
    (
        gettext_lazy("Disputes"),
        [
            (DISPUTE_OPENED, gettext_lazy("Dispute opened")),
            (DISPUTE_SETTLED, gettext_lazy("Dispute settled")),
            (DISPUTE_VIEWED, gettext_lazy("Dispute reviewed (private data shown)")),
            (DISPUTE_RECORD_VIEWED, gettext_lazy("Player record viewed (private data shown)")),
            (DISPUTE_ASSIGNED, gettext_lazy("Dispute claimed or assigned")),
            (DISPUTE_NOTED, gettext_lazy("Internal note added to a dispute")),
            (DISPUTE_INFO_REQUESTED, gettext_lazy("Player asked for more information")),
            (DISPUTE_INFO_GIVEN, gettext_lazy("Player answered a moderator's question")),
            (DISPUTE_VOID_PROPOSED, gettext_lazy("Void proposed, waiting for a second moderator")),
            (DISPUTE_PROPOSAL_REFUSED, gettext_lazy("Proposed void refused by a second moderator")),
        ],
    ),
    (
        gettext_lazy("Ratings"),
        [
            (RATING_CHANGED, gettext_lazy("Rating changed")),
            (RATING_RECOMPUTED, gettext_lazy("Ratings recomputed after a void")),
        ],
    ),
    (
        gettext_lazy("Fair play"),
        [
            (PLAYER_BLOCKED, gettext_lazy("Player blocked another")),
            (PLAYER_UNBLOCKED, gettext_lazy("Player unblocked another")),
            (SANCTION_GIVEN, gettext_lazy("Sanction given by a moderator")),
            (SANCTION_LIFTED, gettext_lazy("Sanction lifted")),
            (PLAYER_REPORTED, gettext_lazy("Player reported another")),
            (REPORTS_CLOSED, gettext_lazy("Reports of a player closed without a sanction")),
            (SANCTION_APPEALED, gettext_lazy("Sanction appealed")),
            (APPEAL_DECIDED, gettext_lazy("Appeal of a sanction decided")),
        ],
    ),
    (
        gettext_lazy("Tournaments"),
        [
            (TOURNAMENT_CREATED, gettext_lazy("Tournament created")),
            (TOURNAMENT_JOINED, gettext_lazy("Joined a tournament (or came back)")),
            (TOURNAMENT_WITHDRAWN, gettext_lazy("Withdrew from a tournament (or paused)")),
            (TOURNAMENT_RESULT, gettext_lazy("Tournament game result counted")),
            (TOURNAMENT_GAME_VOIDED, gettext_lazy("Tournament game voided or counted again")),
            (TOURNAMENT_FINISHED, gettext_lazy("Tournament finished: final standings")),
        ],
    ),
    (gettext_lazy("Admin"), [(ADMIN_ACTION, gettext_lazy("Admin action"))]),
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
