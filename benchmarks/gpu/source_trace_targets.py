"""Targets for ``benchmarks/gpu/source_trace_docs.sh``: a small HF MoE forward and a compiled function.

    bench-kernel source-trace benchmarks/gpu/source_trace_targets.py:hf_moe -o examples/x.md
    bench-kernel source-trace benchmarks/gpu/source_trace_targets.py:compiled -o examples/y.md

``hf_moe``: a ``Qwen2MoeForCausalLM`` randomly initialised from a small config (no download: the
weights are random; transformers must be installed), 2 decoder layers (``LAYERS`` overrides),
one forward of a batch of 2 x 64 tokens, bf16, eager. ``compiled``: a ``torch.compile``d
SiLU-gated MLP tail, so its elementwise part is one Inductor-generated Triton kernel.
"""

from __future__ import annotations

import os

import torch


def hf_moe():
    from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM

    layers = int(os.environ.get("LAYERS", "2"))
    config = Qwen2MoeConfig(vocab_size=8192, hidden_size=512, intermediate_size=1024, moe_intermediate_size=256,
                            shared_expert_intermediate_size=1024, num_hidden_layers=layers, num_attention_heads=8,
                            num_key_value_heads=2, num_experts=8, num_experts_per_tok=2, max_position_embeddings=512)
    torch.manual_seed(0)
    model = Qwen2MoeForCausalLM(config).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, config.vocab_size, (2, 64), device="cuda")

    def forward(input_ids):
        with torch.no_grad():
            return model(input_ids=input_ids).logits

    return {"name": f"qwen2_moe_{layers}_layers_forward", "fn": forward, "make_inputs": lambda: (ids,)}


def silu_gate(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(gate) * x + 1.0


def compiled():
    fn = torch.compile(silu_gate)
    return {"name": "compiled_silu_gate", "fn": fn,
            "make_inputs": lambda: (torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16),
                                    torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16))}
