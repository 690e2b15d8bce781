"""The little of HTTP/1.1 the bench's own servers speak (ops/bench/presign.py, ops/bench/faultproxy.py): keep-alive,
`Content-Length` bodies, `Expect: 100-continue`. asyncio, standard library only: `http.server` costs about a
millisecond per call, which would make the bench's servers, not the worker, the bottleneck of the small-file run."""
import asyncio
import sys
from typing import NamedTuple


class Head(NamedTuple):
    """A request's or a response's head as read."""
    raw: bytes  # as it came, with the blank line that ends it
    start: str  # the request line or the status line
    lines: list  # the header lines, as they came
    headers: dict  # lower-case name -> value


async def read_head(reader):
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return Head(raw, lines[0], lines[1:], headers)


def response(status, body=b"", extra=""):
    """A whole JSON response; `extra` holds further header lines, each ending in CRLF."""
    head = "HTTP/1.1 {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}\r\n".format(status, len(body), extra)
    return head.encode() + body


def serve(handle, listen, path=""):
    """Serves every connection with `handle(reader, writer)` on `listen` (host:port; port 0 for any free one) until
    killed; first prints the server's URL, http://HOST:PORT{path}, as the bench reads it from the first line."""
    async def main():
        host, port = listen.rsplit(":", 1)
        server = await asyncio.start_server(handle, host, int(port), backlog=1024)
        bound = server.sockets[0].getsockname()
        print("http://{}:{}{}".format(bound[0], bound[1], path), flush=True)
        async with server:
            await server.serve_forever()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
