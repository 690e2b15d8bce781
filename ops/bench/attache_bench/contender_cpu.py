"""CPU by process over a scenario's runs, per contender, and the two rows the table gives it."""
import os

from .figures import Figure
from .rows import Row


class ContenderCPU:
    """One contender's CPU over the runs of a scenario: a Figure of seconds per process label (the client under test
    and the services it drove), and one of the host's steal while each run was timed."""

    def __init__(self):
        self.by_process = {}
        self.steal = Figure()

    def add(self, account):
        """Keeps one run's CPU account (closing it if still open)."""
        for label, seconds in account.stop().items():
            self.by_process.setdefault(label, Figure()).add(seconds)
        self.steal.add(account.steal)

    def total(self):
        """The CPU seconds of all processes together, run by run."""
        runs = min((len(f.values) for f in self.by_process.values()), default=0)
        return Figure(sum(f.values[i] for f in self.by_process.values()) for i in range(runs))

    def text(self, cores):
        total = self.total()
        if not total.values:
            return "—"
        parts = ["{} {:.2f}".format(label, f.median)
                 for label, f in sorted(self.by_process.items(), key=lambda item: -item[1].median) if f.median >= 0.005]
        return "{} = {:.2f} ({:.2f} s on {} cores)".format(" · ".join(parts), total.median, total.median / cores, cores)


def cpu_rows(title, attache, peer_name, peer):
    """CPU by process of Attache's runs against a peer's, and the host's steal during each."""
    cores = os.cpu_count() or 1
    return [Row(title + ": CPU s by process, total (÷ cores)", attache.text(cores), peer.text(cores),
                attache.total().over(peer.total())),
            Row(title + ": CPU the host stole while timed, %", attache.steal.text("{:.1f}"),
                "{} {}".format(peer_name, peer.steal.text("{:.1f}")).strip())]
