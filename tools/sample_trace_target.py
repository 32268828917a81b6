"""A tiny Llama (2 layers, hidden 256, random weights) generating 3 tokens for 2 prompts of 32 tokens:
one prefill and two decode forwards per call, eager, SDPA. It recorded the package's sample trace
(``bench_kernel/trace/data/sample_llama_generate.json.gz``) on an H200, from the repository root:

    PYTHONPATH=src python3 -m bench_kernel profile tools/sample_trace_target.py:step --steps 1 --warmup 1 \
        -o src/bench_kernel/trace/data/sample_llama_generate.json.gz

Needs a GPU and ``transformers``; the random weights make the kernels, not the tokens, the point.
"""
import torch


def step():
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=1024, max_position_embeddings=256)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to(device="cuda", dtype=torch.bfloat16).eval()
    ids = torch.randint(0, 1024, (2, 32), device="cuda")

    @torch.no_grad()
    def generate():
        return model.generate(ids, max_new_tokens=3, min_new_tokens=3, do_sample=False, pad_token_id=0)
    return generate
