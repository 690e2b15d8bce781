"""What a timed run of any contender gives."""
from dataclasses import dataclass

from .cpu import CPUAccount


@dataclass
class TimedRun:
    """One timed run of a contender: its seconds, its peak RSS, and the CPU account that watched it (and saw the
    host's steal meanwhile)."""
    seconds: float
    peak_rss_kib: int
    account: CPUAccount

    @property
    def steal(self):
        return self.account.steal
