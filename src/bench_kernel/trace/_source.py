"""A trace file or pipe read strictly forward and gunzipped as a stream (the loader's source).

The gzip magic is sniffed from the first two bytes, which are then put back in front of the stream:
``read`` + ``seek(0)`` failed on pipes ("not seekable"). Every read error, a truncated gzip among
them, is one :class:`TraceError` naming the file.
"""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import Any, Callable

from bench_kernel.errors import TraceError

__all__ = ["Source"]


class _Forward:
    """A binary stream read strictly forward, with the bytes already sniffed put back in front.

    Sniffing the gzip magic with ``read`` + ``seek(0)`` failed on pipes ("not seekable").
    """

    def __init__(self, raw: io.BufferedIOBase, head: bytes) -> None:
        self._raw, self._head = raw, head
        self.name = getattr(raw, "name", "")

    def read(self, n: int = -1) -> bytes:
        if self._head:
            if n is None or n < 0:
                out, self._head = self._head + self._raw.read(), b""
                return out
            out, self._head = self._head[:n], self._head[n:]
            return out if len(out) == n else out + self._raw.read(n - len(out))
        return self._raw.read(n)

    def readinto(self, b: bytearray) -> int:
        if not self._head:
            return self._raw.readinto(b)  # straight into the caller's block: no fresh pages per read
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        # GzipFile seeks its source only to rewind, which a forward read never does; a pipe says the same
        raise io.UnsupportedOperation("a forward-only stream cannot seek")


class Source:
    """A binary file or pipe, transparently gunzipped (detected by magic bytes, not the extension)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed in close()
        except FileNotFoundError:
            raise TraceError(f"trace file not found: {path}") from None
        except IsADirectoryError:
            raise TraceError(f"{path} is a directory; pass a trace file, or a directory of per-rank "
                             f"traces with --rank") from None
        except OSError as e:
            raise TraceError(f"cannot read trace {path}: {e.strerror or e}") from None
        self._raw = raw
        magic = self._guard(_read_exactly, (raw, 2))
        self.gzipped = magic == b"\x1f\x8b"
        forward = _Forward(raw, magic)
        self._f: gzip.GzipFile | _Forward = gzip.GzipFile(fileobj=forward, mode="rb") if self.gzipped else forward

    def read(self, n: int) -> bytes:
        return self._guard(self._f.read, n)

    def readinto(self, b: bytearray) -> int:
        return self._guard(self._f.readinto, b)

    def _guard(self, fn: Callable, arg: Any) -> Any:
        try:
            return fn(*arg) if isinstance(arg, tuple) else fn(arg)
        except (EOFError, zlib.error, gzip.BadGzipFile) as e:
            raise TraceError(f"{self.path}: truncated or corrupt gzip ({e}); re-export or re-copy the trace") from None
        except OSError as e:
            raise TraceError(f"cannot read trace {self.path}: {e.strerror or e}") from None

    def close(self) -> None:
        if isinstance(self._f, gzip.GzipFile):
            self._f.close()
        self._raw.close()


def _read_exactly(raw: io.BufferedIOBase, n: int) -> bytes:
    """``n`` bytes (fewer only at the end): a pipe may return a short read."""
    out = b""
    while len(out) < n:
        b = raw.read(n - len(out))
        if not b:
            break
        out += b
    return out
