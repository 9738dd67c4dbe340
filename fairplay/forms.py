"""The fair play forms: a report, a sanction, an appeal and its decision."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Report, Sanction
from .services import MAX_SUSPENSION_DAYS, NOTE_LIMIT


class ReportForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("What happened"), choices=Report.Reason.choices, widget=forms.RadioSelect
    )
    note = forms.CharField(
        label=_("Anything the moderators should know (optional)"),
        required=False,
        max_length=NOTE_LIMIT,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class SanctionForm(forms.Form):
    kind = forms.ChoiceField(label=_("Sanction"), choices=Sanction.Kind.choices)
    days = forms.IntegerField(
        label=_("Days (a suspension)"),
        required=False,
        min_value=1,
        max_value=MAX_SUSPENSION_DAYS,
        initial=7,
    )
    reason = forms.CharField(
        label=_("Why, in plain words the player will read"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    boosting = forms.BooleanField(
        label=_("Boosting: give back the rating the player's opponents lost to them"),
        required=False,
    )

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("kind") == Sanction.Kind.SUSPENSION and not data.get("days"):
            self.add_error("days", _("Say for how many days."))
        return data


class AppealForm(forms.Form):
    text = forms.CharField(
        label=_("Why should this decision change?"),
        max_length=NOTE_LIMIT,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class DecideForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[("upheld", _("Uphold the sanction")), ("lifted", _("Lift the sanction"))],
        widget=forms.RadioSelect,
    )
    note = forms.CharField(
        label=_("Why, in plain words the player will read"),
        max_length=NOTE_LIMIT,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
