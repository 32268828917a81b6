"""The installed bench-kernel's version: what the HTML page and the workbook name as their maker.

Its own module because both the renderers (``_render``) and what they render to (``_report``,
``_xlsx``) need it, and ``_render`` imports those: a helper in ``_render`` made an import cycle.
"""

from __future__ import annotations

__all__ = ["tool_version"]


def tool_version() -> str:
    """The installed bench-kernel's version, as pages and workbooks name their maker."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bench-kernel")
    except PackageNotFoundError:
        return "unknown"
