"""CPU time from /proc: what each process of a run used, and what the host (the hypervisor) took from this machine.

Everything a run starts shares the machine's cores, so a time is read against the CPU the whole run needed; and on a
virtual machine the host may steal CPU from every process alike, which slows a run for a reason outside it."""
import os
import resource


def process_cpu_seconds(pid):
    """User + system CPU a live process has used so far (all its threads); 0 once it is gone."""
    try:
        with open("/proc/{}/stat".format(pid)) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pids(pid):
    """The live processes whose parent is `pid` (nginx's workers under its master)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/{}/stat".format(entry)) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def reaped_children_cpu():
    """CPU of the bench's children that ran to their end and were waited for (kcat producing), so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def host_cpu_ticks():
    """The machine's CPU time so far, in ticks: (busy, stolen). Busy is user, nice, system, irq and softirq time;
    stolen is time the hypervisor gave to someone else while a vCPU of this machine wanted to run."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq, steal = [int(x) for x in f.readline().split()[1:9]]
    return user + nice + system + irq + softirq, steal


def steal_percent(before, after):
    """Of the CPU time this machine wanted between two `host_cpu_ticks`, the share its host took away."""
    busy, stolen = after[0] - before[0], after[1] - before[1]
    return 100.0 * stolen / (busy + stolen) if busy + stolen > 0 else 0.0


class HostSteal:
    """The host's steal over a window, for runs without a CPU account: `steal` is set by `stop`."""

    def __init__(self):
        self.before = host_cpu_ticks()
        self.steal = None

    def stop(self):
        if self.steal is None:
            self.steal = steal_percent(self.before, host_cpu_ticks())


class CPUAccount:
    """CPU seconds each process of a run used between the account's creation and `stop`: the client under test and
    every service it leans on (broker, nginx, presign endpoint, kcat), so a time can be read against what the
    machine's cores could do; and how much CPU the host stole meanwhile (`steal`, a percentage), which slows
    whatever ran then and explains runs far from their neighbours.
    Processes are given as label -> list of pids; processes that run to completion inside the window (kcat's
    producer, curl) are added with `add`."""

    def __init__(self, groups):
        self.groups = groups
        self.before = self._sample()
        self.host = HostSteal()
        self.used = {}

    @property
    def steal(self):
        return self.host.steal

    def _sample(self):
        return {label: sum(process_cpu_seconds(pid) for pid in pids) for label, pids in self.groups.items()}

    def add(self, label, seconds):
        self.used[label] = self.used.get(label, 0.0) + seconds

    def stop(self):
        """Closes the window (once) and returns the seconds by label."""
        if self.host.steal is None:
            self.host.stop()
            after = self._sample()
            for label in self.groups:
                self.add(label, after[label] - self.before[label])
        return self.used
