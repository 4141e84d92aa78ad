"""Imported by the render fork server (pdf._get_context): WeasyPrint and the fonts load
once there, and every render child forked from it starts warm."""

try:
    from .pdf import warm_up

    warm_up()
except Exception:  # a failed warm-up only makes the first render slower
    pass
