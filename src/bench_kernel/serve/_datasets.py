"""Prompts to send: ``random`` (made up, seeded), ``sharegpt`` (conversations) and ``jsonl`` (yours);
``prefix_repetition``, ``mooncake`` and ShareGPT turn by turn are in ``_workloads``.

``--random-range-ratio`` follows **vLLM's** convention, because the flag is vLLM's: lengths are
drawn uniformly from the integers in ``[floor(L * (1 - r)), ceil(L * (1 + r))]`` around ``L``,
``0 <= r < 1`` (vllm/benchmarks/datasets.py, ``RandomDataset``). ATOM's fork and SGLang draw from
``[L * r, L]`` instead (a ratio of 1 there means fixed lengths, 0 here). To get their
``[L * r, L]`` here, ask for ``L' = L * (1 + r) / 2`` with ``r' = (1 - r) / (1 + r)``.

Without ``--tokenizer`` a random prompt is ``input_len`` common English words, one token each in
the BPE vocabularies of Llama, Qwen and GPT models (close, not exact: the chat template adds its
own); the server's ``usage.prompt_tokens`` then gives the real count, and the run says which it used.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any, Callable

from bench_kernel.errors import InputError, UsageError
from bench_kernel.records import Note, info, warning
from bench_kernel.serve._dataset_common import DATASETS, WORDS, Dataset, read_json, sharegpt_turns
from bench_kernel.serve._records import Prompt
from bench_kernel.serve._workloads import mooncake, prefix_repetition
from bench_kernel.serve._workloads import multi_turn as multi_turn_dataset

__all__ = ["Dataset", "DATASETS", "load_dataset", "range_bounds", "WORDS"]



def range_bounds(length: int, ratio: float) -> tuple[int, int]:
    """vLLM's ``--random-range-ratio``: the inclusive integer range drawn from, at least 1."""
    return max(1, math.floor(length * (1 - ratio))), max(1, math.ceil(length * (1 + ratio)))


def _random(n: int, input_len: int, output_len: int, ratio: float, seed: int,
            tokenizer: Any | None) -> Dataset:
    if not 0 <= ratio < 1:
        raise UsageError(f"--random-range-ratio {ratio:g}: must be in [0, 1) (vLLM's convention: lengths "
                         f"in [L*(1-r), L*(1+r)])")
    if input_len < 1 or output_len < 1:
        raise UsageError("--random-input-len and --random-output-len must be at least 1")
    rng = random.Random(seed)
    ilo, ihi = range_bounds(input_len, ratio)
    olo, ohi = range_bounds(output_len, ratio)
    prompts = []
    for i in range(n):
        li, lo = rng.randint(ilo, ihi), rng.randint(olo, ohi)
        # A distinct first word per request, so no two prompts share a prefix-cache entry.
        words = [str(i)] + [rng.choice(WORDS) for _ in range(li - 1)]
        text = " ".join(words)
        if tokenizer is not None:
            ids = tokenizer.encode(text, add_special_tokens=False)[:li]
            text = tokenizer.decode(ids)
        prompts.append(Prompt(text, li, lo))
    note = (info("lengths-by-tokenizer", "input lengths are counted by the tokenizer") if tokenizer is not None else
            info("lengths-approximate", "random prompts are words, about one token each: the input token counts "
                 "reported come from the server's usage where it gives them"))
    return Dataset("random", tuple(prompts), (note,))


def _sharegpt(path: Path, n: int, seed: int, output_len: int | None, count: Callable[[str], int] | None) -> Dataset:
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"--dataset-path {path}: expected a JSON list of conversations, got {type(data).__name__}")
    pairs = [(t[0], t[1]) for t in (sharegpt_turns(x) for x in data) if len(t) >= 2]
    if not pairs:
        raise InputError(f"--dataset-path {path}: no conversation with two turns (items need "
                         f"'conversations': [{{'value': ...}}, {{'value': ...}}])")
    random.Random(seed).shuffle(pairs)
    notes: list[Note] = []
    est = count or (lambda s: max(1, round(len(s) / 4)))
    if count is None:
        notes.append(info("lengths-approximate", "sharegpt lengths are estimated as characters / 4 (no --tokenizer); "
                          "the server's usage gives the real counts"))
    prompts = []
    for q, a in pairs:
        li = est(q)
        lo = output_len if output_len is not None else est(a)
        if li < 4 or lo < 4:  # vLLM's filter: too short to be a real exchange
            continue
        prompts.append(Prompt(q, li, lo))
        if len(prompts) == n:
            break
    if len(prompts) < n:
        notes.append(warning("prompts-reused", f"the dataset has {len(prompts)} usable conversations for {n} prompts: "
                             f"they are reused in turn", usable=len(prompts), asked=n))
    return Dataset("sharegpt", tuple(prompts), tuple(notes))


def _jsonl(path: Path, n: int, output_len: int) -> Dataset:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"--dataset-path {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"--dataset-path {path}: cannot read it ({e})") from None
    prompts = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise InputError(f"--dataset-path {path}:{no}: not JSON ({e}); each line is "
                             f"{{\"prompt\": \"...\", \"max_tokens\": N}}") from None
        if not isinstance(obj, dict):
            raise InputError(f"--dataset-path {path}:{no}: expected a JSON object, got {type(obj).__name__}")
        messages = obj.get("messages")
        text = obj.get("prompt")
        if isinstance(messages, list) and messages and all(isinstance(m, dict) for m in messages):
            text = " ".join(str(m.get("content", "")) for m in messages)
        elif not isinstance(text, str) or not text:
            raise InputError(f"--dataset-path {path}:{no}: needs a non-empty 'prompt' string or a 'messages' list")
        else:
            messages = None
        lo = obj.get("max_tokens", obj.get("output_len", output_len))
        if not isinstance(lo, int) or isinstance(lo, bool) or lo < 1:
            raise InputError(f"--dataset-path {path}:{no}: max_tokens {lo!r} is not a positive integer")
        li = obj.get("input_len")
        li = li if isinstance(li, int) and li > 0 else max(1, len(text.split()))
        prompts.append(Prompt(text, li, lo, tuple(messages) if messages else None))
        if len(prompts) == n:
            break
    if not prompts:
        raise InputError(f"--dataset-path {path}: no prompts in it")
    return Dataset("jsonl", tuple(prompts))


def load_dataset(name: str, n: int, *, path: Path | None = None, input_len: int = 1024, output_len: int = 128,
                 range_ratio: float = 0.0, seed: int = 0, tokenizer: Any | None = None,
                 sharegpt_output_len: int | None = None, prefix_len: int = 256, suffix_len: int = 256,
                 num_prefixes: int = 10, prefix_output_len: int = 128, multi_turn: bool = False,
                 max_turns: int | None = None) -> Dataset:
    """``n`` prompts from dataset ``name`` (see :data:`DATASETS`); the same ``seed`` gives the same prompts.

    ``tokenizer`` (a Hugging Face tokenizer, optional) makes lengths exact. ``prefix_*``: the
    ``prefix_repetition`` workload; ``multi_turn``: ShareGPT conversations turn by turn, at most
    ``max_turns`` each (``_workloads``). Raises UsageError for a bad option and InputError for a
    missing or malformed file.
    """
    if n < 1:
        raise UsageError(f"--num-prompts {n}: must be at least 1")
    if multi_turn and name != "sharegpt":
        raise UsageError(f"--multi-turn replays ShareGPT conversations: it needs --dataset-name sharegpt, not {name}")
    if max_turns is not None and not multi_turn:
        raise UsageError("--max-turns is for --multi-turn")
    if name == "random":
        return _random(n, input_len, output_len, range_ratio, seed, tokenizer)
    if name == "prefix_repetition":
        return prefix_repetition(n, prefix_len=prefix_len, suffix_len=suffix_len, num_prefixes=num_prefixes,
                                 output_len=prefix_output_len, seed=seed, tokenizer=tokenizer)
    if name not in DATASETS:
        raise UsageError(f"--dataset-name {name!r}: expected one of {', '.join(DATASETS)}")
    if path is None:
        raise UsageError(f"--dataset-name {name} needs --dataset-path FILE")
    count = (lambda s: len(tokenizer.encode(s, add_special_tokens=False))) if tokenizer is not None else None
    if name == "sharegpt" and multi_turn:
        return multi_turn_dataset(path, n, seed=seed, output_len=sharegpt_output_len, max_turns=max_turns, count=count)
    if name == "sharegpt":
        return _sharegpt(path, n, seed, sharegpt_output_len, count)
    if name == "mooncake":
        return mooncake(path, n, seed=seed, tokenizer=tokenizer)
    return _jsonl(path, n, output_len)
