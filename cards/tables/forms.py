from django import forms
from django.contrib.auth import get_user_model

from ..forms import LimitsShown


class TableForm(LimitsShown, forms.Form):
    name = forms.CharField(max_length=60)
    description = forms.CharField(
        label="Short description", max_length=200, required=False, widget=forms.TextInput
    )
    draw_at_limit = forms.BooleanField(
        label="A draw at the limit",
        required=False,
        help_text="When round 30 ends with both sides standing, the table's battles and games "
        "are draws, as before R9.6. Left off, the round limit decides: the side with more "
        "combatants standing wins, then the side with more of its HP left.",
    )


class TableRulesForm(forms.Form):
    """The GM's rules for the table's battles and games (R9.6's round limit)."""

    draw_at_limit = TableForm.base_fields["draw_at_limit"]


class InviteForm(forms.Form):
    action = forms.ChoiceField(choices=[("open", "open"), ("revoke", "revoke")])
    days = forms.IntegerField(
        label="Expires after (days)",
        min_value=1,
        max_value=365,
        required=False,
        help_text="Leave empty for a link that works until you revoke it.",
    )


class MemberForm(forms.Form):
    """Acting on one member, named by username (never an integer key)."""

    action = forms.ChoiceField(choices=[("remove", "remove"), ("make_gm", "make_gm")])
    member = forms.CharField(max_length=150)

    def __init__(self, *args, table, **kwargs):
        super().__init__(*args, **kwargs)
        self.table = table

    def clean_member(self):
        user = (
            get_user_model()
            .objects.filter(
                username=self.cleaned_data["member"], table_memberships__table=self.table
            )
            .first()
        )
        if user is None:
            raise forms.ValidationError("They do not sit at this table.")
        return user


class TablePrintForm(forms.Form):
    member = forms.CharField(max_length=150, required=False)
