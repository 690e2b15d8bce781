"""handover: a fresh worker (empty staging, so an empty local store) taking over --handover-batches idle batches
(100,000 by default) written to a changelog of PARTITIONS partitions: the time from its assignment until a job on
every partition was applied, which needs each partition's changelog read to its end first."""
import os
import re
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from ..event_watcher import EventWatcher
from ..failure import BenchFailure
from ..figures import Figure
from ..jobs import empty_job, idle_snapshot, record
from ..log import log
from ..rows import Row
from ..run_names import RunTopics, run_tag
from ..targets import HANDOVER_SECONDS

PARTITIONS = 24  # librdkafka's mock keeps about 5 MiB per partition: 100,000 snapshots need this many


class HandoverRun(NamedTuple):
    seconds: float  # assignment → a job applied on every partition
    records_read: int


@dataclass
class Handover:
    batches: int
    seconds: Figure = field(default_factory=Figure)  # assignment → a job applied on every partition
    records_read: Figure = field(default_factory=Figure)  # changelog records the worker restored


def measure(rig):
    handover = Handover(rig.options.handover_batches)
    for run in range(1, rig.runs + 1):
        measured = measure_one(rig, handover.batches, run_tag("handover", run))
        handover.seconds.add(measured.seconds)
        handover.records_read.add(measured.records_read)
        log("handover run {}: {} batches restored, records applying {:.2f} s after the assignment".format(
            run, measured.records_read, measured.seconds))
    return handover


def measure_one(rig, count, tag):
    """One run on fresh topics."""
    kafka, topics = rig.kafka, RunTopics.of(tag)
    for topic in (topics.jobs, topics.changelog):
        rig.broker.create_topic(topic, PARTITIONS)
    kafka.create_topic(topics.events, rig.workdir)
    updated = int(time.time() * 1000)
    # Written as a worker writes them: explicitly to the jobs partition's number, with the writer's headers.
    headers = ["attache.generation=1", "attache.pending=0", "attache.updated={}".format(updated)]
    for partition in range(PARTITIONS):
        path = os.path.join(rig.workdir, "{}-{}.tsv".format(tag, partition))
        with open(path, "w") as f:
            for i in range(partition, count, PARTITIONS):
                batch = "h-{}-{}".format(tag, i)
                f.write(record(batch, idle_snapshot(batch, updated)) + "\n")
        kafka.produce(topics.changelog, path, partition=partition, headers=headers, linger_ms=20)
        os.remove(path)
    # One job per partition, produced before the worker starts: it is applied once its partition is restored.
    markers = ["m-{}-{}".format(tag, p) for p in range(PARTITIONS)]
    for partition, marker in enumerate(markers):
        kafka.produce_lines(topics.jobs, [record(marker, empty_job(marker))], rig.workdir, partition=partition)
    watcher = EventWatcher(kafka, topics.events, rig.workdir)
    worker = rig.workers().start("worker-" + tag, topics.group, topics.jobs, topics.events, {"ATTACHE_LOG_LEVEL": "info"})
    try:
        assigned = worker.wait_assigned()
        end = watcher.wait(markers, timeout=120)
        log_text = worker.child.stderr_text()
    finally:
        worker.stop()
        watcher.stop()
    restored = re.findall(r"partition restored .*?recordsRead=(\d+)", log_text)
    total = sum(int(n) for n in restored)
    if len(restored) < PARTITIONS or total < count:
        raise BenchFailure("handover: {} partitions restored, {} records read (expected {} and {})".format(
            len(restored), total, PARTITIONS, count))
    return HandoverRun(end - assigned, total)


def rows(handover):
    return [Row("handover: a worker taking over {:,} idle batches on {} partitions, assignment → records applying, s"
                .format(handover.batches, PARTITIONS), handover.seconds.text("{:.2f}"), target=HANDOVER_SECONDS,
                checked=(handover.seconds.median,)),
            Row("handover: changelog records read while restoring", handover.records_read.text("{:.0f}"))]
