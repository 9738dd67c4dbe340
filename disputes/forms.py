"""Forms: a player opens a dispute; a moderator settles one; the queue's filters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import MaxValueValidator

from .models import DisputeStatus, Reason
from .services import DECISION_MAX, TEXT_MAX


class OpenForm(forms.Form):
    reason = forms.ChoiceField(
        choices=Reason.choices, widget=forms.RadioSelect, label="What went wrong"
    )
    text = forms.CharField(
        label="Tell us what happened",
        max_length=TEXT_MAX,
        widget=forms.Textarea(attrs={"rows": 5}),
    )
    turn = forms.IntegerField(
        label="Turn it is about (optional)",
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
        field.help_text = f"The match had {turns} turns; the replay shows each turn's number."


class SettleForm(forms.Form):
    outcome = forms.ChoiceField(
        choices=[
            ("uphold", "Uphold: void the match (results cleared, ratings recomputed without it)"),
            ("reject", "Reject: the result stands"),
        ],
        widget=forms.RadioSelect,
        label="Outcome",
    )
    reason = forms.CharField(
        label="Reason (the player reads it)",
        max_length=DECISION_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
    )


AGES = [
    ("", "Any age"),
    ("1", "Older than 1 day"),
    ("3", "Older than 3 days"),
    ("7", "Older than 7 days"),
]


class QueueFilter(forms.Form):
    status = forms.ChoiceField(
        choices=[
            ("open", "Open"),
            *[(s, label) for s, label in DisputeStatus.choices if s != "open"],
            ("all", "All"),
        ],
        required=False,
    )
    reason = forms.ChoiceField(choices=[("", "Any reason"), *Reason.choices], required=False)
    age = forms.ChoiceField(choices=AGES, required=False)
