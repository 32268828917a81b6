"""A small Hugging Face decoder forward, built from a config with random weights (nothing is
downloaded): a Llama (GQA attention) and a Mixtral (mixture of experts), bf16, 2 x 512 tokens.

``transformers`` is imported only when the target is loaded; without it the target fails with one
clear line rather than an import traceback.
"""

import torch

from bench_kernel.errors import TargetError

BATCH, SEQ = 2, 512
_SMALL = dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=4, num_attention_heads=16,
              num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048)


def _transformers():
    try:
        import transformers
    except ImportError as e:
        raise TargetError(f"examples/real/hf_decoder.py needs transformers (pip install transformers): {e}") from None
    return transformers


def _model(cls_name: str, config_name: str, **extra):
    tf = _transformers()
    config = getattr(tf, config_name)(**_SMALL, **extra)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = getattr(tf, cls_name)(config).to(device="cuda", dtype=torch.bfloat16).eval()
    return model


def _forward(model):
    @torch.no_grad()
    def forward(input_ids):
        return model(input_ids=input_ids).logits
    return forward


def _ids():
    return (torch.randint(0, _SMALL["vocab_size"], (BATCH, SEQ), device="cuda"),)


def cases():
    llama = _model("LlamaForCausalLM", "LlamaConfig")
    mixtral = _model("MixtralForCausalLM", "MixtralConfig", num_local_experts=8, num_experts_per_tok=2)
    params = {"batch": BATCH, "seq": SEQ, "layers": _SMALL["num_hidden_layers"]}
    return [{"name": "hf_llama_forward", "fn": _forward(llama), "make_inputs": _ids, "params": params},
            {"name": "hf_mixtral_forward", "fn": _forward(mixtral), "make_inputs": _ids,
             "params": {**params, "experts": 8, "top_k": 2}}]
