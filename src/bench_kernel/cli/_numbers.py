"""A numeric option type that refuses NaN and infinities (``click.FloatRange`` lets ``nan`` through:
every comparison with NaN is False, so it passes any bound)."""

from __future__ import annotations

import math
from typing import Any

import click

__all__ = ["Number"]


class Number(click.ParamType):
    """A finite float within bounds: ``Number(min=0, min_open=True)`` is "> 0".

    allow_inf: accept ``inf`` (e.g. "no limit"); NaN is never accepted.
    """

    name = "number"

    def __init__(self, min: float | None = None, max: float | None = None, min_open: bool = False,
                 allow_inf: bool = False) -> None:
        self.min, self.max, self.min_open, self.allow_inf = min, max, min_open, allow_inf

    def _bounds(self) -> str:
        parts = []
        if self.min is not None:
            parts.append(f"{'>' if self.min_open else '>='} {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        return " and ".join(parts)

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if math.isnan(x) or (math.isinf(x) and not (self.allow_inf and x > 0)):
            self.fail(f"{value!r} is not a finite number{' (inf is allowed)' if self.allow_inf else ''}",
                      param, ctx)
        too_low = self.min is not None and (x <= self.min if self.min_open else x < self.min)
        too_high = self.max is not None and x > self.max
        if too_low or too_high:
            self.fail(f"{value!r} must be {self._bounds()}", param, ctx)
        return x
