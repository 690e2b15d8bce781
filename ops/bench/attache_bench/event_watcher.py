"""When the batches of a run completed, as a consumer of the events topic sees it."""
import json
import threading
import time

from .event_feed import EventFeed
from .failure import BenchFailure

# The worker writes compact JSON, so an event's type appears in its record as exactly this text.
COMPLETED = b'"type":"attache.batch.completed"'
SENT = b'"type":"attache.message.sent"'
UPLOADED = b'"type":"attache.file.uploaded"'


class EventWatcher:
    """Follows an events topic; notes when each `batch.completed`, the first `message.sent` and the first
    `file.uploaded` of each batch are seen. Its consumer waits at most 5 ms for records (fetch.wait.max.ms), so a
    time is not a fetch's wait.

    It runs on the cores of what it times, so it does as little as it can per event: records are matched by their
    key (every event is keyed by its batch id, which is also its subject) and their type's text, and a result is
    parsed only when asked for. Parsing every event, with a waiter woken per completion that looked at every awaited
    batch, cost 0.2 s of CPU during a 0.5 s run of 2,000 jobs."""

    def __init__(self, kafka, topic, workdir):
        self.lock = threading.Condition()
        self.completed = {}  # batchId -> (seen time.time(), CreateTime ms, the event's JSON bytes)
        self.sent = {}  # batchId -> seen time.time() of its first message.sent
        self.uploaded = {}  # batchId -> (seen time.time(), CreateTime ms) of its first file.uploaded
        self.first = {}  # batchId -> CreateTime ms of its first event
        self.counts = {}  # batchId -> events seen
        self.awaited = {}  # "completed", "sent a message" or "uploaded a file" -> the wait in progress on it (_Awaited)
        self.feed = EventFeed(kafka, topic, workdir, self._note, "watch-" + topic, properties=["fetch.wait.max.ms=5"],
                              parse=False)

    def _note(self, seen, created, subject, value):
        with self.lock:
            self.counts[subject] = self.counts.get(subject, 0) + 1
            self.first.setdefault(subject, created)
            if COMPLETED in value:
                self.completed[subject] = (seen, created, value)
                self._arrived("completed", subject)
            elif SENT in value:
                self.sent.setdefault(subject, seen)
                self._arrived("sent a message", subject)
            elif UPLOADED in value and subject not in self.uploaded:
                self.uploaded[subject] = (seen, created)
                self._arrived("uploaded a file", subject)

    def _arrived(self, what, subject):
        """Wakes the wait on `what` only once it is over."""
        awaited = self.awaited.get(what)
        if awaited is not None and awaited.arrived(subject):
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

    def wait_uploaded(self, batch_ids, timeout, count=None):
        """Waits until `count` (default: all) of the batches in `batch_ids` had a `file.uploaded`; returns when the
        latest of those seen so far was seen."""
        self._wait(batch_ids, timeout, lambda: self.uploaded, "uploaded a file", count)
        with self.lock:
            return max(self.uploaded[b][0] for b in batch_ids if b in self.uploaded)

    def uploaded_at(self, batch_id):
        """(seen time.time(), CreateTime ms) of the batch's first `file.uploaded`."""
        with self.lock:
            return self.uploaded[batch_id]

    def sent_of(self, batch_ids):
        with self.lock:
            return sum(1 for b in batch_ids if b in self.sent)

    def completed_of(self, batch_ids):
        with self.lock:
            return sum(1 for b in batch_ids if b in self.completed)

    def result(self, batch_id):
        """The result of the batch's latest `batch.completed`."""
        with self.lock:
            value = self.completed[batch_id][2]
        return json.loads(value)["data"]["result"]

    def first_event(self, batch_id):
        """The CreateTime (ms) of the batch's first event."""
        with self.lock:
            return self.first[batch_id]

    def _wait(self, batch_ids, timeout, seen, what, count=None):
        deadline = time.time() + timeout
        count = len(batch_ids) if count is None else count
        with self.lock:
            awaited = _Awaited({b for b in batch_ids if b not in seen()}, count, len(batch_ids))
            self.awaited[what] = awaited
            try:
                while not awaited.over:
                    if time.time() >= deadline:
                        raise BenchFailure("only {} of {} batches {} in {} s, {} awaited; not yet: {}".format(
                            len(batch_ids) - len(awaited.missing), len(batch_ids), what, timeout, count,
                            self._describe_missing(batch_ids, awaited.missing)))
                    self.lock.wait(min(1.0, max(0.0, deadline - time.time())))
            finally:
                del self.awaited[what]

    def _describe_missing(self, batch_ids, missing, shown=20):
        """The first missing batches with how many of their events were seen: none at all means no worker applied
        the job's record (a partition not read), some means a batch that stopped short. Called under the lock."""
        listed = ["{} ({} events)".format(b, self.counts.get(b, 0)) for b in batch_ids if b in missing]
        more = len(listed) - shown
        return ", ".join(listed[:shown]) + (", and {} more".format(more) if more > 0 else "")

    def events_of(self, batch_ids):
        with self.lock:
            return sum(self.counts.get(b, 0) for b in batch_ids)

    def stop(self):
        self.feed.stop()


class _Awaited:
    """One wait: the awaited batches not seen yet, and how many of the batches must be seen."""

    def __init__(self, missing, count, total):
        self.missing, self.count, self.total = missing, count, total

    @property
    def over(self):
        return self.total - len(self.missing) >= self.count

    def arrived(self, batch_id):
        """Notes `batch_id` as seen; True when that ends the wait."""
        if batch_id not in self.missing:
            return False
        self.missing.discard(batch_id)
        return self.over
