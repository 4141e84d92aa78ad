"""A party's own back image on its printed sheet (issue 13, printing: card backs)."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image
from pypdf import PdfReader

from cards.media import print_asset_url
from cards.models import Party
from cards.printing import layout, store
from cards.printing.deck import character_faces
from cards.printing.render import prepare
from cards.services import party_save, party_set_memeyori
from cards.tasks import BACK_SIZE
from tests.conftest import make_card, make_memeyori, make_party, stored_files
from tests.test_portraits import huge_png_header, image_bytes


@pytest.fixture
def squad(alice, types):
    pup = make_memeyori(alice, types["Blaze"], name="Emberpup")
    make_card(pup, types["Blaze"], name="Cinder Nip")
    party = make_party(alice, name="Sunrise Squad")
    party_set_memeyori(party=party, memeyori=[pup])
    return party


def edit(client, party, **extra):
    data = {"name": party.name, "archon": "", "level": 1, "dp_sp": 0, "dp_mp": 0, "dp_draw": 0,
            "visibility": party.visibility, "slot_1": str(party.memeyori_in_order()[0].code),
            "save": "1"}  # fmt: skip
    data.update(extra)
    return client.post(reverse("party_edit", kwargs={"code": party.code}), data)


def upload(data: bytes, name="back.png"):
    return SimpleUploadedFile(name, data, content_type="image/png")


def media_names(settings=None) -> list[str]:
    return stored_files()


pytestmark = pytest.mark.usefixtures("media_storage")


def test_the_owner_uploads_a_back_image_and_it_is_cropped_to_the_card(
    client, alice, squad, settings, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = edit(client, squad, back_image=upload(image_bytes((1200, 600), fmt="PNG")))
    assert response.status_code == 302
    squad.refresh_from_db()
    assert squad.back_image.name.startswith("backs/")
    with squad.back_image.open("rb") as handle, Image.open(handle) as image:
        assert image.format == "JPEG" and image.size == BACK_SIZE
        assert not image.getexif()
    # The upload as it came is gone; only the card-sized copy is kept.
    assert media_names(settings) == [squad.back_image.name]


@pytest.mark.parametrize(
    "data, message",
    [
        (b"GIF89a....", "GIF images are not accepted"),
        (b"not an image at all", "not a PNG, JPEG or WebP image"),
        (huge_png_header(), "megapixels"),
    ],
)
def test_it_refuses_a_bad_back_image_with_a_message_and_stores_nothing(
    client, alice, squad, settings, django_capture_on_commit_callbacks, data, message
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = edit(client, squad, name="Renamed", back_image=upload(data))
    assert response.status_code == 200
    assert message in response.content.decode()
    squad.refresh_from_db()
    assert squad.name == "Sunrise Squad" and not squad.back_image
    assert media_names(settings) == []


def test_the_owner_removes_the_back_image_and_its_file(
    client, alice, squad, settings, django_capture_on_commit_callbacks
):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        edit(client, squad, back_image=upload(image_bytes((300, 400), fmt="PNG")))
    page = client.get(reverse("party_edit", kwargs={"code": squad.code})).content.decode()
    assert 'name="remove_back_image"' in page
    with django_capture_on_commit_callbacks(execute=True):
        assert edit(client, squad, remove_back_image="on").status_code == 302
    assert not Party.objects.get(pk=squad.pk).back_image
    assert media_names(settings) == []


def test_only_the_owner_can_change_the_back_image(client, bob, squad):
    client.force_login(bob)
    response = edit(client, squad, back_image=upload(image_bytes((300, 400), fmt="PNG")))
    assert response.status_code == 404
    assert not Party.objects.get(pk=squad.pk).back_image


def _with_back(squad, colour, django_capture_on_commit_callbacks, client, alice):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        edit(client, squad, back_image=upload(image_bytes((630, 880), fmt="PNG", colour=colour)))
    squad.refresh_from_db()
    return squad


def test_the_party_sheet_prints_its_back_image_on_the_backs_only(
    client, alice, squad, django_capture_on_commit_callbacks
):
    _with_back(squad, (10, 160, 40), django_capture_on_commit_callbacks, client, alice)
    response = client.get(
        reverse("print_sheet"), {"party": squad.code, "paper": "a4", "backs": "on"}
    )
    reader = PdfReader(io.BytesIO(response.content))
    fronts, backs = reader.pages
    assert "Emberpup" in fronts.extract_text()
    # The plain design's words are replaced by the party's picture (one image object,
    # drawn on each back), and it is the uploaded one. (WeasyPrint shares one resource
    # dictionary between pages, and every card placed on a sheet names it, so which page
    # or card draws it is not asked here.)
    assert "MEMEYORI" not in backs.extract_text()
    (picture,) = {i.data: i for i in backs.images if i.image.size == BACK_SIZE}.values()
    red, green, blue = picture.image.convert("RGB").getpixel((20, 20))
    assert green > 120 and red < 60 and blue < 80
    # Without backs, the image is not fetched at all.
    plain = client.get(reverse("print_sheet"), {"party": squad.code, "paper": "a4"})
    assert len(PdfReader(io.BytesIO(plain.content)).pages) == 1


def test_a_new_back_image_changes_the_render_key(
    client, alice, squad, django_capture_on_commit_callbacks
):
    """Media names are written once and never again (cards/media.py), so the key names the
    file instead of reading it: no request reads an object store to hash a sheet."""
    _with_back(squad, (10, 160, 40), django_capture_on_commit_callbacks, client, alice)
    faces = [f for c in [squad.memeyori_in_order()[0]] for f in character_faces(c)]
    sheet = layout.sheet_layout("a4")

    def key():
        squad.refresh_from_db()
        spec = prepare(
            faces, sheet=sheet, backs=True, back_image=print_asset_url(squad.back_image.name)
        )
        return store.spec_key("sheet", spec)

    before = key()
    assert before != store.spec_key("sheet", prepare(faces, sheet=sheet, backs=True))
    _with_back(squad, (200, 0, 0), django_capture_on_commit_callbacks, client, alice)
    assert key() != before


def test_an_edit_begun_before_the_image_was_processed_keeps_the_new_image(
    client, alice, squad, django_capture_on_commit_callbacks
):
    stale = Party.objects.get(pk=squad.pk)  # read before the back image lands
    _with_back(squad, (10, 160, 40), django_capture_on_commit_callbacks, client, alice)
    stale.name = "Renamed"
    party_save(party=stale, memeyori=squad.memeyori_in_order())
    fresh = Party.objects.get(pk=squad.pk)
    assert fresh.name == "Renamed" and fresh.back_image.name == squad.back_image.name


def test_in_print_shop_mode_the_back_image_runs_into_the_bleed_and_only_a_media_path_does(
    alice, squad
):
    faces = character_faces(squad.memeyori_in_order()[0])[:1]
    sheet = layout.sheet_layout("a4")

    def style(back_image):
        html = prepare(faces, sheet=sheet, backs=True, bleed=True, back_image=back_image)
        return html["jobs"][0]["html"].split("<style>")[1].split("</style>")[0]

    assert 'url("/media/backs/x-1a.jpg") center / cover' in style("/media/backs/x-1a.jpg")
    # A path that is not plainly a media path adds nothing: the style is the one without a
    # back image (the Types' frames are the only pictures it names).
    hostile = style('/media/x.jpg"); } * { display: none; } .a { x: url("y.jpg')
    assert hostile == style(None)
    assert "x.jpg" not in hostile and "display: none" not in hostile


def test_deleting_the_party_deletes_its_back_image(
    client, alice, squad, settings, django_capture_on_commit_callbacks
):
    _with_back(squad, (10, 160, 40), django_capture_on_commit_callbacks, client, alice)
    assert media_names(settings) == [squad.back_image.name]
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("party_remove", kwargs={"code": squad.code}))
    assert not Party.objects.filter(pk=squad.pk).exists()
    assert media_names(settings) == []
