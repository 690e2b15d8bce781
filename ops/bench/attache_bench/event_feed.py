"""Following an events topic as it is written: one long-running kcat consumer and a thread reading its output."""
import json
import threading
import time

from .children import Child
from .log import log


class EventFeed:
    """Follows `topic` from its beginning with a kcat consumer for as long as the feed lives, handing each JSON
    record to `note(seen, created_ms, key, event)` on the feed's thread (`seen`: time.time() when it was read).

    `properties` are librdkafka properties for the consumer. `under_faults`: the cluster is being given faults, so a
    fetch error does not end kcat (-E), and should kcat end all the same, the topic is followed again from its
    beginning: `note` must then take a record it has seen before as a no-op.

    `parse=False` hands `note` each record's value as bytes, unparsed, so that a feed timing a run can leave the
    parsing until the run is over: it shares the host's cores with what it times."""

    def __init__(self, kafka, topic, workdir, note, name, properties=(), under_faults=False, parse=True):
        self.kafka, self.topic, self.workdir, self.note, self.name = kafka, topic, workdir, note, name
        self.parse = parse
        self.properties, self.under_faults = properties, under_faults
        self.stopping = False
        self.follows = 0
        self.kcat = self._start_kcat()
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()

    def _start_kcat(self):
        self.follows += 1
        argv = ["kcat", "-b", self.kafka.brokers, "-t", self.topic, "-C", "-o", "beginning", "-u", "-q"]
        argv += ["-E"] if self.under_faults else []
        for prop in self.properties:
            argv += ["-X", prop]
        name = self.name if self.follows == 1 else "{}.{}".format(self.name, self.follows)
        return Child(name, argv + ["-f", "%T\t%k\t%s\n"], self.workdir, stdout_pipe=True)

    def _follow(self):
        while True:
            for raw in self.kcat.process.stdout:
                seen = time.time()
                parts = raw.rstrip(b"\n").split(b"\t", 2)
                if len(parts) == 3 and parts[2].startswith(b"{"):
                    self.note(seen, int(parts[0]), parts[1].decode(errors="replace"),
                              json.loads(parts[2]) if self.parse else parts[2])
            if self.stopping or not self.under_faults:
                return
            log("{}: the events follower exited ({}); following again".format(
                self.name, self.kcat.stderr_text().strip()[-200:]))
            self.kcat.stop()
            self.kcat = self._start_kcat()

    @property
    def pid(self):
        return self.kcat.pid

    def stop(self):
        self.stopping = True
        self.kcat.stop()
