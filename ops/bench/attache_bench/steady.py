"""How runs are repeated: again when the host stole too much CPU during one, and in turns between contenders."""
from .log import log


class SteadyRuns:
    """Measures a run again while the host (hypervisor) stole `max_steal` % or more of the CPU during it, at most
    `retries` more times: such a run measured the host, not the contenders. `retried` counts the runs measured
    again over the whole bench, for results.md."""

    def __init__(self, max_steal, retries):
        self.max_steal, self.retries = max_steal, retries
        self.retried = 0

    def measure(self, measure, what):
        """Runs `measure(attempt)`, which returns a run with its `steal` (%), until one is steady or the retries are
        spent. Every attempt gets its own `attempt` number, for fresh topic and object names."""
        for attempt in range(self.retries + 1):
            measured = measure(attempt)
            if measured.steal < self.max_steal:
                return measured
            if attempt == self.retries:
                log("{}: kept although the host stole {:.0f}% of this machine's CPU meanwhile".format(
                    what, measured.steal))
                return measured
            self.retried += 1
            log("{}: the host stole {:.0f}% of the CPU meanwhile; measuring it again".format(what, measured.steal))


def in_turn(contenders, run):
    """The contenders in the order they go in run `run` (from 1): each goes first in turn, so that none always
    meets a cold cache or a machine still busy with the one before."""
    shift = (run - 1) % len(contenders)
    return contenders[shift:] + contenders[:shift]
