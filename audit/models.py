"""The audit log: append-only, each entry hash-chained to the one before it.

An entry's ``hash`` is ``sha256(prev_hash + canonical JSON of its content)`` (see
`audit.chain`), so an edit or a deletion anywhere breaks the chain at that entry. The model
refuses to update or delete a row, and on PostgreSQL a trigger refuses it too (migration 0002).

One table holds several chains: the global one (``chain`` null: accounts, a match's start
and end, ratings, disputes, anchors) and one per match (``chain`` the match's id: the entries
made while it is played, `actions.MATCH_CHAIN_ACTIONS`). Each chain links its own entries in
id order; a match's head is anchored into the global chain (``match.chain_anchored``) when it
ends and every few minutes while it runs. Rows stored before the match chains existed are all
in the global chain, as they were.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from .actions import ACTIONS

GENESIS = "0" * 64  # the prev_hash of the first entry


class AppendOnlyError(Exception):
    """An attempt to change or remove an audit entry."""


class AuditQuerySet(models.QuerySet["AuditEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("Audit entries are append-only: they cannot be updated")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Audit entries are append-only: they cannot be deleted")


class AuditEntry(models.Model):
    """Who did what, when, from where, on which object; chained by hash to the entry before."""

    event_time = models.DateTimeField(db_index=True)
    action = models.CharField(max_length=40, choices=ACTIONS)
    # No database constraint: deleting a user must neither cascade into nor rewrite the log.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    ip = models.GenericIPAddressField(null=True, blank=True)
    object_type = models.CharField(max_length=40, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    extra_data = models.JSONField(default=dict, blank=True)
    # The chain the entry links into: null for the global chain, else the match's id.
    chain = models.BigIntegerField(null=True, blank=True)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64, unique=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["object_type", "object_id"], name="audit_object_idx"),
            # A match chain's head, and its entries in order (the global chain uses the pk).
            models.Index(
                fields=["chain", "id"],
                name="audit_chain_idx",
                condition=models.Q(chain__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action} {self.object_type}:{self.object_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError(f"Audit entry {self.pk} is append-only: it cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"Audit entry {self.pk} is append-only: it cannot be deleted")
