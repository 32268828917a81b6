"""Workloads that exercise what a real server does beyond one prompt at a time: shared prefixes,
conversations, and a production trace replayed at its recorded times.

- ``prefix_repetition`` (vLLM's ``PrefixRepetitionRandomDataset``, its flag names and defaults):
  ``num_prefixes`` prefixes of ``prefix_len`` tokens; each request is one of them plus a suffix of
  its own of ``suffix_len`` tokens, asking for ``output_len`` tokens. The prefixes are dealt out
  evenly (vLLM drops the remainder of ``num_prompts / num_prefixes``; here the first prefixes get
  one more each, so exactly ``num_prompts`` requests go) and shuffled. A prefix cache shows as
  the later requests of a prefix answering faster than its first (``group_breakdown``), and on
  the server's ``/metrics`` as prefix-cache hits.
- ``mooncake`` (the trace format of Mooncake's published traces, FAST'25; SGLang's
  ``--dataset-name mooncake``): one JSON object a line, ``timestamp`` (ms), ``input_length``,
  ``output_length`` and ``hash_ids``, each id one block of :data:`MOONCAKE_BLOCK` tokens; requests
  whose ids agree share those blocks, so the trace's prefix sharing is kept. Each request is sent
  at its recorded time from the first; ``--num-prompts`` takes the trace's first N.
- ``multi_turn`` over a ShareGPT file: each conversation's user turns are sent one after the
  other, each with the history so far, the server's own answers as the assistant's turns (what a
  chat client sends); ``--num-prompts`` counts conversations, and every turn is a request.

Text is made of common words, about one token each (as the ``random`` dataset's); with
``--tokenizer`` each block is cut to its exact token count. The server's ``usage`` gives the counts
the metrics use either way.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Callable

from bench_kernel.errors import InputError, UsageError
from bench_kernel.records import info, warning
from bench_kernel.serve._dataset_common import WORDS, Dataset, read_json, sharegpt_turns
from bench_kernel.serve._records import Prompt

__all__ = ["prefix_repetition", "mooncake", "multi_turn", "MOONCAKE_BLOCK"]

#: Tokens per ``hash_ids`` block in Mooncake's traces (its KV-cache block; aiperf's default too).
MOONCAKE_BLOCK = 512


def _words(rng: random.Random, n: int, first: str, tokenizer: Any | None) -> str:
    """``n`` tokens of text, the first word ``first`` (so that two texts differ from their start)."""
    if n <= 0:
        return ""
    text = " ".join([first] + [rng.choice(WORDS) for _ in range(n - 1)])
    if tokenizer is not None:
        text = tokenizer.decode(tokenizer.encode(text, add_special_tokens=False)[:n])
    return text


def prefix_repetition(n: int, *, prefix_len: int, suffix_len: int, num_prefixes: int, output_len: int, seed: int,
                      tokenizer: Any | None = None) -> Dataset:
    """``n`` prompts over ``num_prefixes`` shared prefixes (module docstring)."""
    for flag, v, low in (("--prefix-repetition-prefix-len", prefix_len, 1), ("--prefix-repetition-suffix-len",
                         suffix_len, 0), ("--prefix-repetition-num-prefixes", num_prefixes, 1),
                         ("--prefix-repetition-output-len", output_len, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise UsageError(f"{flag} {v!r}: must be a whole number >= {low}")
    if num_prefixes > n:
        raise UsageError(f"--prefix-repetition-num-prefixes {num_prefixes} is more than --num-prompts {n}: "
                         f"a prefix sent once is never repeated")
    rng = random.Random(seed)
    prefixes = [_words(rng, prefix_len, f"prefix{k}", tokenizer) for k in range(num_prefixes)]
    owners = [i % num_prefixes for i in range(n)]
    rng.shuffle(owners)
    prompts = []
    for i, k in enumerate(owners):
        suffix = _words(rng, suffix_len, f"request{i}", tokenizer)
        prompts.append(Prompt(f"{prefixes[k]} {suffix}".strip(), prefix_len + suffix_len, output_len, group=k))
    per = n / num_prefixes
    note = info("prefix-repetition", f"prefix_repetition: {num_prefixes} prefixes of {prefix_len} tokens, each shared "
                f"by {per:.3g} requests on average, + {suffix_len} tokens of their own", prefixes=num_prefixes,
                prefix_len=prefix_len, suffix_len=suffix_len)
    return Dataset("prefix_repetition", tuple(prompts), (note,))


def _int(obj: dict[str, Any], key: str, where: str, low: int) -> int:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise InputError(f"{where}: {key!r} is {v!r}; expected a whole number >= {low}")
    return v


def mooncake(path: Path, n: int, *, seed: int, tokenizer: Any | None = None) -> Dataset:
    """The first ``n`` requests of a Mooncake trace, each due at its recorded time (module docstring)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"--dataset-path {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"--dataset-path {path}: cannot read it ({e})") from None
    rows = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"--dataset-path {path}:{no}"
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise InputError(f"{where}: not JSON ({e}); a Mooncake trace line is {{\"timestamp\": MS, "
                             f"\"input_length\": N, \"output_length\": N, \"hash_ids\": [...]}}") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        ids = obj.get("hash_ids", [])
        if not isinstance(ids, list) or not all(isinstance(h, int) and not isinstance(h, bool) for h in ids):
            raise InputError(f"{where}: 'hash_ids' must be a list of whole numbers")
        ts = obj.get("timestamp")
        if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not ts >= 0:
            raise InputError(f"{where}: 'timestamp' is {ts!r}; expected milliseconds >= 0")
        rows.append((float(ts), _int(obj, "input_length", where, 1), _int(obj, "output_length", where, 1), ids))
        if len(rows) == n:
            break
    if not rows:
        raise InputError(f"--dataset-path {path}: no requests in it")
    if any(b[0] < a[0] for a, b in zip(rows, rows[1:])):
        raise InputError(f"--dataset-path {path}: timestamps go backwards; a trace is replayed in its order")
    blocks: dict[int, str] = {}

    def block(h: int) -> str:
        if h not in blocks:
            blocks[h] = _words(random.Random(f"{seed}:{h}"), MOONCAKE_BLOCK, f"block{h}", tokenizer)
        return blocks[h]

    t0 = rows[0][0]
    prompts = []
    for i, (ts, n_in, n_out, ids) in enumerate(rows):
        full = ids[: n_in // MOONCAKE_BLOCK]
        parts = [block(h) for h in full]
        rest = n_in - len(full) * MOONCAKE_BLOCK
        if rest > 0:  # the last, partial block: its id's text cut, or words of this request's own
            h = ids[len(full)] if len(ids) > len(full) else None
            parts.append(_cut(block(h), rest, tokenizer) if h is not None else
                         _words(random.Random(f"{seed}:r{i}"), rest, f"tail{i}", tokenizer))
        prompts.append(Prompt(" ".join(parts), n_in, n_out, due_s=(ts - t0) / 1e3))
    span = (rows[-1][0] - t0) / 1e3
    notes = [info("mooncake-trace", f"mooncake trace: {len(prompts)} requests over {span:.3g} s, sent at their recorded "
                  f"times; {len(blocks)} distinct {MOONCAKE_BLOCK}-token blocks", requests=len(prompts), span_s=span,
                  blocks=len(blocks))]
    if len(prompts) < n:
        notes.append(info("trace-shorter", f"the trace has {len(prompts)} requests, fewer than --num-prompts {n}: all "
                          f"of them were sent once", requests=len(prompts), asked=n))
    return Dataset("mooncake", tuple(prompts), tuple(notes))


def _cut(text: str, n: int, tokenizer: Any | None) -> str:
    if tokenizer is not None:
        return tokenizer.decode(tokenizer.encode(text, add_special_tokens=False)[:n])
    return " ".join(text.split()[:n])


def multi_turn(path: Path, n: int, *, seed: int, output_len: int | None, max_turns: int | None,
               count: Callable[[str], int] | None) -> Dataset:
    """``n`` ShareGPT conversations, each a prompt whose later user turns follow it (module docstring)."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"--dataset-path {path}: expected a JSON list of conversations, got {type(data).__name__}")
    est = count or (lambda s: max(1, round(len(s) / 4)))
    convs = []
    for item in data:
        t = sharegpt_turns(item)
        pairs = [(t[k], t[k + 1]) for k in range(0, len(t) - 1, 2)][:max_turns]
        if pairs:
            convs.append(pairs)
    if not convs:
        raise InputError(f"--dataset-path {path}: no conversation with a user turn and an answer")
    random.Random(seed).shuffle(convs)
    prompts = []
    for c, pairs in enumerate(convs[:n]):
        outs = [output_len if output_len is not None else max(1, est(a)) for _, a in pairs]
        (q0, _), later = pairs[0], pairs[1:]
        prompts.append(Prompt(q0, est(q0), outs[0], group=c,
                              turns=tuple((q, o) for (q, _), o in zip(later, outs[1:]))))
    turns = sum(1 + len(p.turns) for p in prompts)
    notes = [info("multi-turn", f"multi-turn: {len(prompts)} conversations, {turns} turns in all, each turn sent with "
                  f"the history (the server's own answers as the assistant's turns)", conversations=len(prompts),
                  turns=turns)]
    if count is None:
        notes.append(info("lengths-approximate", "sharegpt lengths are estimated as characters / 4 (no --tokenizer); "
                          "the server's usage gives the real counts"))
    if len(prompts) < n:
        notes.append(warning("conversations-fewer", f"the dataset has {len(prompts)} usable conversations for {n}: "
                             f"each was sent once", usable=len(prompts), asked=n))
    return Dataset("sharegpt_multi_turn", tuple(prompts), tuple(notes))
