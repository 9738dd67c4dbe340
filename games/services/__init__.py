"""The only code that changes a match: every write to a match's rows goes through one of
these actions, each a keyword-only function that runs in one transaction on the change
kernel (`games.services.kernel`): lock the match (``SELECT ... FOR UPDATE``), check the seat,
the ``seq`` and the turn, call the engine, append rows (rolls, moves, turns, events), write
audit entries, update the match's cached snapshot, and after commit broadcast the change
(`games.services.broadcast`). A refusal raises `ServiceError` and writes nothing.

Who acts: either ``user`` (a seated user; in local play the host holds several seats and acts
for the one to play) or ``corner`` (server-side callers: timers, bots, local play).

One module per kind of change, lila's ``MovePlayer``/``Takebacker`` style:

- `create`: open a match, its `options` checked (`ranked_tables`: a batch of ranked tables
  at once);
  `join`: take a seat, choose a dice seed, start by hand;
- `play`: roll, move, and a due deadline (`match_timeout`); `bots`: a bot's step;
- `undo`: take back in local play; `local`: switch a seat, start over (one device);
- `leave`: forfeit and resign;
- `presence`: connected, away, the disconnect grace; `void`: a moderator voids a match
  (or undoes a void, or protects one player's rating from it);
- `guests`: a guest's games move to the account they sign in to;
- `reactions`: a player's quick reaction in an online room; `rematch`: the same seats again;
- `intents`: a client's intent (socket or API) to its action (`match_act`);
- `ranked_seats`: who may sit in a ranked match;
- `deadlines`: when the match next needs the server (the deadline `kernel.save` deals).
- `restart`: a turn's clock started again when its news could not reach the player.
- `chains`: the matches' own audit chains anchored while they run (`anchor_running_chains`,
  for the clock sweep).

Times come from the database clock (see `games.services.deadlines`). Whatever
fires a due ``turn_deadline`` calls `match_timeout`, which does nothing unless the deadline
has passed and ``turn_seq`` is still the turn it was given; for a bot's turn it takes the
bot's step.

Callers outside the package use the names below (``from games import services``).
"""

from games.match.errors import ServiceError
from games.services import broadcast
from games.services.bots import BOT_LEVELS, DEFAULT_BOT_LEVEL, bot_act
from games.services.chains import anchor_running as anchor_running_chains
from games.services.create import match_create
from games.services.guests import seats_hand_over
from games.services.intents import match_act
from games.services.join import match_join, match_set_client_seed, match_start
from games.services.kernel import ActionResult
from games.services.leave import match_forfeit, match_resign
from games.services.local import match_set_seat, match_start_over
from games.services.options import HOUSE_RULES, PARTY_OPTIONS
from games.services.play import match_move, match_roll, match_timeout
from games.services.presence import seat_grace_expired, seat_set_connected
from games.services.ranked_tables import insert_rows, ranked_matches_create
from games.services.reactions import match_react
from games.services.rematch import match_rematch, rematch_code
from games.services.restart import match_clock_restart
from games.services.undo import match_undo
from games.services.void import (
    match_unvoid,
    match_void,
    seat_protect_rating,
    seat_unprotect_rating,
)

__all__ = [
    "BOT_LEVELS",
    "DEFAULT_BOT_LEVEL",
    "HOUSE_RULES",
    "PARTY_OPTIONS",
    "ActionResult",
    "ServiceError",
    "anchor_running_chains",
    "bot_act",
    "insert_rows",
    "match_act",
    "match_create",
    "match_clock_restart",
    "match_forfeit",
    "match_join",
    "match_move",
    "match_react",
    "match_rematch",
    "match_resign",
    "match_roll",
    "match_set_client_seed",
    "match_set_seat",
    "match_start",
    "match_start_over",
    "match_timeout",
    "match_undo",
    "match_unvoid",
    "ranked_matches_create",
    "rematch_code",
    "match_void",
    "seat_grace_expired",
    "seat_protect_rating",
    "seat_unprotect_rating",
    "seat_set_connected",
    "seats_hand_over",
]

# A change whose news could not be delivered restarts its turn's clock (games.services.restart).
broadcast.undelivered.append(match_clock_restart)
