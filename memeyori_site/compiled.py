"""Querysets compiled once per database connection and run again with new values.

The ORM builds and compiles a queryset's SQL anew each time it runs. For the few small
queries that every logged-in page or every keystroke of the builder makes (the user a
session names, the Types, one column of the type chart), that took longer than the
database took to answer: measured in process on SQLite, about 0.6 ms of a 0.75 ms lookup.

`Compiled(build, *examples)` calls `build(*examples)` once per connection (one per thread)
and keeps the compiler; each later call runs the same SQL with the new values in the
examples' places, and the compiler turns the rows into what the ORM would have given
(its converters; `Model.from_db` for instances). So only querysets whose SQL does not
depend on the values qualify, and only values passed to the database as they are: ints
and strs, and UUIDs (as themselves where the database has a UUID type, as hex where it
does not, as a UUIDField passes them), each example distinct and found exactly once
among the compiled parameters (checked when it compiles). A test compares every use with
the ORM's own result.
"""

import uuid
import weakref
from collections.abc import Callable

from django.db import connections, router
from django.db.models import QuerySet

VALUE_TYPES = (int, str, uuid.UUID)


class Compiled:
    def __init__(self, build: Callable[..., QuerySet], *examples):
        if any(type(e) not in VALUE_TYPES for e in examples) or len(set(examples)) != len(examples):
            raise TypeError("examples are distinct ints, strs or UUIDs")
        self.build = build
        self.examples = examples
        self.model = None  # known at the first run: building a queryset needs the apps
        # A compiler holds the connection it was made for, so each connection has its own.
        self._compiled = weakref.WeakKeyDictionary()

    def _for(self, connection):
        entry = self._compiled.get(connection)
        if entry is None:
            queryset = self.build(*self.examples)
            compiler = queryset.query.get_compiler(connection=connection)
            sql, params = compiler.as_sql()
            params = list(params)
            slots = []
            for example in self.examples:
                forms = [example, example.hex] if type(example) is uuid.UUID else [example]
                found = [
                    (i, form is not example)
                    for i, p in enumerate(params)
                    for form in forms
                    if type(p) is type(form) and p == form
                ]
                if len(found) != 1:
                    raise ValueError(f"{example!r} is not one parameter of {sql}")
                slots.append(found[0])  # (where, as hex)
            # How the rows become what the ORM gives, worked out once: results_iter would
            # ask every column for its converters on every run.
            columns = [column for column, _, _ in compiler.select[: compiler.col_count]]
            if compiler.has_composite_fields(columns):
                raise TypeError("composite fields are not compiled")
            converters = compiler.get_converters(columns)
            # The attribute each column fills, for objects(); a values_list may select more.
            names = [getattr(getattr(c, "target", None), "attname", None) for c in columns]
            entry = (queryset.model, compiler, sql, params, slots, converters, names)
            self._compiled[connection] = entry
        return entry

    def _run(self, values, using):
        if len(values) != len(self.examples) or any(
            type(v) is not type(e) for v, e in zip(values, self.examples, strict=True)
        ):
            raise TypeError(f"values like {self.examples!r}, not {values!r}")
        if self.model is None:
            self.model = self.build(*self.examples).model
        alias = using or router.db_for_read(self.model)
        connection = connections[alias]
        model, compiler, sql, params, slots, converters, names = self._for(connection)
        params = list(params)
        for (slot, as_hex), value in zip(slots, values, strict=True):
            params[slot] = value.hex if as_hex else value
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = list(map(tuple, compiler.apply_converters(rows, converters)))
        return alias, model, compiler, rows, names

    def rows(self, *values, using: str | None = None) -> list[tuple]:
        """The rows, converted as the ORM converts them (for a values_list queryset)."""
        return self._run(values, using)[3]

    def objects(self, *values, using: str | None = None) -> list:
        """Model instances, as the queryset would give them: only for a plain model
        queryset (no select_related, no annotations)."""
        alias, model, compiler, rows, names = self._run(values, using)
        if compiler.klass_info is None or compiler.klass_info.get("related_klass_infos"):
            raise TypeError("objects() is for plain model querysets")
        return [model.from_db(alias, names, row) for row in rows]

    def first(self, *values, using: str | None = None):
        """The first of `objects(*values)`, or None."""
        found = self.objects(*values, using=using)
        return found[0] if found else None
