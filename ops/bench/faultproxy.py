#!/usr/bin/env python3
"""An HTTP proxy in front of the object store that fails a share of uploads, for the soak (ops/bench/soak.py), or
slows them down, for the bench's scale run.

    python3 ops/bench/faultproxy.py --upstream 127.0.0.1:8080 [--fail-503 0.08] [--drop 0.05] [--seed N]
                                    [--trickle BYTES_PER_SECOND]

Prints its base URL (http://127.0.0.1:PORT) as the first stdout line, then serves until killed. Each PUT is, at
random: answered `503 Service Unavailable` after its body was read (share --fail-503); cut off in the middle of its
body, the connection reset without an answer (share --drop); or forwarded to the upstream and its answer relayed.
Other methods are always forwarded. `GET /_faultproxy/stats` answers the counts so far as JSON (not forwarded).
`POST /_faultproxy/off` stops injecting faults; `POST /_faultproxy/on` starts again. `GET /_faultproxy/puts` answers
how many PUTs arrived for each path, `{"/path": count}`, every attempt counted when its head arrived (an upload cut
off or given up halfway counts as much as one that landed); `GET /_faultproxy/bytes` how many bytes of PUT bodies
arrived for each path, a body cut off counted for what arrived of it (the resume run's bytes sent in total).

With `--trickle B`, every PUT body is read from the client at B bytes per second (in 4 KiB steps) before it is
forwarded, so each upload stays in flight for about its size ÷ B seconds: the worker's transfer is open, its
progress and completion wait on the proxy, as they would on a slow link.

Only what the worker sends is understood: HTTP/1.1 with keep-alive, `Content-Length` bodies (no chunked request
bodies), `Expect: 100-continue` (answered here, not forwarded). A forwarded PUT reaches the upstream whole or not
at all, so the store never holds a cut-off file. Standard library only (asyncio).
"""
import argparse
import asyncio
import json
import random
import socket
import struct

from attache_bench.http1 import read_head, response, serve

STATS = {"requests": 0, "puts": 0, "forwarded": 0, "failed503": 0, "dropped": 0, "upstreamErrors": 0}
STATE = {"faults": True}
PUTS = {}  # path -> PUT requests whose head arrived
BYTES = {}  # path -> bytes of PUT bodies that arrived
TRICKLE_STEP = 4096
READ_STEP = 256 * 1024


async def read_response(reader, method):
    """One upstream answer, whole: (head bytes, body bytes, keep the connection)."""
    head = await read_head(reader)
    status = int(head.start.split(" ", 2)[1])
    headers = head.headers
    keep = headers.get("connection", "").lower() != "close"
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return head.raw, b"", keep
    if "content-length" in headers:
        return head.raw, await reader.readexactly(int(headers["content-length"])), keep
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            body += size_line + chunk
            if size == 0:
                return head.raw, body, keep
    return head.raw, await reader.read(), False


class Upstream:
    """One keep-alive connection to the store per client connection, opened on first use."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.reader = self.writer = None

    async def exchange(self, request, method):
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            try:
                self.writer.write(request)
                await self.writer.drain()
                head, body, keep = await read_response(self.reader, method)
                if not keep:
                    self.close()
                return head + body
            except (ConnectionError, asyncio.IncompleteReadError):
                # A kept-alive connection the store closed meanwhile: one fresh try.
                self.close()
                if attempt == 1:
                    raise

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def reset(writer):
    """Closes the client's connection with a TCP reset, as a store that died mid-request would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def read_body(reader, length, rate=0, counted=lambda n: None):
    """A request body of `length` bytes, read at `rate` bytes per second when one is given; `counted(n)` is told of
    each piece as it arrives, so a body cut off counts for what came of it."""
    parts, left = [], length
    while left:
        try:
            part = await reader.readexactly(min(left, TRICKLE_STEP if rate else READ_STEP))
        except asyncio.IncompleteReadError as cut:
            counted(len(cut.partial))
            raise
        counted(len(part))
        parts.append(part)
        left -= len(part)
        if rate:
            await asyncio.sleep(len(part) / rate)
    return b"".join(parts)


async def serve_connection(reader, writer, options, rng):
    upstream = Upstream(options.host, options.port)
    try:
        while True:
            head = await read_head(reader)
            method, target, _ = head.start.split(" ", 2)
            headers = head.headers
            # Forwarded without `Expect`: the proxy answers 100-continue itself.
            kept = [head.start] + [line for line in head.lines
                                   if ":" in line and line.split(":", 1)[0].strip().lower() != "expect"]
            STATS["requests"] += 1
            if target.startswith("/_faultproxy/puts") or target.startswith("/_faultproxy/bytes"):
                writer.write(response("200 OK", json.dumps(PUTS if target.startswith("/_faultproxy/puts") else BYTES).encode()))
                await writer.drain()
                continue
            if target.startswith("/_faultproxy/"):
                if method == "POST":
                    STATE["faults"] = target.endswith("/on")
                writer.write(response("200 OK", json.dumps(dict(STATS, faults=STATE["faults"])).encode()))
                await writer.drain()
                continue
            if headers.get("transfer-encoding"):
                writer.write(response("501 Not Implemented", b'{"error":"chunked request bodies"}', "Connection: close\r\n"))
                await writer.drain()
                break
            length = int(headers.get("content-length", "0"))
            fault = None
            counted = lambda n: None
            if method == "PUT":
                STATS["puts"] += 1
                path = target.split("?", 1)[0]
                PUTS[path] = PUTS.get(path, 0) + 1
                counted = lambda n, path=path: BYTES.__setitem__(path, BYTES.get(path, 0) + n)
                if STATE["faults"]:
                    draw = rng.random()
                    if draw < options.drop:
                        fault = "drop"
                    elif draw < options.drop + options.fail_503:
                        fault = "503"
            if headers.get("expect", "").lower() == "100-continue":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                await writer.drain()
            if fault == "drop":
                await read_body(reader, length // 2, counted=counted)
                STATS["dropped"] += 1
                reset(writer)
                return
            body = await read_body(reader, length, options.trickle if method == "PUT" else 0, counted)
            if fault == "503":
                STATS["failed503"] += 1
                writer.write(response("503 Service Unavailable", b'{"error":"injected"}'))
                await writer.drain()
                continue
            try:
                answer = await upstream.exchange("\r\n".join(kept).encode("latin-1") + b"\r\n\r\n" + body, method)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                STATS["upstreamErrors"] += 1
                writer.write(response("502 Bad Gateway", b'{"error":"upstream"}', "Connection: close\r\n"))
                await writer.drain()
                break
            if method == "PUT":
                STATS["forwarded"] += 1
            writer.write(answer)
            await writer.drain()
            if headers.get("connection", "").lower() == "close":
                break
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, ValueError, IndexError):
        pass
    finally:
        upstream.close()
        if not writer.transport.is_closing():
            writer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upstream", required=True, help="host:port of the store")
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--fail-503", type=float, default=0.08, help="share of PUTs answered 503 (default 0.08)")
    parser.add_argument("--drop", type=float, default=0.05, help="share of PUTs cut off mid-body (default 0.05)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--trickle", type=float, default=0,
                        help="read each PUT body at this many bytes per second (default 0: as fast as it comes)")
    options = parser.parse_args()
    options.host, port = options.upstream.rsplit(":", 1)
    options.port = int(port)
    rng = random.Random(options.seed)
    serve(lambda r, w: serve_connection(r, w, options, rng), options.listen)


if __name__ == "__main__":
    main()
