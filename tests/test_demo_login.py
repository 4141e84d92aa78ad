"""The demo account: a known password on your own machine only (issue 11.10)."""

from django.contrib.auth import get_user_model
from django.core.management import call_command

from cards.demo import DEMO_PASSWORD, DEMO_USERNAME
from cards.models import Memeyori, Party


def demo_user():
    return get_user_model().objects.get(username=DEMO_USERNAME)


def test_with_debug_off_nobody_can_log_in_as_demo(settings, db, client):
    settings.DEBUG = False
    call_command("seed_demo", verbosity=0)
    assert not demo_user().has_usable_password()
    assert not client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    # The demo content is still there for everyone to look at.
    assert Memeyori.objects.filter(owner=demo_user(), visibility="public").exists()
    assert Party.objects.filter(owner=demo_user(), visibility="public").exists()


def test_with_debug_off_reseeding_locks_a_demo_user_made_in_debug(settings, db):
    settings.DEBUG = True
    call_command("seed_demo", verbosity=0)
    assert demo_user().check_password(DEMO_PASSWORD)
    settings.DEBUG = False
    call_command("seed_demo", verbosity=0)
    assert not demo_user().has_usable_password()


def test_in_debug_reseeding_puts_back_the_documented_password(settings, db, client):
    settings.DEBUG = True
    call_command("seed_demo", verbosity=0)
    user = demo_user()
    user.set_password("someone-else-was-here-42")
    user.save()
    call_command("seed_demo", verbosity=0)
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
