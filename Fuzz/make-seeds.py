#!/usr/bin/env python3
"""Writes the hand-made seed inputs of the fuzz targets into Fuzz/Corpus/<target>/ (a few KB each).

Run again after editing; the output is deterministic, so unchanged seeds give no diff.
"""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def write(target, name, data):
    directory = os.path.join(ROOT, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as out:
        out.write(data.encode() if isinstance(data, str) else data)


# --- job records (docs/wire-format.md) -------------------------------------------------------------
UPLOAD = """{"kind": "upload", "requestId": "req-7f3", "batchId": "trip-42",
 "receiver": {"id": "cometchat-uid-1", "type": "user"}, "sender": "cometchat-uid-7", "parentMessageId": "1234",
 "concurrency": 3, "stripLocation": true,
 "files": [
  {"fileId": "f1", "name": "photo-1.jpg", "mimeType": "image/jpeg", "size": 48213,
   "source": {"url": "https://files.example.com/abc.jpg?sig=..."}},
  {"fileId": "f2", "name": "notes.pdf", "source": {"path": "inbox/42/notes.pdf"}, "stripLocation": false},
  {"fileId": "f3", "name": "hello.txt", "source": {"data": "aGVsbG8="}}],
 "message": {"send": "auto", "caption": "Trip photos", "metadata": {"trip": 42}, "tags": []}}"""
jobs = {
    "upload.json": UPLOAD,
    "upload-minimal.json": '{"receiver": {"id": "u1", "type": "group"}, "files": []}',
    "upload-broken-file.json": '{"receiver": {"id": "u1", "type": "user"}, "files": [7, {"fileId": "x", "source": {}}, '
                               '{"fileId": "y", "source": {"url": "a", "data": "b"}}, {"source": {"data": "!!"}}]}',
    "upload-manual.json": '{"batchId": "b", "receiver": {"id": " ", "type": "user"}, "files": [], '
                          '"message": {"send": "manual", "tags": ["a", "b"]}}',
    "retry.json": '{"kind": "retry", "batchId": "trip-42", "fileId": "f1"}',
    "remove.json": '{"kind": "remove", "batchId": "trip-42", "fileId": "f2"}',
    "clear.json": '{"kind": "clear", "batchId": "trip-42"}',
    "send.json": '{"kind": "send"}',
    "configure.json": '{"kind": "configure", "batchId": "trip-42", "concurrency": 1000}',
    "configure-bad.json": '{"kind": "configure", "concurrency": 0}',
    "unknown-kind.json": '{"kind": "explode", "batchId": "\\u00e9t\\u00e9"}',
}
for name, text in jobs.items():
    write("job-decoder", name, text)

# --- JSON ----------------------------------------------------------------------------------------
json_seeds = {
    "object.json": UPLOAD,
    "numbers.json": '[0, -0, 1, -1, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.5, -2.25e-3, '
                    '1E+300, 5e-324, 0.1]',
    "strings.json": '["", "plain", "esc \\" \\\\ \\/ \\b \\f \\n \\r \\t", "\\u00e9\\u20ac\\ud83d\\ude00", "caf\xc3\xa9"]',
    "literals.json": ' {"a": true, "b": false, "c": null, "a": [[], {}]} ',
    "nested.json": "[" * 40 + "]" * 40,
    "bad-trailing.json": '{"a": 1,}',
    "bad-surrogate.json": '"\\ud800"',
}
for name, text in json_seeds.items():
    write("json-parser", name, text)

# --- presign answers (docs/wire-format.md#presign-endpoint) --------------------------------------------
presign = {
    "answer.json": '{"files": [{"fileId": "f1", "uploadUrl": "https://bucket.s3.amazonaws.com/k?X-Amz-Signature=abc", '
                   '"method": "put", "headers": {"x-amz-acl": "private", "Content-Type": "image/jpeg"}, '
                   '"fileUrl": "https://cdn.example.com/trip-42/f1/photo-1.jpg", "expiresAt": "2026-11-29T21:15:00Z"}, '
                   '{"fileId": "f3", "error": {"code": "ERR_MIME_NOT_ALLOWED", "message": "text/plain is not accepted here"}}]}',
    "epoch.json": '{"files": [{"fileId": "a", "uploadUrl": "u", "fileUrl": "f", "expiresAt": 1764450900}, '
                  '{"fileId": "b", "uploadUrl": "u", "fileUrl": "f", "expiresAt": "1764450900.5", "method": ""}, '
                  '{"fileId": "c", "uploadUrl": "u", "fileUrl": "f", "expiresAt": "2026-11-29T21:15:00.123+01:00"}]}',
    "refusal-empty.json": '{"files": [{"fileId": "x", "error": {}}, {"fileId": "y", "error": null, "uploadUrl": "u", "fileUrl": "f"}]}',
    "unreadable.json": '{"files": [{"fileId": 1}]}',
}
for name, text in presign.items():
    write("presign-answer", name, text)

# --- S3 error answers ---------------------------------------------------------------------------
s3 = {
    "expired.xml": '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired'
                   '</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>',
    "nested.xml": '<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>Sender</Type>'
                  '<Code>ExpiredToken</Code><Message>The security token included in the request is expired</Message>'
                  '</Error><RequestId>abc</RequestId></ErrorResponse>',
    "entities.xml": '   \n<Error><Code>SlowDown</Code><Message>Please reduce &amp; retry &lt;soon&gt;'
                    '<![CDATA[ <raw> ]]></Message></Error>',
    "complete-200.xml": '<?xml version="1.0"?><Error><Code>InternalError</Code><Message>We encountered an internal error.'
                        '</Message></Error>',
    "prefixed.xml": '<s3:Error xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><s3:Code>NoSuchUpload</s3:Code></s3:Error>',
    "empty-error.xml": "<Error/>",
}
for name, text in s3.items():
    write("s3-error", name, text)

# --- configuration: value forms and files (docs/configuration.md) ---------------------------------
values = ["250ms", "30s", "5m", "1h", " 100MiB", "1 GiB", "512", "7KiB", "8B", "true", "off",
          "kafka-1:9092, kafka-2:9092,,", "-1s", "9223372036854775807GiB"]
for index, text in enumerate(values):
    write("configuration", "value-%02d.txt" % index, text)
write("configuration", "file.json", """{"kafka": {"brokers": "kafka-1:9092,kafka-2:9092", "groupId": "attache",
  "properties": {"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN"}},
 "presign": {"mode": "endpoint", "url": "https://api.internal.example.com/uploads/presign?token=t"},
 "messages": {"mode": "http", "url": "https://api.internal.example.com/v3/messages", "apiKey": "k"},
 "limits": {"fileSizeMax": "250MiB", "fileCountMax": 20}, "upload": {"concurrency": 3, "stallTimeout": "45s"},
 "sources": {"root": "/srv/inbox"}, "admin": {"listen": "0.0.0.0:9464"}, "log.level": "info"}""")
write("configuration", "file-s3.json", '{"kafka.brokers": ["k:9092"], "presign": {"mode": "s3", "s3": {"bucket": "b", '
                                       '"region": "eu-west-1", "accessKeyId": "a", "secretAccessKey": "s", "pathStyle": true}}}')
write("configuration", "file-unknown.json", '{"kafka": {"brokers": "k:9092"}, "nope": 1}')

# --- content signatures: the first bytes of each recognised format --------------------------------
def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload

signatures = {
    "jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "gif": b"GIF89a\x01\x00\x01\x00",
    "webp": b"RIFF\x24\x00\x00\x00WEBPVP8 ",
    "wav": b"RIFF\x24\x00\x00\x00WAVEfmt ",
    "heic": box(b"ftyp", b"mif1\x00\x00\x00\x00mif1heic"),
    "mp4": box(b"ftyp", b"isom\x00\x00\x02\x00isomiso2avc1mp41"),
    "quicktime": box(b"ftyp", b"qt  \x00\x00\x02\x00qt  "),
    "webm": b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm",
    "ogg": b"OggS\x00\x02",
    "pdf": b"%PDF-1.7\n",
    "zip": b"PK\x03\x04\x14\x00",
    "mp3-id3": b"ID3\x04\x00",
    "mp3-frame": b"\xff\xfb\x90\x64",
    "declared": b"Image/JPEG ; charset=binary",
}
for name, data in signatures.items():
    write("content-signature", name, data)

# --- JPEGs with location metadata -------------------------------------------------------------------
def ifd(entries, next_offset, order):
    """An IFD table: entries are (tag, type, count, value-or-offset bytes)."""
    out = struct.pack(order + "H", len(entries))
    for tag, kind, count, value in entries:
        out += struct.pack(order + "HHI", tag, kind, count) + value.ljust(4, b"\x00")
    return out + struct.pack(order + "I", next_offset)

def exif_with_gps(order):
    """A TIFF block: IFD0 (Orientation, GPS pointer) at 8, the GPS IFD after it with a latitude stored outside."""
    mark = b"II" if order == "<" else b"MM"
    ifd0_size = 2 + 2 * 12 + 4
    gps_at = 8 + ifd0_size
    gps_size = 2 + 3 * 12 + 4
    latitude_at = gps_at + gps_size
    ifd0 = ifd([(0x0112, 3, 1, struct.pack(order + "H", 1)), (0x8825, 4, 1, struct.pack(order + "I", gps_at))], 0, order)
    gps = ifd([(0x0000, 1, 4, b"\x02\x03\x00\x00"), (0x0001, 2, 2, b"N\x00"),
               (0x0002, 5, 3, struct.pack(order + "I", latitude_at))], 0, order)
    latitude = struct.pack(order + "6I", 52, 1, 31, 1, 1234, 100)
    return mark + struct.pack(order + "HI", 42, 8) + ifd0 + gps + latitude

def segment(marker, payload):
    return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload

SCAN = segment(0xDA, b"\x01\x01\x00\x00\x3f\x00") + b"\x12\x34\xff\x00\x56" + b"\xff\xd9"
XMP = b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta><rdf:Description exif:GPSLatitude='52,31.2N'/></x:xmpmeta>"
jpegs = {
    "exif-gps-le.jpg": b"\xff\xd8" + segment(0xE1, b"Exif\x00\x00" + exif_with_gps("<")) + SCAN,
    "exif-gps-be.jpg": b"\xff\xd8" + segment(0xE0, b"JFIF\x00\x01\x02\x00\x00\x01\x00\x01\x00\x00")
                       + segment(0xE1, b"Exif\x00\x00" + exif_with_gps(">")) + segment(0xE1, XMP) + SCAN,
    "exif-broken.jpg": b"\xff\xd8\xff\xff" + segment(0xE1, b"Exif\x00\x00MM\x00\x2a\x00\x00\xff\xff") + SCAN,
    "no-metadata.jpg": b"\xff\xd8" + segment(0xDB, b"\x00" + bytes(range(64))) + SCAN,
}
for name, data in jpegs.items():
    write("location-metadata", name, data)

# --- event bounds: bytes FuzzEventBounds reads as job records (Fuzz/Targets/FuzzEventBounds/FuzzedJob.swift) ---------
def text(shape=1, unit=1):
    """A text choice: shape 1 is exactly at the field's limit, unit 1 is `"` (two bytes in JSON)."""
    return [shape, unit]

def job(files, key=0, tail_unit=0):
    """Every field present and at its limit, `files` files with url and path sources at theirs."""
    out = [1] + text() + [1] + text() + text() + [1] + text() + [1] + text() + [1, 249] + [key] + [files]
    for index in range(files):
        # Ids of a few shapes and characters, so that some are distinct.
        out += [index % 2] + text() + [3, index % 8, index % 4] + [1] + text() + [1] + text() + [2]
    out += [0] + [1, 3, 0, 0] + [0] + [0] + [2, 0] + text(1, tail_unit) + [1] + text()
    return bytes(out)

ANSWERS = bytes([3, 1, 1])
event_bounds = {
    "worst-case.bin": job(100) + b"\x00" + ANSWERS,
    "two-jobs.bin": job(100) + b"\x01" + job(100) + ANSWERS,
    "over-limits.bin": bytes([1, 2, 1] * 8) + bytes([2] * 64),
    "long-key-unprintable-traceparent.bin": job(3, key=3, tail_unit=5) + b"\x00" + ANSWERS,
    "empty.bin": b"",
}
for name, data in event_bounds.items():
    write("event-bounds", name, data)
