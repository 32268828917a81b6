"""What every dataset shares: the words prompts are made of, the :class:`Dataset` record, and the
reading of a ShareGPT file (one JSON list of ``{"conversations": [...]}``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_kernel.errors import InputError
from bench_kernel.records import Note
from bench_kernel.serve._records import Prompt

__all__ = ["DATASETS", "WORDS", "Dataset", "read_json", "sharegpt_turns"]

#: The datasets, by ``--dataset-name`` (vLLM's names where it has the dataset).
DATASETS = ("random", "sharegpt", "jsonl", "prefix_repetition", "mooncake")

#: Common words that BPE vocabularies keep whole with their leading space (" the", " time", ...).
WORDS = tuple("""the of and to in is was for on that with as by at from his her they this have had
not are but be one all were we when there can an which their if has will more out so up said what
its about than into them only some could time these two may first then do any like my now over such
our man me even most made after also did many before must through back years where much your way
well down should because each just those people how too little state good very make world still own
see men work long get here between both life being under never day same another know while last might
us great old year off come since against go came right used take three states himself few house use
during without again place around however home small found thought went say part once general high
upon school every does got united left number course war until always away something fact though water
less public put think almost hand enough far took head yet government system better set told nothing
night end why called didn eyes find going look asked later knew point next city program give group
""".split())


@dataclass(frozen=True)
class Dataset:
    """The prompts of a run and what to say about how they were made."""

    name: str
    prompts: tuple[Prompt, ...]
    notes: tuple[Note, ...] = ()


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"--dataset-path {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"--dataset-path {path}: cannot read it ({e})") from None
    try:
        return json.loads(text)
    except ValueError as e:
        raise InputError(f"--dataset-path {path}: not JSON ({e}); sharegpt is one JSON list of "
                         f"{{'conversations': [...]}}") from None


def sharegpt_turns(item: Any) -> list[str]:
    """The texts of one ShareGPT conversation's turns, in order (human, gpt, human, ...)."""
    conv = item.get("conversations") or item.get("conversation") or item.get("messages") if isinstance(item, dict) else None
    if not isinstance(conv, list):
        return []
    out = []
    for turn in conv:
        if isinstance(turn, dict):
            v = turn.get("value", turn.get("content"))
            if isinstance(v, str):
                out.append(v)
    return out


