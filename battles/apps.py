from django.apps import AppConfig


class BattlesConfig(AppConfig):
    name = "battles"

    def ready(self):
        from django.utils.autoreload import file_changed

        from . import checks  # noqa: F401  (registers the engine build's check)

        file_changed.connect(_forget_rendered_steps, dispatch_uid="battles_rendered_steps")


def _forget_rendered_steps(sender, file_path, **kwargs):
    """The dev server reloads templates without restarting (django.template.autoreload):
    the viewer steps kept rendered in this process (CACHES["fragments"]) go with them."""
    if file_path.suffix != ".py":
        from django.core.cache import caches

        caches["fragments"].clear()
