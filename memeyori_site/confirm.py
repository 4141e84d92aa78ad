"""Ask before a destructive action (issue 21.4): a page of its own, so it works without
JavaScript. The control that starts the action is a GET form or link to this page, which
changes nothing; only the page's POST does the deed."""

from django.shortcuts import render


def confirm_page(
    request,
    *,
    question: str,
    consequences: list[str] = (),
    items: list[str] = (),
    closing: str = "",
    action_url: str,
    fields: dict | None = None,
    button: str,
    cancel_url: str,
    cancel_label: str,
    danger: bool = True,
    refusal: str = "",
):
    """The question, what follows from a yes, one button that does it (red when it
    destroys), and a way back. With `refusal`, why it cannot be done, and only the way back."""
    return render(
        request,
        "confirm.html",
        {
            "question": question,
            "consequences": consequences,
            "items": items,
            "closing": closing,
            "action_url": action_url,
            "fields": fields or {},
            "button": button,
            "cancel_url": cancel_url,
            "cancel_label": cancel_label,
            "danger": danger,
            "refusal": refusal,
        },
    )
