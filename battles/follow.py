"""Follow URLs of a presentation, signed for their holder (issue 40.5).

A follower's poll and stream URLs name who follows (a signed-in user, a visitor, or the
share link they came through), what they follow (a game's code, a stored battle's
presentation token), and when they were given. A URL signed for one user once worked for
anyone who had it, for any presentation, for ever; now one given for another presentation,
or longer ago than MAX_AGE, is refused, and the follow button asks for a fresh one.
"""

from django.core import signing

MAX_AGE = 6 * 3600


class FollowSigner:
    def __init__(self, salt: str):
        self._signer = signing.TimestampSigner(salt=salt)

    def sign(self, bound: str, holder: str) -> str:
        return self._signer.sign(f"{bound}|{holder}")

    def holder(self, bound: str, signed: str) -> str | None:
        """The holder the URL was given to, if it was given for `bound` and lately."""
        try:
            value = self._signer.unsign(signed, max_age=MAX_AGE)
        except signing.BadSignature:  # forged, or expired (SignatureExpired is one)
            return None
        given_for, _, holder = value.partition("|")
        return holder if bound and given_for == bound else None
