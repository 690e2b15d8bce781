"""The records the bench writes to Kafka: jobs (DESIGN §2.1) and, for the handover, changelog snapshots (§4.1)."""
import base64
import json
import os

JPEG_MAGIC = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00])


def record(batch, value):
    """A `key<TAB>value` line for kcat -K, the value as compact JSON."""
    return "{}\t{}".format(batch, json.dumps(value, separators=(",", ":")))


def path_job(batch, relative_paths, concurrency=None, tenant=None):
    """A job uploading `path` sources (relative to the sources root) as f1, f2, …, sending no message; its batch's
    files share the worker's transfer slots as `tenant`'s (default: its receiver's)."""
    job = {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
           "files": [{"fileId": "f{}".format(i + 1), "name": os.path.basename(r), "mimeType": "application/octet-stream",
                      "source": {"path": r}} for i, r in enumerate(relative_paths)],
           "message": {"send": "none"}}
    if concurrency is not None:
        job["concurrency"] = concurrency
    if tenant is not None:
        job["tenant"] = tenant
    return job


def inline_job(batch, data):
    """A one-file job carrying `data` inline (the warm-up jobs)."""
    return {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
            "files": [{"fileId": "f1", "name": "warm.txt", "mimeType": "text/plain",
                       "source": {"data": base64.b64encode(data).decode()}}], "message": {"send": "none"}}


def empty_job(batch):
    """A job refused at validation: its one file's inline data is empty (ERR_FILE_DATA_EMPTY)."""
    return {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
            "files": [{"fileId": "f1", "name": "a.txt", "mimeType": "text/plain", "source": {"data": ""}}],
            "message": {"send": "none"}}


def jpeg_job(batch, seed):
    """A one-file job, as the end-to-end scale test writes it: 16 KiB of inline jpeg (real magic bytes), send auto."""
    data = JPEG_MAGIC + bytes((i * 7 + seed) & 0xFF for i in range(16 * 1024 - len(JPEG_MAGIC)))
    return {"kind": "upload", "batchId": batch, "receiver": {"id": "uid-1", "type": "user"}, "sender": "uid-7",
            "files": [{"fileId": "f", "name": "f.jpg", "mimeType": "image/jpeg",
                       "source": {"data": base64.b64encode(data).decode()}}],
            "message": {"send": "auto", "metadata": {"suite": "bench"}}}


def idle_snapshot(batch, updated):
    """A changelog snapshot (format 1) of an idle batch with one uploaded file, as a worker writes it."""
    attachment = {"name": "photo.jpg", "url": "https://cdn.example/{}/f1/photo.jpg".format(batch), "mimeType": "image/jpeg",
                  "size": 48213, "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
    return {"v": 1, "batchId": batch, "receiver": {"id": "u", "type": "user"}, "concurrency": 1, "message": {"send": "auto"},
            "files": [{"fileId": "f1", "slot": 0, "name": "photo.jpg", "mimeType": "image/jpeg", "requestId": "r-" + batch,
                       "generation": 0, "attempt": 1, "state": "uploaded", "attachment": attachment,
                       "source": {"url": "https://files.example/{}.jpg".format(batch)}}],
            "rejectedDropped": 0, "nextSlot": 1, "sent": [{"muid": "m-" + batch, "fileIds": ["f1"]}], "captionSent": True,
            "sendDue": False, "sendRequestId": "r-" + batch, "lastRequestId": "r-" + batch, "sequence": 4, "stateVersion": 6,
            "completions": 1, "appliedThrough": 0, "updatedAt": updated, "writerGeneration": 1}
