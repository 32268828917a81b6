"""What a sweep is: axes whose product gives the points, and providers that build a case per point.

A spec file is plain Python. ``SPEC.py[:name]`` names an attribute (default ``sweep``) that is a
:class:`SweepSpec`, a dict with the same keys, or a zero-argument function returning either::

    def sweep():
        return {"axes": {"M": [1, 16, 128], "N": [4096]},
                "providers": {"torch": torch_case, "triton": triton_case},
                "baseline": "torch",                      # default: the first provider
                "where": lambda p: p["M"] <= p["N"],      # optional filter of the product
                "rtol": 1e-3}                             # optional: the check's tolerances (and "atol")

A provider is a factory ``point -> case``: ``point`` is a dict ``{axis: value}``, the case a
zero-argument callable, a ``Case`` or a case dict (``fn``, ``make_inputs``, ``reference``,
``flops``, ``bytes``, ``rtol``, ``atol``). It raises ``bench_kernel.Unsupported`` where it does
not apply. ``rtol``/``atol`` at the spec's level apply to every case that sets none of its own
(``bench_kernel.measure._check``: relative RMS error, and an RMS allowance).
Axis values are JSON scalars (str, int, float, bool): they key the stored points.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from bench_kernel.errors import TargetError
from bench_kernel.measure import check_tolerances, exits_raise, load_object, target_file, user_failure

__all__ = ["SweepSpec", "load_spec", "split_spec_target", "spec_file", "DEFAULT_SPEC_NAME"]

DEFAULT_SPEC_NAME = "sweep"
_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class SweepSpec:
    """Axes, providers (name -> factory ``point -> case``), the baseline and a point filter.

    ``target`` is ``path.py:name`` when the spec came from a file: worker processes and Ray tasks
    import it again from there (factories are code, not data).
    """

    #: axis -> its values, as given (a list, a tuple, a range); each is made a tuple once checked
    axes: dict[str, Sequence[Any]]
    providers: dict[str, Callable[[dict[str, Any]], Any]]
    baseline: str | None = None
    where: Callable[[dict[str, Any]], bool] | None = None
    name: str = DEFAULT_SPEC_NAME
    target: str | None = None
    #: the file the spec came from (absolute path), for its hash and git state
    path: str | None = None
    #: the correctness check's tolerances for cases that set none (None: by the output's dtype, and 0)
    rtol: float | None = None
    atol: float | None = None

    def __post_init__(self) -> None:
        _validate(self)

    def points(self) -> list[dict[str, Any]]:
        """The product of the axes (first axis outermost), filtered by ``where`` (computed once)."""
        return self._points

    @cached_property
    def _points(self) -> list[dict[str, Any]]:
        names = list(self.axes)
        out = []
        for values in itertools.product(*(self.axes[n] for n in names)):
            point = dict(zip(names, values))
            if self.where is not None:
                try:
                    keep = self.where(dict(point))
                except Exception as e:  # noqa: BLE001 - user code
                    raise TargetError(f"sweep {self.name!r}: where() raised {type(e).__name__} at "
                                      f"{point}: {e}") from e
                if not keep:
                    continue
            out.append(point)
        if not out:
            total = math.prod(len(v) for v in self.axes.values())
            raise TargetError(f"sweep {self.name!r}: where() leaves none of the {total} points")
        return out

    def config(self) -> dict[str, Any]:
        """What the store records about the spec (``RunInfo.config``)."""
        return {"axes": {k: list(v) for k, v in self.axes.items()}, "providers": list(self.providers),
                "baseline": self.baseline, "filtered": self.where is not None, "rtol": self.rtol, "atol": self.atol}


def _validate(spec: SweepSpec) -> None:
    where = f"sweep {spec.name!r}"
    if not isinstance(spec.axes, Mapping) or not spec.axes:
        raise TargetError(f"{where} has no axes: give 'axes' as {{name: [values, ...]}}")
    for axis, values in spec.axes.items():
        if not isinstance(axis, str) or not axis:
            raise TargetError(f"{where}: axis name {axis!r} must be a non-empty string")
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, range)):
            raise TargetError(f"{where}: axis {axis!r} must be a list of values, got {type(values).__name__}")
        if len(values) == 0:
            raise TargetError(f"{where}: axis {axis!r} is empty: give it at least one value")
        for v in values:
            if v is not None and not isinstance(v, _SCALARS):
                raise TargetError(f"{where}: axis {axis!r} value {v!r} is a {type(v).__name__}; axis values "
                                  f"must be str, int, float or bool (map names to objects in the provider)")
        seen = set()
        for v in values:
            if (type(v), v) in seen:
                raise TargetError(f"{where}: axis {axis!r} lists {v!r} twice")
            seen.add((type(v), v))
    if not isinstance(spec.providers, Mapping) or not spec.providers:
        raise TargetError(f"{where} has no providers: give 'providers' as {{name: point -> case}}")
    for name, factory in spec.providers.items():
        if not isinstance(name, str) or not name:
            raise TargetError(f"{where}: provider name {name!r} must be a non-empty string")
        if not callable(factory):
            raise TargetError(f"{where}: provider {name!r} is a {type(factory).__name__}, not a "
                              f"function point -> case")
    if spec.baseline is not None and spec.baseline not in spec.providers:
        raise TargetError(f"{where}: baseline {spec.baseline!r} is not a provider; providers: "
                          f"{', '.join(spec.providers)}")
    if spec.where is not None and not callable(spec.where):
        raise TargetError(f"{where}: 'where' must be a function point -> bool")
    bad_tolerance = check_tolerances(spec.rtol, spec.atol)
    if bad_tolerance:
        raise TargetError(f"{where}: {bad_tolerance}")
    # Normalise in place (frozen): tuples for axes, the first provider as the default baseline.
    object.__setattr__(spec, "axes", {k: tuple(v) for k, v in spec.axes.items()})
    object.__setattr__(spec, "providers", dict(spec.providers))
    if spec.baseline is None:
        object.__setattr__(spec, "baseline", next(iter(spec.providers)))


_KEYS = ("axes", "providers", "baseline", "where", "rtol", "atol")


def split_spec_target(target: str) -> tuple[str, str]:
    """``"path.py:name"`` -> (``"path.py"``, ``"name"``); the name defaults to ``sweep``."""
    head, sep, name = target.rpartition(":")
    if sep and head and name and not name.endswith(".py") and "/" not in name:
        return head, name
    return target, DEFAULT_SPEC_NAME


def spec_file(target: str) -> Path | None:
    """The file of ``SPEC.py[:name]`` (or ``package.module:name``), found without importing it."""
    where, name = split_spec_target(target)
    return target_file(f"{where}:{name}")


def load_spec(target: str) -> SweepSpec:
    """Import ``SPEC.py[:name]`` (or ``package.module:name``) and return its :class:`SweepSpec`."""
    where, name = split_spec_target(target)
    full = f"{where}:{name}"
    obj = load_object(full, what="SPEC", attr="name")
    if callable(obj) and not isinstance(obj, SweepSpec):
        try:
            with exits_raise():
                obj = obj()
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - user code may raise (or exit) anything
            raise user_failure(f"{full}()", e) from None
    path = str(Path(where).resolve()) if where.endswith(".py") or "/" in where else None
    data: dict[str, Any]
    if isinstance(obj, SweepSpec):
        data = {f.name: getattr(obj, f.name) for f in fields(SweepSpec) if f.name in _KEYS}
    elif isinstance(obj, Mapping):
        unknown = sorted(set(obj) - set(_KEYS))
        if unknown:
            raise TargetError(f"{full}: unknown key(s) {', '.join(map(str, unknown))}; allowed: {', '.join(_KEYS)}")
        data = dict(obj)
    else:
        raise TargetError(f"{full} is a {type(obj).__name__}; expected a SweepSpec, a dict with "
                          f"{', '.join(_KEYS)}, or a function returning one")
    # A missing "axes" or "providers" is an empty one: the spec's own check says which is missing
    return SweepSpec(axes=data.get("axes", {}), providers=data.get("providers", {}), baseline=data.get("baseline"),
                     where=data.get("where"), name=name, target=full, path=path, rtol=data.get("rtol"),
                     atol=data.get("atol"))
