"""Tiny Hugging Face causal LMs built locally for serving tests and the GPU serving script: a
random-weight Llama and a BPE tokenizer trained in a moment on made-up sentences, with a chat
template, saved with ``save_pretrained``. Nothing is downloaded (run with ``HF_HUB_OFFLINE=1``)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

WORDS = "the a model server token kernel decode prefill fast slow batch queue cache layer stream".split()


def build_model(out: Path, *, hidden: int = 64, layers: int = 2, heads: int = 4, kv_heads: int | None = None,
                intermediate: int | None = None, dtype: str = "float32", device: str = "cpu") -> Path:
    """Save a random ``LlamaForCausalLM`` and its tokenizer to ``out``; returns ``out``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    rng = random.Random(0)
    text = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) for _ in range(2000)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(text, trainers.BpeTrainer(vocab_size=400, special_tokens=["<s>", "</s>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="</s>")
    fast.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                          "{% if add_generation_prompt %}assistant: {% endif %}")
    fast.save_pretrained(out)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(fast), hidden_size=hidden, intermediate_size=intermediate or 2 * hidden,
                      num_hidden_layers=layers, num_attention_heads=heads,
                      num_key_value_heads=kv_heads or max(1, heads // 2), max_position_embeddings=4096,
                      bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id, pad_token_id=fast.pad_token_id)
    with torch.device(device):
        model = LlamaForCausalLM(cfg).to(getattr(torch, dtype))
    model.save_pretrained(out)
    return out


if __name__ == "__main__":  # python tests/serve_models.py OUT hidden layers heads kv_heads intermediate dtype device
    a = sys.argv[1:]
    p = build_model(Path(a[0]), hidden=int(a[1]), layers=int(a[2]), heads=int(a[3]), kv_heads=int(a[4]),
                    intermediate=int(a[5]), dtype=a[6], device=a[7])
    print(p)
