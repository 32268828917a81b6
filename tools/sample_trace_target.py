"""A tiny Llama (2 layers, hidden 256, random weights) on 2 prompts of 32 tokens, eager, SDPA: the
package's sample trace (``bench_kernel/trace/data/sample_llama_generate.json.gz``), recorded on an
H200 from the repository root with one forward per profiler step (a prefill, then three decodes with
the KV cache), so that ``phases`` and ``layers --step decode`` have steps to tell apart:

    PYTHONPATH=src python3 -m bench_kernel profile tools/sample_trace_target.py:forwards --steps 4 --warmup 4 \
        -o src/bench_kernel/trace/data/sample_llama_generate.json.gz

(``step`` is the first recording's target: one ``generate`` of 3 tokens per step, all in one step.)

Needs a GPU and ``transformers``; the random weights make the kernels, not the tokens, the point.
"""
import torch


def _model():
    import transformers
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=1024, max_position_embeddings=256)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).to(device="cuda", dtype=torch.bfloat16).eval()
    return transformers, model, torch.randint(0, 1024, (2, 32), device="cuda")


def forwards():
    """One forward per call, in cycles of four: a prefill of the prompts (a fresh KV cache), then three
    decodes of one token each on that cache."""
    transformers, model, ids = _model()
    state = {"i": 0, "cache": None, "next": None}

    @torch.no_grad()
    def forward():
        first = state["i"] % 4 == 0
        state["i"] += 1
        cache = transformers.DynamicCache() if first else state["cache"]
        out = model(input_ids=ids if first else state["next"], past_key_values=cache, use_cache=True)
        state["cache"], state["next"] = out.past_key_values, out.logits[:, -1:].argmax(-1)
        return out.logits
    return forward


def step():
    _, model, ids = _model()

    @torch.no_grad()
    def generate():
        return model.generate(ids, max_new_tokens=3, min_new_tokens=3, do_sample=False, pad_token_id=0)
    return generate
