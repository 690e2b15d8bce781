"""CPU time from /proc: what each process of a run used, and what the host (the hypervisor) took from this machine.

Everything a run starts shares the machine's cores, so a time is read against the CPU the whole run needed; and on a
virtual machine the host may steal CPU from every process alike, which slows a run for a reason outside it."""
import os
import resource


def process_cpu_seconds(pid):
    """User + system CPU a live process has used so far (all its threads); 0 once it is gone."""
    return sum(process_cpu_split(pid))


def process_cpu_split(pid):
    """(user, system) CPU seconds a live process has used so far, in whole clock ticks; (0, 0) once it is gone."""
    try:
        with open("/proc/{}/stat".format(pid)) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


# A worker's threads by what they run, from their names: Swift's task pool and libdispatch's global queues share the
# names of the queue's priority ("com.apple.root.default-qos", cut to 15 bytes), serial queues run on "overcommit"
# threads, and Attache names its own (the curl loop; the Kafka poll threads) as librdkafka names its.
THREAD_GROUPS = [
    ("curl loop", lambda name: name == "attache-curl"),
    ("Kafka (librdkafka, poll threads)", lambda name: name.startswith(("rdk:", "kafka-"))),
    ("staging queue", lambda name: "utility" in name),
    ("serial queues (snapshots, store)", lambda name: "overcommit" in name),
    ("tasks (Swift's pool)", lambda name: "default-qos" in name or "user-initiated" in name),
]


def thread_cpu_seconds(pid):
    """CPU each live thread of a process has used so far: thread id -> (group (THREAD_GROUPS, else "other"),
    seconds). From schedstat, in nanoseconds: a thread's stat counts whole clock ticks, and with a dozen threads
    their truncations add up to more than a small run's differences."""
    threads = {}
    try:
        tids = os.listdir("/proc/{}/task".format(pid))
    except OSError:
        return threads
    for tid in tids:
        try:
            with open("/proc/{}/task/{}/comm".format(pid, tid)) as f:
                name = f.read().rstrip("\n")
            with open("/proc/{}/task/{}/schedstat".format(pid, tid)) as f:
                nanoseconds = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        group = next((label for label, matches in THREAD_GROUPS if matches(name)), "other")
        threads[tid] = (group, nanoseconds / 1e9)
    return threads


def cpu_by_thread_group(before, after, used):
    """What a process used between two `thread_cpu_seconds` readings, by thread group; `used` is what the whole
    process used meanwhile (whole clock ticks), and what the threads alive at the end do not account for is "rest":
    threads that ended within the window, and that total's rounding."""
    groups = {}
    for tid, (group, seconds) in after.items():
        groups[group] = groups.get(group, 0.0) + seconds - before.get(tid, (group, 0.0))[1]
    groups["rest"] = max(0.0, used - sum(groups.values()))
    return groups


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
