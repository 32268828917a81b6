"""A tiny local LLM and a real `transformers serve` on a CPU, for `bench-kernel serve --launch` with no
GPU and no download: a random-weight 2-layer Llama (hidden 64) and a BPE tokenizer trained in a moment
on made-up sentences, with a chat template (the model the serving tests use).

    pip install 'bench-kernel[serve]' 'transformers[serving]' torch
    python examples/serve_tiny_model.py /tmp/tiny-llm          # builds it, prints the command below
    HF_HUB_OFFLINE=1 bench-kernel serve --launch "transformers serve /tmp/tiny-llm --host 127.0.0.1 \\
        --port 8000 --device cpu" --num-prompts 8 --random-input-len 32 --random-output-len 16

The numbers are a CPU's and random weights' (the answers are gibberish): it shows the whole chain
(launch, warm-up, load, metrics, the report), not a model's speed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serve_models import build_model  # noqa: E402  (the tests' builder: one definition of the tiny model)


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    out = Path(args[0] if args else "tiny-llm").resolve()
    build_model(out)
    print(f"built {out}\nrun:\n  HF_HUB_OFFLINE=1 bench-kernel serve --launch \"transformers serve {out} --host 127.0.0.1 "
          f"--port 8000 --device cpu\" --num-prompts 8 --random-input-len 32 --random-output-len 16")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
