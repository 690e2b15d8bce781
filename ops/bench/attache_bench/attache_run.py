"""One Attache run: fresh workers on fresh topics, warm-up jobs, then the measured jobs, timed from the moment they
are produced until a consumer of the events topic has seen every one of them complete."""
import contextlib
import json
import os
import shutil
import time
from dataclasses import dataclass

from . import callgrind
from .cpu import cpu_by_thread_group, reaped_children_cpu
from .event_watcher import EventWatcher
from .failure import BenchFailure
from .job_counts import JobCounts
from .jobs import inline_job, record
from .run_names import RunTopics
from .timed_run import TimedRun
from .worker import wait_spread

# librdkafka's mock group coordinator settles a group that changes after its first generation only when the old
# member's session times out (kcat -G shows the same: 44 s with the range assignor, over 70 s with
# cooperative-sticky), so a group of several gets a short session, as the end-to-end tests use.
SHORT_SESSION = {"ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS": "6000", "ATTACHE_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS": "500"}


@dataclass
class AttacheRun(TimedRun):
    """peak_rss_kib is the workers' highest VmHWM, when asked for (else None)."""
    events: int  # events seen about the measured batches
    snapshots: int  # changelog records about the measured batches on the topic once they were done (read back)
    results: dict  # batchId -> the result of its batch.completed
    first_event: float  # seconds from the start to the first job's first event (staging, presigning: until progress)
    cpu_per_job: float  # the workers' CPU seconds per measured job
    cpu_per_job_by_thread: dict  # one worker: thread group -> its CPU seconds per measured job (empty for several)
    counts_per_job: dict  # with `count`: what job_counts.JobCounts counted, per measured job (else empty)
    system_per_job: float  # the part of cpu_per_job spent in the kernel


def run_attache(rig, scenario, tag, jobs, workers=1, extra=None, timeout=300, measure_rss=False, count=None,
                instructions=False):
    """Starts `workers` fresh workers in one group on fresh topics named for `tag`, warms them up, empties nginx's
    store (just before the timed part: `Nginx.clear_store`), produces `jobs` (list of (batchId, job dict)) and waits
    for every batch.completed; fails unless every batch uploaded all its files. The first one-worker run of each
    `scenario` is profiled under --perf. With `count` (one of job_counts.PASSES), one worker's events of that pass —
    system calls, context switches, wake-ups; or allocations and Swift tasks — are counted for the measured jobs
    (which slows it: not a run to time). With
    `instructions`, the one worker runs under callgrind, and `counts_per_job` are its instructions per job by library
    (callgrind.py; some 50 times slower: not a run to time either)."""
    kafka = rig.kafka
    wrapper = callgrind.wrapper(callgrind.output_path(scenario)) if instructions else ()
    extra = dict(extra or {}, **callgrind.ENVIRONMENT) if instructions else extra
    with warm_workers(rig, tag, workers, extra, wrapper) as (topics, watcher, started):
        path = os.path.join(rig.workdir, "jobs-{}.tsv".format(tag))
        with open(path, "w") as f:
            f.writelines(record(b, j) + "\n" for b, j in jobs)
        ids = [b for b, _ in jobs]
        rig.nginx.clear_store()
        recording = rig.profiler.start(scenario, started[0]) if workers == 1 and not (count or instructions) else None
        counting = (callgrind.InstructionCount(started[0].pid, scenario) if instructions
                    else JobCounts(started[0].pid, rig.workdir, tag, count) if count else None)
        cpu_before = sum(w.cpu_seconds() for w in started)
        system_before = sum(w.system_seconds() for w in started)
        threads_before = started[0].thread_cpu_seconds() if workers == 1 else {}
        account = rig.services_cpu({"worker": [w.pid for w in started], "kcat": [watcher.pid]})
        reaped = reaped_children_cpu()
        # The bench's own CPU (mostly the watcher's reading of the events) shares the cores with the run too.
        bench_before = time.process_time()
        start = time.time()
        kafka.produce(topics.jobs, path)
        end = watcher.wait(ids, timeout=timeout)
        account.add("kcat", reaped_children_cpu() - reaped)
        account.add("bench", time.process_time() - bench_before)
        account.stop()
        if instructions:
            # Counted up to the jobs' last snapshots, which follow their batch.completed (callgrind.py).
            wait_for_changelog(kafka, topics.changelog, ids)
        counts = counting.stop(len(jobs)) if counting else {}
        threads_after = started[0].thread_cpu_seconds() if workers == 1 else {}
        if recording:
            recording.stop()
        used = sum(w.cpu_seconds() for w in started) - cpu_before
        system = sum(w.system_seconds() for w in started) - system_before
        snapshots = changelog_records(kafka, topics.changelog, ids)
        by_thread = cpu_by_thread_group(threads_before, threads_after, used) if workers == 1 else {}
        run = AttacheRun(seconds=end - start, events=watcher.events_of(ids), snapshots=snapshots,
                         peak_rss_kib=max(w.peak_rss_kib() for w in started) if measure_rss else None,
                         results={b: watcher.result(b) for b in ids},
                         first_event=watcher.first_event(ids[0]) / 1000 - start,
                         cpu_per_job=used / len(jobs),
                         cpu_per_job_by_thread={group: seconds / len(jobs) for group, seconds in by_thread.items()},
                         counts_per_job=counts, system_per_job=system / len(jobs), account=account)
    for batch_id, result in run.results.items():
        if result.get("rejected") or result.get("failed"):
            raise BenchFailure("batch {} did not upload everything: {}".format(batch_id, json.dumps(result)[:500]))
    return run


@contextlib.contextmanager
def warm_workers(rig, tag, workers=1, extra=None, wrapper=()):
    """`workers` fresh workers in one group on fresh topics named for `tag`, holding their partitions and done with
    warm-up jobs, and a watcher of their events topic: yields (topics, watcher, workers); stops them all at the end
    and removes their staging."""
    kafka, topics = rig.kafka, RunTopics.of(tag)
    kafka.create_topic(topics.events, rig.workdir)
    watcher = EventWatcher(kafka, topics.events, rig.workdir)
    # Eight tiny warm-up jobs, spread over the partitions by key: they create the jobs topic before the worker
    # subscribes, and open the worker's connections to the presign endpoint and nginx.
    warm = ["warm-{}-{}".format(tag, i) for i in range(8)]
    kafka.produce_lines(topics.jobs, [record(b, inline_job(b, b"warm-up")) for b in warm], rig.workdir)
    started = []
    try:
        # All members start together, as a deployment does.
        if workers > 1:
            extra = dict(extra or {}, **SHORT_SESSION)
        environment = rig.workers()
        for i in range(workers):
            started.append(environment.start("worker-{}-{}".format(tag, i), topics.group, topics.jobs, topics.events,
                                             extra, wrapper))
        for worker in started:
            worker.wait_assigned()
        if workers > 1:
            wait_spread(started)
        watcher.wait(warm, timeout=60)
        yield topics, watcher, started
    finally:
        for worker in started:
            worker.stop()
        watcher.stop()
        shutil.rmtree(os.path.join(rig.workdir, "staging"), ignore_errors=True)


def wait_for_changelog(kafka, changelog, ids, quiet=5.0, timeout=120.0):
    """Waits until the changelog topic holds a record for each of `ids`, then until their count has not moved for
    `quiet` seconds: a batch may write one snapshot at intake and its last when it settles, up to a (stretched)
    `state.flushInterval` of 2.5 s later (callgrind.py)."""
    wanted = set(ids)
    deadline = time.time() + timeout
    while len({key for _, key, _ in kafka.read_all(changelog) if key in wanted}) < len(wanted):
        if time.time() > deadline:
            raise BenchFailure("the changelog did not get a snapshot of every batch in {:.0f} s".format(timeout))
        time.sleep(0.5)
    changelog_records(kafka, changelog, ids, quiet=quiet, timeout=timeout)


def changelog_records(kafka, changelog, ids, quiet=0.3, timeout=10.0):
    """The records on the changelog topic keyed by one of `ids`, read back with kcat once their count stops moving:
    what reached the topic, whatever the workers' own counters say (a batch's last snapshot follows its
    batch.completed by up to `state.flushInterval` and a delivery)."""
    wanted = set(ids)
    deadline = time.time() + timeout
    count = sum(1 for _, key, _ in kafka.read_all(changelog) if key in wanted)
    while time.time() < deadline:
        time.sleep(quiet)
        latest = sum(1 for _, key, _ in kafka.read_all(changelog) if key in wanted)
        if latest == count:
            break
        count = latest
    return count
