"""`attache worker` processes, started on the bench's services and watched through their logs, /proc and metrics."""
import datetime
import os
import time
import urllib.request
from dataclasses import dataclass

from .children import Child, free_port, proc_status_kib
from .cpu import process_cpu_seconds, process_cpu_split, thread_cpu_seconds
from .failure import BenchFailure
from .run_names import changelog_of


@dataclass(frozen=True)
class WorkerEnvironment:
    """What every worker of a run is started against: the binary, the work directory (logs, staging), the sources
    root, the Kafka bootstrap list and the presign endpoint."""
    attache: str
    workdir: str
    sources: str
    brokers: str
    presign_url: str

    def start(self, name, group, jobs_topic, events_topic, extra=None, wrapper=()):
        return Worker(self, name, group, jobs_topic, events_topic, extra, wrapper)


class Worker:
    """One `attache worker` process on its own jobs/events topics; `wrapper` is a command it runs under (valgrind)."""

    def __init__(self, environment, name, group, jobs_topic, events_topic, extra=None, wrapper=()):
        self.name = name
        self.admin_port = free_port()
        staging = os.path.join(environment.workdir, "staging", name)
        os.makedirs(staging, exist_ok=True)
        env = {
            "ATTACHE_KAFKA_BROKERS": environment.brokers, "ATTACHE_KAFKA_GROUP_ID": group,
            "ATTACHE_KAFKA_JOBS_TOPIC": jobs_topic, "ATTACHE_KAFKA_EVENTS_TOPIC": events_topic,
            "ATTACHE_KAFKA_CREATE_TOPICS": "false", "ATTACHE_PRESIGN_URL": environment.presign_url,
            # A changelog per jobs topic (both get the mock's 4 partitions on first use, unless created beforehand).
            "ATTACHE_KAFKA_BATCHES_TOPIC": changelog_of(jobs_topic),
            "ATTACHE_MESSAGES_MODE": "none", "ATTACHE_ADMIN_LISTEN": "127.0.0.1:{}".format(self.admin_port),
            "ATTACHE_STAGING_DIR": staging, "ATTACHE_SOURCES_ROOT": environment.sources, "ATTACHE_WORKER_ID": name,
            "ATTACHE_LIMITS_FILE_SIZE_MAX": "1GiB", "ATTACHE_LOG_FORMAT": "text",
            "ATTACHE_LOG_LEVEL": os.environ.get("BENCH_DEBUG_LEVEL", "info"),
            # librdkafka's mock cluster holds an empty fetch for the whole fetch.wait.max.ms (default 500 ms) even when
            # records arrive meanwhile (rdkafka_mock_handlers.c); a real broker answers as soon as data is there.
            # Without this every job would wait a random 0–500 ms in the mock, which says nothing about Attache.
            "ATTACHE_KAFKA_PROPERTY_FETCH_WAIT_MAX_MS": "10",
        }
        env.update(extra or {})
        self.child = Child(name, list(wrapper) + [environment.attache, "worker"], environment.workdir, env=env)

    @property
    def pid(self):
        return self.child.pid

    def wait_assigned(self, timeout=60):
        """Waits for the `partitions assigned` log line; returns its time (epoch seconds, from the log)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in self.child.stderr_text().splitlines():
                if "partitions assigned" in line:
                    return log_time(line)
            self.check_running()
            time.sleep(0.05)
        raise BenchFailure("{} got no partitions in {} s".format(self.name, timeout))

    def check_running(self):
        """Fails when the worker has exited by itself, with the end of its log."""
        if self.child.process.poll() is not None:
            raise BenchFailure("{} exited {}: {}".format(self.name, self.child.process.returncode,
                                                         self.child.stderr_text()[-2000:]))

    def partitions(self):
        """The partitions this worker holds now, replaying its `partitions assigned/released` log lines."""
        held = set()
        for line in self.child.stderr_text().splitlines():
            if "partitions assigned" in line or "partitions released" in line:
                names = set(line.rsplit("partitions=", 1)[-1].strip().split(","))
                held = held | names if "assigned" in line else held - names
        return held

    def cpu_seconds(self):
        """User + system CPU time the worker has used so far."""
        return process_cpu_seconds(self.child.pid)

    def system_seconds(self):
        """The part of `cpu_seconds` spent in the kernel (system calls, page faults, waking threads)."""
        return process_cpu_split(self.child.pid)[1]

    def thread_cpu_seconds(self):
        """CPU each of its live threads used so far, with its thread group (cpu.thread_cpu_seconds)."""
        return thread_cpu_seconds(self.pid)

    def _status_kib(self, field):
        return proc_status_kib(self.child.pid, field)

    def rss_kib(self):
        return self._status_kib("VmRSS")

    def peak_rss_kib(self):
        return self._status_kib("VmHWM")

    def metric(self, name, contains=""):
        """The sum of a Prometheus metric's samples whose line contains `contains`, from the admin endpoint."""
        body = urllib.request.urlopen("http://127.0.0.1:{}/metrics".format(self.admin_port), timeout=5).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
                   if line.startswith(name) and contains in line)

    def stop(self):
        """SIGTERM; a worker must leave with 0."""
        code = self.child.stop(timeout=40)
        if code != 0:
            raise BenchFailure("{} exited {} on SIGTERM: {}".format(self.name, code, self.child.stderr_text()[-2000:]))


def log_time(line):
    """The time a worker's text log line was written (epoch seconds)."""
    stamp = line.split(" ", 1)[0]
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()


def wait_spread(workers, partitions=4, timeout=90):
    """Waits until the group's partitions are spread over every worker (from their assigned/released log lines)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        held = [w.partitions() for w in workers]
        if all(held) and sum(len(h) for h in held) == partitions and len(set().union(*held)) == partitions:
            return
        time.sleep(0.2)
    raise BenchFailure("the group did not spread its partitions over {} workers".format(len(workers)))
