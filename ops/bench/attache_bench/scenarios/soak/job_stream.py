"""The soak's steady stream of jobs, mixed in kind, with invalid records among them."""
import base64
import os
import random
import threading
import time

from ...failure import BenchFailure
from ...jobs import record
from ...log import log
from .topics import JOBS

KIB = 1024


class JobStream(threading.Thread):
    """Produces a tick of jobs every second for `seconds`: two inline one-file jobs, a `path` job (one of `paths`,
    under `sources`) every other tick, a multi-file job every third, an invalid record every seventh. Records what it
    sent."""

    MIMES = ["image/png", "text/plain", "application/pdf", "image/jpeg", "video/mp4", "audio/mpeg"]
    INVALID = ["not json {{", "[1, 2, 3]", '{{"kind": "explode", "batchId": "{key}"}}',
               '{{"kind": "upload", "batchId": "{key}", "receiver": {{"id": "u", "type": "robot"}}, "files": []}}',
               '{{"kind": "upload", "batchId": "{key}", "receiver": {{"id": "u", "type": "user"}}, "files": {{}}}}']

    def __init__(self, kafka, workdir, sources, paths, seconds):
        super().__init__(daemon=True)
        self.kafka, self.workdir, self.sources, self.paths, self.seconds = kafka, workdir, sources, paths, seconds
        self.rng = random.Random(2)
        self.jobs = {}  # batchId -> [file dict with fileId, name, mimeType, size, source kind]
        self.kinds = {"inline": 0, "path": 0, "multi": 0}
        self.invalid = []  # record keys
        self.failed_ticks = []  # (tick, kcat's complaint): records of those ticks may be missing from the topic
        self.stopping = threading.Event()

    def _file(self, file_id, inline):
        mime = self.rng.choice(self.MIMES)
        if inline:
            data = os.urandom(self.rng.randint(100, 3 * KIB))
            return {"fileId": file_id, "name": file_id + ".bin", "mimeType": mime,
                    "source": {"data": base64.b64encode(data).decode()}}, len(data)
        path = self.rng.choice(self.paths)
        return {"fileId": file_id, "name": os.path.basename(path), "mimeType": mime,
                "source": {"path": self.sources.relative(path)}}, os.path.getsize(path)

    def _job(self, batch, kind, files):
        entries, sizes = [], {}
        for file_id, inline in files:
            entry, size = self._file(file_id, inline)
            entries.append(entry)
            sizes[file_id] = size
        self.jobs[batch] = [dict(fileId=e["fileId"], name=e["name"], size=sizes[e["fileId"]]) for e in entries]
        self.kinds[kind] += 1
        return record(batch, {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
                              "files": entries, "message": {"send": "auto", "caption": "soak " + batch}})

    def tick(self, n):
        lines = [self._job("s-{}-{}".format(n, x), "inline", [("f1", True)]) for x in "ab"]
        if n % 2 == 1:
            lines.append(self._job("p-{}".format(n), "path", [("f1", False)]))
        if n % 3 == 0:
            lines.append(self._job("m-{}".format(n), "multi", [("f1", True), ("f2", False), ("f3", True), ("f4", False)]))
        if n % 7 == 0:
            key = "bad-{}".format(n)
            self.invalid.append(key)
            lines.append("{}\t{}".format(key, self.INVALID[(n // 7) % len(self.INVALID)].format(key=key)))
        return lines

    def produce(self, lines, n):
        """Produces one tick; kcat giving up under the faults is noted, not fatal (the checks say what it cost)."""
        try:
            self.kafka.produce_lines(JOBS, lines, self.workdir,
                                     properties=["enable.idempotence=true", "message.timeout.ms=60000"])
        except BenchFailure as complaint:
            self.failed_ticks.append((n, str(complaint).strip()[-300:]))
            log("soak: kcat could not deliver tick {}: {}".format(n, self.failed_ticks[-1][1]))

    def run(self):
        start, n = time.time(), 0
        while not self.stopping.is_set() and time.time() - start < self.seconds:
            n += 1
            self.produce(self.tick(n), n)
            self.stopping.wait(max(0.0, start + n - time.time()))
