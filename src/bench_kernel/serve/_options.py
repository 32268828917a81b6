"""What ``bench-kernel serve`` is asked: one frozen record, checked when it is made, the only place
its defaults and its help are written.

As ``bench_kernel.options.Options`` does for ``run``, :class:`ServeOptions` is the contract: the
Python API (``benchmark(ServeOptions(...))``) refuses what the CLI refuses, before any server is
started or request sent (a ``profile=True`` without ``profile_dir`` used to run the whole load and
then fail). Each field's ``msgspec.Meta`` description is its ``--help`` text, and
:data:`SERVE_FIELDS` says how the command line spells it; ``cli/serve.py`` generates its options
from the two, so the flags cannot drift from the API. Flags are ``vllm bench serve``'s wherever
the meaning is the same.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import msgspec

from bench_kernel.errors import UsageError

__all__ = ["ServeOptions", "ServeField", "SERVE_FIELDS", "field_help", "MAX_RUNS"]

#: More runs per point than this is a typo, not a plan.
MAX_RUNS = 100
M = msgspec.Meta


class ServeOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Everything ``bench-kernel serve`` was asked; defaults are vLLM's where it has the flag.
    Constructing one checks every field together (UsageError naming the flag and the fix)."""

    url: Annotated[str | None, M(description="The server's base URL (http://HOST:PORT).")] = None
    launch: Annotated[str | None, M(description="Start the server with this command (its own process group; "
                                                "stopped on exit, error and Ctrl-C).")] = None
    server_log: Annotated[Path | None, M(description="Where --launch keeps the server's log (default: a temporary "
                                                     "file, named in the notes).")] = None
    ready_timeout_s: Annotated[float, M(description="Seconds --launch waits for /health or /v1/models.")] = 600.0
    model: Annotated[str | None, M(description="Model name (default: the first the server lists).")] = None
    endpoint: Annotated[Literal["chat", "completions"], M(description="/v1/chat/completions or /v1/completions.")] = "chat"
    dataset_name: Annotated[Literal["random", "sharegpt", "jsonl", "prefix_repetition", "mooncake"], M(
        description="random: made-up prompts; sharegpt: conversations (--multi-turn: turn by turn); jsonl: yours; "
                    "prefix_repetition: shared prefixes (vLLM's); mooncake: a trace replayed at its recorded times.")
    ] = "random"
    dataset_path: Annotated[Path | None, M(description="sharegpt: a JSON list of conversations; jsonl: one "
                                                       "{\"prompt\", \"max_tokens\"} per line; mooncake: one {\"timestamp\", "
                                                       "\"input_length\", \"output_length\", \"hash_ids\"} per line.")] = None
    num_prompts: Annotated[int, M(description="Requests per load point (multi-turn: conversations; mooncake: the "
                                              "trace's first N).")] = 100
    random_input_len: Annotated[int, M(description="random: input tokens per request.")] = 1024
    random_output_len: Annotated[int, M(description="random: output tokens asked per request.")] = 128
    random_range_ratio: Annotated[float, M(description="random: lengths uniform in [L*(1-r), L*(1+r)] (vLLM's "
                                                       "convention; ATOM/SGLang's is [L*r, L]).")] = 0.0
    sharegpt_output_len: Annotated[int | None, M(description="sharegpt: output tokens asked per request (default: "
                                                             "the dataset answer's length).")] = None
    prefix_repetition_prefix_len: Annotated[int, M(description="prefix_repetition: tokens of each shared prefix.")] = 256
    prefix_repetition_suffix_len: Annotated[int, M(description="prefix_repetition: tokens of each request's own "
                                                               "suffix.")] = 256
    prefix_repetition_num_prefixes: Annotated[int, M(description="prefix_repetition: distinct prefixes.")] = 10
    prefix_repetition_output_len: Annotated[int, M(description="prefix_repetition: output tokens asked.")] = 128
    multi_turn: Annotated[bool, M(description="sharegpt: send each conversation turn by turn, each turn with the "
                                              "history (the server's answers as the assistant's).")] = False
    max_turns: Annotated[int | None, M(description="--multi-turn: at most this many user turns per conversation.")] = None
    seed: Annotated[int, M(description="Seed of the prompts and the arrivals.")] = 0
    tokenizer: Annotated[str | None, M(description="A Hugging Face tokenizer (name or folder): exact prompt lengths, "
                                                   "N_out when the server gives no usage.")] = None
    ignore_eos: Annotated[bool, M(description="Ask the server to ignore EOS (resent without it if refused).")] = False
    request_rates: Annotated[tuple[float, ...], M(description="Requests per second (Poisson), inf = all at once; a "
                                                              "list 1,2,4 is a sweep.")] = (math.inf,)
    burstiness: Annotated[float, M(description="Gamma shape of the gaps between requests (1: Poisson).")] = 1.0
    ramp_up_strategy: Annotated[Literal["linear", "exponential"] | None, M(
        description="Raise the rate from --ramp-up-start-rps to --ramp-up-end-rps over the requests (vLLM's).")] = None
    ramp_up_start_rps: Annotated[float | None, M(description="--ramp-up-strategy: the first request's rate.")] = None
    ramp_up_end_rps: Annotated[float | None, M(description="--ramp-up-strategy: the last request's rate.")] = None
    max_concurrencies: Annotated[tuple[int | None, ...], M(description="Requests in flight at most; a list 1,8,32 is "
                                                                       "a sweep.")] = (None,)
    duration_s: Annotated[float | None, M(description="Send for this many seconds (prompts reused) instead of "
                                                      "--num-prompts requests.")] = None
    warmup: Annotated[int | None, M(description="Unmeasured requests before the first point, of the workload's "
                                                "lengths but prompts of their own (no shared prefix); default: one "
                                                "per concurrency slot (8 without a cap); 0: none.")] = None
    goodput_ms: Annotated[dict[str, float], M(description="SLO targets, e.g. --goodput ttft:200 tpot:50 e2el:5000 (ms).")
                          ] = msgspec.field(default_factory=dict)
    sweep: Annotated[Literal["auto"] | None, M(description="auto: synchronous, max throughput, then rates between, "
                                                           "stopping past saturation.")] = None
    sweep_points: Annotated[int, M(description="--sweep auto: rates between the two ends.")] = 5
    slo: Annotated[bool, M(description="Search the highest rate whose requests meet the --goodput targets.")] = False
    slo_ratio: Annotated[float, M(description="The fraction of requests that must meet every target (DistServe's "
                                              "attainment).")] = 0.9
    num_runs: Annotated[int, M(description="Run each load point this many times: a CI per metric across the runs, "
                                           "and compare uses the spread between them.")] = 1
    slice_duration_s: Annotated[float | None, M(description="Cut each point into slices of this many seconds: "
                                                            "throughput, TTFT and ITL over time.")] = None
    server_metrics: Annotated[bool, M(description="Scrape the server's Prometheus /metrics during each point when it "
                                                  "answers (--no-server-metrics: never).")] = True
    gpu_telemetry: Annotated[bool, M(description="Sample the GPUs of a local server (--launch, or a URL on this host) "
                                                 "through NVML/amdsmi every 100 ms (--no-gpu-telemetry: never).")] = True
    request_timeout_s: Annotated[float, M(description="Seconds one request may take (a stream that never ends fails "
                                                      "then).")] = 300.0
    headers: Annotated[tuple[tuple[str, str], ...], M(description="Extra HTTP header NAME:VALUE (repeatable); "
                                                                  "OPENAI_API_KEY adds a bearer token.")] = ()
    profile: Annotated[bool, M(description="After the load, profile a window with /start_profile and "
                                           "/stop_profile.")] = False
    profile_dir: Annotated[Path | None, M(description="The folder the server writes traces to (--launch passes it to "
                                                      "SGLang and ATOM).")] = None
    profile_requests: Annotated[int, M(description="Requests in the profiled window.")] = 8
    profile_duration_s: Annotated[float | None, M(description="Seconds of load in the profiled window (instead of "
                                                              "--profile-requests).")] = None
    profile_timeout_s: Annotated[float, M(description="Seconds for /stop_profile and the trace export together.")] = 600.0

    def __post_init__(self) -> None:
        _normalise_and_check_paths(self)
        _check_types(self)
        _check_values(self)

    def ramp(self) -> dict[str, Any]:
        """The ramp-up fields of a ``records.Load`` (none without ``ramp_up_strategy``): Any, as a
        start or end left out is None here, which the load refuses with the flag to give."""
        if self.ramp_up_strategy is None:
            return {}
        return {"ramp_up_strategy": self.ramp_up_strategy, "ramp_up_start_rps": self.ramp_up_start_rps,
                "ramp_up_end_rps": self.ramp_up_end_rps}

    def config(self) -> dict[str, Any]:
        """What the run was asked, as stored with it (no secrets: headers are not kept)."""
        d = msgspec.to_builtins(self, enc_hook=str)  # paths as text
        d.pop("headers", None)
        d["request_rates"] = [None if math.isinf(r) else r for r in self.request_rates]
        return d


def _bad(flag: str, value: Any, why: str) -> UsageError:
    return UsageError(f"{flag} {value!r}: {why}")


#: The path fields, and whether each names a folder (else a file).
_PATHS = {"server_log": False, "dataset_path": False, "profile_dir": True}


def _normalise_and_check_paths(o: ServeOptions) -> None:
    """A path given as text is taken as a path, a list as a tuple; a file that is a folder, or a
    folder that is a file, is refused here, before a server is started (the command line's types
    refuse them as it parses)."""
    for name in ("request_rates", "max_concurrencies", "headers"):
        v = getattr(o, name)
        if isinstance(v, list):
            msgspec.structs.force_setattr(o, name, tuple(tuple(x) if isinstance(x, list) else x for x in v))
    for name, folder in _PATHS.items():
        v = getattr(o, name)
        if isinstance(v, str):
            v = Path(v)
            msgspec.structs.force_setattr(o, name, v)
        if v is None:
            continue
        if not isinstance(v, Path):
            raise _bad(flag_of(name), v, "expected a path")
        if folder and v.is_file():
            raise _bad(flag_of(name), str(v), "is a file: give the folder the server writes its traces to")
        if not folder and v.is_dir():
            raise _bad(flag_of(name), str(v), "is a directory: give a file")


def _check_types(o: ServeOptions) -> None:
    """Literal choices, whole numbers and finite numbers, by field type (a Struct's constructor checks none)."""
    for name, hint in _hints().items():
        v = getattr(o, name)
        base = get_args(hint)[0] if get_origin(hint) is Annotated else hint
        choices = [a for a in get_args(base) if get_origin(a) is Literal] or ([base] if get_origin(base) is Literal else [])
        if choices and not (v is None and type(None) in get_args(base)):
            allowed = get_args(choices[0])
            if v not in allowed:
                raise _bad(flag_of(name), v, f"expected one of {', '.join(map(str, allowed))}")
        if base in (int, int | None) and v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise _bad(flag_of(name), v, "expected a whole number")
        if base in (float, float | None) and v is not None:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
                raise _bad(flag_of(name), v, "expected a number")
        if base in (bool,) and not isinstance(v, bool):
            raise _bad(flag_of(name), v, "expected True or False")
    if not isinstance(o.request_rates, tuple) or any(isinstance(r, bool) or not isinstance(r, (int, float))
                                                    for r in o.request_rates):
        raise _bad("--request-rate", o.request_rates, "expected a tuple of numbers (requests per second; inf: all at once)")
    if not isinstance(o.max_concurrencies, tuple):
        raise _bad("--max-concurrency", o.max_concurrencies, "expected a tuple of whole numbers (None: no cap)")
    if not isinstance(o.goodput_ms, dict) or any(isinstance(ms, bool) or not isinstance(ms, (int, float))
                                                for ms in o.goodput_ms.values()):
        raise _bad("--goodput", o.goodput_ms, "expected metric -> a number of ms, e.g. {'ttft_ms': 200.0}")
    for h in o.headers if isinstance(o.headers, tuple) else (None,):
        if not (isinstance(h, tuple) and len(h) == 2 and all(isinstance(x, str) for x in h) and h[0].strip()):
            raise _bad("--header", h, "expected NAME:VALUE (a (name, value) pair of text, the name not empty)")


def _whole(o: ServeOptions, names: tuple[str, ...], low: int) -> None:
    for name in names:
        v = getattr(o, name)
        if v is not None and v < low:
            raise _bad(flag_of(name), v, f"must be a whole number >= {low}")


def _check_values(o: ServeOptions) -> None:
    if o.url is None and o.launch is None:
        raise UsageError("give the server: --url URL, or --launch \"CMD ...\" to start one")
    _whole(o, ("num_prompts", "random_input_len", "random_output_len", "prefix_repetition_prefix_len",
               "prefix_repetition_num_prefixes", "prefix_repetition_output_len", "sweep_points",
               "profile_requests", "sharegpt_output_len", "max_turns", "num_runs"), 1)
    _whole(o, ("prefix_repetition_suffix_len", "warmup"), 0)
    for name in ("ready_timeout_s", "request_timeout_s", "profile_timeout_s", "duration_s", "profile_duration_s",
                 "slice_duration_s", "burstiness"):
        v = getattr(o, name)
        if v is not None and not (0 < v < math.inf):
            raise _bad(flag_of(name), v, "must be a finite number > 0")
    if not 0 <= o.random_range_ratio < 1:
        raise _bad("--random-range-ratio", o.random_range_ratio, "must be in [0, 1) (vLLM's convention: lengths in "
                   "[L*(1-r), L*(1+r)])")
    if not 0 < o.slo_ratio <= 1:
        raise _bad("--slo-ratio", o.slo_ratio, "must be in (0, 1]")
    if o.num_runs > MAX_RUNS:
        raise _bad("--num-runs", o.num_runs, f"at most {MAX_RUNS}")
    if not o.request_rates or any(not (r > 0) for r in o.request_rates):
        raise _bad("--request-rate", list(o.request_rates), "each value must be > 0 (inf: all at once)")
    if not o.max_concurrencies or any(c is not None and (isinstance(c, bool) or not isinstance(c, int) or c < 1)
                                      for c in o.max_concurrencies):
        raise _bad("--max-concurrency", list(o.max_concurrencies), "each value must be a whole number >= 1")
    if len(o.request_rates) > 1 and len(o.max_concurrencies) > 1:
        raise UsageError("sweep one thing at a time: a list of --request-rate or of --max-concurrency, not both")
    if o.dataset_name in ("sharegpt", "jsonl", "mooncake") and o.dataset_path is None:
        raise UsageError(f"--dataset-name {o.dataset_name} needs --dataset-path FILE")
    if o.multi_turn and o.dataset_name != "sharegpt":
        raise UsageError(f"--multi-turn replays ShareGPT conversations: it needs --dataset-name sharegpt, "
                         f"not {o.dataset_name}")
    if o.max_turns is not None and not o.multi_turn:
        raise UsageError("--max-turns is for --multi-turn")
    if o.multi_turn and o.endpoint != "chat":
        raise UsageError("--multi-turn sends the history as chat messages: it needs --endpoint chat")
    schedules = [f for f, on in (("--ramp-up-strategy", o.ramp_up_strategy is not None),
                                 ("--dataset-name mooncake", o.dataset_name == "mooncake"),
                                 ("--sweep auto", o.sweep == "auto"), ("--slo", o.slo)) if on]
    if len(schedules) > 1:
        raise UsageError(f"{schedules[0]} and {schedules[1]} each set when requests are sent: choose one")
    if schedules and schedules[0] in ("--ramp-up-strategy", "--dataset-name mooncake") and (
            len(o.request_rates) > 1 or not math.isinf(o.request_rates[0])):
        raise UsageError(f"{schedules[0]} sets when requests are sent: leave --request-rate out")
    if o.ramp_up_strategy is None and (o.ramp_up_start_rps is not None or o.ramp_up_end_rps is not None):
        raise UsageError("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear|exponential")
    if o.ramp_up_strategy is not None:
        from bench_kernel.records import Load

        Load(burstiness=o.burstiness, duration_s=o.duration_s, **o.ramp())  # its checks, once
    if o.slo and not o.goodput_ms:
        raise UsageError("--slo needs targets: --goodput ttft:MS tpot:MS e2el:MS")
    if o.profile and o.profile_dir is None:
        raise UsageError("--profile needs --profile-dir DIR: the folder the server writes its traces to")
    for key, ms in o.goodput_ms.items():
        if key not in ("ttft_ms", "tpot_ms", "e2el_ms") or not (0 < ms < math.inf):
            raise _bad("--goodput", f"{key}:{ms}", "expected ttft, tpot or e2el with a finite target of ms > 0")


@dataclass(frozen=True)
class ServeField:
    """How the command line spells one :class:`ServeOptions` field.

    kind: ``text``, ``file``, ``dir`` (paths), ``choice``, ``count`` (int >= 1), ``count0`` (int >= 0),
    ``int``, ``number`` (> 0), ``fraction`` ([0, 1)), ``share`` ((0, 1]), ``flag``, ``switch`` (on by
    default, ``--no-...`` turns it off), ``rates`` and ``concurrencies`` (comma lists: a sweep),
    ``goodput`` and ``header`` (repeatable items).
    """

    name: str
    flag: str
    kind: str
    metavar: str | None = None


def _f(name: str, kind: str, flag: str | None = None, metavar: str | None = None) -> ServeField:
    return ServeField(name, flag or "--" + name.replace("_", "-"), kind, metavar)


#: Every field of :class:`ServeOptions`, in the order ``--help`` lists them.
SERVE_FIELDS: tuple[ServeField, ...] = (
    _f("url", "text"), _f("launch", "text", metavar='"CMD ..."'), _f("server_log", "file"),
    _f("ready_timeout_s", "number", "--ready-timeout"), _f("model", "text"), _f("endpoint", "choice"),
    _f("dataset_name", "choice"), _f("dataset_path", "file"), _f("num_prompts", "count"),
    _f("random_input_len", "count"), _f("random_output_len", "count"), _f("random_range_ratio", "fraction"),
    _f("sharegpt_output_len", "count"), _f("prefix_repetition_prefix_len", "count"),
    _f("prefix_repetition_suffix_len", "count0"), _f("prefix_repetition_num_prefixes", "count"),
    _f("prefix_repetition_output_len", "count"), _f("multi_turn", "flag"), _f("max_turns", "count"),
    _f("seed", "int"), _f("tokenizer", "text"), _f("ignore_eos", "flag"),
    _f("request_rates", "rates", "--request-rate"), _f("burstiness", "number"), _f("ramp_up_strategy", "choice"),
    _f("ramp_up_start_rps", "number"), _f("ramp_up_end_rps", "number"),
    _f("max_concurrencies", "concurrencies", "--max-concurrency"), _f("duration_s", "number", "--duration"),
    _f("warmup", "count0"), _f("goodput_ms", "goodput", "--goodput", "NAME:MS"), _f("sweep", "choice"),
    _f("sweep_points", "count"), _f("slo", "flag"), _f("slo_ratio", "share"), _f("num_runs", "count"),
    _f("slice_duration_s", "number", "--slice-duration"), _f("server_metrics", "switch"),
    _f("gpu_telemetry", "switch"), _f("request_timeout_s", "number", "--request-timeout"),
    _f("headers", "header", "--header", "NAME:VALUE"), _f("profile", "flag"), _f("profile_dir", "dir"),
    _f("profile_requests", "count"), _f("profile_duration_s", "number", "--profile-duration"),
    _f("profile_timeout_s", "number", "--profile-timeout"),
)


def flag_of(name: str) -> str:
    """The command line's flag of field ``name`` (``request_rates`` -> ``--request-rate``)."""
    return next((f.flag for f in SERVE_FIELDS if f.name == name), "--" + name.replace("_", "-"))


@functools.cache
def _hints(extras: bool = False) -> dict[str, Any]:
    # Resolving the record's annotations takes ~4 ms; the CLI asks once per option (46 of them).
    return get_type_hints(ServeOptions, include_extras=extras)


def field_help(name: str) -> str:
    """The field's description: its ``--help`` text."""
    hint = _hints(extras=True)[name]
    meta = next((a for a in get_args(hint)[1:] if isinstance(a, msgspec.Meta)), None)
    return meta.description if meta is not None and meta.description else ""


def field_choices(name: str) -> list[str]:
    """The values a ``Literal`` field takes (``None`` left out): its ``--help`` choices."""
    hint = _hints()[name]
    lits = [a for a in (get_args(hint) or (hint,)) if get_args(a)] or [hint]
    return [str(c) for c in get_args(lits[0]) if c is not None]
