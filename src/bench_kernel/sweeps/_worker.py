"""A sweep worker process: ``python -m bench_kernel.sweeps._worker``.

Protocol, one JSON object per line. The parent writes the setup line (spec target, options,
label, threads), then one unit per line (``{"unit": i, "provider": p, "point": {...}}``) and
``{"quit": true}`` at the end. The worker answers ``{"ready": true, "env": {...}}`` (or
``{"fatal": message}`` and exits) and then ``{"unit": i, "point": PointResult.to_dict()}`` per
unit. Answers go to the original stdout only: fd 1 is pointed at stderr first, so whatever the
user's code prints cannot corrupt the protocol.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

__all__ = ["main"]


def _protocol_stream() -> TextIO:
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    return proto


def _send(proto: TextIO, obj: dict[str, Any]) -> None:
    proto.write(json.dumps(obj, default=str) + "\n")
    proto.flush()


def main() -> int:
    proto = _protocol_stream()
    setup = json.loads(sys.stdin.readline())
    label = setup["label"]
    try:
        from bench_kernel.options import Options
        from bench_kernel.orchestrate import run_env
        from bench_kernel.sweeps._spec import load_spec
        from bench_kernel.sweeps._unit import run_unit

        spec = load_spec(setup["target"])
        options = Options.from_dict(setup["options"])
        if setup.get("threads") and options.threads is None:
            # The worker's share of the cores, set while each point is timed (and only where the
            # spec's code loaded torch): importing torch here would cost a pure-Python spec seconds.
            options = Options.build(options, threads=int(setup["threads"]))
        env = run_env(options)
        env["visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES")
        env["pid"] = os.getpid()  # which process ran a round (host rounds each get a fresh one)
    except Exception as e:  # noqa: BLE001 - reported to the parent as one line
        _send(proto, {"fatal": f"worker {label} could not start: {type(e).__name__}: {e}"})
        return 1
    _send(proto, {"ready": True, "env": env})
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("quit"):
            break
        point = run_unit(spec, msg["point"], msg["provider"], options, worker=label, env=env,
                         round=int(msg.get("round", 1)))
        _send(proto, {"unit": msg["unit"], "point": point.to_dict()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
