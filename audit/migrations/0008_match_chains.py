"""Per-match audit chains (issue 27): an entry's ``chain`` (null: the global chain).

The rows stored before stay as they are, in the global chain they were chained in: adding a
null column rewrites no row (no UPDATE reaches the append-only trigger) and changes no hash,
since an entry of the global chain hashes the same content as before. From now on the
entries of `audit.actions.MATCH_CHAIN_ACTIONS` go to their match's own chain."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('audit', '0007_seat_away_action'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='auditentry',
            name='chain',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('Accounts', [('user.signed_up', 'Signed up'), ('user.signed_in', 'Signed in'), ('user.sign_in_failed', 'Sign-in failed'), ('user.signed_out', 'Signed out'), ('user.sign_in_limited', 'Sign-in refused: too many attempts'), ('user.password_changed', 'Password changed'), ('user.password_reset', 'Password reset'), ('user.guest_upgraded', 'Guest turned into an account'), ('user.guest_merged', "Guest's games moved to the account signed in to"), ('user.rights_changed', 'Staff or moderator rights granted or removed')]), ('Matches', [('match.created', 'Match created'), ('match.joined', 'Seat taken'), ('match.started', 'Match started'), ('match.resigned', 'Player resigned'), ('match.forfeited', 'Player forfeited'), ('match.finished', 'Match finished'), ('match.aborted', 'Match aborted'), ('match.voided', 'Match voided'), ('match.unvoided', 'Void undone: the match counts again'), ('match.rating_protected', "A player's rating protected from the match"), ('match.same_ip', 'Same address on two sides'), ('match.undone', 'Local move undone'), ('match.bot_took_seat', "A bot took a leaving player's seat"), ('seat.connected', 'Player connected to the room'), ('seat.disconnected', "Player's last connection closed"), ('seat.away', 'The computer took the seat: the disconnect grace ran out'), ('match.chain_anchored', "The match's own audit chain anchored")]), ('Ranked', [('queue.joined', 'Joined a ranked queue'), ('queue.left', 'Left a ranked queue'), ('queue.matched', 'Matched from a queue')]), ('Disputes', [('dispute.opened', 'Dispute opened'), ('dispute.settled', 'Dispute settled'), ('dispute.viewed', 'Dispute reviewed (private data shown)'), ('dispute.record_viewed', 'Player record viewed (private data shown)'), ('dispute.assigned', 'Dispute claimed or assigned'), ('dispute.noted', 'Internal note added to a dispute'), ('dispute.info_requested', 'Player asked for more information'), ('dispute.info_given', "Player answered a moderator's question"), ('dispute.void_proposed', 'Void proposed, waiting for a second moderator'), ('dispute.proposal_refused', 'Proposed void refused by a second moderator')]), ('Ratings', [('rating.changed', 'Rating changed'), ('rating.recomputed', 'Ratings recomputed after a void')]), ('Admin', [('admin.action', 'Admin action')])], max_length=40),
        ),
        migrations.AddIndex(
            model_name='auditentry',
            index=models.Index(condition=models.Q(('chain__isnull', False)), fields=['chain', 'id'], name='audit_chain_idx'),
        ),
    ]
