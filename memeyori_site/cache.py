"""Django's database cache, with an increment that two processes cannot interleave.

Rate-limit counts live here by default, shared by every web worker (and machine) that
uses the database. Django's own `incr` reads, adds and writes in separate statements, so
two workers counting at once could both write the same number (django-ratelimit's check
says so: "does not support atomic increment"). Here the read and the write happen in one
transaction that holds the row: `SELECT ... FOR UPDATE` on PostgreSQL, and SQLite's write
lock, which this project's IMMEDIATE transactions take at BEGIN.
"""

from django.core.cache.backends.db import DatabaseCache as DjangoDatabaseCache
from django.db import connections, router, transaction


class DatabaseCache(DjangoDatabaseCache):
    def incr(self, key, delta=1, version=None):
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        with transaction.atomic(using=db):
            if connection.features.has_select_for_update:
                table = connection.ops.quote_name(self._table)
                with connection.cursor() as cursor:
                    cursor.execute(
                        f"SELECT 1 FROM {table} WHERE cache_key = %s FOR UPDATE",
                        [self.make_and_validate_key(key, version=version)],
                    )
            return super().incr(key, delta, version)
