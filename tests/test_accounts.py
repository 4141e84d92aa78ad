"""Sign up, log in, log out and password change with Django auth."""

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from .conftest import make_user

User = get_user_model()


def test_signup_creates_the_account_and_logs_it_in(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "carol", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
    )
    assert response.status_code == 302
    assert User.objects.filter(username="carol").exists()
    assert client.get(reverse("my_characters")).status_code == 200


def test_signup_applies_the_password_validators(client, db):
    response = client.post(
        reverse("signup"), {"username": "carol", "password1": "123", "password2": "123"}
    )
    assert response.status_code == 200
    assert "too short" in response.content.decode()
    assert not User.objects.filter(username="carol").exists()


def test_signup_refuses_a_taken_username(client, alice):
    response = client.post(
        reverse("signup"),
        {"username": "alice", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
    )
    assert "already exists" in response.content.decode()
    assert User.objects.filter(username="alice").count() == 1


def test_login_rotates_the_session_key(client, alice):
    client.get(reverse("login"))
    session = client.session
    session["probe"] = 1
    session.save()
    before = client.cookies["sessionid"].value
    response = client.post(reverse("login"), {"username": "alice", "password": "alice-pass-123!"})
    assert response.status_code == 302
    assert client.cookies["sessionid"].value != before


def test_a_wrong_password_logs_nobody_in(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_logout_is_post_only(client, alice):
    client.force_login(alice)
    assert client.get(reverse("logout")).status_code == 405
    assert client.post(reverse("logout")).status_code == 302
    assert "_auth_user_id" not in client.session


def test_password_change_needs_the_old_password(client, alice):
    client.force_login(alice)
    url = reverse("password_change")
    response = client.post(
        url,
        {
            "old_password": "wrong",
            "new_password1": "n3w-pass-phrase",
            "new_password2": "n3w-pass-phrase",
        },
    )
    assert response.status_code == 200
    response = client.post(
        url,
        {
            "old_password": "alice-pass-123!",
            "new_password1": "n3w-pass-phrase",
            "new_password2": "n3w-pass-phrase",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("n3w-pass-phrase")


def test_password_change_asks_anonymous_visitors_to_log_in(client, db):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert reverse("login") in response.url


def test_login_and_signup_enforce_csrf(db):
    make_user("dave")
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(reverse("login"), {"username": "dave", "password": "x"}).status_code == 403
    response = strict.post(
        reverse("signup"),
        {"username": "eve", "password1": "a-long-pass", "password2": "a-long-pass"},
    )
    assert response.status_code == 403
    assert not User.objects.filter(username="eve").exists()


def test_the_forms_label_every_input(client, db):
    for name in ("login", "signup"):
        html = client.get(reverse(name)).content.decode()
        assert html.count("<label") >= 2
        assert 'id="id_username"' in html
