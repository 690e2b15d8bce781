"""--strace-nginx: nginx's system calls while each contender of the large run uploads, counted by `strace -c -f`
attached to nginx's workers, written to ops/bench/work/large-nginx-syscalls.txt. The same bytes reach nginx from
every contender, so differences in its calls (how many reads, of what size, how many writes to its temporary file)
are what the request shape costs the server."""
import os
import signal
import subprocess
import time

from .log import log
from .paths import BENCH_DIR


class SyscallCount:
    """One `strace -c` over nginx's workers, from `start` to `stop`; `stop` returns its summary table."""

    def __init__(self, pids, label):
        self.label = label
        self.out = os.path.join(BENCH_DIR, "work", "strace-{}.txt".format(label))
        argv = ["strace", "-c", "-f", "-S", "calls", "-o", self.out]
        for pid in pids:
            argv += ["-p", str(pid)]
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)  # attached before the first byte arrives

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=30)
        with open(self.out) as f:
            return f.read()


class NginxSyscalls:
    """Counts per contender (the first run of each), appended to one report."""

    def __init__(self, enabled, nginx):
        self.enabled, self.nginx, self.counted = enabled, nginx, set()
        self.report = os.path.join(BENCH_DIR, "work", "large-nginx-syscalls.txt")
        if enabled and os.path.exists(self.report):
            os.remove(self.report)

    def start(self, who):
        if not self.enabled or who in self.counted:
            return None
        self.counted.add(who)
        return SyscallCount(self.nginx.pids()[1:], who)

    def stop(self, count):
        if count is None:
            return
        with open(self.report, "a") as f:
            f.write("### nginx workers while {} uploaded\n{}\n".format(count.label, count.stop()))
        log("nginx's system calls while {} uploaded: {}".format(count.label, os.path.relpath(self.report)))
