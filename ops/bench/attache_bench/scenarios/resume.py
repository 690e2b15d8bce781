"""resume: a 256 MiB `path` file uploaded in `s3` mode to moto in PART_MIB MiB parts (multipart), its worker killed
with SIGKILL at 60 % while a second worker waits in the group (DESIGN §8, §12 *Resume across workers*): the bytes
that reached storage in all, against the file's size (target ≤ 1.1), and the time from the kill to batch.completed,
against the missing 40 % uploaded alone on an idle worker plus the handover (the kill until the new owner restored
the partition)."""
import dataclasses
import hashlib
import json
import os
import sys
import threading
import time
import urllib.request
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field

from ..attache_run import SHORT_SESSION
from ..children import Child, free_port
from ..cpu import HostSteal
from ..event_feed import EventFeed
from ..event_watcher import EventWatcher
from ..failure import BenchFailure
from ..figures import Figure
from ..jobs import path_job, record
from ..log import log
from ..mock_cluster import MockCluster
from ..paths import MOCK_KAFKA, bench_script, moto_server, wheel_python
from ..rows import Row
from ..run_names import RunTopics, run_tag
from ..sources import MIB
from ..targets import RESUME_BYTES, RESUME_TIME
from ..worker import log_time

SIZE = 256 * MIB
PART_MIB = 5  # upload.partSize: S3's smallest, so a kill costs the least
KILL_AT = 0.6
MISSING = int(SIZE * (1 - KILL_AT))  # the part the new owner has left to send, as a file of its own
# The killed worker's upload rate cap: 60 % is reached after about 5 s, so the kill lands near it (progress events
# come at most four a second, 8 MiB apart at this rate).
KILLED_RATE = "32MiB"
BUCKET = "attache-resume"
KILLED, IDLE = "killed", "idle"


@dataclass
class KilledRun:
    """The upload whose worker was killed."""
    loaded_at_kill: int  # the last progress the killed worker published before the kill, bytes
    sent: int  # bytes of PUT bodies that reached the proxy in front of moto for the file, cut-off ones included
    parts: int  # UploadPart requests whose head reached the proxy
    after_kill: float  # the kill → batch.completed seen, s
    handover: float  # the kill → the new owner's `partition restored` for the file's partition, s
    resumed: float  # the kill → the new owner's first progress event (the file staged, its digest taken from the record, the upload found), s
    host: HostSteal

    @property
    def steal(self):
        return self.host.steal


@dataclass
class IdleRun:
    seconds: float  # the job produced → batch.completed seen
    first_event: float  # the job produced → its first event (the file staged, hashed, its upload created: progress)
    host: HostSteal

    @property
    def steal(self):
        return self.host.steal


@dataclass
class Resume:
    sent_ratio: Figure = field(default_factory=Figure)  # bytes sent in all ÷ the file's size
    after_kill: Figure = field(default_factory=Figure)  # s
    handover: Figure = field(default_factory=Figure)  # s
    alone: Figure = field(default_factory=Figure)  # the missing 40 % on an idle worker, s
    killed_at: Figure = field(default_factory=Figure)  # % of the file sent when the kill came
    parts: Figure = field(default_factory=Figure)  # UploadPart requests

    @property
    def budget(self):
        """The time the target allows after the kill, run by run: the missing 40 % alone plus the handover."""
        return Figure(a + h for a, h in zip(self.alone.values, self.handover.values))


class Storage:
    """moto (the test venv's moto_server) with ops/bench/faultproxy.py in front of it, which counts the PUTs and the
    bytes of their bodies per object path; workers upload through the proxy, the bench reads moto directly."""

    def __init__(self, workdir):
        port = free_port()
        self.moto = Child("resume-moto", [moto_server(), "-H", "127.0.0.1", "-p", str(port)], workdir)
        self.endpoint = "http://127.0.0.1:{}".format(port)
        deadline = time.time() + 60
        while not self._answers():
            if time.time() > deadline or self.moto.process.poll() is not None:
                raise BenchFailure("moto_server did not serve: {}".format(self.moto.stderr_text()[-2000:]))
            time.sleep(0.1)
        self.proxy = Child("resume-proxy", [sys.executable, bench_script("faultproxy.py"), "--upstream",
                                            "127.0.0.1:{}".format(port), "--fail-503", "0", "--drop", "0"], workdir)
        self.proxy_url = self.proxy.first_stdout_line()
        self.request("PUT", "/" + BUCKET)

    def _answers(self):
        try:
            urllib.request.urlopen(self.endpoint + "/", timeout=1).read()
            return True
        except OSError:
            return False

    def request(self, method, path):
        """An unsigned request to moto (which checks no signatures in its default mode): the answer's body."""
        return urllib.request.urlopen(urllib.request.Request(self.endpoint + path, method=method), timeout=120).read()

    def counted(self, what, prefix):
        """The proxy's per-path count (`puts` or `bytes`) summed over the paths under `prefix`."""
        counts = json.loads(urllib.request.urlopen("{}/_faultproxy/{}".format(self.proxy_url, what), timeout=5).read())
        return sum(n for path, n in counts.items() if path.startswith(prefix))

    def open_uploads(self):
        """The keys of the bucket's incomplete multipart uploads (ListMultipartUploads)."""
        root = ElementTree.fromstring(self.request("GET", "/{}?uploads".format(BUCKET)))
        return [e.text for e in root.iter() if e.tag.endswith("}Key") or e.tag == "Key"]

    def sha256(self, key):
        digest = hashlib.sha256()
        with urllib.request.urlopen("{}/{}/{}".format(self.endpoint, BUCKET, key), timeout=120) as answer:
            for chunk in iter(lambda: answer.read(4 * MIB), b""):
                digest.update(chunk)
        return digest.hexdigest()

    def delete(self, key):
        """Deletes a checked object: moto holds objects in memory."""
        self.request("DELETE", "/{}/{}".format(BUCKET, key))

    def worker_settings(self):
        return {"ATTACHE_PRESIGN_MODE": "s3", "ATTACHE_PRESIGN_S3_BUCKET": BUCKET, "ATTACHE_PRESIGN_S3_REGION": "us-east-1",
                "ATTACHE_PRESIGN_S3_ENDPOINT": self.proxy_url, "ATTACHE_PRESIGN_S3_PATH_STYLE": "true",
                "ATTACHE_PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
                "ATTACHE_PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "ATTACHE_UPLOAD_MULTIPART_THRESHOLD": "5MiB", "ATTACHE_UPLOAD_PART_SIZE": "{}MiB".format(PART_MIB)}

    def stop(self):
        self.proxy.stop()
        self.moto.stop()


class Progress:
    """The `loaded` of every file.progress on an events topic, by the worker that published it."""

    def __init__(self, kafka, topic, workdir):
        self.lock = threading.Lock()
        self.loaded = {}  # worker id -> [loaded, …] in order
        self.first = {}  # worker id -> CreateTime of its first progress event, epoch seconds
        # As the watcher's: the mock would hold each empty fetch 500 ms, and the kill is aimed by these events.
        self.feed = EventFeed(kafka, topic, workdir, self._note, "progress-" + topic, properties=["fetch.wait.max.ms=5"])

    def _note(self, seen, created, key, event):
        if event.get("type") == "attache.file.progress":
            worker = event["source"].split("/", 1)[-1]
            with self.lock:
                self.loaded.setdefault(worker, []).append(event["data"]["loaded"])
                self.first.setdefault(worker, created / 1000)

    def of(self, worker):
        with self.lock:
            return list(self.loaded.get(worker, []))

    def first_at(self, worker):
        with self.lock:
            return self.first[worker]

    def stop(self):
        self.feed.stop()


def measure(rig):
    """Kafka is librdkafka 2.16's mock (the test venv's confluent-kafka wheel), whose groups move partitions
    cooperatively: 2.0.2's can drop the member that was there first when another joins."""
    source = rig.sources.make_files("resume", 1, SIZE, prefix="film-")[0]
    missing = rig.sources.make_files("resume", 1, MISSING, prefix="rest-")[0]
    with open(source, "rb") as f:
        source_sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    cluster = MockCluster("resume-broker", [wheel_python(), MOCK_KAFKA, "--brokers", "1"], rig.workdir)
    storage = Storage(rig.workdir)
    workers = dataclasses.replace(rig.workers(), brokers=cluster.kafka.brokers)
    resume = Resume()
    log("resume: moto at {} behind {}, librdkafka 2.16's mock cluster at {}".format(
        storage.endpoint, storage.proxy_url, cluster.kafka.brokers))

    def measure_one(who, run, attempt):
        if who == KILLED:
            return measure_killed(rig, run_tag("resume", run, attempt), cluster, storage, workers, source, source_sha256)
        return measure_idle(rig, run_tag("resume-idle", run, attempt), cluster, storage, workers, missing)

    try:
        for run, who, measured in rig.take_turns("resume", [KILLED, IDLE], measure_one):
            if who == KILLED:
                resume.sent_ratio.add(measured.sent / SIZE)
                resume.after_kill.add(measured.after_kill)
                resume.handover.add(measured.handover)
                resume.killed_at.add(100.0 * measured.loaded_at_kill / SIZE)
                resume.parts.add(measured.parts)
                log("resume run {}: killed at {:.0f} %; {:.1f} MiB sent for {} MiB ({:.3f}×) in {} UploadPart requests; "
                    "after the kill: partition restored {:.2f} s, first progress {:.2f} s, batch.completed {:.2f} s".format(
                        run, 100.0 * measured.loaded_at_kill / SIZE, measured.sent / MIB, SIZE // MIB,
                        measured.sent / SIZE, measured.parts, measured.handover, measured.resumed, measured.after_kill))
            else:
                resume.alone.add(measured.seconds)
                log("resume run {}: the missing {:.1f} MiB alone on an idle worker: first event {:.2f} s, "
                    "batch.completed {:.2f} s".format(run, MISSING / MIB, measured.first_event, measured.seconds))
    finally:
        storage.stop()
        cluster.stop()
    return resume


def measure_killed(rig, tag, cluster, storage, environment, source, source_sha256):
    """Two workers start together on fresh topics of two partitions and each takes one; the job goes to the
    partition of the first, whose uploads are capped at KILLED_RATE; at KILL_AT of the file by its progress events
    it gets SIGKILL, and the second takes the partition over and finishes the upload."""
    kafka, topics = cluster.kafka, RunTopics.of(tag)
    for topic in (topics.jobs, topics.changelog, topics.events):
        cluster.create_topic(topic, 2)
    batch = "rs-" + tag
    watcher = EventWatcher(kafka, topics.events, rig.workdir)
    progress = Progress(kafka, topics.events, rig.workdir)
    settings = dict(SHORT_SESSION, **storage.worker_settings())
    names = ["worker-{}-a".format(tag), "worker-{}-b".format(tag)]
    first = environment.start(names[0], topics.group, topics.jobs, topics.events,
                              dict(settings, ATTACHE_UPLOAD_MAX_BYTES_PER_SECOND=KILLED_RATE))
    second = environment.start(names[1], topics.group, topics.jobs, topics.events, settings)
    try:
        partition = wait_one_each(first, second)
        kafka.produce_lines(topics.jobs, [record(batch, path_job(batch, [rig.sources.relative(source)]))], rig.workdir,
                            partition=partition)
        deadline = time.time() + 120
        while not any(loaded >= KILL_AT * SIZE for loaded in progress.of(names[0])):
            if time.time() > deadline:
                raise BenchFailure("{} did not send {:.0%} of the file in 120 s".format(names[0], KILL_AT))
            first.check_running()
            time.sleep(0.02)
        host = HostSteal()
        killed = time.time()
        first.child.process.kill()
        first.child.process.wait()
        end = watcher.wait([batch], timeout=300)
        # Long after the kill: every event the killed worker published has been read.
        loaded_at_kill = max(progress.of(names[0]))
        resumed = progress.first_at(names[1])
        host.stop()
        restored = restored_at(second, partition)
        result = watcher.result(batch)
        second.stop()
    finally:
        for worker in (first, second):
            worker.child.stop()
        watcher.stop()
        progress.stop()
    if result.get("rejected") or result.get("failed") or len(result.get("successful", [])) != 1:
        raise BenchFailure("batch {} did not upload its file: {}".format(batch, json.dumps(result)[:500]))
    key = "{}/f1/{}".format(batch, os.path.basename(source))
    if storage.sha256(key) != source_sha256:
        raise BenchFailure("{}: the stored object's bytes differ from the source's".format(batch))
    if storage.open_uploads():
        raise BenchFailure("{}: incomplete uploads left in the bucket: {}".format(batch, storage.open_uploads()))
    storage.delete(key)
    prefix = "/{}/{}/".format(BUCKET, batch)
    return KilledRun(loaded_at_kill, storage.counted("bytes", prefix), storage.counted("puts", prefix), end - killed,
                     restored - killed, resumed - killed, host)


def measure_idle(rig, tag, cluster, storage, environment, missing):
    """One fresh worker, alone in its group and done restoring its partitions, uploading the missing part as a file
    of its own: from the job produced to its batch.completed seen."""
    kafka, topics = cluster.kafka, RunTopics.of(tag)
    for topic in (topics.jobs, topics.changelog, topics.events):
        cluster.create_topic(topic, 2)
    batch = "ri-" + tag
    watcher = EventWatcher(kafka, topics.events, rig.workdir)
    worker = environment.start("worker-" + tag, topics.group, topics.jobs, topics.events,
                               dict(SHORT_SESSION, **storage.worker_settings()))
    try:
        # Restored, as the handover of the killed run counts until: the job is applied only then.
        deadline = time.time() + 60
        while worker.child.stderr_text().count("partition restored") < 2:
            if time.time() > deadline:
                raise BenchFailure("{} did not restore both partitions".format(worker.name))
            worker.check_running()
            time.sleep(0.02)
        host = HostSteal()
        start = time.time()
        kafka.produce_lines(topics.jobs, [record(batch, path_job(batch, [rig.sources.relative(missing)]))], rig.workdir)
        end = watcher.wait([batch], timeout=300)
        host.stop()
        result = watcher.result(batch)
        first_event = watcher.first_event(batch) / 1000 - start
        worker.stop()
    finally:
        worker.child.stop()
        watcher.stop()
    if result.get("rejected") or result.get("failed") or len(result.get("successful", [])) != 1:
        raise BenchFailure("batch {} did not upload its file: {}".format(batch, json.dumps(result)[:500]))
    storage.delete("{}/f1/{}".format(batch, os.path.basename(missing)))
    return IdleRun(end - start, first_event, host)


def wait_one_each(first, second, timeout=90):
    """Waits until each worker holds one of the two partitions; returns the first's."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        mine, theirs = first.partitions(), second.partitions()
        if len(mine) == 1 and len(theirs) == 1 and mine != theirs:
            return int(next(iter(mine)).rsplit("[", 1)[1].rstrip("]"))
        first.check_running()
        second.check_running()
        time.sleep(0.05)
    raise BenchFailure("the two workers did not take a partition each in {} s".format(timeout))


def restored_at(worker, partition):
    """When the worker's log says it restored `partition` (epoch seconds)."""
    for line in worker.child.stderr_text().splitlines():
        if "partition restored" in line and " partition={} ".format(partition) in line + " ":
            return log_time(line)
    raise BenchFailure("{} never restored partition {}".format(worker.name, partition))


def rows(resume):
    ratio = resume.after_kill.over(resume.budget)
    title = "resume: {} MiB in {} MiB parts (s3 mode, moto), worker killed at {} % ({})".format(
        SIZE // MIB, PART_MIB, resume.killed_at.text("{:.0f}"), "SIGKILL, a second worker in the group")
    return [Row(title + ": bytes sent in all ÷ file size", resume.sent_ratio.text("{:.3f}"), target=RESUME_BYTES,
                checked=(resume.sent_ratio.median,)),
            Row("resume: the kill → batch.completed s · UploadPart requests (of {})".format(-(-SIZE // (PART_MIB * MIB))),
                "{} · {}".format(resume.after_kill.text(), resume.parts.text("{:.0f}")),
                "the missing {:.1f} MiB alone {} + handover {}".format(MISSING / MIB, resume.alone.text(), resume.handover.text()),
                ratio, RESUME_TIME, (ratio,))]
