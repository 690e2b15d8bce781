#!/usr/bin/env python3
"""Attache against its peers, end to end. Started by ops/bench/run (which installs the peers and builds attache);
see that script for usage. Standard library only.

Everything runs on this machine: one `attache dev-broker` (Kafka), one nginx serving WebDAV on 127.0.0.1 (the
object store), ops/bench/presign.py (the backend's presign endpoint) and kcat (producing jobs, reading events). The
scale run adds librdkafka 2.16's mock cluster (Tests/EndToEndTests/Support/mock_kafka.py, from the test venv),
ops/bench/faultproxy.py slowing uploads in front of nginx, and ops/bench/presign.py as the message API too.
Source files, the workers' staging directories and nginx's store all live in one work directory, by default in
/dev/shm (tmpfs), so disk write-back never decides a race.
"""
import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCENARIOS = ["large", "memory", "small", "fanout", "intake", "handover", "scale"]
# Run only when asked for (ops/bench/soak.py): it takes --soak-minutes, ten by default.
EXTRA_SCENARIOS = ["soak"]
MIB = 1 << 20


def log(message):
    print("[bench {}] {}".format(time.strftime("%H:%M:%S"), message), file=sys.stderr, flush=True)


class BenchFailure(Exception):
    pass


# --- processes ----------------------------------------------------------------------------------------------------

class Child:
    """A process the bench started; its output goes to files in the work directory; stopped by its own pid."""
    started = []

    def __init__(self, name, argv, workdir, env=None, stdout_pipe=False, stdin_pipe=False):
        self.name = name
        self.out_path = os.path.join(workdir, "logs", name + ".out")
        self.err_path = os.path.join(workdir, "logs", name + ".err")
        os.makedirs(os.path.dirname(self.out_path), exist_ok=True)
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


def timed(argv, workdir, name):
    """Runs a peer under /usr/bin/time; returns (seconds, peak RSS KiB, CPU seconds). Fails on a non-zero exit."""
    stats = os.path.join(workdir, "logs", name + ".time")
    err = os.path.join(workdir, "logs", name + ".err")
    os.makedirs(os.path.dirname(stats), exist_ok=True)
    with open(err, "wb") as errors:
        start = time.time()
        code = subprocess.call(["/usr/bin/time", "-f", "%M %U %S", "-o", stats] + argv, stdout=subprocess.DEVNULL, stderr=errors)
        seconds = time.time() - start
    if code != 0:
        with open(err, errors="replace") as f:
            raise BenchFailure("{} exited {}: {}".format(name, code, f.read()[-2000:]))
    with open(stats) as f:
        rss, user, system = f.read().strip().splitlines()[-1].split()
    return seconds, int(rss), float(user) + float(system)


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


class HostSteal:
    """The host's steal over a window, for runs without a CPU account: `steal` is set by `stop`."""

    def __init__(self):
        self.before = host_cpu_ticks()
        self.steal = None

    def stop(self):
        if self.steal is None:
            self.steal = steal_percent(self.before, host_cpu_ticks())


class Measured:
    """One timed run: its seconds, the account (or `HostSteal`) that saw the host's steal, and scenario extras."""

    def __init__(self, seconds, account, peak=None, first_event=None, events=None, cpu_per_job=None, held=None):
        self.seconds, self.account, self.peak, self.first_event = seconds, account, peak, first_event
        self.events, self.cpu_per_job, self.held = events, cpu_per_job, held


def reaped_children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- Kafka through kcat -------------------------------------------------------------------------------------------

class Kafka:
    def __init__(self, brokers):
        self.brokers = brokers

    def produce(self, topic, lines_path):
        """Produces every `key<TAB>value` line of the file; returns when kcat has delivered them all."""
        with open(lines_path, "rb") as lines:
            done = subprocess.run(["kcat", "-b", self.brokers, "-t", topic, "-P", "-K", "\t", "-z", "none",
                                   "-X", "linger.ms=5"], stdin=lines, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise BenchFailure("kcat produce to {} failed: {}".format(topic, done.stderr.decode(errors="replace")))

    def produce_lines(self, topic, lines, workdir):
        path = os.path.join(workdir, "records-{}.tsv".format(topic))
        with open(path, "w") as f:
            f.writelines(line + "\n" for line in lines)
        self.produce(topic, path)

    def create_topic(self, topic, workdir):
        """The mock cluster creates a topic on its first produce; a marker record that is not JSON starts it."""
        self.produce_lines(topic, ["bench\tbench-marker"], workdir)

    def end_offsets(self, topic, partitions=4):
        argv = ["kcat", "-b", self.brokers, "-Q"]
        for p in range(partitions):
            argv += ["-t", "{}:{}:-1".format(topic, p)]
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout.decode()
        return sum(int(line.rsplit(" ", 1)[1]) for line in out.splitlines() if " offset " in line)

    def read_all(self, topic):
        """Every record so far: (CreateTime ms, key, value)."""
        out = subprocess.run(["kcat", "-b", self.brokers, "-t", topic, "-C", "-o", "beginning", "-e", "-q",
                              "-f", "%T\t%k\t%s\n"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        records = []
        for line in out.decode().splitlines():
            parts = line.split("\t", 2)
            if len(parts) == 3:
                records.append((int(parts[0]), parts[1], parts[2]))
        return records


class EventWatcher:
    """Follows an events topic with a long-running kcat consumer; notes when each `batch.completed` and the first
    `message.sent` of each batch are seen."""

    def __init__(self, kafka, topic, workdir):
        self.lock = threading.Condition()
        self.completed = {}  # batchId -> (seen time.time(), CreateTime ms, result)
        self.sent = {}  # batchId -> seen time.time() of its first message.sent
        self.first = {}  # batchId -> CreateTime ms of its first event
        self.counts = {}  # batchId -> events seen
        self.kcat = Child("watch-" + topic, ["kcat", "-b", kafka.brokers, "-t", topic, "-C", "-o", "beginning", "-u", "-q",
                                             "-X", "fetch.wait.max.ms=5", "-f", "%T\t%k\t%s\n"], workdir, stdout_pipe=True)
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()

    def _follow(self):
        for raw in self.kcat.process.stdout:
            seen = time.time()
            parts = raw.decode(errors="replace").rstrip("\n").split("\t", 2)
            if len(parts) != 3 or not parts[2].startswith("{"):
                continue
            event = json.loads(parts[2])
            subject = event.get("subject", "")
            with self.lock:
                self.counts[subject] = self.counts.get(subject, 0) + 1
                self.first.setdefault(subject, int(parts[0]))
                if event.get("type") == "attache.batch.completed":
                    self.completed[subject] = (seen, int(parts[0]), event["data"]["result"])
                    self.lock.notify_all()
                elif event.get("type") == "attache.message.sent":
                    self.sent.setdefault(subject, seen)
                    self.lock.notify_all()

    def wait(self, batch_ids, timeout, count=None):
        """Waits until `count` (default: all) of the batches in `batch_ids` completed; returns when the latest of
        their completions so far was seen."""
        self._wait(batch_ids, timeout, lambda: self.completed, "completed", count)
        with self.lock:
            return max(self.completed[b][0] for b in batch_ids if b in self.completed)

    def wait_sent(self, batch_ids, timeout, count=None):
        """Waits until `count` (default: all) of the batches in `batch_ids` had a `message.sent`."""
        self._wait(batch_ids, timeout, lambda: self.sent, "sent a message", count)

    def sent_of(self, batch_ids):
        with self.lock:
            return sum(1 for b in batch_ids if b in self.sent)

    def completed_of(self, batch_ids):
        with self.lock:
            return sum(1 for b in batch_ids if b in self.completed)

    def _wait(self, batch_ids, timeout, seen, what, count=None):
        deadline = time.time() + timeout
        count = len(batch_ids) if count is None else count
        with self.lock:
            while True:
                missing = [b for b in batch_ids if b not in seen()]
                if len(batch_ids) - len(missing) >= count:
                    return
                if time.time() >= deadline:
                    raise BenchFailure("only {} of {} batches {} in {} s, {} awaited (not {}, for one)".format(
                        len(batch_ids) - len(missing), len(batch_ids), what, timeout, count, missing[0]))
                self.lock.wait(min(1.0, max(0.0, deadline - time.time())))

    def events_of(self, batch_ids):
        with self.lock:
            return sum(self.counts.get(b, 0) for b in batch_ids)

    def stop(self):
        self.kcat.stop()


# --- the workers --------------------------------------------------------------------------------------------------

class Worker:
    """One `attache worker` process on its own jobs/events topics."""

    def __init__(self, bench, name, group, jobs_topic, events_topic, extra=None):
        self.name = name
        self.admin_port = free_port()
        staging = os.path.join(bench.workdir, "staging", name)
        os.makedirs(staging, exist_ok=True)
        env = {
            "ATTACHE_KAFKA_BROKERS": bench.kafka.brokers, "ATTACHE_KAFKA_GROUP_ID": group,
            "ATTACHE_KAFKA_JOBS_TOPIC": jobs_topic, "ATTACHE_KAFKA_EVENTS_TOPIC": events_topic,
            "ATTACHE_KAFKA_CREATE_TOPICS": "false", "ATTACHE_PRESIGN_URL": bench.presign_url,
            # A changelog per jobs topic, co-partitioned with it (both get the mock's 4 partitions on first use).
            "ATTACHE_KAFKA_BATCHES_TOPIC": jobs_topic + ".batches",
            "ATTACHE_MESSAGES_MODE": "none", "ATTACHE_ADMIN_LISTEN": "127.0.0.1:{}".format(self.admin_port),
            "ATTACHE_STAGING_DIR": staging, "ATTACHE_SOURCES_ROOT": bench.sources, "ATTACHE_WORKER_ID": name,
            "ATTACHE_LIMITS_FILE_SIZE_MAX": "1GiB", "ATTACHE_LOG_FORMAT": "text", "ATTACHE_LOG_LEVEL": os.environ.get("BENCH_DEBUG_LEVEL", "info"),
            # librdkafka's mock cluster holds an empty fetch for the whole fetch.wait.max.ms (default 500 ms) even when
            # records arrive meanwhile (rdkafka_mock_handlers.c); a real broker answers as soon as data is there.
            # Without this every job would wait a random 0–500 ms in the mock, which says nothing about Attache.
            "ATTACHE_KAFKA_PROPERTY_FETCH_WAIT_MAX_MS": "10",
        }
        env.update(extra or {})
        self.child = Child(name, [bench.attache, "worker"], bench.workdir, env=env)

    def wait_assigned(self, timeout=60):
        """Waits for the `partitions assigned` log line; returns its time (epoch seconds, from the log)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in self.child.stderr_text().splitlines():
                if "partitions assigned" in line:
                    stamp = line.split(" ", 1)[0]
                    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
                        tzinfo=datetime.timezone.utc).timestamp()
            if self.child.process.poll() is not None:
                raise BenchFailure("{} exited {}: {}".format(self.name, self.child.process.returncode,
                                                             self.child.stderr_text()[-2000:]))
            time.sleep(0.05)
        raise BenchFailure("{} got no partitions in {} s".format(self.name, timeout))

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

    def _status_kib(self, field):
        with open("/proc/{}/status".format(self.child.pid)) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise BenchFailure("no {} for {}".format(field, self.name))

    def rss_kib(self):
        return self._status_kib("VmRSS")

    def peak_rss_kib(self):
        return self._status_kib("VmHWM")

    def metric(self, name, contains=""):
        body = urllib.request.urlopen("http://127.0.0.1:{}/metrics".format(self.admin_port), timeout=5).read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
                   if line.startswith(name) and contains in line)

    def stop(self):
        code = self.child.stop(timeout=40)
        if code != 0:
            raise BenchFailure("{} exited {} on SIGTERM: {}".format(self.name, code, self.child.stderr_text()[-2000:]))


# --- figures ------------------------------------------------------------------------------------------------------

class Figure:
    """A list of measurements of one quantity; median, min, max."""

    def __init__(self, values=None):
        self.values = list(values or [])

    def add(self, value):
        self.values.append(value)

    @property
    def median(self):
        return statistics.median(self.values) if self.values else float("nan")

    def text(self, fmt="{:.2f}"):
        if not self.values:
            return "—"
        if len(self.values) == 1:
            return fmt.format(self.values[0])
        return "{} [{}–{}]".format(fmt.format(self.median), fmt.format(min(self.values)), fmt.format(max(self.values)))


# --- the bench ----------------------------------------------------------------------------------------------------

class Bench:
    def __init__(self, options):
        self.options = options
        self.attache = options.attache
        self.runs = options.runs
        self.results = {}
        self.profiled = set()
        self.retried = 0  # runs measured again because the host stole too much CPU during them
        self.cpu = {}  # scenario -> who -> process label -> Figure of CPU seconds
        self.steal = {}  # scenario -> who -> Figure of the host's steal while timed, %
        root = options.dir or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir())
        self.workdir = tempfile.mkdtemp(prefix="attache-bench-", dir=root)
        self.on_tmpfs = self._filesystem(self.workdir) == "tmpfs"
        self.sources = os.path.join(self.workdir, "sources")
        self.store = os.path.join(self.workdir, "nginx", "store")
        os.makedirs(self.sources)

    @staticmethod
    def _filesystem(path):
        try:
            return subprocess.run(["stat", "-f", "-c", "%T", path], stdout=subprocess.PIPE, check=True).stdout.decode().strip()
        except Exception:
            return "unknown"

    # --- services ---

    def start_services(self):
        # --faults: its stdin also takes `topic NAME PARTITIONS`, for topics larger than the mock's default 4 partitions.
        broker = self.broker = Child("broker", [self.attache, "dev-broker", "--faults"], self.workdir, stdin_pipe=True)
        self.kafka = Kafka(broker.first_stdout_line())
        self.broker_answers = {}  # broker Child -> commands answered so far
        self.nginx_port = free_port()
        self._start_nginx()
        self.base = "http://127.0.0.1:{}".format(self.nginx_port)
        presign = self.presign = Child("presign", [sys.executable, os.path.join(HERE, "presign.py"), "--upload-base", self.base + "/attache"],
                        self.workdir)
        self.presign_url = presign.first_stdout_line()
        log("broker {}, nginx {}, presign {}, work dir {} ({})".format(self.kafka.brokers, self.base, self.presign_url,
                                                                     self.workdir, "tmpfs" if self.on_tmpfs else "disk"))

    def create_topic(self, name, partitions, broker=None):
        """Creates a topic with `partitions` partitions through a broker's fault commands (`broker`, by default the
        bench's `attache dev-broker --faults`; the scale run's mock_kafka.py takes the same commands: the bootstrap list
        on the first stdout line, then one answer line per command); waits for its answer."""
        broker = broker or self.broker
        broker.process.stdin.write("topic {} {} 1\n".format(name, partitions).encode())
        broker.process.stdin.flush()
        answer = self.broker_answers[broker] = self.broker_answers.get(broker, 0) + 1
        deadline = time.time() + 10
        while time.time() < deadline:
            lines = broker.stdout_text().splitlines()
            if len(lines) > answer:
                if lines[answer] != "ok":
                    raise BenchFailure("creating {}: {}".format(name, lines[answer]))
                return
            time.sleep(0.02)
        raise BenchFailure("the broker did not answer the creation of {}".format(name))

    def _start_nginx(self):
        srv = os.path.join(self.workdir, "nginx")
        os.makedirs(os.path.join(srv, "body"), exist_ok=True)
        os.makedirs(self.store, exist_ok=True)
        module = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"
        if not os.path.exists(module):
            raise BenchFailure("{} missing: run ops/install-deps bench".format(module))
        conf = os.path.join(srv, "nginx.conf")
        with open(conf, "w") as f:
            f.write("""load_module {module};
{user}
worker_processes auto;
pid {srv}/nginx.pid;
error_log {srv}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {srv}/body;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {store};
        location / {{
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            create_full_put_path on;
            client_max_body_size 0;
            keepalive_requests 100000;
        }}
    }}
}}
""".format(module=module, user="user root;" if os.getuid() == 0 else "", srv=srv, port=self.nginx_port, store=self.store))
        self.nginx = Child("nginx", ["/usr/sbin/nginx", "-p", srv, "-c", conf, "-g", "daemon off;"], self.workdir)
        wait_for_port(self.nginx_port)

    def services_cpu(self, extra=None):
        """A CPU account of the shared services (and `extra` label -> pids) from now on."""
        groups = {"nginx": [self.nginx.pid] + child_pids(self.nginx.pid), "broker": [self.broker.pid],
                  "presign": [self.presign.pid]}
        groups.update(extra or {})
        return CPUAccount(groups)

    def note_cpu(self, scenario, who, account):
        """Keeps one run's CPU seconds by process, and the host's steal, for the table."""
        runs = self.cpu.setdefault(scenario, {}).setdefault(who, {})
        for label, seconds in account.stop().items():
            runs.setdefault(label, Figure()).add(seconds)
        self.steal.setdefault(scenario, {}).setdefault(who, Figure()).add(account.steal)
        if account.steal >= self.options.max_steal:
            log("{} run of {}: kept although the host stole {:.0f}% of this machine's CPU meanwhile".format(
                who, scenario, account.steal))

    def clear_store(self):
        for entry in os.listdir(self.store):
            shutil.rmtree(os.path.join(self.store, entry), ignore_errors=True)

    # --- files ---

    def make_files(self, folder, count, size, prefix="part-"):
        directory = os.path.join(self.sources, folder)
        os.makedirs(directory, exist_ok=True)
        paths = []
        with open("/dev/urandom", "rb") as random:
            for i in range(1, count + 1):
                path = os.path.join(directory, "{}{}.bin".format(prefix, i))
                if not (os.path.exists(path) and os.path.getsize(path) == size):
                    with open(path, "wb") as f:
                        left = size
                        while left:
                            chunk = random.read(min(left, 4 * MIB))
                            f.write(chunk)
                            left -= len(chunk)
                paths.append(path)
        return paths

    def stored_check(self, pairs, compare_bytes):
        """Every (source, stored path) pair landed in nginx's store, same size (and same bytes when asked)."""
        import filecmp
        for source, stored in pairs:
            if not os.path.exists(stored) or os.path.getsize(stored) != os.path.getsize(source):
                raise BenchFailure("{} did not land intact at {}".format(source, stored))
            if compare_bytes and not filecmp.cmp(source, stored, shallow=False):
                raise BenchFailure("{} stored different bytes at {}".format(source, stored))

    # --- one Attache run: a fresh worker, a warm-up job, then the measured jobs ---

    def attache_run(self, tag, jobs, workers=1, extra=None, timeout=300, measure_rss=False):
        """Starts `workers` fresh workers in one group on fresh topics, warms them up, produces `jobs` (list of
        (batchId, job dict)) and waits for every batch.completed. Returns (seconds, events, peak RSS KiB, results);
        `self.first_event_delay` is the time from the start to the first event of the first job (for large files:
        staging and presigning, until the first progress)."""
        jobs_topic, events_topic = "bench.{}.jobs".format(tag), "bench.{}.events".format(tag)
        self.kafka.create_topic(events_topic, self.workdir)
        watcher = EventWatcher(self.kafka, events_topic, self.workdir)
        # Eight tiny warm-up jobs, spread over the partitions by key: they create the jobs topic before the worker
        # subscribes, and open the worker's connections to the presign endpoint and nginx.
        warm = ["warm-{}-{}".format(tag, i) for i in range(8)]
        self.kafka.produce_lines(jobs_topic, ["{}\t{}".format(b, json.dumps(inline_job(b, b"warm-up"))) for b in warm],
                                 self.workdir)
        started = []
        try:
            # All members start together, as a deployment does. librdkafka's mock group coordinator settles a group
            # that changes after its first generation only when the old member's session times out (kcat -G shows
            # the same: 44 s with the range assignor, over 70 s with cooperative-sticky), so a group of several gets
            # a short session, as the end-to-end tests use.
            if workers > 1:
                extra = dict(extra or {}, ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS="6000",
                             ATTACHE_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS="500")
            for i in range(workers):
                started.append(Worker(self, "worker-{}-{}".format(tag, i), "bench-{}".format(tag), jobs_topic, events_topic,
                                      extra))
            for worker in started:
                worker.wait_assigned()
            if workers > 1:
                self.wait_spread(started)
            watcher.wait(warm, timeout=60)
            lines = ["{}\t{}".format(b, json.dumps(j, separators=(",", ":"))) for b, j in jobs]
            path = os.path.join(self.workdir, "jobs-{}.tsv".format(tag))
            with open(path, "w") as f:
                f.writelines(line + "\n" for line in lines)
            ids = [b for b, _ in jobs]
            scenario = tag.rsplit("-", 1)[0]
            perf = None
            if self.options.perf and workers == 1 and scenario not in self.profiled:
                self.profiled.add(scenario)
                perf = self.start_perf(started[0], scenario)
            cpu_before = sum(w.cpu_seconds() for w in started)
            account = self.services_cpu({"worker": [w.child.pid for w in started], "kcat": [watcher.kcat.pid]})
            reaped = reaped_children_cpu()
            start = time.time()
            self.kafka.produce(jobs_topic, path)
            end = watcher.wait(ids, timeout=timeout)
            account.add("kcat", reaped_children_cpu() - reaped)
            account.stop()
            self.account = account
            if perf:
                self.stop_perf(perf)
            seconds = end - start
            rss = max(w.peak_rss_kib() for w in started) if measure_rss else None
            self.cpu_per_job = (sum(w.cpu_seconds() for w in started) - cpu_before) / len(jobs)
            results = {b: watcher.completed[b][2] for b in ids}
            self.first_event_delay = watcher.first[ids[0]] / 1000 - start
            events = watcher.events_of(ids)
        finally:
            for worker in started:
                worker.stop()
            watcher.stop()
            shutil.rmtree(os.path.join(self.workdir, "staging"), ignore_errors=True)
        for batch_id, result in results.items():
            if result.get("rejected") or result.get("failed"):
                raise BenchFailure("batch {} did not upload everything: {}".format(batch_id, json.dumps(result)[:500]))
        return seconds, events, rss, results

    @staticmethod
    def wait_spread(workers, partitions=4, timeout=90):
        """Waits until the group's partitions are spread over every worker (from their assigned/released log lines)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            held = [w.partitions() for w in workers]
            if all(held) and sum(len(h) for h in held) == partitions and len(set().union(*held)) == partitions:
                return
            time.sleep(0.2)
        raise BenchFailure("the group did not spread its partitions over {} workers".format(len(workers)))

    # --- scenarios ---

    def steadily(self, measure, what):
        """Runs `measure(attempt)`, which returns a `Measured`, again while the host stole `--max-steal` % or more of
        the CPU during it, at most `--steal-retries` more times: such a run measured the host, not the contenders.
        Every attempt gets its own `attempt` number, for fresh topic and object names."""
        for attempt in range(self.options.steal_retries + 1):
            measured = measure(attempt)
            if measured.account.steal < self.options.max_steal or attempt == self.options.steal_retries:
                return measured
            self.retried += 1
            log("{}: the host stole {:.0f}% of the CPU meanwhile; measuring it again".format(what, measured.account.steal))

    def large(self, size_mib, peers):
        """8 files of `size_mib` at concurrency 8: Attache (job produced → batch.completed seen) against the peers."""
        paths = self.make_files("large{}".format(size_mib), 8, size_mib * MIB)
        relative = [os.path.relpath(p, self.sources) for p in paths]
        figures = {name: Figure() for name in ["attache", "attache-first-event"] + peers}
        rss = {name: Figure() for name in ["attache"] + peers}
        compare = size_mib <= 64 or self.options.verify_all
        scenario = "large{}".format(size_mib)

        def measure(who, run, attempt):
            self.clear_store()
            tag = "{}-{}{}".format(scenario, run, "r{}".format(attempt) if attempt else "")
            if who == "attache":
                batch = "b-" + tag
                job = {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"}, "concurrency": 8,
                       "files": [{"fileId": "f{}".format(i + 1), "name": os.path.basename(r),
                                  "mimeType": "application/octet-stream", "source": {"path": r}}
                                 for i, r in enumerate(relative)],
                       "message": {"send": "none"}}
                seconds, _, peak, results = self.attache_run(tag, [(batch, job)], measure_rss=True, timeout=600)
                if len(results[batch].get("successful", [])) != 8:
                    raise BenchFailure("batch {} uploaded {} files".format(batch, len(results[batch].get("successful", []))))
                self.stored_check([(p, os.path.join(self.store, "attache", batch, "f{}".format(i + 1), os.path.basename(p)))
                                   for i, p in enumerate(paths)], compare)
                return Measured(seconds, self.account, peak=peak, first_event=self.first_event_delay)
            if who == "curl":
                argv = ["curl", "-sS", "--fail", "--parallel", "--parallel-max", "8", "-o", "/dev/null"]
                for p in paths:
                    argv += ["-T", p, "{}/curl/{}/{}".format(self.base, tag, os.path.basename(p))]
            else:
                argv = ["rclone", "copy", os.path.dirname(paths[0]), ":webdav:rclone/" + tag, "--webdav-url", self.base,
                        "--transfers", "8", "--config", os.devnull, "-q"]
            account = self.services_cpu()
            seconds, peak, cpu = timed(argv, self.workdir, "{}-{}".format(who, tag))
            account.add(who, cpu)
            account.stop()
            self.stored_check([(p, os.path.join(self.store, who, tag, os.path.basename(p))) for p in paths], compare)
            return Measured(seconds, account, peak=peak)

        for run in range(1, self.runs + 1):
            order = ["attache"] + peers
            order = order[(run - 1) % len(order):] + order[:(run - 1) % len(order)]
            for who in order:
                measured = self.steadily(lambda attempt: measure(who, run, attempt), "{} run {}: {}".format(scenario, run, who))
                self.note_cpu(scenario, who, measured.account)
                if measured.first_event is not None:
                    figures["attache-first-event"].add(measured.first_event)
                figures[who].add(measured.seconds)
                rss[who].add(measured.peak / 1024)
                log("{} run {}: {} {:.3f} s, peak RSS {:.1f} MiB".format(scenario, run, who, measured.seconds,
                                                                         measured.peak / 1024))
            self.clear_store()
        return figures, rss

    def small_jobs(self, tag, paths):
        jobs = []
        for i, p in enumerate(paths):
            batch = "s-{}-{}".format(tag, i + 1)
            jobs.append((batch, {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
                                 "files": [{"fileId": "f1", "name": os.path.basename(p), "mimeType": "application/octet-stream",
                                            "source": {"path": os.path.relpath(p, self.sources)}}],
                                 "message": {"send": "none"}}))
        return jobs

    def small(self, worker_counts, with_curl):
        count = self.options.small_jobs
        paths = self.make_files("small", count, 16 * 1024, prefix="s-")
        extra = {"ATTACHE_WORKER_MAX_TRANSFERS": "32"}
        figures = {"curl": Figure()}
        figures.update({n: Figure() for n in worker_counts})
        events = {n: Figure() for n in worker_counts}
        self.small_cpu = {n: Figure() for n in worker_counts}

        def measure(who, run, attempt):
            self.clear_store()
            suffix = "{}{}".format(run, "r{}".format(attempt) if attempt else "")
            if who == "curl":
                tag = "small-curl-" + suffix
                config = os.path.join(self.workdir, tag + ".curlrc")
                with open(config, "w") as f:
                    for p in paths:
                        f.write('upload-file = "{}"\nurl = "{}/curl/{}/{}"\noutput = "/dev/null"\n'.format(
                            p, self.base, tag, os.path.basename(p)))
                account = self.services_cpu()
                seconds, _, cpu = timed(["curl", "-sS", "--fail", "--parallel", "--parallel-max", "32", "-K", config],
                                        self.workdir, tag)
                account.add("curl", cpu)
                account.stop()
                self.stored_check([(p, os.path.join(self.store, "curl", tag, os.path.basename(p))) for p in paths], False)
                return Measured(seconds, account)
            tag = "small{}w-{}".format(who, suffix)
            jobs = self.small_jobs(tag, paths)
            seconds, n_events, _, _ = self.attache_run(tag, jobs, workers=who, extra=extra)
            self.stored_check([(p, os.path.join(self.store, "attache", b, "f1", os.path.basename(p)))
                               for p, (b, _) in zip(paths, jobs)], False)
            return Measured(seconds, self.account, events=n_events, cpu_per_job=self.cpu_per_job)

        for run in range(1, self.runs + 1):
            order = list(worker_counts) + (["curl"] if with_curl else [])
            order = order[(run - 1) % len(order):] + order[:(run - 1) % len(order)]
            for who in order:
                measured = self.steadily(lambda attempt: measure(who, run, attempt), "small run {}: {}".format(run, who))
                self.note_cpu("small", who, measured.account)
                figures[who].add(measured.seconds)
                if who == "curl":
                    log("small run {}: curl {:.3f} s ({:.0f} files/s)".format(run, measured.seconds, count / measured.seconds))
                else:
                    events[who].add(measured.events / measured.seconds)
                    self.small_cpu[who].add(measured.cpu_per_job * 1e6)
                    log("small run {}: attache ×{} {:.3f} s ({:.0f} jobs/s, {:.0f} events/s)".format(
                        run, who, measured.seconds, count / measured.seconds, measured.events / measured.seconds))
            self.clear_store()
        return figures, events

    def intake(self):
        count = self.options.intake_jobs
        rates, event_rates = Figure(), Figure()
        self.intake_cpu = Figure()
        self.intake_held = Figure()
        self.intake_steal = Figure()

        def measure(run, attempt):
            tag = "intake-{}{}".format(run, "r{}".format(attempt) if attempt else "")
            jobs_topic, events_topic = "bench.{}.jobs".format(tag), "bench.{}.events".format(tag)
            self.kafka.create_topic(events_topic, self.workdir)
            path = os.path.join(self.workdir, tag + ".tsv")
            with open(path, "w") as f:
                for i in range(count):
                    batch = "i-{}-{}".format(tag, i)
                    f.write("{}\t{}\n".format(batch, json.dumps(empty_job(batch), separators=(",", ":"))))
            if os.path.getsize(path) / 4 > 4.5 * MIB:
                raise BenchFailure("--intake-jobs {} does not fit the mock cluster's partitions (5 MiB each, 4 per topic)"
                                   .format(count))
            self.kafka.produce(jobs_topic, path)
            worker = Worker(self, "worker-" + tag, "bench-" + tag, jobs_topic, events_topic,
                            {"ATTACHE_LOG_LEVEL": "info"})
            perf = None
            try:
                assigned = worker.wait_assigned()
                cpu_before = worker.cpu_seconds()
                rss_before = worker.rss_kib()
                host = HostSteal()
                if self.options.perf and run == 1 and attempt == 0:
                    perf = self.start_perf(worker)
                expected = 2 * count + 1  # file.rejected + batch.completed per job, and the marker
                deadline = time.time() + 300
                while True:
                    if worker.metric("attache_files_total", "ERR_FILE_DATA_EMPTY") >= count:
                        break
                    if time.time() > deadline or worker.child.process.poll() is not None:
                        raise BenchFailure("intake did not finish: {}".format(worker.child.stderr_text()[-1000:]))
                    time.sleep(0.1)
                while self.kafka.end_offsets(events_topic) < expected:
                    if time.time() > deadline:
                        raise BenchFailure("intake events did not all arrive")
                    time.sleep(0.1)
                host.stop()
                if perf:
                    self.stop_perf(perf)
                accepted = worker.metric("attache_jobs_total", 'outcome="accepted"')
                cpu_per_job = (worker.cpu_seconds() - cpu_before) / count
                # Once the jobs have settled (their snapshots delivered), idle batches leave memory beyond
                # worker.maxCachedBatches at the worker's next sweeps (every 2 s).
                time.sleep(4.5)
                rss_end = worker.rss_kib()
                log("intake: {:.0f} batches still in memory after the run".format(worker.metric("attache_cached_batches")))
                held = (rss_end - rss_before) * 1024 / count
            finally:
                worker.stop()
            events = self.kafka.end_offsets(events_topic) - 1
            if accepted != count or events != 2 * count:
                raise BenchFailure("intake: {} jobs accepted, {} events (expected {} and {})".format(
                    accepted, events, count, 2 * count))
            # The mock cluster keeps the last 5 MiB of each partition: enough for the end time and a look at results.
            records = [r for r in self.kafka.read_all(events_topic) if r[2].startswith("{")]
            completed = [json.loads(r[2]) for r in records if '"type":"attache.batch.completed"' in r[2]]
            if len({e["subject"] for e in completed}) != len(completed) or not all(
                    e["data"]["result"]["rejected"][0]["error"]["code"] == "ERR_FILE_DATA_EMPTY" for e in completed):
                raise BenchFailure("intake: a batch completed twice or not with ERR_FILE_DATA_EMPTY")
            os.remove(path)
            measured = Measured(max(r[0] for r in records) / 1000 - assigned, host, events=events, cpu_per_job=cpu_per_job,
                                held=held)
            return measured

        for run in range(1, self.runs + 1):
            measured = self.steadily(lambda attempt: measure(run, attempt), "intake run {}".format(run))
            seconds = measured.seconds
            rates.add(count / seconds)
            event_rates.add(measured.events / seconds)
            self.intake_cpu.add(measured.cpu_per_job * 1e6)
            self.intake_held.add(measured.held)
            self.intake_steal.add(measured.account.steal)
            log("intake run {}: {} jobs in {:.3f} s ({:.0f} jobs/s, {:.0f} events/s)".format(
                run, count, seconds, count / seconds, measured.events / seconds))
        return rates, event_rates

    def handover(self):
        """A changelog holding `--handover-batches` idle batches over HANDOVER_PARTITIONS partitions, and a fresh
        worker (empty staging, so an empty local store) taking them over: the time from its assignment until a record
        on every partition was applied, which needs each partition's changelog read to its end first."""
        count = self.options.handover_batches
        times, read = Figure(), Figure()
        for run in range(1, self.runs + 1):
            tag = "handover-{}".format(run)
            jobs, events = "bench.{}.jobs".format(tag), "bench.{}.events".format(tag)
            changelog = jobs + ".batches"
            for topic in (jobs, changelog):
                self.create_topic(topic, HANDOVER_PARTITIONS)
            self.kafka.create_topic(events, self.workdir)
            updated = int(time.time() * 1000)
            for partition in range(HANDOVER_PARTITIONS):
                path = os.path.join(self.workdir, "{}-{}.tsv".format(tag, partition))
                with open(path, "w") as f:
                    for i in range(partition, count, HANDOVER_PARTITIONS):
                        batch = "h-{}-{}".format(tag, i)
                        f.write("{}\t{}\n".format(batch, json.dumps(idle_snapshot(batch, updated), separators=(",", ":"))))
                with open(path, "rb") as lines:
                    subprocess.run(["kcat", "-b", self.kafka.brokers, "-t", changelog, "-p", str(partition), "-P", "-K", "\t",
                                    "-z", "none", "-X", "linger.ms=20", "-H", "attache.generation=1", "-H", "attache.pending=0",
                                    "-H", "attache.updated={}".format(updated)], stdin=lines, check=True,
                                   stdout=subprocess.DEVNULL)
                os.remove(path)
            # One job per partition, produced before the worker starts: it is applied once its partition is restored.
            markers = ["m-{}-{}".format(tag, p) for p in range(HANDOVER_PARTITIONS)]
            for partition, marker in enumerate(markers):
                path = os.path.join(self.workdir, "{}-marker.tsv".format(tag))
                with open(path, "w") as f:
                    f.write("{}\t{}\n".format(marker, json.dumps(empty_job(marker), separators=(",", ":"))))
                with open(path, "rb") as lines:
                    subprocess.run(["kcat", "-b", self.kafka.brokers, "-t", jobs, "-p", str(partition), "-P", "-K", "\t"],
                                   stdin=lines, check=True, stdout=subprocess.DEVNULL)
            watcher = EventWatcher(self.kafka, events, self.workdir)
            worker = Worker(self, "worker-" + tag, "bench-" + tag, jobs, events, {"ATTACHE_LOG_LEVEL": "info"})
            try:
                assigned = worker.wait_assigned()
                end = watcher.wait(markers, timeout=120)
                log_text = worker.child.stderr_text()
            finally:
                worker.stop()
                watcher.stop()
            restored = re.findall(r"partition restored .*?recordsRead=(\d+)", log_text)
            total = sum(int(n) for n in restored)
            if len(restored) < HANDOVER_PARTITIONS or total < count:
                raise BenchFailure("handover: {} partitions restored, {} records read (expected {} and {})".format(
                    len(restored), total, HANDOVER_PARTITIONS, count))
            times.add(end - assigned)
            read.add(total)
            log("handover run {}: {} batches restored, records applying {:.2f} s after the assignment".format(
                run, total, end - assigned))
        return times, read

    def scale(self):
        """DESIGN §4.1's scale run, after the end-to-end test `scalingOneToThreeToOneUnderLoadRepeatsAlmostNothing`:
        `--scale-jobs` one-file jobs produced at once, one worker; once 20 of every 150 batches completed, two more
        join the group; once both hold partitions and 80 of every 150 completed, both get SIGTERM (and must exit 0);
        then the first finishes alone. The test counts `message.sent` for its marks; here a worker's message posts
        wait behind its queued uploads (they share `worker.maxTransfers`), so the first posts come when the backlog is
        nearly uploaded, and marks on them would put the scale events after the load. Uploads go through
        ops/bench/faultproxy.py, which reads every PUT body at SCALE_TRICKLE bytes/s, so members join and leave while
        uploads are in flight. Returns Figures of the uploads repeated (% of files) and of message posts per message."""
        count = self.options.scale_jobs
        repeated, posts = Figure(), Figure()
        broker, kafka = None, self.kafka
        if self.options.scale_kafka == "wheel":
            broker = Child("scale-broker", [wheel_python(), MOCK_KAFKA, "--brokers", "1"], self.workdir, stdin_pipe=True)
            kafka = Kafka(broker.first_stdout_line())
            log("scale: librdkafka 2.16's mock cluster (confluent-kafka wheel) at {}".format(kafka.brokers))
        proxy = Child("scale-proxy", [sys.executable, os.path.join(HERE, "faultproxy.py"), "--upstream",
                                      "127.0.0.1:{}".format(self.nginx_port), "--fail-503", "0", "--drop", "0",
                                      "--trickle", str(SCALE_TRICKLE)], self.workdir)
        proxy_url = proxy.first_stdout_line()
        api = Child("scale-presign", [sys.executable, os.path.join(HERE, "presign.py"), "--upload-base",
                                      proxy_url + "/attache"], self.workdir)
        presign_url = api.first_stdout_line()
        messages_url = presign_url.rsplit("/", 1)[0] + "/messages"
        extra = {"ATTACHE_KAFKA_BROKERS": kafka.brokers, "ATTACHE_PRESIGN_URL": presign_url, "ATTACHE_MESSAGES_MODE": "http",
                 "ATTACHE_MESSAGES_URL": messages_url, "ATTACHE_WORKER_MAX_TRANSFERS": "8",
                 # The end-to-end test's session (and attache_run's for groups of several): members that join or leave
                 # are settled in seconds. It also caps worker.revokeGrace at two thirds of it, 4 s.
                 "ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS": "6000", "ATTACHE_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS": "500"}
        try:
            for run in range(1, self.runs + 1):
                measured = self.scale_run("scale-{}".format(run), count, kafka, broker, extra,
                                          proxy_url + "/_faultproxy/puts", messages_url)
                repeated.add(100.0 * measured["repeated"] / count)
                posts.add(measured["posts"] / count)
        finally:
            api.stop()
            proxy.stop()
            if broker:
                broker.stop()
        return repeated, posts

    def scale_run(self, tag, count, kafka, broker, extra, puts_url, posts_url):
        """One 1 → 3 → 1 run on fresh topics (4 partitions, a changelog of its own) and a fresh group; returns the
        repeated uploads and the message posts it counted (from the proxy's `puts_url` and the message API's
        `posts_url`)."""
        jobs_topic, events_topic, group = "bench.{}.jobs".format(tag), "bench.{}.events".format(tag), "bench-" + tag
        prefix = "sc-{}-".format(tag)
        ids = ["{}{}".format(prefix, i) for i in range(count)]
        for topic in (jobs_topic, jobs_topic + ".batches", events_topic):
            self.create_topic(topic, 4, broker)
        watcher = EventWatcher(kafka, events_topic, self.workdir)
        kafka.produce_lines(jobs_topic, ["{}\t{}".format(b, json.dumps(jpeg_job(b, i), separators=(",", ":")))
                                         for i, b in enumerate(ids)], self.workdir)
        grow, shrink = max(1, count * 20 // 150), max(2, count * 80 // 150)
        workers, marks = {}, []

        def mark(what):
            marks.append("{} at {:.1f} s ({} completed, {} sent)".format(what, time.time() - start, watcher.completed_of(ids),
                                                                        watcher.sent_of(ids)))
        try:
            start = time.time()
            workers["a"] = Worker(self, "worker-{}-a".format(tag), group, jobs_topic, events_topic, extra)
            workers["a"].wait_assigned()
            watcher.wait(ids, 120, count=grow)
            mark("b and c start")
            for name in ("b", "c"):
                workers[name] = Worker(self, "worker-{}-{}".format(tag, name), group, jobs_topic, events_topic, extra)
            for name in ("b", "c"):
                workers[name].wait_assigned(timeout=90)
            mark("three hold partitions")
            held = watcher.completed_of(ids)
            watcher.wait(ids, 120, count=shrink)
            mark("SIGTERM to b and c")
            for name in ("b", "c"):
                workers[name].child.terminate()
            for name in ("b", "c"):
                workers[name].stop()
            mark("b and c exited 0")
            watcher.wait_sent(ids, 180)
            watcher.wait(ids, 60)
            mark("every batch sent")
            workers["a"].stop()
        finally:
            for worker in workers.values():
                worker.child.stop()
            watcher.stop()
            shutil.rmtree(os.path.join(self.workdir, "staging"), ignore_errors=True)
        for batch_id in ids:
            result = watcher.completed[batch_id][2]
            if result.get("rejected") or result.get("failed") or len(result.get("successful", [])) != 1:
                raise BenchFailure("batch {} did not upload its file: {}".format(batch_id, json.dumps(result)[:500]))
        puts = {path: n for path, n in json.loads(urllib.request.urlopen(puts_url, timeout=5).read()).items()
                if path.startswith("/attache/" + prefix)}
        sent = {b: muids for b, muids in json.loads(urllib.request.urlopen(posts_url, timeout=5).read())["posts"].items()
                if b.startswith(prefix)}
        if len(puts) != count or len(sent) != count or any(len(set(m)) != 1 for m in sent.values()):
            raise BenchFailure("{}: {} objects uploaded and {} batches posted a message (one muid each) of {}".format(
                tag, len(puts), len(sent), count))
        repeats = sum(n - 1 for n in puts.values())
        total_posts = sum(len(m) for m in sent.values())
        log("{}: {}; {} uploads for {} files ({} repeated), {} posts for {} messages".format(
            tag, ", ".join(marks), sum(puts.values()), count, repeats, total_posts, count))
        if held >= count:
            raise BenchFailure("{}: every batch had completed before three workers held partitions: the run measured no "
                               "handover under load (slow the uploads: SCALE_TRICKLE)".format(tag))
        return {"repeated": repeats, "posts": total_posts}

    def start_perf(self, worker, scenario="intake"):
        """Samples the worker's stacks into ops/bench/work/: by default on cpu-clock (works in VMs without hardware
        counters); `--perf-event sched:sched_switch` instead records every stack a thread went to sleep from."""
        data = os.path.join(HERE, "work", scenario + "-perf.data")
        os.makedirs(os.path.dirname(data), exist_ok=True)
        event = self.options.perf_event
        sampling = ["-F", "1999"] if event == "cpu-clock" else []
        child = Child("perf", ["perf", "record", "-e", event] + sampling + ["-g", "-o", data, "-p", str(worker.child.pid)],
                      self.workdir)
        time.sleep(0.2)
        return child, data, scenario

    def stop_perf(self, perf):
        child, data, scenario = perf
        child.process.send_signal(signal.SIGINT)
        child.process.wait(30)
        child.stop()
        target = os.path.join(HERE, "work", scenario + "-perf.txt")
        with open(target, "wb") as f:
            for mode in ["--no-children", "--children"]:
                f.write("### perf report {} (self, then inclusive)\n".format(mode).encode())
                f.write(subprocess.run(["perf", "report", "-i", data, mode, "--sort", "symbol", "--stdio", "-g", "none",
                                        "--percent-limit", "1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout)
        log("perf profile of the {} run: {} (data: {})".format(scenario, os.path.relpath(target, REPO),
                                                              os.path.relpath(data, REPO)))

    # --- the whole thing ---

    def run(self):
        only = self.options.only
        r = self.results
        if any(s in SCENARIOS for s in only):
            self.start_services()
        if "large" in only:
            log("large: 8 × 64 MiB at concurrency 8 — attache, curl, rclone")
            r["large64"] = self.large(64, ["curl", "rclone"])
        if "memory" in only:
            log("memory: 8 × 256 MiB at concurrency 8 — attache, curl")
            r["large256"] = self.large(256, ["curl"])
        if "small" in only or "fanout" in only:
            counts = [1] + ([2] if "fanout" in only else [])
            log("small: {} one-file 16 KiB jobs — attache with {} worker(s), curl".format(
                self.options.small_jobs, " and ".join(map(str, counts))))
            r["small"] = self.small(counts, with_curl="small" in only)
        if "intake" in only:
            log("intake: {} jobs refused at validation".format(self.options.intake_jobs))
            r["intake"] = self.intake()
        if "handover" in only:
            log("handover: a fresh worker restores {} idle batches before applying records".format(self.options.handover_batches))
            r["handover"] = self.handover()
        if "scale" in only:
            log("scale: {} one-file jobs while the group grows from 1 worker to 3 and back".format(self.options.scale_jobs))
            r["scale"] = self.scale()
        if "soak" in only:
            import soak
            log("soak: {} minutes of broker, store and process faults under two workers".format(self.options.soak_minutes))
            soak.run(self, self.options.soak_minutes, self.options.results, sys.argv[1:], self.options.soak_batch_ttl)
        return self.table()

    def table(self):
        r = self.results
        rows = []

        def verdict(ok):
            return "yes" if ok else "**no**"

        def ratio(a, b):
            return a.median / b.median if a.values and b.values else float("nan")

        def cpu_totals(scenario, who):
            labels = self.cpu.get(scenario, {}).get(who, {})
            runs = min((len(f.values) for f in labels.values()), default=0)
            return labels, Figure(sum(f.values[i] for f in labels.values()) for i in range(runs))

        def cpu_text(scenario, who, name=""):
            labels, total = cpu_totals(scenario, who)
            if not total.values:
                return "—"
            parts = ["{} {:.2f}".format(label, f.median)
                     for label, f in sorted(labels.items(), key=lambda item: -item[1].median) if f.median >= 0.005]
            return "{}{} = {:.2f} ({:.2f} s on {} cores)".format(name, " · ".join(parts), total.median,
                                                                 total.median / cores, cores)

        def cpu_row(title, scenario, who, peer):
            if who not in self.cpu.get(scenario, {}) or peer not in self.cpu.get(scenario, {}):
                return
            rows.append([title + ": CPU s by process, total (÷ cores)", cpu_text(scenario, who), cpu_text(scenario, peer),
                         "{:.2f}×".format(ratio(cpu_totals(scenario, who)[1], cpu_totals(scenario, peer)[1])), "", ""])
            stolen = self.steal.get(scenario, {})
            rows.append([title + ": CPU the host stole while timed, %", stolen[who].text("{:.1f}"),
                         "{} {}".format(peer if isinstance(peer, str) else "", stolen[peer].text("{:.1f}")).strip(),
                         "—", "", ""])

        cores = os.cpu_count() or 1

        if "large64" in r:
            times, rss = r["large64"]
            mib = 8 * 64
            a = times["attache"]
            for peer, target, test in [("curl", "≤ 1.10×", lambda x: x <= 1.10), ("rclone", "< 1.00×", lambda x: x < 1.0)]:
                x = ratio(a, times[peer])
                rows.append(["large 8×64 MiB, c=8: time s (MiB/s)", "{} ({:.0f})".format(a.text(), mib / a.median),
                             "{} {} ({:.0f})".format(peer, times[peer].text(), mib / times[peer].median),
                             "{:.2f}×".format(x), target, verdict(test(x))])
            rows.append(["large 8×64 MiB: Attache's time to its first progress event (staging, presign) s",
                         times["attache-first-event"].text(), "—", "—", "", ""])
            rows.append(["large 8×64 MiB: peak RSS MiB", rss["attache"].text("{:.1f}"),
                         "curl {} · rclone {}".format(rss["curl"].text("{:.1f}"), rss["rclone"].text("{:.1f}")),
                         "{:.2f}×".format(ratio(rss["attache"], rss["curl"])), "≤ 64 MiB",
                         verdict(rss["attache"].median <= 64)])
            cpu_row("large 8×64 MiB", "large64", "attache", "curl")
        if "large256" in r:
            times, rss = r["large256"]
            a = times["attache"]
            x = ratio(a, times["curl"])
            rows.append(["large 8×256 MiB, c=8: time s (MiB/s)", "{} ({:.0f})".format(a.text(), 2048 / a.median),
                         "curl {} ({:.0f})".format(times["curl"].text(), 2048 / times["curl"].median),
                         "{:.2f}×".format(x), "—", ""])
            rows.append(["large 8×256 MiB: Attache's time to its first progress event s",
                         times["attache-first-event"].text(), "—", "—", "", ""])
            flat = ""
            ok = rss["attache"].median <= 64
            if "large64" in r:
                base = r["large64"][1]["attache"].median
                flat = "; ×4 size → {:+.1f} MiB".format(rss["attache"].median - base)
                ok = ok and rss["attache"].median - base <= 8
            rows.append(["large 8×256 MiB: peak RSS MiB", rss["attache"].text("{:.1f}") + flat,
                         "curl {}".format(rss["curl"].text("{:.1f}")), "{:.2f}×".format(ratio(rss["attache"], rss["curl"])),
                         "≤ 64 MiB, flat (≤ +8 MiB)", verdict(ok)])
            cpu_row("large 8×256 MiB", "large256", "attache", "curl")
        if "small" in r:
            times, events = r["small"]
            n = self.options.small_jobs
            if 1 in times and times["curl"].values:
                a = times[1]
                x = ratio(a, times["curl"])
                rows.append(["small {}×16 KiB jobs, 1 worker: time s".format(n), a.text("{:.2f}"),
                             "curl {}".format(times["curl"].text()), "{:.2f}×".format(x), "≤ 2.0×", verdict(x <= 2.0)])
            rows.append(["small: worker CPU per job µs (1 worker)", self.small_cpu[1].text("{:.0f}"), "—", "—", "", ""])
            cpu_row("small, 1 worker", "small", 1, "curl")
            for w in sorted(k for k in times if k != "curl"):
                jobs_rate = Figure(n / s for s in times[w].values)
                rows.append(["small, {} worker{}: jobs/s · events/s".format(w, "s" if w > 1 else ""),
                             "{} · {}".format(jobs_rate.text("{:.0f}"), events[w].text("{:.0f}")),
                             "curl {} files/s".format(Figure(n / s for s in times["curl"].values).text("{:.0f}"))
                             if times["curl"].values else "—",
                             "{:.2f}×".format(ratio(times[w], times["curl"])) if times["curl"].values else "—", "", ""])
            if 2 in times:
                rows.append(["fan-out, small run: 2 workers vs 1, time s", "{} (speed-up {:.2f}×)".format(
                    times[2].text(), times[1].median / times[2].median), "1 worker {}".format(times[1].text()),
                             "{:.2f}×".format(times[2].median / times[1].median), "—", ""])
        if "intake" in r:
            rates, event_rates = r["intake"]
            rows.append(["intake {} refused jobs: jobs/s · events/s".format(self.options.intake_jobs),
                         "{} · {}".format(rates.text("{:.0f}"), event_rates.text("{:.0f}")), "—", "—", "≥ 20,000 jobs/s",
                         verdict(rates.median >= 20000)])
            rows.append(["intake: worker CPU per job µs", self.intake_cpu.text("{:.0f}"), "—", "—",
                         "(≤ 50 µs ≈ 20,000 jobs/s on one core)", ""])
            rows.append(["intake: memory held per idle batch after the run, bytes (RSS growth ÷ jobs, one batch each)",
                         self.intake_held.text("{:.0f}"), "—", "—", "≤ 300 bytes", verdict(self.intake_held.median <= 300)])
            rows.append(["intake: CPU the host stole while timed, %", self.intake_steal.text("{:.1f}"), "—", "—", "", ""])
        if "handover" in r:
            times, read = r["handover"]
            rows.append(["handover: a worker taking over {:,} idle batches on {} partitions, assignment → records applying, s".format(
                self.options.handover_batches, HANDOVER_PARTITIONS), times.text("{:.2f}"), "—", "—", "≤ 5 s",
                verdict(times.median <= 5)])
            rows.append(["handover: changelog records read while restoring", read.text("{:.0f}"), "—", "—", "", ""])
        if "scale" in r:
            repeated, posts = r["scale"]
            rows.append(["scale 1→3→1 under load: uploads repeated, % of files", repeated.text("{:.1f}"), "—", "—", "≤ 5 %",
                         verdict(repeated.median <= 5)])
            rows.append(["scale 1→3→1 under load: message posts ÷ messages", posts.text("{:.3f}"), "—", "—", "≤ 1.05×",
                         verdict(posts.median <= 1.05)])
        header = ["scenario", "Attache median [min–max]", "peer median [min–max]", "Attache/peer", "target", "met"]
        return [header] + rows


HANDOVER_PARTITIONS = 24  # librdkafka's mock keeps about 5 MiB per partition: 100,000 snapshots need this many
MOCK_KAFKA = os.path.join(REPO, "Tests", "EndToEndTests", "Support", "mock_kafka.py")
SCALE_TRICKLE = 8 * 1024  # bytes/s at which the scale run's proxy reads each PUT body: about 2 s per 16 KiB file
JPEG_MAGIC = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00])


def idle_snapshot(batch, updated):
    """A changelog snapshot (format 1) of an idle batch with one uploaded file, as a worker writes it."""
    attachment = {"name": "photo.jpg", "url": "https://cdn.example/{}/f1/photo.jpg".format(batch), "mimeType": "image/jpeg",
                  "size": 48213, "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
    return {"v": 1, "batchId": batch, "receiver": {"id": "u", "type": "user"}, "concurrency": 1, "message": {"send": "auto"},
            "files": [{"fileId": "f1", "slot": 0, "name": "photo.jpg", "mimeType": "image/jpeg", "requestId": "r-" + batch,
                       "generation": 0, "attempt": 1, "state": "uploaded", "attachment": attachment,
                       "source": {"url": "https://files.example/{}.jpg".format(batch)}}],
            "rejectedDropped": 0, "nextSlot": 1, "sent": [{"muid": "m-" + batch, "fileIds": ["f1"]}], "captionSent": True,
            "sendDue": False, "sendRequestId": "r-" + batch, "lastRequestId": "r-" + batch, "sequence": 4, "stateVersion": 6,
            "completions": 1, "appliedThrough": 0, "updatedAt": updated, "writerGeneration": 1}


def inline_job(batch, data):
    import base64
    return {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
            "files": [{"fileId": "f1", "name": "warm.txt", "mimeType": "text/plain",
                       "source": {"data": base64.b64encode(data).decode()}}], "message": {"send": "none"}}


def wheel_python():
    """The test venv's python, whose confluent-kafka wheel carries librdkafka 2.16 (ops/install-deps test)."""
    return os.path.join(REPO, ".venv", "bin", "python")


def jpeg_job(batch, seed):
    """A one-file job, as the end-to-end scale test writes it: 16 KiB of inline jpeg (real magic bytes), send auto."""
    import base64
    data = JPEG_MAGIC + bytes((i * 7 + seed) & 0xFF for i in range(16 * 1024 - len(JPEG_MAGIC)))
    return {"kind": "upload", "batchId": batch, "receiver": {"id": "uid-1", "type": "user"}, "sender": "uid-7",
            "files": [{"fileId": "f", "name": "f.jpg", "mimeType": "image/jpeg", "source": {"data": base64.b64encode(data).decode()}}],
            "message": {"send": "auto", "metadata": {"suite": "bench"}}}


def empty_job(batch):
    return {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"},
            "files": [{"fileId": "f1", "name": "a.txt", "mimeType": "text/plain", "source": {"data": ""}}],
            "message": {"send": "none"}}


def markdown(rows):
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        lines.append("| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |")
        if n == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def environment(bench, started, finished):
    def first_line(argv):
        try:
            out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()
            return out.strip().splitlines()[0]
        except Exception:
            return "?"
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except Exception:
        pass
    commit = first_line(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    if subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                      stdout=subprocess.PIPE).stdout.strip():
        commit += " with local changes"
    kcat = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "kcat"], stdout=subprocess.PIPE).stdout.decode() or "?"
    return [
        "- machine: {} × {}, {} GiB RAM, Linux {}".format(os.cpu_count(), cpu,
                                                          round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)),
                                                          platform.release()),
        "- attache release build of commit {}; {}; {}; nginx {}; kcat {}; librdkafka mock cluster (`attache dev-broker`)".format(
            commit, first_line(["curl", "--version"]).split(" (")[0], first_line(["rclone", "version"]),
            first_line(["/usr/sbin/nginx", "-v"]).replace("nginx version: nginx/", ""), kcat),
        "- {} run(s) per figure, {} → {} ({:.0f} s)".format(bench.runs, time.strftime("%Y-%m-%d %H:%M", time.localtime(started)),
                                                           time.strftime("%H:%M", time.localtime(finished)), finished - started),
        "- files, staging and nginx's store in {} ({})".format(os.path.dirname(bench.workdir),
                                                                "tmpfs, RAM" if bench.on_tmpfs else "disk"),
        "- runs during which the host stole {:.0f}% or more of the CPU are measured again, up to {} times: {} were".format(
            bench.options.max_steal, bench.options.steal_retries, bench.retried),
    ]


NOTES = """How the figures are taken:
- Times are wall-clock seconds. Attache: from just before `kcat -P` starts producing the job(s) to the moment the
  last `attache.batch.completed` is seen by a kcat consumer already following the events topic. Each run has a fresh
  worker (fresh group and topics) that already holds its partitions and has finished warm-up jobs. curl/rclone: the
  process's whole life. The contenders take turns going first from run to run.
- Attache stages every file (a copy into its staging directory with SHA-256 on the way) before uploading it; curl
  and rclone read the source files directly. Copies run one per core, so the first files upload while later ones
  are still being copied. All three PUT to the same nginx (WebDAV, `worker_processes auto`).
  "Time to its first progress event" is the part of Attache's time spent before the first bytes went out.
- CPU by process: user + system seconds each process used during the timed part of a run (from /proc, and from
  `/usr/bin/time` for curl and rclone), summed with the services it drove (nginx master and workers, the broker,
  the presign endpoint, kcat producing and following). Total ÷ cores is the shortest time that work could take on
  this machine if nothing ever waited: when it is close to the measured time, the machine was saturated and the
  time can only fall with the CPU.
- Peak RSS: the worker's VmHWM at the end of the run; curl/rclone from `/usr/bin/time`. "Flat" = the 8×256 MiB
  median exceeds the 8×64 MiB median by at most 8 MiB.
- Small files: the same 16 KiB files as `path` sources, one job each, `worker.maxTransfers=32`; curl runs
  `--parallel --parallel-max 32`. Attache also presigns each job's file with ops/bench/presign.py. Events/s counts
  every event about the measured batches (progress, uploaded, completed).
- Fan-out: the small run with 2 worker processes in one group, both started together (4 partitions, 2 each).
- Intake: all jobs are produced before the worker starts; from the worker's `partitions assigned` log line to the
  Kafka timestamp of the last event it produced. Each job yields `file.rejected` + `batch.completed`; the counts are
  checked against the events topic's end offsets and the worker's metrics. Every job is a batch of its own, so the
  run leaves 50,000 idle batches; their snapshots go to a changelog (`<jobs topic>.batches`) and the local store.
  "Memory held per idle batch" is the worker's RSS growth from its assignment to 4.5 s after the last job (two of its
  2-second sweeps, which let idle batches beyond `worker.maxCachedBatches` (10,000) leave memory), divided by the
  jobs: the cached batches, SQLite's page cache and what the allocator keeps, spread over the batches.
- Handover: the changelog is written directly (kcat, 24 partitions, one idle one-file snapshot of about 0.9 KB per
  batch), one job per partition is produced, and a worker with an empty staging directory starts: the time from its
  `partitions assigned` log line until the last of the 24 jobs completed. It reads every changelog record into its
  SQLite store first (`partition restored … recordsRead=` in its log, summed in the next row).
- Scale 1→3→1 (DESIGN §4.1, after the end-to-end test `scalingOneToThreeToOneUnderLoadRepeatsAlmostNothing`): 150
  one-file jobs (16 KiB of inline jpeg, `send = auto`) are produced at once to fresh topics (4 partitions, a changelog
  of their own) and a fresh group; one worker starts; once 20 batches completed two more join; once both hold
  partitions and 80 completed, both get SIGTERM together and must exit 0; the first then finishes alone, until every
  batch completed with its file and had `message.sent`. Workers as in the test: `worker.maxTransfers=8`, session 6 s
  (which caps `worker.revokeGrace` at 4 s), messages over HTTP to ops/bench/presign.py's message API, which counts
  every post by `data.metadata.batchId`. Every PUT goes through ops/bench/faultproxy.py, which reads bodies at 8 KiB/s
  (about 2 s per file, as the test trickles them), so the members join and leave while uploads are in flight; it counts
  the PUTs per object path as their heads arrive. "Uploads repeated" = Σ (PUTs of a path − 1) ÷ files: an upload
  cut off on a member that gave its partitions up (at the end of the revoke grace, or because they were lost) and
  made again by their new owner, so at most about `worker.maxTransfers` per handover. "Message posts ÷ messages" =
  posts ÷ batches (one message each). The test marks on `message.sent`; here posts wait behind the worker's queued
  uploads (one HTTP client, `worker.maxTransfers` slots, in arrival order), so the first posts come when the backlog
  is nearly uploaded, and the marks count `batch.completed` instead. Kafka for this run is librdkafka 2.16's mock
  (the confluent-kafka wheel in the test venv), as in the test: librdkafka 2.0.2's (`attache dev-broker`,
  `--scale-kafka dev-broker`) can drop the member that was there first when another joins, so that its partitions
  are lost rather than revoked.
- Ratios are Attache/peer of the medians (time or RSS): below 1 means Attache is faster or smaller.
- Kafka is librdkafka's mock cluster (`attache dev-broker`). It holds an empty fetch for the consumer's whole
  `fetch.wait.max.ms` even when records arrive meanwhile, so the workers run with `fetch.wait.max.ms=10` (a real
  broker answers as soon as data is there); it keeps only the last 5 MiB of each partition.
- Memory written for the first time in a while is slow on a virtual machine that hands freed pages back to its host
  (virtio-balloon free page reporting): writing 8 × 256 MiB into tmpfs took from 1.2 s to 5.5 s in a row here.
  Attache writes each file twice (staging copy, then nginx's copy) where the peers write it once, so on such a
  machine the gap grows with the bytes, and nginx's own CPU for the same upload rises with it.
- Everything (broker, nginx, presign endpoint, kcat, the client under test) shares the machine's cores, and other
  work on the machine is not stopped, so spreads can be wide; the ratios are the point.
- "CPU the host stole": on a virtual machine, the share of the CPU time the machine wanted during a timed run that
  the hypervisor gave to other guests instead (`steal` in /proc/stat, over busy + steal). Every process of the run
  loses it alike, so a run with much steal is slow for a reason outside it; when Attache's and the peer's runs
  saw very different steal, their ratio says more about the host than about them. A run that lost `--max-steal`
  (10%) or more is measured again (`--steal-retries`, 2), Attache's and the peers' alike; the line above says how
  many were."""


def main():
    parser = argparse.ArgumentParser(description="Attache against curl and rclone; see ops/bench/run.")
    parser.add_argument("--runs", type=int, default=3, help="measurements per figure (median, min, max); default 3")
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help="comma-separated subset of: " + ", ".join(SCENARIOS + EXTRA_SCENARIOS)
                        + " (default: all but soak)")
    parser.add_argument("--soak-minutes", type=float, default=10.0, help="how long the soak injects faults (default 10)")
    parser.add_argument("--soak-batch-ttl", help="the soak's worker.batchTTL, e.g. 30s (default: the worker's own)")
    parser.add_argument("--dir", help="where to put files, staging and nginx's store (default: /dev/shm, else $TMPDIR)")
    parser.add_argument("--small-jobs", type=int, default=2000)
    parser.add_argument("--intake-jobs", type=int, default=50000)
    parser.add_argument("--handover-batches", type=int, default=100000)
    parser.add_argument("--scale-jobs", type=int, default=150, help="one-file jobs of the scale run (default 150)")
    parser.add_argument("--scale-kafka", choices=["wheel", "dev-broker"], default="wheel",
                        help="the scale run's Kafka: librdkafka 2.16's mock from the test venv's confluent-kafka wheel "
                        "(default), or `attache dev-broker` (librdkafka 2.0.2's mock)")
    parser.add_argument("--attache", default=os.path.join(REPO, ".build", "release", "attache"))
    parser.add_argument("--results", default=os.path.join(HERE, "results.md"), help="where to write the table")
    parser.add_argument("--perf", action="store_true", help="profile the first one-worker run of each scenario with perf (ops/bench/work/)")
    parser.add_argument("--perf-event", default="cpu-clock",
                        help="what --perf records: cpu-clock (default) or a tracepoint such as sched:sched_switch")
    parser.add_argument("--max-steal", type=float, default=10.0,
                        help="measure a run again when the host stole this share (%%) of the CPU during it (default 10)")
    parser.add_argument("--steal-retries", type=int, default=2, help="how many times a run is measured again (default 2)")
    parser.add_argument("--verify-all", action="store_true", help="compare stored bytes for 256 MiB files too")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    options = parser.parse_args()
    options.only = [s.strip() for s in options.only.split(",") if s.strip()]
    unknown = [s for s in options.only if s not in SCENARIOS + EXTRA_SCENARIOS]
    if unknown or options.runs < 1:
        parser.error("unknown scenario(s) {} or --runs < 1".format(", ".join(unknown)))
    for tool in ["kcat", "curl", "rclone", "/usr/sbin/nginx", "/usr/bin/time"]:
        if not shutil.which(tool):
            parser.error("{} is missing: run ops/install-deps bench".format(tool))
    if "scale" in options.only and options.scale_kafka == "wheel" and not (os.access(wheel_python(), os.X_OK) and subprocess.run(
            [wheel_python(), "-c", "import confluent_kafka"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0):
        parser.error("the scale run needs librdkafka 2.16's mock from {}'s confluent-kafka: run ops/install-deps test, "
                     "or pass --scale-kafka dev-broker".format(os.path.relpath(wheel_python(), REPO)))
    if options.perf and not shutil.which("perf"):
        parser.error("--perf needs perf: apt-get install linux-perf")
    if not os.access(options.attache, os.X_OK):
        parser.error("{} is not built: swift build -c release --product attache".format(options.attache))

    bench = Bench(options)
    started = time.time()

    def on_signal(number, _):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        rows = bench.run()
    except (BenchFailure, KeyboardInterrupt) as error:
        Child.stop_all()
        log("stopped: {}".format(error or "interrupted"))
        log("logs kept in {}".format(os.path.join(bench.workdir, "logs")))
        return 1
    except BaseException:
        Child.stop_all()
        log("logs kept in {}".format(os.path.join(bench.workdir, "logs")))
        raise
    Child.stop_all()
    if not options.keep:
        shutil.rmtree(bench.workdir, ignore_errors=True)
    finished = time.time()
    if len(rows) == 1:  # only the soak ran; it wrote its own section
        return 0
    table = markdown(rows)
    text = "# Attache benchmarks against peers\n\nProduced by `ops/bench/run {}`.\n\n{}\n\n{}\n\n{}\n".format(
        " ".join(sys.argv[1:]), "\n".join(environment(bench, started, finished)), table, NOTES)
    print(table)
    import soak
    previous = open(options.results).read() if os.path.exists(options.results) else ""
    with open(options.results, "w") as f:
        f.write(text + ("\n" + soak.soak_section(previous) if soak.soak_section(previous) else ""))
    log("table written to {}".format(os.path.relpath(options.results, REPO)))
    return 0


if __name__ == "__main__":
    # ops/bench/soak.py imports this file as `bench`: let it find this very module, not a second copy.
    sys.modules.setdefault("bench", sys.modules[__name__])
    sys.exit(main())
