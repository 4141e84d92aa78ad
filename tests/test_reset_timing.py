"""The reset page answers alike for a known and an unknown address (issue 33.6): it only
enqueues the mail, and a task worker looks the address up and sends."""

from django.contrib.auth import get_user_model
from django.core import mail
from django_tasks_db.models import DBTaskResult

from memeyori_site.reset_mail import send_reset_mail


def test_a_reset_enqueues_the_same_for_known_and_unknown_addresses_and_sends_nothing_inline(
    client, db, queued_tasks
):
    get_user_model().objects.create_user("ann", "ann@example.org", "old-pass-123!")
    for address in ("ann@example.org", "nobody@example.org"):
        response = client.post("/accounts/reset/", {"email": address})
        assert response.status_code == 302
    assert mail.outbox == []
    queued = DBTaskResult.objects.order_by("enqueued_at")
    assert [t.task_path for t in queued] == [send_reset_mail.module_path] * 2
    assert [t.args_kwargs["args"][0] for t in queued] == ["ann@example.org", "nobody@example.org"]


def test_the_worker_sends_the_mail_to_a_known_address_only(db):
    get_user_model().objects.create_user("ann", "ann@example.org", "old-pass-123!")
    assert send_reset_mail.call("nobody@example.org", "memeyori.example", True) == "done"
    assert mail.outbox == []
    send_reset_mail.call("ann@example.org", "memeyori.example", True)
    (sent,) = mail.outbox
    assert sent.to == ["ann@example.org"]
    assert "https://memeyori.example/accounts/reset/" in sent.body
