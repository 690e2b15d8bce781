"""Per-job counts of a worker's work (DESIGN §8 *Per-job cost*): system calls, context switches, thread wake-ups,
page faults, allocations, Swift tasks and the hops between threads, counted by `perf stat` attached to the worker
for the measured window of extra runs of a scenario. Kernel tracepoints count system calls
(raw_syscalls:sys_enter) and wake-ups the worker's threads issued (sched:sched_wakeup); context switches and page
faults are perf's software events; allocations, tasks, task runs and dispatch blocks are uprobes on libc's `malloc`,
the Swift runtime's `swift_task_create` and `swift_job_run`, and libdispatch's `dispatch_async`. A uprobe costs about
a microsecond a hit, so a counted run is never one of the timed ones, and the kernel's counts are taken in a run of
their own (`PASSES`): beside the uprobes, which slow a small job some threefold, they came out two to three times
higher (68 against 24 system calls a small `s3` job, 3.2 against 1.5 context switches), since a slowed worker's
librdkafka threads wake and poll more often for the same records."""
import os
import re
import signal
import subprocess
import time

from .failure import BenchFailure
from .paths import ATTACHE

# label, perf event (a uprobe as library basename + symbol, created on first use)
KERNEL_EVENTS = [
    ("system calls", "raw_syscalls:sys_enter"),
    ("context switches", "context-switches"),
    ("wake-ups", "sched:sched_wakeup"),
    ("page faults", "page-faults"),
]
CODE_EVENTS = [
    ("allocations", ("libc.so.6", "malloc")),
    ("Swift tasks", ("libswift_Concurrency.so", "swift_task_create")),
    # Each a hop between threads: a task started or resumed on Swift's pool, a block handed to a dispatch queue.
    ("task runs", ("libswift_Concurrency.so", "swift_job_run")),
    ("dispatch blocks", ("libdispatch.so", "dispatch_async")),
]
# One counted run each, kernel events first.
PASSES = (KERNEL_EVENTS, CODE_EVENTS)


def _library(name):
    """The path of a shared library the worker binary loads (from ldd)."""
    out = subprocess.run(["ldd", ATTACHE], stdout=subprocess.PIPE, text=True, check=True).stdout
    for line in out.splitlines():
        if line.strip().startswith(name):
            return line.split("=>")[1].split("(")[0].strip()
    raise BenchFailure("the worker does not load {}".format(name))


def _uprobe(library, symbol):
    """The perf event of a uprobe on `symbol` in `library`, added unless perf already has it."""
    listed = subprocess.run(["perf", "probe", "-l"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    found = re.search(r"^\s*(\S+:{})\s".format(re.escape(symbol)), listed, re.MULTILINE)
    if found:
        return found.group(1)
    out = subprocess.run(["perf", "probe", "-x", _library(library), symbol], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    added = re.search(r"(\S+:{})\b".format(re.escape(symbol)), out.stdout)
    if out.returncode != 0 or not added:
        raise BenchFailure("perf probe {} in {} failed: {}".format(symbol, library, out.stdout[-300:]))
    return added.group(1)


class JobCounts:
    """`perf stat` of `events` (one of `PASSES`) over one process from construction to `stop(jobs)`, which answers
    the counts per job."""

    def __init__(self, pid, workdir, label, events):
        self.out = os.path.join(workdir, "counts-{}.csv".format(label))
        self.events = [(name, event if isinstance(event, str) else _uprobe(*event)) for name, event in events]
        argv = ["perf", "stat", "-x", ",", "-o", self.out, "-p", str(pid)]
        for _, event in self.events:
            argv += ["-e", event]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)  # attached before the first job arrives

    def stop(self, jobs):
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=30)
        counts = {}
        with open(self.out) as f:
            for line in f:
                fields = line.strip().split(",")
                if len(fields) > 2 and fields[0].isdigit():
                    counts[fields[2]] = int(fields[0])
        missing = [event for _, event in self.events if event not in counts]
        if missing:
            raise BenchFailure("perf stat counted nothing for {} (see {})".format(", ".join(missing), self.out))
        return {name: counts[event] / jobs for name, event in self.events}
