"""The authentication backend (settings.AUTHENTICATION_BACKENDS): Django's ModelBackend,
with the user a session names read by a query compiled once per database connection.

Every logged-in page reads its user after its session. Measured in process (make bench's
trivial view reading request.user, SQLite): building and compiling
`User.objects.get(pk=...)` took about 0.6 ms of the 0.75 the lookup cost
(memeyori_site/compiled.py). Logging in, passwords and permissions are ModelBackend's.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError

from .compiled import Compiled

# A key no user has, for compiling the lookup (examples must not collide with real values
# in the SQL's other parameters; this query has none).
USER_BY_KEY = Compiled(lambda pk: get_user_model()._default_manager.filter(pk=pk), -7_301_966)


class UserBackend(ModelBackend):
    def get_user(self, user_id):
        try:
            key = get_user_model()._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        if type(key) is not int:  # a custom user model's key would need its own lookup
            return super().get_user(user_id)
        user = USER_BY_KEY.first(key)
        return user if user is not None and self.user_can_authenticate(user) else None
