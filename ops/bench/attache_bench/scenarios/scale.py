"""scale: the end-to-end test `scalingOneToThreeToOneUnderLoadRepeatsAlmostNothing` (Tests/EndToEndTests/
DurableStateTests.swift) as a bench, over --runs: batches handed over between workers (DESIGN §4.1) while the group
grows from 1 worker to 3 and back under load. Uploads repeated (% of files) and message posts per message."""
import dataclasses
import json
import os
import shutil
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from typing import NamedTuple

from ..attache_run import SHORT_SESSION
from ..children import Child
from ..event_watcher import EventWatcher
from ..failure import BenchFailure
from ..figures import Figure
from ..jobs import jpeg_job, record
from ..log import log
from ..mock_cluster import MockCluster
from ..paths import MOCK_KAFKA, bench_script, wheel_python
from ..rows import Row
from ..run_names import RunTopics, run_tag
from ..targets import SCALE_POSTS, SCALE_REPEATS

TRICKLE = 8 * 1024  # bytes/s at which the proxy reads each PUT body: about 2 s per 16 KiB file
MAX_TRANSFERS = 8  # as the test's workers


class ScaleCount(NamedTuple):
    """What one run counted."""
    repeats: int  # Σ (PUTs of an object path − 1)
    posts: int  # message posts, for one message per batch


@dataclass
class Scale:
    jobs: int
    repeated_percent: Figure = field(default_factory=Figure)
    posts_per_message: Figure = field(default_factory=Figure)


def measure(rig):
    """Uploads go through ops/bench/faultproxy.py, which reads every PUT body at TRICKLE bytes/s, so members join and
    leave while uploads are in flight; messages go over HTTP to ops/bench/presign.py's message API. Kafka is
    librdkafka 2.16's mock from the test venv (--scale-kafka wheel), or the bench's `attache dev-broker`."""
    scale = Scale(rig.options.scale_jobs)
    cluster = rig.broker
    if rig.options.scale_kafka == "wheel":
        cluster = MockCluster("scale-broker", [wheel_python(), MOCK_KAFKA, "--brokers", "1"], rig.workdir)
        log("scale: librdkafka 2.16's mock cluster (confluent-kafka wheel) at {}".format(cluster.kafka.brokers))
    proxy = Child("scale-proxy", [sys.executable, bench_script("faultproxy.py"), "--upstream", rig.nginx.upstream,
                                  "--fail-503", "0", "--drop", "0", "--trickle", str(TRICKLE)], rig.workdir)
    proxy_url = proxy.first_stdout_line()
    api = Child("scale-presign", [sys.executable, bench_script("presign.py"), "--upload-base", proxy_url + "/attache"],
                rig.workdir)
    presign_url = api.first_stdout_line()
    messages_url = presign_url.rsplit("/", 1)[0] + "/messages"
    workers = dataclasses.replace(rig.workers(), brokers=cluster.kafka.brokers, presign_url=presign_url)
    # The test's session (and that of the bench's groups of several): members that join or leave are settled in
    # seconds. It also caps worker.revokeGrace at two thirds of it, 4 s.
    extra = dict(SHORT_SESSION, ATTACHE_MESSAGES_MODE="http", ATTACHE_MESSAGES_URL=messages_url,
                 ATTACHE_WORKER_MAX_TRANSFERS=str(MAX_TRANSFERS))
    try:
        for run in range(1, rig.runs + 1):
            counted = measure_one(rig, run_tag("scale", run), scale.jobs, cluster, workers, extra,
                                  proxy_url + "/_faultproxy/puts", messages_url)
            scale.repeated_percent.add(100.0 * counted.repeats / scale.jobs)
            scale.posts_per_message.add(counted.posts / scale.jobs)
    finally:
        api.stop()
        proxy.stop()
        if cluster is not rig.broker:
            cluster.stop()
    return scale


def measure_one(rig, tag, count, cluster, environment, extra, puts_url, posts_url):
    """One 1 → 3 → 1 run on fresh topics (4 partitions, a changelog of its own) and a fresh group: `count` one-file
    jobs produced at once, one worker; once 20 of every 150 batches completed, two more join the group; once both
    hold partitions and 80 of every 150 completed, both get SIGTERM (and must exit 0); then the first finishes alone.
    Counts the repeated uploads (from the proxy's `puts_url`) and the message posts (the message API's `posts_url`).

    The test marks on `message.sent`; the marks here count `batch.completed`, which a batch reaches before its
    message is posted."""
    kafka, topics = cluster.kafka, RunTopics.of(tag)
    prefix = "sc-{}-".format(tag)
    ids = ["{}{}".format(prefix, i) for i in range(count)]
    for topic in (topics.jobs, topics.changelog, topics.events):
        cluster.create_topic(topic, 4)
    watcher = EventWatcher(kafka, topics.events, rig.workdir)
    kafka.produce_lines(topics.jobs, [record(b, jpeg_job(b, i)) for i, b in enumerate(ids)], rig.workdir)
    grow, shrink = max(1, count * 20 // 150), max(2, count * 80 // 150)
    workers, marks = {}, []

    def mark(what):
        marks.append("{} at {:.1f} s ({} completed, {} sent)".format(what, time.time() - start, watcher.completed_of(ids),
                                                                    watcher.sent_of(ids)))

    def start_worker(name):
        workers[name] = environment.start("worker-{}-{}".format(tag, name), topics.group, topics.jobs, topics.events, extra)

    try:
        start = time.time()
        start_worker("a")
        workers["a"].wait_assigned()
        watcher.wait(ids, 120, count=grow)
        mark("b and c start")
        for name in ("b", "c"):
            start_worker(name)
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
        shutil.rmtree(os.path.join(rig.workdir, "staging"), ignore_errors=True)
    for batch_id in ids:
        result = watcher.result(batch_id)
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
                           "handover under load (slow the uploads: TRICKLE in {})".format(tag, __name__))
    return ScaleCount(repeats, total_posts)


def rows(scale):
    return [Row("scale 1→3→1 under load: uploads repeated, % of files", scale.repeated_percent.text("{:.1f}"),
                target=SCALE_REPEATS, checked=(scale.repeated_percent.median,)),
            Row("scale 1→3→1 under load: message posts ÷ messages", scale.posts_per_message.text("{:.3f}"),
                target=SCALE_POSTS, checked=(scale.posts_per_message.median,))]
