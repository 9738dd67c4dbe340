"""Staff and moderator rights, and admin sign-ins, in the hash-chained audit log.

Rights change in the admin, in a shell or in a migration; signals catch every way, so each
grant or removal of ``is_staff``, ``is_superuser`` or the moderators group is written as
``user.rights_changed`` (the request's user as actor when there is a request: see
`RequestActor`). A successful sign-in through ``/admin/`` is written as ``user.signed_in``
with ``via: "admin"`` (the site's own form records its sign-ins itself; failures at both are
recorded by `accounts.forms.SignInForm`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.contrib.auth.models import Group
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import m2m_changed, post_save, pre_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse

from accounts.addresses import client_ip
from audit import actions
from audit import services as audit

from .models import User

MODERATORS = "moderators"
FLAGS = ("is_staff", "is_superuser")


def is_moderator(user: Any) -> bool:
    """Staff in the moderators group: they work both desks (disputes and fair play)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_staff:
        return False
    return bool(user.groups.filter(name=MODERATORS).exists())


def moderators() -> list[User]:
    """Every moderator (active staff in the moderators group), by name."""
    users = User.objects.filter(is_staff=True, groups__name=MODERATORS, is_active=True)
    return list(users.order_by("username").distinct())


# Who is acting in this request, and from where (None outside a request).
_actor: ContextVar[tuple[Any, str | None] | None] = ContextVar("rights_actor", default=None)


class RequestActor:
    """Middleware: remember the signed-in user and address for the rights audit."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        who = user if user is not None and user.is_authenticated else None
        token = _actor.set((who, client_ip(request)))
        try:
            return self.get_response(request)
        finally:
            _actor.reset(token)


def _record(user: User, changes: dict[str, Any]) -> None:
    actor, ip = _actor.get() or (None, None)
    audit.record(
        action=actions.USER_RIGHTS_CHANGED,
        actor=actor,
        ip=ip,
        obj=user,
        extra={"user": user.pk, "username": user.username, **changes},
    )


@receiver(pre_save, sender=User, dispatch_uid="rights_before")
def _before(sender: Any, instance: User, update_fields: Any = None, **kwargs: Any) -> None:
    if instance.pk is None or (update_fields is not None and not set(update_fields) & set(FLAGS)):
        instance._rights_before = None  # type: ignore[attr-defined]
        return
    instance._rights_before = (  # type: ignore[attr-defined]
        User.objects.filter(pk=instance.pk).values(*FLAGS).first()
    )


@receiver(post_save, sender=User, dispatch_uid="rights_after")
def _after(sender: Any, instance: User, created: bool, **kwargs: Any) -> None:
    before = getattr(instance, "_rights_before", None)
    if created:
        before = {flag: False for flag in FLAGS}
    if before is None:
        return
    changes = {
        flag: getattr(instance, flag) for flag in FLAGS if before[flag] != getattr(instance, flag)
    }
    if changes:
        _record(instance, changes)


@receiver(m2m_changed, sender=User.groups.through, dispatch_uid="rights_groups")
def _groups(
    sender: Any, instance: Any, action: str, reverse: bool, pk_set: Any, **kwargs: Any
) -> None:
    if action not in ("post_add", "post_remove", "pre_clear"):
        return
    moderators = Group.objects.filter(name=MODERATORS).first()
    if moderators is None:
        return
    granted = action == "post_add"
    if reverse:  # group.user_set.add(...): instance is the group
        if instance.pk != moderators.pk:
            return
        users = list(User.objects.filter(pk__in=pk_set or ()))
        if action == "pre_clear":
            users = list(moderators.user_set.all())
    else:
        if action == "pre_clear":
            if not instance.groups.filter(pk=moderators.pk).exists():
                return
        elif moderators.pk not in (pk_set or ()):
            return
        users = [instance]
    for user in users:
        _record(user, {"moderators": granted})


@receiver(user_logged_in, dispatch_uid="admin_sign_in")
def _admin_sign_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if request is None:
        return
    try:
        admin_login = reverse("admin:login")
    except NoReverseMatch:
        return
    if request.path == admin_login:
        audit.record(
            action=actions.USER_SIGNED_IN,
            actor=user,
            ip=client_ip(request),
            obj=user,
            extra={"via": "admin"},
        )
