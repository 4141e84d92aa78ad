"""`manage.py print_cards`: a game master's sheet PDF from the command line."""

import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from battles.engine import words
from cards.media import print_asset_url
from cards.models import Archon, Memeyori, Party
from cards.printing import layout, pdf
from cards.printing.deck import character_faces, party_characters
from cards.printing.render import TooManyCards, render_faces


def _as_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


class Command(BaseCommand):
    help = "Print Mastercards and move cards of a party or of characters to a PDF."

    def add_arguments(self, parser):
        chosen = parser.add_mutually_exclusive_group(required=True)
        chosen.add_argument("--party", help="the party's name, code (UUID) or database id")
        chosen.add_argument(
            "--character", action="append", metavar="CODE", help="a character's code; repeatable"
        )
        parser.add_argument("--paper", choices=sorted(layout.PAPERS), default="a4")
        parser.add_argument("--backs", action="store_true", help="a mirrored backs page per sheet")
        parser.add_argument(
            "--bleed", action="store_true", help="print-shop mode: one card a page, 3 mm bleed"
        )
        parser.add_argument(
            "--foil", action="store_true", help="with --bleed: a holographic sheen on the frames"
        )
        parser.add_argument("--out", required=True, type=Path, help="where to write the PDF")

    def handle(self, *args, party, character, paper, backs, bleed, foil, out, **options):
        if foil and not bleed:
            raise CommandError("--foil prints only in print-shop mode: add --bleed.")
        chosen = self._party(party) if party else None
        characters = party_characters(chosen) if chosen else [self._character(c) for c in character]
        faces = [face for c in characters for face in character_faces(c)]
        back_image = (
            print_asset_url(chosen.back_image.name)
            if chosen and chosen.back_image and backs
            else ""
        )
        try:
            result = render_faces(
                faces,
                sheet=layout.sheet_layout(paper),
                backs=backs,
                bleed=bleed,
                foil=foil,
                title="Memeyori",
                back_image=back_image,
            )
        except (TooManyCards, pdf.RenderFailed) as error:
            raise CommandError(str(error)) from None
        out.write_bytes(result.pdf)
        for line in result.preflight:
            self.stderr.write(f"preflight: {line}")
        self.stdout.write(
            f"Wrote {words.plural(len(faces), 'card')} on {words.plural(result.pages, 'page')} "
            f"to {out}"
        )

    def _party(self, value: str):
        # A local admin tool, so the database id is accepted too (never in a public URL).
        code = _as_uuid(value)
        if code:
            parties = list(Party.objects.filter(code=code))
        elif value.isdigit():
            parties = list(Party.objects.filter(pk=int(value)))
        else:
            parties = list(Party.objects.filter(name=value))
        if not parties:
            raise CommandError(f"No party with the name, code or id {value!r}.")
        if len(parties) > 1:
            codes = ", ".join(f"{p.code} (by {p.owner})" for p in parties)
            raise CommandError(f"{len(parties)} parties are named {value!r}; give a code: {codes}")
        return parties[0]

    def _character(self, value: str):
        code = _as_uuid(value)
        for model in (Memeyori, Archon):
            found = model.objects.select_related("type").filter(code=code).first() if code else None
            if found:
                return found
        raise CommandError(f"No Memeyori or Archon with the code {value!r}.")
