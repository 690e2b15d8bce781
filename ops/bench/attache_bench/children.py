"""The processes the bench starts. Every one writes to files under the work directory's logs/, which are kept when a
run fails, and every one is stopped by its own pid: never by name, so nothing else on the machine is touched."""
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass

from .failure import BenchFailure


class Child:
    """A process the bench started; its output goes to files in the work directory; stopped by its own pid."""
    started = []  # every child not yet stopped, so that a failure anywhere can stop them all

    def __init__(self, name, argv, workdir, env=None, stdout_pipe=False, stdin_pipe=False):
        self.name = name
        self.out_path = os.path.join(workdir, "logs", name + ".out")
        self.err_path = os.path.join(workdir, "logs", name + ".err")
        os.makedirs(os.path.dirname(self.out_path), exist_ok=True)
        # The bench's own ATTACHE_* variables would reach every worker: only what `env` says does.
        merged = {k: v for k, v in os.environ.items() if not k.startswith("ATTACHE_")}
        merged.update(env or {})
        self.err = open(self.err_path, "wb")
        self.out = None if stdout_pipe else open(self.out_path, "wb")
        self.process = subprocess.Popen(argv, env=merged, stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
                                        stdout=subprocess.PIPE if stdout_pipe else self.out, stderr=self.err)
        self.terminated = False
        Child.started.append(self)

    @property
    def pid(self):
        return self.process.pid

    def stderr_text(self):
        with open(self.err_path, "r", errors="replace") as f:
            return f.read()

    def stdout_text(self):
        with open(self.out_path, "r", errors="replace") as f:
            return f.read()

    def first_stdout_line(self, timeout=20):
        """The first line the child printed: the servers the bench starts announce their address so."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            text = self.stdout_text()
            if "\n" in text:
                return text.split("\n", 1)[0].strip()
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        raise BenchFailure("{} printed no first line: {}".format(self.name, self.stderr_text()[-2000:]))

    def terminate(self):
        """Sends SIGTERM now, without waiting: `stop` then waits for the exit without a second signal (which makes a
        worker exit at once), so several children can be told to leave together."""
        if self.process.poll() is None and not self.terminated:
            self.process.send_signal(signal.SIGTERM)
            self.terminated = True

    def stop(self, timeout=30):
        """SIGTERM (unless `terminate` sent it), then SIGKILL after `timeout`; returns the exit status."""
        if self.process.poll() is None:
            self.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for handle in (self.err, self.out, self.process.stdin):
            if handle:
                handle.close()
        if self in Child.started:
            Child.started.remove(self)
        return self.process.returncode

    @staticmethod
    def stop_all():
        for child in reversed(list(Child.started)):
            try:
                child.stop(timeout=5)
            except Exception:
                pass


def proc_status_kib(pid, field):
    """A size from /proc/PID/status (VmRSS, VmHWM), in KiB."""
    with open("/proc/{}/status".format(pid)) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise BenchFailure("no {} for process {}".format(field, pid))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise BenchFailure("nothing listening on 127.0.0.1:{}".format(port))


@dataclass(frozen=True)
class TimedExit:
    """What /usr/bin/time saw of a process run to its end."""
    seconds: float
    peak_rss_kib: int
    cpu_seconds: float  # user + system


def run_timed(argv, workdir, name):
    """Runs a peer (curl, rclone) under /usr/bin/time to its end; fails on a non-zero exit."""
    stats = os.path.join(workdir, "logs", name + ".time")
    err = os.path.join(workdir, "logs", name + ".err")
    os.makedirs(os.path.dirname(stats), exist_ok=True)
    with open(err, "wb") as errors:
        start = time.time()
        code = subprocess.call(["/usr/bin/time", "-f", "%M %U %S", "-o", stats] + argv, stdout=subprocess.DEVNULL,
                               stderr=errors)
        seconds = time.time() - start
    if code != 0:
        with open(err, errors="replace") as f:
            raise BenchFailure("{} exited {}: {}".format(name, code, f.read()[-2000:]))
    with open(stats) as f:
        rss, user, system = f.read().strip().splitlines()[-1].split()
    return TimedExit(seconds, int(rss), float(user) + float(system))
