"""The soak itself: its services, its two workers, the faults, the wait for every batch, then the checks."""
import json
import os
import signal
import sys
import time
import urllib.request

from ...children import Child
from ...failure import BenchFailure
from ...log import log
from ...mock_cluster import MockCluster
from ...paths import bench_script
from ...worker import WorkerEnvironment
from .checks import check
from .fault_schedule import FaultSchedule
from .job_stream import KIB, JobStream
from .live_events import LiveEvents
from .rss import RSSSamples
from .topics import DLQ, EVENTS, GROUP, JOBS, MESSAGES

BROKERS = 3
KILL_EVERY = 60  # seconds between SIGKILLs of worker b
SETTLE_TIMEOUT = 300  # seconds, for every batch to finish once the faults stopped


class Soak:
    """Two workers, a and b, on a faulty cluster of their own, behind a faulty store, for `minutes`."""

    def __init__(self, rig, minutes, batch_ttl=None):
        self.rig, self.minutes, self.batch_ttl = rig, minutes, batch_ttl
        self.workdir = rig.workdir
        self.rss = RSSSamples()
        self.kills = 0
        self.incarnations = {"a": 0, "b": 0}
        self.workers = {}

    # --- services and workers ---

    def start(self):
        self.cluster = MockCluster("faulty-broker", [self.rig.attache, "dev-broker", "--brokers", str(BROKERS), "--faults"],
                                   self.workdir, journal=os.path.join(self.workdir, "logs", "soak-faults.tsv"))
        self.kafka = self.cluster.kafka
        self.nginx = self.rig.nginx
        self.proxy = Child("faultproxy", [sys.executable, bench_script("faultproxy.py"), "--upstream", self.nginx.upstream,
                                          "--seed", "3"], self.workdir)
        self.proxy_url = self.proxy.first_stdout_line()
        self.presign = Child("presign-soak", [sys.executable, bench_script("presign.py"), "--upload-base",
                                              self.proxy_url + "/attache"], self.workdir)
        sources = self.rig.sources
        self.environment = WorkerEnvironment(self.rig.attache, self.workdir, sources.root, self.kafka.brokers,
                                             self.presign.first_stdout_line())
        self.paths = sources.make_files("soak", 8, 64 * KIB, prefix="p64-") + \
            sources.make_files("soak", 4, 512 * KIB, prefix="p512-")
        log("soak: brokers {}, store proxy {} → nginx :{}, work dir {}".format(
            self.kafka.brokers, self.proxy_url, self.nginx.port, self.workdir))

    def start_worker(self, label):
        self.incarnations[label] += 1
        staging = os.path.join(self.workdir, "staging", "soak-" + label)
        extra = {"ATTACHE_WORKER_ID": "soak-" + label, "ATTACHE_STAGING_DIR": staging,
                 "ATTACHE_MESSAGES_MODE": "kafka", "ATTACHE_KAFKA_MESSAGES_TOPIC": MESSAGES,
                 "ATTACHE_KAFKA_DLQ_TOPIC": DLQ, "ATTACHE_RETRY_MAX_ATTEMPTS": "10",
                 "ATTACHE_RETRY_BASE_DELAY": "100ms", "ATTACHE_RETRY_MAX_DELAY": "2s",
                 # As the bench's groups of several: the mock's group coordinator settles only when a member's
                 # session times out, so a short session keeps rebalances after each kill to seconds.
                 "ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS": "6000",
                 "ATTACHE_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS": "500"}
        if self.batch_ttl:
            extra["ATTACHE_WORKER_BATCH_TTL"] = self.batch_ttl
        name = "soak-{}.{}".format(label, self.incarnations[label])
        self.workers[label] = self.environment.start(name, GROUP, JOBS, EVENTS, extra)

    def kill(self, label):
        child = self.workers[label].child
        child.process.send_signal(signal.SIGKILL)
        child.process.wait()
        child.stop()
        self.kills += 1

    def sample_rss(self, start):
        for label, worker in self.workers.items():
            try:
                self.rss.add(time.time() - start, label, worker.rss_kib())
            except (OSError, BenchFailure):
                pass  # between a kill and the restart

    # --- the run ---

    def run(self):
        """Returns the `checks.SoakReport`."""
        self.start()
        seconds = self.minutes * 60
        for topic in (EVENTS, DLQ, MESSAGES):
            self.kafka.create_topic(topic, self.workdir)  # a marker record keyed "bench", left out of the checks
        events = LiveEvents(self.kafka, self.workdir)
        stream = JobStream(self.kafka, self.workdir, self.rig.sources, self.paths, seconds)
        # The first tick creates the jobs topic before the workers subscribe.
        stream.produce(stream.tick(0), 0)
        partitions = {topic: self.kafka.partition_count(topic) for topic in (JOBS, EVENTS)}
        self.start_worker("a")
        self.start_worker("b")
        for worker in self.workers.values():
            worker.wait_assigned(timeout=90)
        schedule = FaultSchedule(self.cluster, BROKERS, partitions)
        start = time.time()
        stream.start()
        schedule.start()
        next_kill, next_sample, last_log = start + KILL_EVERY, start, start
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
                    next_kill += KILL_EVERY
                if now - last_log >= 30:
                    last_log = now
                    log("soak: {:.0f} s: {} jobs sent, {} events seen, faults {}".format(
                        now - start, len(stream.jobs) + len(stream.invalid), events.total, sum(schedule.counts.values())))
                if self.cluster.crashed():
                    raise BenchFailure(self.cluster.crashed() + " (its fault commands: logs/soak-faults.tsv)")
                for worker in self.workers.values():
                    worker.check_running()
                time.sleep(0.2)
        finally:
            stream.stopping.set()
            stream.join()
            schedule.stop()
            self.http_faults(False)
        soaked = time.time() - start
        log("soak: faults stopped after {:.0f} s; waiting for every batch".format(soaked))
        deadline, left = time.time() + SETTLE_TIMEOUT, None
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
            f.write(self.rss.tsv())
        report = check(self, stream, schedule, proxy, soaked, settled)
        for worker in self.workers.values():
            worker.stop()
        return report

    def http_faults(self, on):
        urllib.request.urlopen(urllib.request.Request(
            self.proxy_url + "/_faultproxy/" + ("on" if on else "off"), method="POST"), timeout=5).read()
