"""Forms: a player opens a dispute; a moderator settles one; the queue's filters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from .models import DisputeStatus, Reason
from .services import DECISION_MAX, NOTE_MAX, TEXT_MAX


class OpenForm(forms.Form):
    reason = forms.ChoiceField(
        choices=Reason.choices, widget=forms.RadioSelect, label=_("What went wrong")
    )
    text = forms.CharField(
        label=_("Tell us what happened"),
        max_length=TEXT_MAX,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    turn = forms.IntegerField(
        label=_("Turn it is about (optional)"),
        required=False,
        min_value=1,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, *args: Any, turns: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["turn"]
        field.max_value = max(turns, 1)
        field.validators.append(MaxValueValidator(max(turns, 1)))
        field.widget.attrs["max"] = str(max(turns, 1))
        field.help_text = ngettext(
            "The match had %(turns)s turn; the replay shows each turn's number.",
            "The match had %(turns)s turns; the replay shows each turn's number.",
            turns,
        ) % {"turns": turns}


class SettleForm(forms.Form):
    outcome = forms.ChoiceField(
        choices=[
            (
                "uphold",
                _("Uphold: void the match (results cleared, ratings recomputed without it)"),
            ),
            ("protect", _("Uphold in part: the match no longer moves the filing player's rating")),
            ("reject", _("Reject")),
            ("duplicate", _("Close as a duplicate")),
        ],
        widget=forms.RadioSelect,
        label=_("Outcome"),
    )
    reason = forms.CharField(
        label=_(
            "Message to the player (neutral; on a void the public reads only "
            "“voided by a moderator”)"
        ),
        max_length=DECISION_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    note = forms.CharField(
        label=_("Internal note (moderators only)"),
        max_length=NOTE_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    duplicate_of = forms.IntegerField(
        label=_("Duplicate of dispute (number)"),
        required=False,
        min_value=1,
        help_text=_("Left empty on a void match: the dispute that voided it."),
    )


class NoteForm(forms.Form):
    text = forms.CharField(
        label=_("Internal note (moderators only)"),
        max_length=NOTE_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class AskForm(forms.Form):
    question = forms.CharField(
        label=_("Question to the player (they answer on their dispute's page)"),
        max_length=TEXT_MAX,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class AnswerForm(forms.Form):
    text = forms.CharField(
        label=_("Your answer"), max_length=TEXT_MAX, widget=forms.Textarea(attrs={"rows": 4})
    )


class AppealForm(forms.Form):
    text = forms.CharField(
        label=_("Why the decision is wrong"),
        max_length=TEXT_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
    )


AGES = [
    ("", _("Any age")),
    ("1", _("Older than 1 day")),
    ("3", _("Older than 3 days")),
    ("7", _("Older than 7 days")),
]


class QueueFilter(forms.Form):
    status = forms.ChoiceField(
        choices=[
            ("open", _("Open")),
            *[(s, label) for s, label in DisputeStatus.choices if s != "open"],
            ("all", _("All")),
        ],
        required=False,
    )
    reason = forms.ChoiceField(choices=[("", _("Any reason")), *Reason.choices], required=False)
    age = forms.ChoiceField(choices=AGES, required=False)
    who = forms.ChoiceField(
        choices=[("", _("Anyone's")), ("mine", _("Mine")), ("unassigned", _("Unassigned"))],
        required=False,
    )
