"""The soak (`ops/bench/run --only soak [--soak-minutes M]`): two workers in one group under a steady mixed job
stream for M minutes while Kafka, the object store and the workers themselves misbehave; then every job is checked.

- Kafka: `attache dev-broker --brokers 3 --faults`; a schedule feeds it fault commands on its standard input
  (request errors on produce, fetch, offsetcommit and heartbeat; a broker down for a few seconds; partition leaders
  and the group coordinator moving; round-trip-time spikes).
- The store: nginx (WebDAV) behind ops/bench/faultproxy.py, which answers a share of PUTs 503 and cuts off others
  mid-body; ops/bench/presign.py points every upload URL at the proxy. The workers retry (retry.maxAttempts 10).
- Workers: two, one group, short session; every minute the second is killed with SIGKILL and started again on its
  staging directory. The first lives through the whole soak, so its RSS shows whether memory stays flat.
- Jobs: one-file inline jobs, `path` jobs, multi-file jobs mixing both and several types (several messages), and
  records that are invalid as a whole (to the dead-letter topic); every valid job has `message.send = auto` and the
  workers send messages to a Kafka topic (`messages.mode = kafka`), so each batch also ends in `message.sent`.

At the end the faults stop, the soak waits for every batch to be complete and messaged, then reads the events, jobs,
dead-letter and messages topics afresh and checks: no batch missing, every file uploaded (last batch.completed, the
store's bytes), every expected event type per batch, one dead letter per invalid record. The table goes to stdout and
to results.md under its own heading.
"""
import base64
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

import bench
from bench import BenchFailure, Child, Kafka, Worker, free_port, log, markdown, wait_for_port

HEADING = "## Soak: two workers under broker, store and process faults"
JOBS, EVENTS, DLQ, MESSAGES, GROUP = "soak.jobs", "soak.events", "soak.dlq", "soak.messages", "soak"
APIS = ["produce", "fetch", "offsetcommit", "heartbeat", "metadata", "joingroup", "syncgroup", "findcoordinator"]
KIB = 1024


class FaultyBroker:
    """`attache dev-broker --brokers N --faults`: the bootstrap list, then one answer line per fault command."""

    def __init__(self, attache, workdir, brokers=3):
        self.brokers = brokers
        self.child = Child("broker", [attache, "dev-broker", "--brokers", str(brokers), "--faults"], workdir,
                           stdin_pipe=True)
        self.bootstrap = self.child.first_stdout_line()
        self.lock = threading.Lock()
        self.answered = 1  # stdout lines so far: the bootstrap list
        self.journal = open(os.path.join(workdir, "logs", "soak-faults.tsv"), "w")

    def crashed(self):
        """Why the broker is gone (the first line it wrote to stderr), or None while it runs."""
        if self.child.process.poll() is None:
            return None
        lines = self.child.stderr_text().strip().splitlines()
        return "dev-broker exited {}: {}".format(self.child.process.returncode, lines[0] if lines else "(no output)")

    def send(self, command, timeout=10):
        """Sends one command and returns its answer; an `error:` answer is a mistake of the soak, so it raises."""
        with self.lock:
            self.journal.write("{}\t{}\n".format(time.strftime("%H:%M:%S"), command))
            self.journal.flush()
            try:
                self.child.process.stdin.write((command + "\n").encode())
                self.child.process.stdin.flush()
            except OSError:
                raise BenchFailure(self.crashed() or "dev-broker stopped reading fault commands")
            deadline = time.time() + timeout
            while time.time() < deadline:
                lines = self.child.stdout_text().split("\n")
                if len(lines) > self.answered + 1:  # a complete answer line (the text ends with "\n")
                    answer = lines[self.answered]
                    self.answered += 1
                    if answer != "ok":
                        raise BenchFailure("dev-broker refused '{}': {}".format(command, answer))
                    return answer
                time.sleep(0.01)
        raise BenchFailure(self.crashed() or "dev-broker did not answer '{}'".format(command))


class FaultSchedule(threading.Thread):
    """Injects a broker fault every `interval` seconds, in a shuffled cycle of kinds; undoes the timed ones."""

    KINDS = ["produce errors", "fetch errors", "offsetcommit errors", "heartbeat errors", "broker down",
             "leaders moved", "coordinator moved", "rtt spike"]

    def __init__(self, broker, partitions, interval=3.0, seed=1):
        super().__init__(daemon=True)
        self.broker, self.partitions, self.interval = broker, partitions, interval
        self.rng = random.Random(seed)
        self.counts = {kind: 0 for kind in self.KINDS}
        self.undo = []  # (due time, command)
        # The group's coordinator is set, and known, so that "broker down" can spare it: librdkafka 2.0's mock group
        # coordinator aborts (rdkafka_mock_cgrp.c, `Assertion !member->resp`) when a member sends JoinGroup again
        # while its earlier one is still held, which a coordinator dropping its connections during a rebalance
        # (every kill starts one) provokes. A real broker answers the second JoinGroup.
        self.coordinator = 1
        self.down = set()
        self.broker.send("coordinator {} {}".format(GROUP, self.coordinator))
        self.stopping = threading.Event()
        self.error = None

    def inject(self, kind):
        rng, broker = self.rng, self.rng.randint(1, self.broker.brokers)
        if kind == "produce errors":
            self.broker.send("errors produce " + ",".join(rng.choice(
                ["NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT", "NOT_ENOUGH_REPLICAS", "LEADER_NOT_AVAILABLE"])
                for _ in range(rng.randint(1, 4))))
        elif kind == "fetch errors":
            self.broker.send("errors fetch " + ",".join(rng.choice(
                ["NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT", "LEADER_NOT_AVAILABLE"]) for _ in range(rng.randint(1, 4))))
        elif kind == "offsetcommit errors":
            self.broker.send("errors offsetcommit " + ",".join(rng.choice(
                ["COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR", "REQUEST_TIMED_OUT", "COORDINATOR_LOAD_IN_PROGRESS"])
                for _ in range(rng.randint(1, 3))))
        elif kind == "heartbeat errors":
            self.broker.send("errors heartbeat " + ",".join(rng.choice(
                ["NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS"])
                for _ in range(rng.randint(1, 3))))
        elif kind == "broker down":
            broker = rng.choice([b for b in range(1, self.broker.brokers + 1) if b != self.coordinator and b not in self.down])
            self.broker.send("down {}".format(broker))
            self.down.add(broker)
            self.undo.append((time.time() + rng.uniform(2.0, 5.0), "up {}".format(broker)))
        elif kind == "leaders moved":
            for topic in (JOBS, EVENTS):
                partition = rng.randrange(self.partitions[topic])
                self.broker.send("leader {} {} {}".format(topic, partition, broker))
        elif kind == "coordinator moved":
            broker = rng.choice([b for b in range(1, self.broker.brokers + 1) if b not in self.down])
            self.broker.send("coordinator {} {}".format(GROUP, broker))
            self.coordinator = broker
        elif kind == "rtt spike":
            self.broker.send("rtt {} {}".format(broker, rng.choice([100, 250, 500])))
            self.undo.append((time.time() + rng.uniform(3.0, 6.0), "rtt {} 0".format(broker)))
        self.counts[kind] += 1

    def run(self):
        cycle = []
        try:
            while not self.stopping.wait(self.interval):
                self._undo_due(time.time())
                if not cycle:
                    cycle = list(self.KINDS)
                    self.rng.shuffle(cycle)
                self.inject(cycle.pop())
        except Exception as error:  # reported by stop(), which the soak always calls
            self.error = error

    def _undo_due(self, now):
        for entry in [u for u in self.undo if u[0] <= now]:
            self.undo.remove(entry)
            self.broker.send(entry[1])
            if entry[1].startswith("up "):
                self.down.discard(int(entry[1].split()[1]))

    def stop(self):
        """Stops injecting and returns the cluster to health: every broker up, no delay, no queued errors."""
        self.stopping.set()
        self.join()
        self._undo_due(float("inf"))
        for b in range(1, self.broker.brokers + 1):
            self.broker.send("up {}".format(b))
            self.broker.send("rtt {} 0".format(b))
        for api in APIS:
            self.broker.send("clear " + api)
        if self.error:
            raise self.error


class JobStream(threading.Thread):
    """Produces a tick of jobs every second: two inline one-file jobs, a `path` job every other tick, a multi-file
    job every third, an invalid record every seventh. Records what it sent."""

    MIMES = ["image/png", "text/plain", "application/pdf", "image/jpeg", "video/mp4", "audio/mpeg"]
    INVALID = ["not json {{", "[1, 2, 3]", '{{"kind": "explode", "batchId": "{key}"}}',
               '{{"kind": "upload", "batchId": "{key}", "receiver": {{"id": "u", "type": "robot"}}, "files": []}}',
               '{{"kind": "upload", "batchId": "{key}", "receiver": {{"id": "u", "type": "user"}}, "files": {{}}}}']

    def __init__(self, soak, seconds):
        super().__init__(daemon=True)
        self.soak, self.seconds = soak, seconds
        self.rng = random.Random(2)
        self.jobs = {}  # batchId -> [file dict with fileId, name, mimeType, size, source kind]
        self.kinds = {"inline": 0, "path": 0, "multi": 0}
        self.invalid = []  # record keys
        self.failed_ticks = []  # (tick, kcat's complaint): records of those ticks may be missing from the topic
        self.stopping = threading.Event()

    def _file(self, file_id, inline):
        mime = self.rng.choice(self.MIMES)
        if inline:
            data = os.urandom(self.rng.randint(100, 3 * KIB))
            return {"fileId": file_id, "name": file_id + ".bin", "mimeType": mime,
                    "source": {"data": base64.b64encode(data).decode()}}, len(data)
        path = self.rng.choice(self.soak.paths)
        return {"fileId": file_id, "name": os.path.basename(path), "mimeType": mime,
                "source": {"path": os.path.relpath(path, self.soak.sources)}}, os.path.getsize(path)

    def _job(self, batch, kind, files):
        entries, sizes = [], {}
        for file_id, inline in files:
            entry, size = self._file(file_id, inline)
            entries.append(entry)
            sizes[file_id] = size
        self.jobs[batch] = [dict(fileId=e["fileId"], name=e["name"], size=sizes[e["fileId"]]) for e in entries]
        self.kinds[kind] += 1
        job = {"kind": "upload", "batchId": batch, "receiver": {"id": "u", "type": "user"}, "files": entries,
               "message": {"send": "auto", "caption": "soak " + batch}}
        return "{}\t{}".format(batch, json.dumps(job, separators=(",", ":")))

    def tick(self, n):
        lines = [self._job("s-{}-{}".format(n, x), "inline", [("f1", True)]) for x in "ab"]
        if n % 2 == 1:
            lines.append(self._job("p-{}".format(n), "path", [("f1", False)]))
        if n % 3 == 0:
            lines.append(self._job("m-{}".format(n), "multi", [("f1", True), ("f2", False), ("f3", True), ("f4", False)]))
        if n % 7 == 0:
            key = "bad-{}".format(n)
            self.invalid.append(key)
            lines.append("{}\t{}".format(key, self.INVALID[(n // 7) % len(self.INVALID)].format(key=key)))
        return lines

    def produce(self, lines, n):
        path = os.path.join(self.soak.workdir, "tick.tsv")
        with open(path, "w") as f:
            f.writelines(line + "\n" for line in lines)
        with open(path, "rb") as records:
            done = subprocess.run(["kcat", "-b", self.soak.kafka.brokers, "-t", JOBS, "-P", "-K", "\t", "-z", "none",
                                   "-X", "linger.ms=5", "-X", "enable.idempotence=true",
                                   "-X", "message.timeout.ms=60000"],
                                  stdin=records, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            self.failed_ticks.append((n, done.stderr.decode(errors="replace").strip()[-300:]))
            log("soak: kcat could not deliver tick {}: {}".format(n, self.failed_ticks[-1][1]))

    def run(self):
        start, n = time.time(), 0
        while not self.stopping.is_set() and time.time() - start < self.seconds:
            n += 1
            self.produce(self.tick(n), n)
            self.stopping.wait(max(0.0, start + n - time.time()))


class LiveEvents:
    """Follows the events topic; knows which batches are complete, messaged, or (invalid records) dead-lettered."""

    def __init__(self, kafka, workdir):
        self.lock = threading.Lock()
        self.completed = {}  # batchId -> last result
        self.messaged = {}  # batchId -> set of fileIds in message.sent
        self.invalid = set()
        self.total = 0
        self.kafka, self.workdir = kafka, workdir
        self.stopping = False
        self.follows = 0
        self._start_kcat()
        threading.Thread(target=self._follow, daemon=True).start()

    def _start_kcat(self):
        # -E: a fetch answered with an error (the soak injects them) is not a reason for kcat to exit.
        self.follows += 1
        self.kcat = Child("watch-events.{}".format(self.follows), ["kcat", "-b", self.kafka.brokers, "-t", EVENTS, "-C",
                                                                  "-o", "beginning", "-u", "-q", "-E", "-f", "%s\n"],
                          self.workdir, stdout_pipe=True)

    def _follow(self):
        while True:
            for raw in self.kcat.process.stdout:
                self._note(raw)
            if self.stopping:
                return
            # kcat gave up all the same: read the topic again from the beginning (what is noted is idempotent).
            log("soak: the events follower exited ({}); following again".format(self.kcat.stderr_text().strip()[-200:]))
            self.kcat.stop()
            self._start_kcat()

    def _note(self, raw):
        if raw.startswith(b"{"):
            event = json.loads(raw)
            kind, subject, data = event.get("type"), event.get("subject", ""), event.get("data", {})
            with self.lock:
                self.total += 1
                if kind == "attache.batch.completed":
                    self.completed[subject] = data["result"]
                elif kind == "attache.message.sent":
                    self.messaged.setdefault(subject, set()).update(data.get("fileIds", []))
                elif kind == "attache.job.invalid":
                    self.invalid.add(subject)

    def outstanding(self, jobs, invalid):
        """The batches not yet finished: every file successful in the last batch.completed, and messaged."""
        with self.lock:
            left = []
            for batch, files in jobs.items():
                result = self.completed.get(batch)
                ids = {f["fileId"] for f in files}
                if (result is None or {s["fileId"] for s in result.get("successful", [])} != ids
                        or not ids <= self.messaged.get(batch, set())):
                    left.append(batch)
            left += [key for key in invalid if key not in self.invalid]
            return left

    def stop(self):
        self.stopping = True
        self.kcat.stop()


class Services:
    """What `bench.Worker` needs of the bench: the soak's own broker, presign endpoint and directories."""

    def __init__(self, bench_run, kafka, presign_url):
        self.attache, self.workdir, self.sources = bench_run.attache, bench_run.workdir, bench_run.sources
        self.kafka, self.presign_url = kafka, presign_url


class Soak:
    def __init__(self, bench_run, minutes, batch_ttl=None):
        self.bench, self.minutes, self.batch_ttl = bench_run, minutes, batch_ttl
        self.workdir, self.sources = bench_run.workdir, bench_run.sources
        self.rss = []  # (seconds since start, worker label, RSS KiB)
        self.kills = 0
        self.incarnations = {"a": 0, "b": 0}
        self.workers = {}

    # --- services and workers ---

    def start(self):
        self.broker = FaultyBroker(self.bench.attache, self.workdir)
        self.kafka = Kafka(self.broker.bootstrap)
        if not hasattr(self.bench, "nginx"):
            self.bench.nginx_port = free_port()
            self.bench._start_nginx()
        self.store = self.bench.store
        self.proxy = Child("faultproxy", [sys.executable, os.path.join(bench.HERE, "faultproxy.py"), "--upstream",
                                          "127.0.0.1:{}".format(self.bench.nginx_port), "--seed", "3"], self.workdir)
        self.proxy_url = self.proxy.first_stdout_line()
        self.presign = Child("presign-soak", [sys.executable, os.path.join(bench.HERE, "presign.py"), "--upload-base",
                                              self.proxy_url + "/attache"], self.workdir)
        self.services = Services(self.bench, self.kafka, self.presign.first_stdout_line())
        self.paths = self.bench.make_files("soak", 8, 64 * KIB, prefix="p64-") + \
            self.bench.make_files("soak", 4, 512 * KIB, prefix="p512-")
        log("soak: brokers {}, store proxy {} → nginx :{}, work dir {}".format(
            self.kafka.brokers, self.proxy_url, self.bench.nginx_port, self.workdir))

    def start_worker(self, label):
        self.incarnations[label] += 1
        staging = os.path.join(self.workdir, "staging", "soak-" + label)
        extra = {"ATTACHE_WORKER_ID": "soak-" + label, "ATTACHE_STAGING_DIR": staging,
                 "ATTACHE_MESSAGES_MODE": "kafka", "ATTACHE_KAFKA_MESSAGES_TOPIC": MESSAGES,
                 "ATTACHE_KAFKA_DLQ_TOPIC": DLQ, "ATTACHE_RETRY_MAX_ATTEMPTS": "10",
                 "ATTACHE_RETRY_BASE_DELAY": "100ms", "ATTACHE_RETRY_MAX_DELAY": "2s",
                 # As bench.py's multi-worker runs: the mock's group coordinator settles only when a member's
                 # session times out, so a short session keeps rebalances after each kill to seconds.
                 "ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS": "6000",
                 "ATTACHE_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS": "500"}
        if self.batch_ttl:
            extra["ATTACHE_WORKER_BATCH_TTL"] = self.batch_ttl
        name = "soak-{}.{}".format(label, self.incarnations[label])
        self.workers[label] = Worker(self.services, name, GROUP, JOBS, EVENTS, extra)

    def kill(self, label):
        child = self.workers[label].child
        child.process.send_signal(signal.SIGKILL)
        child.process.wait()
        child.stop()
        self.kills += 1

    def sample_rss(self, start):
        for label, worker in self.workers.items():
            try:
                self.rss.append((time.time() - start, label, worker.rss_kib()))
            except (OSError, BenchFailure):
                pass  # between a kill and the restart

    # --- the run ---

    def run(self):
        self.start()
        seconds = self.minutes * 60
        for topic in (EVENTS, DLQ, MESSAGES):
            self.kafka.create_topic(topic, self.workdir)  # a marker record keyed "bench", left out of the checks
        events = LiveEvents(self.kafka, self.workdir)
        stream = JobStream(self, seconds)
        # The first tick creates the jobs topic before the workers subscribe.
        stream.produce(stream.tick(0), 0)
        self.partitions = {topic: self.partition_count(topic) for topic in (JOBS, EVENTS)}
        self.start_worker("a")
        self.start_worker("b")
        for worker in self.workers.values():
            worker.wait_assigned(timeout=90)
        schedule = FaultSchedule(self.broker, self.partitions)
        start = time.time()
        stream.start()
        schedule.start()
        next_kill, next_sample, last_log = start + 60, start, start
        try:
            while time.time() - start < seconds:
                now = time.time()
                if now >= next_sample:
                    self.sample_rss(start)
                    next_sample += 3
                if now >= next_kill and now - start < seconds - 5:
                    self.kill("b")
                    self.start_worker("b")
                    log("soak: {:.0f} s: worker b killed (SIGKILL) and started again ({} kills)".format(now - start, self.kills))
                    next_kill += 60
                if now - last_log >= 30:
                    last_log = now
                    log("soak: {:.0f} s: {} jobs sent, {} events seen, faults {}".format(
                        now - start, len(stream.jobs) + len(stream.invalid), events.total, sum(schedule.counts.values())))
                if self.broker.crashed():
                    raise BenchFailure(self.broker.crashed() + " (its fault commands: logs/soak-faults.tsv)")
                for label, worker in self.workers.items():
                    if worker.child.process.poll() is not None:
                        raise BenchFailure("worker {} exited {} by itself: {}".format(
                            worker.name, worker.child.process.returncode, worker.child.stderr_text()[-3000:]))
                time.sleep(0.2)
        finally:
            stream.stopping.set()
            stream.join()
            schedule.stop()
            self.http_faults(False)
        soaked = time.time() - start
        log("soak: faults stopped after {:.0f} s; waiting for every batch".format(soaked))
        deadline, left = time.time() + 300, None
        while time.time() < deadline:
            self.sample_rss(start)
            left = events.outstanding(stream.jobs, stream.invalid)
            if not left:
                break
            time.sleep(2)
        settled = time.time() - start - soaked
        log("soak: {} after {:.0f} s; checking the topics afresh".format(
            "everything finished" if not left else "{} still unfinished".format(len(left)), settled))
        proxy = json.loads(urllib.request.urlopen(self.proxy_url + "/_faultproxy/stats", timeout=5).read())
        events.stop()
        with open(os.path.join(self.workdir, "logs", "soak-rss.tsv"), "w") as f:
            f.writelines("{:.1f}\t{}\t{}\n".format(t, label, kib) for t, label, kib in self.rss)
        report = self.check(stream, schedule, proxy, soaked, settled)
        for worker in self.workers.values():
            worker.stop()
        return report

    def http_faults(self, on):
        urllib.request.urlopen(urllib.request.Request(
            self.proxy_url + "/_faultproxy/" + ("on" if on else "off"), method="POST"), timeout=5).read()

    def read_all(self, topic):
        """Every record of a topic so far, from a fresh kcat: (CreateTime ms, key, value)."""
        out = subprocess.run(["kcat", "-b", self.kafka.brokers, "-t", topic, "-C", "-o", "beginning", "-e", "-q", "-E",
                              "-f", "%T\t%k\t%s\n"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if out.returncode != 0:
            raise BenchFailure("kcat could not read {}: {}".format(topic, out.stderr.decode(errors="replace")[-500:]))
        records = []
        for line in out.stdout.decode().splitlines():
            parts = line.split("\t", 2)
            if len(parts) == 3:
                records.append((int(parts[0]), parts[1], parts[2]))
        return records

    def partition_count(self, topic):
        out = subprocess.run(["kcat", "-b", self.kafka.brokers, "-L", "-J", "-t", topic], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
        return len(json.loads(out)["topics"][0]["partitions"])

    def low_watermarks(self, topic):
        """The first offset still held of each partition (the mock keeps only the last 5 MiB of a partition)."""
        argv = ["kcat", "-b", self.kafka.brokers, "-Q"]
        for p in range(self.partition_count(topic)):
            argv += ["-t", "{}:{}:-2".format(topic, p)]
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout.decode()
        return [int(line.rsplit(" ", 1)[1]) for line in out.splitlines() if " offset " in line]

    # --- the checks ---

    def check(self, stream, schedule, proxy, soaked, settled):
        events = self.read_all(EVENTS)
        jobs_on_topic = {key for _, key, value in self.read_all(JOBS)}
        dlq = [key for _, key, _ in self.read_all(DLQ) if key != "bench"]
        messages = [m for m in self.read_all(MESSAGES) if m[1] != "bench"]
        truncated = {t: [w for w in self.low_watermarks(t) if w > 0] for t in (EVENTS, JOBS, DLQ)}
        by_batch, types = {}, {}
        failed_attempts, retried_files, exhausted = 0, set(), []
        for _, _, value in events:
            if not value.startswith("{"):
                continue
            event = json.loads(value)
            kind, subject, data = event["type"], event.get("subject", ""), event.get("data", {})
            types[kind] = types.get(kind, 0) + 1
            per = by_batch.setdefault(subject, {"types": set(), "uploaded": set(), "progress100": set(), "messaged": set(),
                                                "last": None, "invalid": []})
            per["types"].add(kind)
            if kind == "attache.file.uploaded":
                per["uploaded"].add(data["fileId"])
            elif kind == "attache.file.progress" and data.get("percent") == 100:
                per["progress100"].add(data["fileId"])
            elif kind == "attache.message.sent":
                per["messaged"].update(data.get("fileIds", []))
            elif kind == "attache.batch.completed":
                per["last"] = data["result"]
            elif kind == "attache.job.invalid":
                per["invalid"].append(data.get("dlq"))
            elif kind == "attache.file.failed":
                failed_attempts += 1
                retried_files.add((subject, data["fileId"]))
                if not data.get("willRetry"):
                    exhausted.append((subject, data["fileId"], data.get("attempt"), data.get("error", {}).get("code")))
        problems = []
        not_on_topic = [b for b in list(stream.jobs) + stream.invalid if b not in jobs_on_topic]
        if not_on_topic:
            problems.append("{} jobs sent are not on the jobs topic (kcat or the mock lost them before any worker): {}".format(
                len(not_on_topic), ", ".join(sorted(not_on_topic)[:10])))
        missing_batches, missing_files, failed_files, missing_events, unstored = [], [], [], [], []
        for batch, files in stream.jobs.items():
            if batch in not_on_topic:
                continue
            per = by_batch.get(batch)
            if per is None or per["last"] is None:
                missing_batches.append(batch)
                continue
            ids = {f["fileId"] for f in files}
            result = per["last"]
            successful = {s["fileId"] for s in result.get("successful", [])}
            if result.get("failed") or result.get("rejected"):
                failed_files.append((batch, [f["fileId"] for f in result.get("failed", []) + result.get("rejected", [])],
                                     json.dumps(result.get("failed", []) + result.get("rejected", []))[:300]))
            for file_id in sorted(ids - successful):
                missing_files.append((batch, file_id))
            for name, seen in (("file.uploaded", per["uploaded"]), ("file.progress 100%", per["progress100"]),
                               ("message.sent", per["messaged"])):
                for file_id in sorted(ids - seen):
                    missing_events.append((batch, name, file_id))
            for f in files:
                stored = os.path.join(self.store, "attache", batch, f["fileId"], f["name"])
                if not os.path.exists(stored) or os.path.getsize(stored) != f["size"]:
                    unstored.append((batch, f["fileId"]))
        invalid_sent = [k for k in stream.invalid if k in jobs_on_topic]
        invalid_events_missing = [k for k in invalid_sent if not by_batch.get(k, {}).get("invalid")]
        invalid_dlq_failed = [k for k in invalid_sent if any(d != "ok" for d in by_batch.get(k, {}).get("invalid", []))]
        dlq_missing = sorted(set(invalid_sent) - set(dlq))
        dlq_unexpected = sorted(set(dlq) - set(invalid_sent))
        for what, items in (("batches without a batch.completed", missing_batches),
                            ("files not successful in their batch's last batch.completed", missing_files),
                            ("batches ending with failed or rejected files", failed_files),
                            ("expected events missing (batch, event, file)", missing_events),
                            ("files not in the store with their size", unstored),
                            ("invalid records without attache.job.invalid", invalid_events_missing),
                            ("invalid records whose job.invalid says the dead letter failed", invalid_dlq_failed),
                            ("invalid records missing from the dead-letter topic", dlq_missing),
                            ("dead letters that are not invalid records sent", dlq_unexpected)):
            if items:
                problems.append("{}: {} (e.g. {})".format(what, len(items), items[:5]))
        if any(truncated.values()):
            problems.append("the mock cluster dropped the oldest records of {} (low watermarks above 0): the fresh read "
                            "is incomplete".format({t: w for t, w in truncated.items() if w}))
        first, last, _ = rss_summary(self.rss, "a", soaked)
        if not last - first <= RSS_GROWTH_MAX:
            problems.append("worker a's RSS is not flat: first-minute median {:.1f} MiB, last-minute median {:.1f} MiB "
                            "(+{:.1f} MiB, at most +{} allowed); per minute: {}".format(
                                first, last, last - first, RSS_GROWTH_MAX, per_minute_text(self.rss, "a")))
        if stream.failed_ticks:
            problems.append("kcat reported {} ticks undelivered: {}".format(len(stream.failed_ticks), stream.failed_ticks[:3]))
        if problems:
            self.evidence(problems, missing_batches + [b for b, _ in missing_files] + [b for b, *_ in failed_files]
                          + [b for b, *_ in missing_events] + dlq_missing + invalid_events_missing)
        files = sum(len(f) for f in stream.jobs.values())
        levels = {}
        for name in os.listdir(os.path.join(self.workdir, "logs")):
            if name.startswith("soak-") and name.endswith(".err"):
                with open(os.path.join(self.workdir, "logs", name), errors="replace") as f:
                    for line in f:
                        level = line.split(" ", 2)[1] if line.count(" ") >= 2 else "?"
                        levels[level] = levels.get(level, 0) + 1
        return {"stream": stream, "schedule": schedule, "proxy": proxy, "soaked": soaked, "settled": settled,
                "events": len([e for e in events if e[2].startswith("{")]), "types": types, "files": files,
                "failed_attempts": failed_attempts, "retried_files": len(retried_files), "exhausted": exhausted,
                "dlq": dlq, "invalid_sent": invalid_sent, "messages": len(messages), "problems": problems,
                "levels": levels, "missing_batches": len(missing_batches) + len([b for b in not_on_topic if b in stream.jobs]),
                "missing_files": len(missing_files), "failed_files": sum(len(f[1]) for f in failed_files),
                "missing_events": len(missing_events), "unstored": len(unstored), "dlq_missing": len(dlq_missing)}

    def evidence(self, problems, batches):
        """Writes what the topics and the worker logs say about each unfinished batch to logs/soak-evidence.txt."""
        path = os.path.join(self.workdir, "logs", "soak-evidence.txt")
        events = self.read_all(EVENTS)
        logs = {}
        for name in sorted(os.listdir(os.path.join(self.workdir, "logs"))):
            if name.startswith("soak-") and name.endswith(".err"):
                with open(os.path.join(self.workdir, "logs", name), errors="replace") as f:
                    logs[name] = f.read().splitlines()
        with open(path, "w") as out:
            out.write("\n".join(problems) + "\n\n")
            for batch in list(dict.fromkeys(batches))[:20]:
                out.write("=== {}\n".format(batch))
                for stamp, key, value in events:
                    if key == batch:
                        out.write("  event {} {}\n".format(stamp, value[:400]))
                for name, lines in logs.items():
                    for line in lines:
                        if batch in line:
                            out.write("  {}: {}\n".format(name, line[:400]))
        log("soak: evidence in {}".format(path))
        self.evidence_path = path


RSS_GROWTH_MAX = 8  # MiB from the first minute's median to the last's, as the bench's "flat in file size"


def per_minute_text(samples, label):
    """The median RSS (MiB) of each minute of the soak, for one worker."""
    minutes = {}
    for t, l, kib in samples:
        if l == label:
            minutes.setdefault(int(t // 60), []).append(kib / 1024)
    return " ".join("{:.1f}".format(statistics.median(minutes[m])) for m in sorted(minutes))


def rss_summary(samples, label, seconds):
    """First-minute and last-minute medians, and the peak, of one worker's RSS samples (MiB)."""
    mine = [(t, kib / 1024) for t, l, kib in samples if l == label]
    first = [m for t, m in mine if t < 60]
    last = [m for t, m in mine if seconds - 60 <= t <= seconds]
    return (statistics.median(first) if first else float("nan"), statistics.median(last) if last else float("nan"),
            max((m for _, m in mine), default=float("nan")))


def table(soak, report):
    stream, schedule, proxy = report["stream"], report["schedule"], report["proxy"]
    types = report["types"]
    a_first, a_last, a_peak = rss_summary(soak.rss, "a", report["soaked"])
    _, _, b_peak = rss_summary(soak.rss, "b", report["soaked"])

    def zero(n):
        return "{} ({})".format(n, "yes" if n == 0 else "**no**")

    short = {k.replace("attache.", ""): v for k, v in sorted(types.items())}
    rows = [["what", "count"],
            ["soak: faults on for, then settling", "{:.0f} s, then {:.0f} s".format(report["soaked"], report["settled"])],
            ["jobs: valid (inline one-file · path · multi-file) · invalid records", "{} ({} · {} · {}) · {}".format(
                len(stream.jobs), stream.kinds["inline"], stream.kinds["path"], stream.kinds["multi"], len(stream.invalid))],
            ["files in valid jobs", str(report["files"])],
            ["events on the events topic (fresh read)", "{}: {}".format(report["events"], ", ".join(
                "{} {}".format(k, v) for k, v in short.items()))],
            ["messages on the messages topic", str(report["messages"])],
            ["broker faults injected", "{}: {}".format(sum(schedule.counts.values()), ", ".join(
                "{} {}".format(k, v) for k, v in schedule.counts.items()))],
            ["store faults (PUTs through the proxy)", "{} PUTs: {} answered 503, {} cut off mid-body, {} forwarded".format(
                proxy["puts"], proxy["failed503"], proxy["dropped"], proxy["forwarded"])],
            ["worker b killed with SIGKILL and restarted", str(soak.kills)],
            ["upload attempts failed (file.failed events) · files that failed then were retried", "{} · {}".format(
                report["failed_attempts"], report["retried_files"])],
            ["files out of automatic retries (willRetry false)", zero(len(report["exhausted"]))],
            ["batches missing (no batch.completed, or not on the jobs topic)", zero(report["missing_batches"])],
            ["files missing or failed at the end (last batch.completed, the store)", zero(
                report["missing_files"] + report["failed_files"] + report["unstored"])],
            ["expected events missing (file.uploaded, progress 100%, message.sent per file)", zero(report["missing_events"])],
            ["dead letters: invalid records on the jobs topic · DLQ records (distinct) · missing", "{} · {} ({}) · {}".format(
                len(report["invalid_sent"]), len(report["dlq"]), len(set(report["dlq"])), zero(report["dlq_missing"]))],
            ["worker a RSS MiB (lives throughout): first-minute median · last-minute median · peak", "{:.1f} · {:.1f} · {:.1f}".format(
                a_first, a_last, a_peak)],
            ["worker a RSS MiB: median of each minute", per_minute_text(soak.rss, "a")],
            ["worker a RSS flat: last-minute median − first-minute median ≤ +{} MiB".format(RSS_GROWTH_MAX),
             "{:+.1f} ({})".format(a_last - a_first, "yes" if a_last - a_first <= RSS_GROWTH_MAX else "**no**")],
            ["worker b RSS MiB (restarted every minute): peak", "{:.1f}".format(b_peak)],
            ["worker log lines by level (every incarnation)", ", ".join(
                "{} {}".format(k, v) for k, v in sorted(report["levels"].items()))],
            ["checks", "all passed" if not report["problems"] else "**{} failed** (below)".format(len(report["problems"]))]]
    return rows


def environment_line():
    commit = subprocess.run(["git", "-C", bench.REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE).stdout.decode().strip()
    # results.md itself is left out: an earlier run's table there says nothing about the code that ran.
    if subprocess.run(["git", "-C", bench.REPO, "status", "--porcelain", "--untracked-files=no", "--", ".",
                       ":!ops/bench/results.md"], stdout=subprocess.PIPE).stdout.strip():
        commit += " with local changes"
    return "release build of commit {}, {} cores".format(commit or "?", os.cpu_count())


def section(soak, report, argv):
    rows = table(soak, report)
    lines = [HEADING, "", "Produced by `ops/bench/run {}` on {} ({}).".format(
        " ".join(argv), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), environment_line()), "",
        markdown(rows), ""]
    if report["problems"]:
        lines += ["Failed checks:", ""] + ["- " + p for p in report["problems"]] + [""]
    lines += [NOTES, ""]
    return rows, "\n".join(lines)


NOTES = """How the soak runs (ops/bench/soak.py):
- Kafka is `attache dev-broker --brokers 3 --faults`. Every 3 s one broker fault, the kinds in a shuffled cycle:
  1–4 queued request errors for produce, fetch, offsetcommit or heartbeat (NOT_LEADER_FOR_PARTITION,
  REQUEST_TIMED_OUT, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE…); a broker down for 2–5 s (never the group's
  coordinator: librdkafka 2.0's mock group coordinator aborts on `Assertion !member->resp` when a member sends
  JoinGroup again while its first is held, which that provokes during a rebalance); a partition leader
  of the jobs and of the events topic moved; the group coordinator moved; a broker answering 100–500 ms late for
  3–6 s. These hit every client alike: the workers' consumers and producers, and kcat producing the jobs.
- The store is nginx (WebDAV) behind ops/bench/faultproxy.py: 8% of PUTs answered 503, 5% cut off halfway
  through the body with a TCP reset. The workers run with retry.maxAttempts 10, baseDelay 100ms, maxDelay 2s.
  file.failed counts the failed attempts the worker saw: libcurl sends a request again by itself when a kept-alive
  connection it reused dies before any answer, so some cut-off PUTs never reach the worker as failures.
- Two workers, one group (session 6 s). Every minute worker b is killed with SIGKILL and started again at once on
  the same staging directory and worker id; worker a lives throughout, so its RSS (sampled every 3 s, all samples
  in logs/soak-rss.tsv of a kept work directory) is the memory trend. It is a check: its last-minute median may
  exceed its first-minute median by at most 8 MiB.
- One tick of jobs a second: two one-file inline jobs (100 B–3 KiB), a `path` job (64 or 512 KiB) every other
  tick, a four-file job (two inline, two `path`, mixed mime types) every third, an invalid record (not JSON, not an
  object, unknown kind, bad receiver type, files not an array) every seventh. Valid jobs have `message.send = auto`;
  the workers send messages to a Kafka topic (`messages.mode = kafka`), so a batch ends in `message.sent` events.
- At the end the broker faults and the store faults stop; the soak waits (at most 300 s) until every batch's last
  batch.completed lists all its files as successful and message.sent covered them all, then reads the events, jobs,
  dead-letter and messages topics from the beginning with a fresh kcat and checks every batch: its last
  batch.completed has every file successful and none failed or rejected, each file has file.uploaded, a 100%
  file.progress and a message.sent naming it, and its bytes are in the store with the right size; every invalid
  record has attache.job.invalid with `dlq: ok` and a dead letter. Dead letters may repeat (a worker killed
  between the dead letter and its commit copies the record again on replay); none may be missing."""


def write_section(path, text):
    """Puts the soak's section into results.md in place of an earlier one, keeping every other section."""
    old = open(path).read() if os.path.exists(path) else ""
    kept = without_section(old).rstrip("\n")
    with open(path, "w") as f:
        f.write((kept + "\n\n" if kept else "") + text.rstrip("\n") + "\n")


def without_section(text):
    """The text without the soak's section (from its heading to the next heading of the same level, or the end)."""
    if HEADING not in text:
        return text
    before, after = text.split(HEADING, 1)
    rest = after.split("\n## ", 1)
    return before.rstrip("\n") + ("\n\n## " + rest[1] if len(rest) == 2 else "\n")


def soak_section(text):
    """The soak's section of a results.md text, or ''."""
    if HEADING not in text:
        return ""
    after = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return HEADING + after.rstrip("\n") + "\n"


def run(bench_run, minutes, results, argv, batch_ttl=None):
    soak = Soak(bench_run, minutes, batch_ttl)
    report = soak.run()
    rows, text = section(soak, report, argv)
    print(markdown(rows))
    for problem in report["problems"]:
        print("FAILED: " + problem)
    write_section(results, text)
    log("soak table written to {}".format(os.path.relpath(results, bench.REPO)))
    if report["problems"]:
        raise BenchFailure("the soak lost or left unfinished: " + "; ".join(report["problems"])[:2000])
    return rows
