"""The soak's memory trend: RSS samples of each worker, and what the table and the flat check read of them."""
import statistics

from ...targets import RSS_GROWTH


class RSSSamples:
    """(seconds since the start, worker label, RSS KiB), every 3 s."""

    def __init__(self):
        self.samples = []

    def add(self, seconds, label, kib):
        self.samples.append((seconds, label, kib))

    def tsv(self):
        return "".join("{:.1f}\t{}\t{}\n".format(t, label, kib) for t, label, kib in self.samples)

    def per_minute_text(self, label):
        """The median RSS (MiB) of each minute of the soak, for one worker."""
        minutes = {}
        for t, l, kib in self.samples:
            if l == label:
                minutes.setdefault(int(t // 60), []).append(kib / 1024)
        return " ".join("{:.1f}".format(statistics.median(minutes[m])) for m in sorted(minutes))

    def summary(self, label, seconds):
        """First-minute and last-minute medians, and the peak, of one worker's RSS samples (MiB)."""
        mine = [(t, kib / 1024) for t, l, kib in self.samples if l == label]
        first = [m for t, m in mine if t < 60]
        last = [m for t, m in mine if seconds - 60 <= t <= seconds]
        return (statistics.median(first) if first else float("nan"), statistics.median(last) if last else float("nan"),
                max((m for _, m in mine), default=float("nan")))

    def flat(self, label, seconds):
        """Whether the worker's last-minute median exceeds its first-minute median by no more than the bench's
        "flat in file size" allows (targets.RSS_GROWTH)."""
        first, last, _ = self.summary(label, seconds)
        return RSS_GROWTH.holds(last - first)
