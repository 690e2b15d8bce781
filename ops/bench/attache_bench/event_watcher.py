"""When the batches of a run completed, as a consumer of the events topic sees it."""
import threading
import time

from .event_feed import EventFeed
from .failure import BenchFailure


class EventWatcher:
    """Follows an events topic; notes when each `batch.completed` and the first `message.sent` of each batch are
    seen. Its consumer waits at most 5 ms for records (fetch.wait.max.ms), so a time is not a fetch's wait."""

    def __init__(self, kafka, topic, workdir):
        self.lock = threading.Condition()
        self.completed = {}  # batchId -> (seen time.time(), CreateTime ms, result)
        self.sent = {}  # batchId -> seen time.time() of its first message.sent
        self.first = {}  # batchId -> CreateTime ms of its first event
        self.counts = {}  # batchId -> events seen
        self.feed = EventFeed(kafka, topic, workdir, self._note, "watch-" + topic, properties=["fetch.wait.max.ms=5"])

    def _note(self, seen, created, _key, event):
        subject = event.get("subject", "")
        with self.lock:
            self.counts[subject] = self.counts.get(subject, 0) + 1
            self.first.setdefault(subject, created)
            if event.get("type") == "attache.batch.completed":
                self.completed[subject] = (seen, created, event["data"]["result"])
                self.lock.notify_all()
            elif event.get("type") == "attache.message.sent":
                self.sent.setdefault(subject, seen)
                self.lock.notify_all()

    @property
    def pid(self):
        return self.feed.pid

    def wait(self, batch_ids, timeout, count=None):
        """Waits until `count` (default: all) of the batches in `batch_ids` completed; returns when the latest of
        their completions so far was seen."""
        self._wait(batch_ids, timeout, lambda: self.completed, "completed", count)
        with self.lock:
            return max(self.completed[b][0] for b in batch_ids if b in self.completed)

    def wait_sent(self, batch_ids, timeout, count=None):
        """Waits until `count` (default: all) of the batches in `batch_ids` had a `message.sent`."""
        self._wait(batch_ids, timeout, lambda: self.sent, "sent a message", count)

    def sent_of(self, batch_ids):
        with self.lock:
            return sum(1 for b in batch_ids if b in self.sent)

    def completed_of(self, batch_ids):
        with self.lock:
            return sum(1 for b in batch_ids if b in self.completed)

    def result(self, batch_id):
        """The result of the batch's latest `batch.completed`."""
        with self.lock:
            return self.completed[batch_id][2]

    def first_event(self, batch_id):
        """The CreateTime (ms) of the batch's first event."""
        with self.lock:
            return self.first[batch_id]

    def _wait(self, batch_ids, timeout, seen, what, count=None):
        deadline = time.time() + timeout
        count = len(batch_ids) if count is None else count
        with self.lock:
            while True:
                missing = [b for b in batch_ids if b not in seen()]
                if len(batch_ids) - len(missing) >= count:
                    return
                if time.time() >= deadline:
                    raise BenchFailure("only {} of {} batches {} in {} s, {} awaited (not {}, for one)".format(
                        len(batch_ids) - len(missing), len(batch_ids), what, timeout, count, missing[0]))
                self.lock.wait(min(1.0, max(0.0, deadline - time.time())))

    def events_of(self, batch_ids):
        with self.lock:
            return sum(self.counts.get(b, 0) for b in batch_ids)

    def stop(self):
        self.feed.stop()
