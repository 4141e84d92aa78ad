"""The renderer loads only our own static and media files, escapes user text and stops
renders that run too long."""

import io

import pytest
from django.conf import settings
from pypdf import PdfReader

from cards.printing import layout, pdf
from cards.printing.deck import character_faces, default_art_path
from cards.printing.render import _roots, render_faces
from tests.conftest import make_card, make_memeyori

HOSTILE = '<img src="file:///etc/passwd"><style>*{display:none}</style>'


@pytest.fixture
def fetcher(settings, tmp_path):
    return pdf.asset_fetcher(_roots())


def test_it_prints_a_hostile_name_as_text_and_fetches_nothing(alice, types):
    m = make_memeyori(alice, types["Shade"], name=HOSTILE, flavour=HOSTILE)
    make_card(m, types["Shade"], name="<b>x</b>", text='<link rel="stylesheet" href="http://x">')
    faces = character_faces(m)
    result = render_faces(faces, sheet=layout.sheet_layout("a4"))
    text = PdfReader(io.BytesIO(result.pdf)).pages[0].extract_text().replace("\x00", "")
    text = text.replace("\n", "")  # a long name wraps
    assert 'src="file:///etc/passwd"' in text and "<style>*{display:none}</style>" in text
    assert '<link rel="stylesheet" href="http://x">' in text
    # Only our cut marks, the default art made for the render and two stylesheets were
    # asked for; nothing was refused because nothing else was even requested: the markup
    # was text.
    assert set(result.requested) == {
        pdf.ASSET_BASE + "generated/marks.svg",
        pdf.ASSET_BASE + default_art_path(m).lstrip("/"),
        pdf.ASSET_BASE + "print/art/move/shade/physical.svg",
        pdf.ASSET_BASE + "print/frame/shade.svg",
        *(pdf.ASSET_BASE + face.qr_url.lstrip("/") for face in faces),
        pdf.ASSET_BASE + "static/css/card.css",
        pdf.ASSET_BASE + "static/css/print.css",
    }
    assert result.refused == []


def test_unescaped_markup_would_still_be_refused_by_the_fetcher(tmp_path):
    html = (
        '<img src="file:///etc/passwd"><img src="http://127.0.0.1:8103/">'
        '<img src="data:image/png;base64,iVBORw0KGgo=">'
        '<link rel="stylesheet" href="/static/../../../etc/passwd.css">'
        "<p>hello</p>"
    )
    result = pdf.render_job(pdf.RenderJob(html=html, roots=_roots()))
    assert set(result.requested) == set(result.refused)
    assert any(url.startswith("file:") for url in result.refused)
    assert any(url.startswith("http:") for url in result.refused)
    assert any(url.startswith("data:") for url in result.refused)
    assert result.pages == 1


def test_a_render_loads_no_certificates_for_the_network_it_never_uses(monkeypatch):
    # WeasyPrint's fetcher would make a default SSL context (the system's CA certificates,
    # 50 ms) for every render; ours answers every URL itself, so it must not.
    import ssl

    pdf.render_job(pdf.RenderJob(html="<p>warm</p>", roots=_roots()))  # WeasyPrint's import

    def refuse(*args, **kwargs):
        raise AssertionError("a render made a default SSL context")

    monkeypatch.setattr(ssl, "create_default_context", refuse)
    monkeypatch.setattr(ssl, "_create_default_https_context", refuse)
    result = pdf.render_job(pdf.RenderJob(html="<p>hello</p>", roots=_roots()))
    assert result.pages == 1


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "http://assets.memeyori.invalid/static/css/card.css",
        "https://example.com/static/css/card.css",
        "https://assets.memeyori.invalid.example.com/static/css/card.css",
        "data:text/css,*{display:none}",
        "ftp://assets.memeyori.invalid/static/css/card.css",
        "javascript:alert(1)",
        pdf.ASSET_BASE + "static/../cards/models.py",
        pdf.ASSET_BASE + "static/%2e%2e/%2e%2e/etc/passwd",
        pdf.ASSET_BASE + "static/css/..%2f..%2fpyproject.toml",
        pdf.ASSET_BASE + "static/css/card.css?x=1",
        pdf.ASSET_BASE + "static/css\\..\\..\\pyproject.toml",
        pdf.ASSET_BASE + "media/../db.sqlite3",
        pdf.ASSET_BASE + "media/portraits/missing.jpg",
        pdf.ASSET_BASE + "etc/passwd",
        pdf.ASSET_BASE + "static/../../../../etc/passwd.css",
        pdf.ASSET_BASE + "generated/other.svg",
        pdf.ASSET_BASE + "media/portraits/evil.svg",
    ],
)
def test_the_fetcher_refuses(fetcher, url):
    with pytest.raises(pdf.RefusedURL):
        fetcher.fetch(url)
    assert fetcher.refused == [url]


def test_the_fetcher_refuses_a_symlink_out_of_media(fetcher, tmp_path):
    media = settings.MEDIA_ROOT
    media.mkdir(parents=True, exist_ok=True)
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not for you")
    (media / "link.png").symlink_to(secret)
    with pytest.raises(pdf.RefusedURL):
        fetcher.fetch(pdf.ASSET_BASE + "media/link.png")


def test_the_fetcher_serves_our_static_files_and_the_media_it_was_handed():
    fetcher = pdf.asset_fetcher(_roots(), media={"portraits/print/a.jpg": b"jpeg bytes"})
    css = fetcher.fetch(pdf.ASSET_BASE + "static/css/card.css")
    assert b".mastercard" in css.read() and css.content_type == "text/css"
    image = fetcher.fetch(pdf.ASSET_BASE + "media/portraits/print/a.jpg")
    assert image.read() == b"jpeg bytes" and image.content_type == "image/jpeg"
    with pytest.raises(pdf.RefusedURL):  # media is never read from this machine's disk
        fetcher.fetch(pdf.ASSET_BASE + "media/portraits/print/b.jpg")


def test_a_worker_reads_a_documents_media_from_storage_only(alice, types, tmp_path, settings):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from cards.printing.render import _media

    name = default_storage.save("portraits/print/x.jpg", ContentFile(b"from storage"))
    html = f'<img src="/media/{name}"><img src="/media/portraits/print/gone.jpg">'
    assert _media(html) == {name: b"from storage"}


def test_a_render_that_runs_too_long_is_stopped_and_the_next_one_works():
    job = pdf.RenderJob(html="<p>" + "word " * 200_000 + "</p>", roots=_roots())
    with pytest.raises(pdf.RenderTimeout):
        pdf.run(job, timeout=0.5)
    small = pdf.run(pdf.RenderJob(html="<p>ok</p>", roots=_roots()), timeout=60)
    assert small.pdf.startswith(b"%PDF-")
