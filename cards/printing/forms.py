from django import forms

from cards.media import print_asset_url
from cards.models import Archon, Memeyori, Party, visible_to

from .portraits import MEGAPIXELS

PAPER_CHOICES = [("a4", "A4 (210 x 297 mm)"), ("letter", "Letter (8.5 x 11 in)")]


class PrintForm(forms.Form):
    """What to print and how. Characters are the user's own; a party may be theirs or public."""

    characters = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Each prints as its Mastercard followed by its move cards.",
    )
    party = forms.ChoiceField(
        required=False, help_text="Every Mastercard and move card of a party."
    )
    paper = forms.ChoiceField(choices=PAPER_CHOICES, initial="a4")
    backs = forms.BooleanField(
        required=False, label="Add a page of card backs after each sheet (mirrored for duplex)"
    )
    bleed = forms.BooleanField(
        required=False, label="Print-shop mode: one card per page with 3 mm bleed and crop marks"
    )
    foil = forms.BooleanField(
        required=False,
        label="Foil: a holographic sheen over each card's frame",
        help_text=(
            "For print-shop mode only (tick it too): the sheen runs on over the bleed, which "
            "a home sheet has none of. It covers the frame, never the text."
        ),
    )
    back = forms.ChoiceField(
        choices=[
            ("light", "Ink-light: the mark and every Type's colour on white"),
            ("solid", "Solid dark"),
        ],
        initial="light",
        required=False,
        label="Card backs",
    )
    copies = forms.IntegerField(
        min_value=1,
        max_value=9,
        initial=1,
        required=False,
        label="Copies of each move card",
        help_text="1 to 9; Mastercards print once.",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        own = []
        if user.is_authenticated:
            for model in (Archon, Memeyori):
                for c in model.objects.filter(owner=user).select_related("type"):
                    label = f"{c.name} ({'Archon' if model is Archon else f'Rank {c.rank}'})"
                    own.append((f"{model.kind}:{c.code}", label))
        self.fields["characters"].choices = own
        self.parties = {
            str(p.code): p for p in Party.objects.filter(visible_to(user)).select_related("owner")
        }
        self.fields["party"].choices = [("", "(no party)")] + [
            (code, f"{p.name} (by {p.owner.username})") for code, p in self.parties.items()
        ]

    def clean(self):
        data = super().clean()
        if data.get("foil") and not data.get("bleed"):
            # Said by the box, not dropped without a word: the person asked for foil.
            self.add_error(
                "foil",
                "Foil prints only in print-shop mode: tick Print-shop mode too, or untick Foil.",
            )
        if not data.get("characters") and not data.get("party"):
            raise forms.ValidationError("Choose at least one character or a party.")
        return data

    def back_image(self) -> str:
        """The chosen party's back image (a media URL, for the sandboxed fetcher), or ""."""
        party = self.parties.get(self.cleaned_data.get("party") or "")
        return print_asset_url(party.back_image.name) if party and party.back_image else ""

    def filename(self) -> str:
        """The PDF's name, after what it holds: the party and any other characters, and
        "print-shop" when it is one card a page with bleed."""
        from .deck import pdf_filename

        party = self.parties.get(self.cleaned_data.get("party") or "")
        what = "print-shop-cards" if self.cleaned_data.get("bleed") else "cards"
        if self.cleaned_data.get("bleed") and self.cleaned_data.get("foil"):
            what = "print-shop-foil-cards"
        return pdf_filename(self.chosen(), party=party, what=what)

    def chosen(self) -> list:
        """The chosen characters, in order: the party's first, then the others once each."""
        from .deck import party_characters

        result = []
        if self.cleaned_data.get("party"):
            result += party_characters(self.parties[self.cleaned_data["party"]])
        models = {"memeyori": Memeyori, "archon": Archon}
        for value in self.cleaned_data.get("characters", []):
            kind, code = value.split(":", 1)
            character = models[kind].objects.select_related("type").get(owner=self.user, code=code)
            if all(not (type(c) is type(character) and c.pk == character.pk) for c in result):
                result.append(character)
        return result


class PortraitForm(forms.Form):
    portrait = forms.FileField(
        required=False,
        help_text=f"PNG, JPEG or WebP, at most 10 MB and {MEGAPIXELS} megapixels.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )
    focus_x = forms.FloatField(
        min_value=0, max_value=1, label="Focal point across (0 = left, 1 = right)"
    )
    focus_y = forms.FloatField(
        min_value=0, max_value=1, label="Focal point down (0 = top, 1 = bottom)"
    )
