"""intake: --intake-jobs jobs (50,000 by default) refused at validation (empty inline data): Kafka in, decode,
events out, snapshots, commits, no HTTP. Jobs/s and events/s from the worker's partition assignment to its last
event; the worker's CPU per job; the memory it still holds per idle batch once they settled. With --callgrind, one
more, untimed run of CALLGRIND_JOBS jobs with the worker under callgrind counts a refused job's instructions, from its
first job until every batch's last snapshot is on the changelog (callgrind.py; report in
ops/bench/work/intake-callgrind.txt)."""
import json
import os
import time
from dataclasses import dataclass, field

from .. import callgrind
from ..cpu import HostSteal
from ..failure import BenchFailure
from ..figures import Figure
from ..jobs import empty_job, record
from ..log import log
from ..rows import Row
from ..sources import MIB
from ..run_names import RunTopics, run_tag
from ..attache_run import wait_for_changelog
from .small import instructions_row
from ..targets import IDLE_BATCH_BYTES, INTAKE_CPU_GUIDE, INTAKE_RATE

# Once the jobs have settled (their snapshots delivered), idle batches leave memory beyond worker.maxCachedBatches at
# the worker's next sweeps (every 2 s): two of them.
SETTLE_SECONDS = 4.5
# Jobs in the counted run: the worker runs some 50 times slower under callgrind.
CALLGRIND_JOBS = 5000


@dataclass
class IntakeRun:
    """One measured run."""
    seconds: float
    events: int
    cpu_per_job: float  # seconds
    held_bytes: float  # RSS growth per job (one idle batch each)
    host: HostSteal

    @property
    def steal(self):
        return self.host.steal


@dataclass
class Intake:
    jobs: int
    jobs_per_s: Figure = field(default_factory=Figure)
    events_per_s: Figure = field(default_factory=Figure)
    cpu_per_job_us: Figure = field(default_factory=Figure)
    held_bytes: Figure = field(default_factory=Figure)
    steal: Figure = field(default_factory=Figure)
    # with --callgrind: library label -> instructions per refused job (callgrind.py), "total" among them
    instructions_per_job: dict = field(default_factory=dict)


def measure(rig):
    intake = Intake(rig.options.intake_jobs)
    for run in range(1, rig.runs + 1):
        measured = rig.steady.measure(lambda attempt: measure_one(rig, intake.jobs, run_tag("intake", run, attempt)),
                                      "intake run {}".format(run))
        intake.jobs_per_s.add(intake.jobs / measured.seconds)
        intake.events_per_s.add(measured.events / measured.seconds)
        intake.cpu_per_job_us.add(measured.cpu_per_job * 1e6)
        intake.held_bytes.add(measured.held_bytes)
        intake.steal.add(measured.steal)
        log("intake run {}: {} jobs in {:.3f} s ({:.0f} jobs/s, {:.0f} events/s)".format(
            run, intake.jobs, measured.seconds, intake.jobs / measured.seconds, measured.events / measured.seconds))
    if rig.options.callgrind:
        jobs = min(intake.jobs, CALLGRIND_JOBS)
        intake.instructions_per_job = count_instructions(rig, jobs, run_tag("intake", "callgrind", 0))
        log("intake: instructions per refused job {:,.0f} (ops/bench/work/intake-callgrind.txt)".format(
            intake.instructions_per_job["total"]))
    return intake


def write_jobs(rig, count, tag):
    """A file of `count` refused jobs, one batch each, for kcat to produce; and their batch ids."""
    ids = ["i-{}-{}".format(tag, i) for i in range(count)]
    path = os.path.join(rig.workdir, tag + ".tsv")
    with open(path, "w") as f:
        for batch in ids:
            f.write(record(batch, empty_job(batch)) + "\n")
    if os.path.getsize(path) / 4 > 4.5 * MIB:
        raise BenchFailure("--intake-jobs {} does not fit the mock cluster's partitions (5 MiB each, 4 per topic)"
                           .format(count))
    return path, ids


def measure_one(rig, count, tag):
    """All `count` jobs are produced before the worker starts; the run ends with the last event it produced."""
    kafka, topics = rig.kafka, RunTopics.of(tag)
    kafka.create_topic(topics.events, rig.workdir)
    path, _ = write_jobs(rig, count, tag)
    kafka.produce(topics.jobs, path)
    worker = rig.workers().start("worker-" + tag, topics.group, topics.jobs, topics.events, {"ATTACHE_LOG_LEVEL": "info"})
    try:
        assigned = worker.wait_assigned(timeout=60)
        cpu_before = worker.cpu_seconds()
        rss_before = worker.rss_kib()
        host = HostSteal()
        recording = rig.profiler.start("intake", worker)
        deadline = time.time() + 300
        while worker.metric("attache_files_total", "ERR_FILE_DATA_EMPTY") < count:
            if time.time() > deadline or worker.child.process.poll() is not None:
                raise BenchFailure("intake did not finish: {}".format(worker.child.stderr_text()[-1000:]))
            time.sleep(0.1)
        # file.rejected + batch.completed per job, and the marker's
        wait_for_events(kafka, topics.events, 2 * count + 1, deadline)
        host.stop()
        if recording:
            recording.stop()
        accepted = worker.metric("attache_jobs_total", 'outcome="accepted"')
        cpu_per_job = (worker.cpu_seconds() - cpu_before) / count
        time.sleep(SETTLE_SECONDS)
        rss_end = worker.rss_kib()
        log("intake: {:.0f} batches still in memory after the run".format(worker.metric("attache_cached_batches")))
        held = (rss_end - rss_before) * 1024 / count
    finally:
        worker.stop()
    events = kafka.end_offsets(topics.events) - 1
    if accepted != count or events != 2 * count:
        raise BenchFailure("intake: {} jobs accepted, {} events (expected {} and {})".format(
            accepted, events, count, 2 * count))
    # The mock cluster keeps the last 5 MiB of each partition: enough for the end time and a look at results.
    records = [r for r in kafka.read_all(topics.events) if r[2].startswith("{")]
    completed = [json.loads(r[2]) for r in records if '"type":"attache.batch.completed"' in r[2]]
    if len({e["subject"] for e in completed}) != len(completed) or not all(
            e["data"]["result"]["rejected"][0]["error"]["code"] == "ERR_FILE_DATA_EMPTY" for e in completed):
        raise BenchFailure("intake: a batch completed twice or not with ERR_FILE_DATA_EMPTY")
    os.remove(path)
    return IntakeRun(max(r[0] for r in records) / 1000 - assigned, events, cpu_per_job, held, host)


def count_instructions(rig, count, tag):
    """The same jobs, the worker under callgrind: its instructions per job by library, counted from the first job
    until every batch's last snapshot is on the changelog. The worker is not asked for its metrics meanwhile: each
    reading would be counted as the jobs' work."""
    kafka, topics = rig.kafka, RunTopics.of(tag)
    kafka.create_topic(topics.events, rig.workdir)
    path, ids = write_jobs(rig, count, tag)
    # The jobs come once the worker has its partitions and has dead-lettered the marker that created its topic.
    kafka.create_topic(topics.jobs, rig.workdir)
    worker = rig.workers().start("worker-" + tag, topics.group, topics.jobs, topics.events,
                                 {"ATTACHE_LOG_LEVEL": "info", **callgrind.ENVIRONMENT},
                                 callgrind.wrapper(callgrind.output_path("intake")))
    try:
        worker.wait_assigned(timeout=600)
        wait_for_events(kafka, topics.events, 2, time.time() + 300)
        counting = callgrind.InstructionCount(worker.pid, "intake")
        kafka.produce(topics.jobs, path)
        # file.rejected + batch.completed per job, and the two markers'
        wait_for_events(kafka, topics.events, 2 * count + 2, time.time() + 1800)
        wait_for_changelog(kafka, topics.changelog, ids)
        return counting.stop(count)
    finally:
        worker.stop()
        os.remove(path)


def wait_for_events(kafka, topic, expected, deadline):
    while kafka.end_offsets(topic) < expected:
        if time.time() > deadline:
            raise BenchFailure("intake events did not all arrive")
        time.sleep(0.1)


def rows(intake):
    return [Row("intake {} refused jobs: jobs/s · events/s".format(intake.jobs),
                "{} · {}".format(intake.jobs_per_s.text("{:.0f}"), intake.events_per_s.text("{:.0f}")),
                target=INTAKE_RATE, checked=(intake.jobs_per_s.median,)),
            Row("intake: worker CPU per job µs", intake.cpu_per_job_us.text("{:.0f}"), target=INTAKE_CPU_GUIDE),
            Row("intake: memory held per idle batch after the run, bytes (RSS growth ÷ jobs, one batch each)",
                intake.held_bytes.text("{:.0f}"), target=IDLE_BATCH_BYTES, checked=(intake.held_bytes.median,)),
            Row("intake: CPU the host stole while timed, %", intake.steal.text("{:.1f}"))] + (
        [instructions_row("intake: instructions per refused job (callgrind), thousands", intake.instructions_per_job)]
        if intake.instructions_per_job else [])
