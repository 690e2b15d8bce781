#!/usr/bin/env python3
"""A presign endpoint (DESIGN §2.3) and a message API (§2.4) for the benchmark: every file gets a PUT URL on a
WebDAV server; every media message posted is counted.

    python3 ops/bench/presign.py --upload-base http://127.0.0.1:8080/attache [--listen 127.0.0.1:0]

Prints the endpoint URL (http://127.0.0.1:PORT/presign) as its first stdout line, then serves until killed.
Answers `POST /presign` with `{"files":[{"fileId","uploadUrl","method":"PUT","headers":{},"fileUrl","expiresAt"}]}`,
the upload URL being `{upload-base}/{batchId}/{fileId}/{name}` (each part percent-encoded).

The message API is `http://127.0.0.1:PORT/messages` (the same server): `POST /messages` with a CometChat media
message answers `200 {"data":{"id","muid","receiver","receiverType","category","type"}}` as the chat API does, the
id being the same for the same muid (the API deduplicates on it), and notes the post under the message's
`data.metadata.batchId`; a body that is not such a message answers 400. `GET /messages` answers every post so far,
`{"posts":{batchId:[muid, …]}}`, one muid per post in arrival order (a muid posted twice is listed twice).

Standard library only; HTTP through ops/bench/attache_bench/http1.py (asyncio, keep-alive, Content-Length bodies,
`Expect: 100-continue`).
"""
import argparse
import asyncio
import datetime
import json
import urllib.parse

from attache_bench.http1 import read_head, response, serve

POSTS = {}  # batchId -> muids of the messages posted for it, one per post
MESSAGE_IDS = {}  # muid -> the id answered for it


def answer(body: bytes, upload_base: str) -> bytes:
    request = json.loads(body)
    batch = urllib.parse.quote(str(request["batchId"]), safe="")
    expires = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    files = []
    for file in request["files"]:
        url = "{}/{}/{}/{}".format(upload_base, batch, urllib.parse.quote(str(file["fileId"]), safe=""),
                                   urllib.parse.quote(str(file["name"]), safe=""))
        files.append({"fileId": file["fileId"], "uploadUrl": url, "method": "PUT", "headers": {}, "fileUrl": url,
                      "expiresAt": expires})
    return json.dumps({"files": files}).encode()


def message_answer(body: bytes) -> bytes:
    """Notes one posted media message; raises ValueError, KeyError, TypeError or AttributeError for a body that is
    not one."""
    message = json.loads(body)
    if message.get("category") != "message" or message.get("receiverType") not in ("user", "group"):
        raise ValueError("category must be message, receiverType user|group")
    muid = str(message["muid"])
    POSTS.setdefault(str(message["data"]["metadata"]["batchId"]), []).append(muid)
    identifier = MESSAGE_IDS.setdefault(muid, str(len(MESSAGE_IDS) + 1))
    return json.dumps({"data": {"id": identifier, "muid": muid, "receiver": message["receiver"],
                                "receiverType": message["receiverType"], "category": "message",
                                "type": message["type"]}}).encode()


def route(method: str, target: str, body: bytes, upload_base: str) -> bytes:
    """The answer to one request."""
    path = target.split("?", 1)[0]
    if method == "POST" and path == "/presign":
        return response("200 OK", answer(body, upload_base))
    if method == "POST" and path == "/messages":
        return response("200 OK", message_answer(body))
    if method == "GET" and path == "/messages":
        return response("200 OK", json.dumps({"posts": POSTS}).encode())
    return response("404 Not Found", b'{"error":"not found"}')


async def serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, upload_base: str) -> None:
    try:
        while True:
            head = await read_head(reader)
            method, target, _ = head.start.split(" ", 2)
            headers = head.headers
            if headers.get("expect", "").lower() == "100-continue":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            length = int(headers.get("content-length", "0"))
            body = await reader.readexactly(length) if length else b""
            try:
                writer.write(route(method, target, body, upload_base))
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                writer.write(response("400 Bad Request", json.dumps({"error": str(error)}).encode()))
            await writer.drain()
            if headers.get("connection", "").lower() == "close":
                break
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, ValueError):
        pass
    finally:
        writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--upload-base", required=True, help="URL prefix of the upload URLs, without a trailing /")
    parser.add_argument("--listen", default="127.0.0.1:0", help="host:port to listen on (default 127.0.0.1:0)")
    options = parser.parse_args()
    base = options.upload_base.rstrip("/")
    serve(lambda r, w: serve_connection(r, w, base), options.listen, "/presign")


if __name__ == "__main__":
    main()
