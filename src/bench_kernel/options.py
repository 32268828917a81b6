"""How a case is measured: one frozen record, checked once, shared by ``bench()``, ``run``, ``sweep``
and the pytest plugin.

As ``torch.utils.benchmark`` keeps its ``TaskSpec`` (what was asked) apart from its ``Measurement``
(what came back), :class:`Options` is what the user asked for, and nothing else. Its defaults are
written here and nowhere else; the command-line options and the plugin's options are generated from
:data:`OPTION_FIELDS`, so their help, types and defaults cannot drift from the API's.

This module imports only the standard library and ``errors``: the pytest plugin reads it in every
test session, and must stay cheap to load.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Mapping

from bench_kernel.errors import UsageError

__all__ = ["Options", "OptionField", "OPTION_FIELDS", "METHODS", "GPU_METHODS", "DEFAULT_METHODS", "CACHE_STATES",
           "DEFAULT_TIMEOUT_S", "DEFAULT_ROUNDS", "MAX_ROUNDS", "MAX_THREADS"]

#: The timing methods, in the order results show them (DESIGN.md, "Measurement"): the one list.
METHODS = ("graph", "events", "kernel", "host")
#: The methods that need a CUDA/HIP device.
GPU_METHODS = frozenset({"graph", "events", "kernel"})
#: What is timed when the user names no method (``host`` alone where there is no GPU).
DEFAULT_METHODS = ("graph", "events", "kernel")
#: ``cold``: L2 flushed before event/profiler samples and inputs rotated beyond L2; ``warm``: one input set.
CACHE_STATES = ("cold", "warm")
#: The default per-case limit (seconds): far above any sane benchmark, far below "forever".
DEFAULT_TIMEOUT_S = 300.0
#: Rounds per method when none are asked for (``rounds=None``): a case measured with several methods
#: gets the largest. From the noise measured (benchmarks/results/verdicts-cpu.md): on a 2-core
#: machine at load 10-15 the host method's round minima of a small kernel spread ~1-3% between
#: rounds, with whole rounds up to 9x slow; judged on stored sweeps, 5 rounds a side caught every
#: 2x slowdown of a 10-50 us kernel with 0.6% false verdicts, 3 rounds only 84-89% (and a U test
#: cannot reject with 3). On an H200 identical RMSNorm sweeps agreed within 4% at 11-12 of 12
#: points once warm: at ~1% between rounds, 3 rounds give a noise floor of ~4%
#: (t(0.995, 4) x 1% x sqrt(2/3)), below a 10% regression; benchmarks/gpu/verdicts.py measures it.
DEFAULT_ROUNDS = {"host": 5, "graph": 3, "events": 3, "kernel": 3}
#: Rounds of GPU methods under ``steady`` when none are asked for: steady is the mode for small
#: regressions, and with 3 rounds a +10% slowdown of a 14 us RMSNorm went uncalled on an H200 (its
#: noise floor +/-11.2%), while 5 rounds called it at 4 of 4 points on an H100, floors +/-0.7-6.2%
#: (benchmarks/results/verdicts-h100.md, part B).
STEADY_GPU_ROUNDS = 5
#: More rounds than this is a typo, not a plan.
MAX_ROUNDS = 100
#: More intra-op threads than this is a typo, not a machine.
MAX_THREADS = 4096


def _finite_positive(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


@dataclass(frozen=True)
class Options:
    """How to measure a case. Constructing one checks every field (UsageError naming the field).

    methods: any of ``METHODS``, in any order, repeats dropped; without a GPU the GPU methods are
        replaced by ``host`` when the case is measured (and a note says so).
    cache: ``"cold"`` or ``"warm"`` (see :data:`CACHE_STATES`).
    precision: stop sampling once the 95% CI of the median is within this relative half-width.
    max_time_s: sampling time bound per method, seconds, shared by the rounds of one measurement
        (``measure._rounds``: each round stops at its precision or its share; a sweep's point is
        measured one round at a time, each with this bound).
    timeout_s: stop a case after this many seconds (None: no limit; 0 and inf mean None too).
    steady: hold the load until the SM clock and per-call time settle before each method, and
        sample at least 1 s per method (power-capped GPUs).
    rounds: time each case this many times (rounds), so that comparisons see the noise between
        runs and not only within one; None: the per-method default (:data:`DEFAULT_ROUNDS`, see
        :meth:`rounds_for`; under ``steady`` on a GPU at least :data:`STEADY_GPU_ROUNDS`), and more, up to twice as many, for a method whose rounds disagree by
        more than ``precision`` (``measure._rounds``). A sweep interleaves the rounds across its points and providers (and runs
        each host-method round in a fresh process); ``bench()``, ``run`` and the pytest plugin run
        them back to back.
    device_index: the GPU to measure on.
    roofline: place each result under the roofs of ``device`` (FLOPs/bytes not given are counted).
    device: the peak-table name for ``roofline`` (None: the GPU measured on).
    counters: after timing, count one call's DRAM/L2/L1 bytes and FLOPs with the GPU's hardware
        counters (ncu; rocprofv3 on AMD) in a child process, and place them beside the model on the
        hierarchical roofline; implies ``roofline``.
    threads: torch's intra-op threads while the case is measured (``torch.set_num_threads``; the
        host method's CPU work), recorded as ``env["cpu_threads"]``; None: torch's own count. On a
        loaded machine more threads than free cores wait for each other's CPU on every call.
    """

    methods: tuple[str, ...] = DEFAULT_METHODS
    cache: str = "cold"
    precision: float = 0.01
    max_time_s: float = 0.5
    timeout_s: float | None = DEFAULT_TIMEOUT_S
    steady: bool = False
    rounds: int | None = None
    device_index: int = 0
    roofline: bool = False
    device: str | None = None
    counters: bool = False
    threads: int | None = None

    def __post_init__(self) -> None:
        methods = (self.methods,) if isinstance(self.methods, str) else tuple(self.methods or ())
        bad = [m for m in methods if m not in METHODS]
        if bad:
            raise UsageError(f"unknown method {bad[0]!r}; expected one of: {', '.join(METHODS)}")
        if not methods:
            raise UsageError("no method given; expected one or more of: " + ", ".join(METHODS))
        object.__setattr__(self, "methods", tuple(dict.fromkeys(methods)))
        if self.cache not in CACHE_STATES:
            raise UsageError(f"cache must be 'cold' or 'warm', got {self.cache!r}")
        if not _finite_positive(self.precision):
            raise UsageError(f"precision must be a finite number > 0 (relative, 0.01 = 1%), got {self.precision!r}")
        if not _finite_positive(self.max_time_s):
            raise UsageError(f"max_time_s must be a finite number > 0 (seconds), got {self.max_time_s!r}")
        t = self.timeout_s
        if t is not None and not (t == 0 or t == math.inf or _finite_positive(t)):
            raise UsageError(f"timeout_s must be > 0 seconds (0, None or inf: no limit), got {t!r}")
        object.__setattr__(self, "timeout_s", None if t in (0, math.inf) else (float(t) if t is not None else None))
        if isinstance(self.device_index, bool) or not isinstance(self.device_index, int) or self.device_index < 0:
            raise UsageError(f"device_index must be a GPU index >= 0, got {self.device_index!r}")
        if self.device is not None and (not isinstance(self.device, str) or not self.device.strip()):
            raise UsageError(f"device must be a peak-table name (see 'bench-kernel devices'), got {self.device!r}")
        r = self.rounds
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= MAX_ROUNDS):
            raise UsageError(f"rounds must be a whole number from 1 to {MAX_ROUNDS} (None: the per-method "
                             f"default), got {r!r}")
        n = self.threads
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_THREADS):
            raise UsageError(f"threads must be a whole number from 1 to {MAX_THREADS} (None: torch's own count), "
                             f"got {n!r}")
        for flag in ("steady", "roofline", "counters"):
            if not isinstance(getattr(self, flag), bool):
                raise UsageError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.counters:  # counted work is placed beside the model's point: the model must be placed too
            object.__setattr__(self, "roofline", True)

    @classmethod
    def build(cls, base: "Options | None" = None, **given: Any) -> "Options":
        """``base`` (default: the defaults) with every field of ``given`` that is not None."""
        changes = {k: v for k, v in given.items() if v is not None}
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise UsageError(f"unknown option {unknown[0]!r}; options are: "
                             f"{', '.join(f.name for f in dataclasses.fields(cls))}")
        return dataclasses.replace(base or cls(), **changes)

    def rounds_for(self, gpu: bool) -> int:
        """The rounds to run: ``rounds`` when given, else the largest per-method default of the
        methods that will run (without a GPU the GPU methods are replaced by ``host``)."""
        if self.rounds is not None:
            return self.rounds
        methods = self.methods if gpu else ("host",)
        base = max(DEFAULT_ROUNDS[m] for m in methods)
        return max(base, STEADY_GPU_ROUNDS) if self.steady and gpu else base

    @property
    def gpu_methods(self) -> tuple[str, ...]:
        """The requested methods that need a GPU."""
        return tuple(m for m in self.methods if m in GPU_METHODS)

    def to_dict(self) -> dict[str, Any]:
        """The stored shape (``runs.config["options"]``): plain JSON."""
        d = dataclasses.asdict(self)
        d["methods"] = list(self.methods)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Options":
        """Read a stored shape back; fields a run stored before they existed take their defaults
        (a run stored before ``steady`` existed was measured without it), except ``rounds``: a run
        stored before rounds existed was measured in one."""
        names = {f.name for f in dataclasses.fields(cls)}
        d = {"rounds": 1, **d}
        # not build(): a stored None is a value here (timeout_s None is "no limit"), not "not given"
        given: dict[str, Any] = {k: (tuple(v) if k == "methods" else v) for k, v in d.items() if k in names}
        return cls(**given)


@dataclass(frozen=True)
class OptionField:
    """One option as the command line and the pytest plugin spell it, generated from :class:`Options`.

    kind: ``"methods"`` (repeatable choice), ``"choice"``, ``"number"`` (> 0), ``"limit"`` (>= 0, inf
    allowed), ``"index"`` (int >= 0), ``"count"`` (int >= 1), ``"flag"`` or ``"text"``.
    """

    name: str
    flag: str
    kind: str
    help: str
    choices: tuple[str, ...] = ()
    #: the short flag (``-m``) on the command line, if any
    short: str | None = None
    #: how help texts show a default that is computed (``rounds=None``), instead of the value
    default_text: str | None = None

    @property
    def default(self) -> Any:
        return getattr(Options(), self.name)


#: Every field of :class:`Options` a user sets from the command line or pytest. Help texts say the
#: default through ``OptionField.default`` when rendered, never as a literal here.
OPTION_FIELDS: tuple[OptionField, ...] = (
    OptionField("methods", "--method", "methods",
                "Timing method (repeatable): graph (CUDA/HIP graph replay / N), events (events + backlog, "
                "launch cost included), kernel (profiler: summed device time of each call), host (wall clock). "
                "Without a GPU only host runs.", METHODS, short="-m"),
    OptionField("cache", "--cache", "choice",
                "cold: flush L2 / rotate inputs beyond L2; warm: reuse one input set.", CACHE_STATES),
    OptionField("precision", "--precision", "number",
                "Stop when the median's 95% CI is within this relative half-width."),
    OptionField("max_time_s", "--max-time", "number",
                "Sampling time bound per method, seconds, shared by its rounds (a sweep: per point and round)."),
    OptionField("timeout_s", "--timeout", "limit",
                "Stop a case (a sweep point) that runs longer than this, seconds (0: no limit), and go on "
                "with the next."),
    OptionField("steady", "--steady", "flag",
                "Hold the load until the SM clock and the per-call time settle before sampling "
                "(power-capped GPUs: repeatable numbers at the sustained clock)."),
    OptionField("rounds", "--rounds", "count",
                "Time each case (each sweep point) in this many rounds, so that compare sees the noise between "
                "runs: a sweep interleaves the rounds across points and providers, each host-method round in a "
                "fresh process. Default: per method, and more where a case's rounds disagree.",
                default_text="per method: " + ", ".join(f"{m} {k}" for m, k in DEFAULT_ROUNDS.items())),
    OptionField("device_index", "--device-index", "index", "GPU index."),
    OptionField("roofline", "--roofline", "flag",
                "Place each case under the device's roofs (counts the FLOPs/bytes a case omits)."),
    OptionField("device", "--device", "text",
                "Peak-table device for --roofline (default: this GPU; see 'bench-kernel devices')."),
    OptionField("counters", "--counters", "flag",
                "After timing, count one call's DRAM/L2/L1 bytes and FLOPs with the GPU's hardware counters "
                "(ncu; rocprofv3 on AMD) in a child process, and place them beside the model; implies --roofline."),
    OptionField("threads", "--threads", "count",
                "torch's intra-op threads while measuring (the host method's CPU work); on a loaded machine, "
                "more threads than free cores make every call wait for a CPU.",
                default_text="torch's own count; the built-in CPU examples take what the free cores fit"),
)
