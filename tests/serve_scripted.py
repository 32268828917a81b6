"""A scripted OpenAI-compatible streaming server: set TTFT, ITL, chunking and every quirk a real
server has (SERVING.md). The reference for the serving metrics' arithmetic -- not a stand-in
for a real server (tests/test_serve_real.py runs `transformers serve`).

A behaviour is a dict (``DEFAULT`` lists the keys); the server's config has a default behaviour and
``scenarios`` picked by the prompt's first word (``"slow hello"`` -> ``scenarios["slow"]``), so one
jsonl dataset can mix them. Every chunk carries ``"t"``: the server's CLOCK_MONOTONIC time when it
was written (``time.perf_counter`` is that clock on Linux, in any process), so a test can compare
what the client measured with what the server did.

Run: ``python tests/serve_scripted.py PORT CONFIG_JSON`` (prints ``ready`` when listening), or
:func:`start` from a test (a subprocess; :meth:`Scripted.stop` ends it).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT: dict[str, Any] = {
    "ttft_ms": 0.0,          # send -> first token chunk (after the role chunk)
    "itl_ms": 0.0,           # between token chunks
    "tokens": 8,             # N_out (capped by max_tokens)
    "per_chunk": 1,          # tokens per chunk: an int, or a list cycled over the chunks
    "role_chunk": True,      # a role-only first chunk, sent at once
    "usage": "finish",       # finish | separate | none | continuous
    "done": True,            # send data: [DONE]
    "empty": [],             # token chunk indices sent with an empty delta (a partial UTF-8 character)
    "reasoning": 0,          # the first N token chunks are reasoning_content
    "status": 200,           # any other status: that status and an error body
    "refuse": [],            # fields that get a 422 when present in the request body
    "error_after": None,     # after N token chunks, an error object inside the 200 stream
    "malformed_after": None,  # after N token chunks, a data: line that is not JSON
    "hang_after": None,      # after N token chunks, never send another byte
    "die_after": None,       # after N token chunks, the server process exits at once
    "crlf": False,           # lines end in \r\n
    "split": False,          # each event written in two pieces (a line split across reads)
}


def _behaviour(config: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    text = body.get("prompt")
    if text is None:
        msgs = body.get("messages") or [{}]
        text = msgs[-1].get("content", "")
    first = str(text).split(" ", 1)[0]
    b = dict(DEFAULT)
    b.update(config.get("default") or {})
    b.update((config.get("scenarios") or {}).get(first) or {})
    return b


def make_app(config: dict[str, Any]) -> Any:
    from aiohttp import web

    models = config.get("models") or ["scripted"]
    state = {"requests": 0, "finished": 0, "running": 0, "prompt_tokens": 0, "generation_tokens": 0}

    async def metrics(request: web.Request) -> web.Response:
        # vLLM's names and layout (prometheus_client's text format), counted from what was served
        if not config.get("metrics"):
            return web.Response(status=404, text="Not Found")
        lab = 'engine="0",model_name="scripted"'
        lines = ["# HELP vllm:num_requests_running Number of requests in model execution batches.",
                 "# TYPE vllm:num_requests_running gauge", f"vllm:num_requests_running{{{lab}}} {state['running']}.0",
                 "# TYPE vllm:prompt_tokens_total counter", f"vllm:prompt_tokens_total{{{lab}}} {state['prompt_tokens']}.0",
                 "# TYPE vllm:prompt_tokens_created gauge", f"vllm:prompt_tokens_created{{{lab}}} 1.7e+09",
                 "# TYPE vllm:generation_tokens_total counter",
                 f"vllm:generation_tokens_total{{{lab}}} {state['generation_tokens']}.0",
                 "# TYPE vllm:request_success_total counter",
                 f'vllm:request_success_total{{{lab},finished_reason="length"}} {state["finished"]}.0']
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")

    async def health(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def list_models(request: web.Request) -> web.Response:
        if config.get("models_status"):  # transformers serve 5.17 without a Hugging Face cache folder: 500
            return web.Response(status=int(config["models_status"]), text="CacheNotFound")
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model"} for m in models]})

    async def version(request: web.Request) -> web.Response:
        return web.json_response({"version": "scripted-1"})

    async def completions(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        state["requests"] += 1
        if config.get("log_requests"):  # tests that must know a stream has begun read this line
            print(f"request {state['requests']}", flush=True)
        chat = request.path.endswith("chat/completions")
        b = _behaviour(config, body)
        if body.get("model") not in models:
            return web.json_response({"error": {"message": f"model {body.get('model')!r} not found"}}, status=404)
        refused = [f for f in b["refuse"] if f in body or f in (body.get("stream_options") or {})]
        if refused:
            return web.json_response({"detail": f"Unexpected fields in the request: {set(refused)}"}, status=422)
        if b["status"] != 200:
            return web.json_response({"error": {"message": "scripted failure"}}, status=b["status"])
        n = min(int(b["tokens"]), int(body.get("max_tokens") or b["tokens"]))
        state["running"] += 1
        try:
            out = await stream(request, body, b, n, chat)
            state["finished"] += 1
            return out
        finally:
            state["running"] -= 1

    async def stream(request: web.Request, body: dict[str, Any], b: dict[str, Any], n: int, chat: bool) -> Any:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        eol = "\r\n" if b["crlf"] else "\n"
        t_start = time.perf_counter()

        async def send(obj: Any) -> None:
            if isinstance(obj, dict):
                obj["t"] = time.perf_counter()
            data = obj if isinstance(obj, str) else json.dumps(obj)
            raw = f"data: {data}{eol}{eol}".encode()
            if b["split"]:
                await resp.write(raw[: len(raw) // 2])
                await asyncio.sleep(0.001)
                raw = raw[len(raw) // 2:]
            await resp.write(raw)

        def chunk(delta: dict[str, Any] | None, text: str | None = None, finish: str | None = None,
                  usage: dict[str, int] | None = None) -> dict[str, Any]:
            c: dict[str, Any] = {"index": 0, "finish_reason": finish}
            if chat:
                c["delta"] = delta or {}
            else:
                c["text"] = text or ""
            out = {"id": "x", "object": "chat.completion.chunk" if chat else "text_completion", "choices": [c]}
            if usage is not None:
                out["usage"] = usage
            return out

        prompt_tokens = len(str(body.get("prompt") or body.get("messages")).split())
        state["prompt_tokens"] += prompt_tokens
        state["generation_tokens"] += n
        if b["role_chunk"] and chat:
            await send(chunk({"role": "assistant", "content": ""},
                             usage={"prompt_tokens": prompt_tokens, "completion_tokens": 0}
                             if b["usage"] == "continuous" else None))
        per = b["per_chunk"] if isinstance(b["per_chunk"], list) else [b["per_chunk"]]
        sent, k = 0, 0
        while sent < n:
            delay = b["ttft_ms"] if k == 0 else b["itl_ms"]
            # Sleep to the scripted time from the request's start, so delays do not accumulate.
            target = t_start + (b["ttft_ms"] + k * b["itl_ms"]) / 1e3
            if delay > 0:
                await asyncio.sleep(max(0.0, target - time.perf_counter()))
            for key, action in (("error_after", "error"), ("malformed_after", "malformed"), ("hang_after", "hang"),
                                ("die_after", "die")):
                if b[key] is not None and k == b[key]:
                    if action == "error":
                        await send({"error": {"message": "scripted engine error", "code": 500}})
                        return resp
                    if action == "malformed":
                        await resp.write(f"data: {{not json{eol}{eol}".encode())
                        return resp
                    if action == "hang":
                        await asyncio.sleep(3600)
                    if action == "die":
                        os._exit(3)
            m = min(per[k % len(per)], n - sent)
            words = "".join(f" w{sent + j}" for j in range(m))
            text = "" if k in b["empty"] else words
            last = sent + m >= n
            usage = None
            if b["usage"] == "continuous" or (last and b["usage"] == "finish"):
                usage = {"prompt_tokens": prompt_tokens, "completion_tokens": sent + m,
                         "total_tokens": prompt_tokens + sent + m}
            if chat:
                delta = {"reasoning_content": text} if k < b["reasoning"] else {"content": text}
                obj = chunk(delta, finish="length" if last and b["usage"] != "continuous" else None, usage=usage)
            else:
                obj = chunk(None, text, finish="length" if last and b["usage"] != "continuous" else None, usage=usage)
            await send(obj)
            sent += m
            k += 1
        if b["usage"] == "continuous":
            await send(chunk({}, "", finish="length", usage={"prompt_tokens": prompt_tokens, "completion_tokens": n}))
        if b["usage"] == "separate":
            await send({"id": "x", "choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": n,
                                                            "total_tokens": prompt_tokens + n}})
        if b["done"]:
            await resp.write(f"data: [DONE]{eol}{eol}".encode())
        return resp

    app = web.Application()
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", list_models)
    app.router.add_get("/version", version)
    app.router.add_get("/metrics", metrics)
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_post("/v1/completions", completions)
    return app


class Scripted:
    """A scripted server in a subprocess: ``url``, ``proc``; ``stop()`` ends it."""

    def __init__(self, config: dict[str, Any], port: int, log: Path | None = None):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen([sys.executable, __file__, str(port), json.dumps(config)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        if "ready" not in line:
            self.stop()
            raise RuntimeError(f"scripted server did not start: {line}{self.proc.stdout.read()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stdout:
            self.proc.stdout.close()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(config: dict[str, Any]) -> Scripted:
    return Scripted(config, free_port())


def main() -> None:
    from aiohttp import web

    port, config = int(sys.argv[1]), json.loads(sys.argv[2])

    async def run() -> None:
        runner = web.AppRunner(make_app(config), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port, backlog=1024).start()
        print("ready", flush=True)
        await asyncio.Event().wait()

    asyncio.run(run())


if __name__ == "__main__":
    main()
