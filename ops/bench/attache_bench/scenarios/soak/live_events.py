"""What the soak knows of its batches while it runs, from the events topic."""
import threading

from ...event_feed import EventFeed
from .topics import EVENTS


class LiveEvents:
    """Follows the events topic; knows which batches are complete, messaged, or (invalid records) dead-lettered.
    What it notes is idempotent, so the feed may follow the topic again from its beginning after kcat gave up."""

    def __init__(self, kafka, workdir):
        self.lock = threading.Lock()
        self.completed = {}  # batchId -> last result
        self.messaged = {}  # batchId -> set of fileIds in message.sent
        self.invalid = set()
        self.total = 0
        self.feed = EventFeed(kafka, EVENTS, workdir, self._note, "watch-events", under_faults=True)

    def _note(self, _seen, _created, _key, event):
        kind, subject, data = event.get("type"), event.get("subject", ""), event.get("data", {})
        with self.lock:
            self.total += 1
            if kind == "attache.batch.completed":
                self.completed[subject] = data["result"]
            elif kind == "attache.message.sent":
                self.messaged.setdefault(subject, set()).update(data.get("fileIds", []))
            elif kind == "attache.job.invalid":
                self.invalid.add(subject)

    def outstanding(self, jobs, invalid):
        """The batches not yet finished: every file successful in the last batch.completed, and messaged."""
        with self.lock:
            left = []
            for batch, files in jobs.items():
                result = self.completed.get(batch)
                ids = {f["fileId"] for f in files}
                if (result is None or {s["fileId"] for s in result.get("successful", [])} != ids
                        or not ids <= self.messaged.get(batch, set())):
                    left.append(batch)
            left += [key for key in invalid if key not in self.invalid]
            return left

    def stop(self):
        self.feed.stop()
