"""fairness: one worker whose MAX_TRANSFERS transfer slots go round-robin over the tenants with files waiting
(DESIGN §8: one tenant's 2,000 queued small files hold another tenant's single file back by one free slot at most).
Tenant b's one-file 16 KiB job, produced once tenant a's A_JOBS one-file jobs are all in the worker and uploading,
against the same job on an idle worker: the time from b's job produced to its file.uploaded seen, within 2×; and how
many of a's files were uploaded after b's (most, if b did not wait its turn behind them)."""
import os
import time
from dataclasses import dataclass, field

from ..attache_run import warm_workers
from ..cpu import HostSteal
from ..failure import BenchFailure
from ..figures import Figure
from ..jobs import path_job, record
from ..log import log
from ..rows import Row
from ..run_names import run_tag
from ..targets import FAIRNESS_VS_IDLE
from .small import FILE_SIZE

A_JOBS = 2000
# Few enough slots that a's files queue: the worker takes a's jobs in faster than 8 slots upload their files.
MAX_TRANSFERS = 8
LOADED, IDLE = "loaded", "idle"


@dataclass
class FairnessRun:
    """One measured run."""
    seconds: float  # b's job produced → its file.uploaded seen
    first_event: float  # b's job produced → its first event (its upload under way: taken in, staged, presigned)
    a_after: int  # a's files uploaded after b's (by the events' CreateTime)
    host: HostSteal

    @property
    def steal(self):
        return self.host.steal


@dataclass
class Fairness:
    times: dict = field(default_factory=lambda: {LOADED: Figure(), IDLE: Figure()})  # -> Figure of ms
    a_after: Figure = field(default_factory=Figure)


def measure(rig):
    a_paths = rig.sources.make_files("small", A_JOBS, FILE_SIZE, prefix="s-")
    b_path = rig.sources.make_files("fairness", 1, FILE_SIZE, prefix="b-")[0]
    fairness = Fairness()

    def measure_one(who, run, attempt):
        return measure_run(rig, run_tag("fairness-" + who, run, attempt), a_paths if who == LOADED else [], b_path)

    for run, who, measured in rig.take_turns("fairness", [LOADED, IDLE], measure_one):
        fairness.times[who].add(measured.seconds * 1000)
        if who == LOADED:
            fairness.a_after.add(measured.a_after)
        after = "; {} of a's {} files uploaded after it".format(measured.a_after, A_JOBS) if who == LOADED else ""
        log("fairness run {}: {} worker, b's job produced → its first event {:.1f} ms, its file.uploaded {:.1f} ms{}"
            .format(run, who, measured.first_event * 1000, measured.seconds * 1000, after))
    return fairness


def measure_run(rig, tag, a_paths, b_path):
    """A fresh worker; a's jobs (one per path in `a_paths`, none on an idle worker) produced and all taken in
    (the worker's accepted-jobs counter) before b's job is produced and timed. Every batch must upload its file."""
    kafka, nginx, relative = rig.kafka, rig.nginx, rig.sources.relative
    a_jobs = [("fa-{}-{}".format(tag, i + 1), p) for i, p in enumerate(a_paths)]
    b = "fb-" + tag
    a_file = jobs_file(rig, tag + "-a", [(x, path_job(x, [relative(p)], tenant="a")) for x, p in a_jobs])
    b_file = jobs_file(rig, tag + "-b", [(b, path_job(b, [relative(b_path)], tenant="b"))])
    ids = [x for x, _ in a_jobs] + [b]
    extra = {"ATTACHE_WORKER_MAX_TRANSFERS": str(MAX_TRANSFERS)}
    with warm_workers(rig, tag, extra=extra) as (topics, watcher, started):
        nginx.clear_store()
        if a_jobs:
            accepted = started[0].metric("attache_jobs_total", 'outcome="accepted"')
            kafka.produce(topics.jobs, a_file)
            wait_accepted(started[0], accepted + len(a_jobs))
        host = HostSteal()
        start = time.time()
        kafka.produce(topics.jobs, b_file)
        end = watcher.wait_uploaded([b], timeout=120)
        host.stop()
        watcher.wait(ids, timeout=300)
        results = {x: watcher.result(x) for x in ids}
        first_event = watcher.first_event(b) / 1000 - start
        b_created = watcher.uploaded_at(b)[1]
        a_after = sum(1 for x, _ in a_jobs if watcher.uploaded_at(x)[1] > b_created)
    for batch_id, result in results.items():
        if result.get("rejected") or result.get("failed") or len(result.get("successful", [])) != 1:
            raise BenchFailure("batch {} did not upload its file: {}".format(batch_id, result))
    nginx.check_stored([(p, nginx.stored_path("attache", x, "f1", os.path.basename(p)))
                        for x, p in a_jobs + [(b, b_path)]], False)
    return FairnessRun(end - start, first_event, a_after, host)


def jobs_file(rig, name, jobs):
    """The `key<TAB>value` lines of `jobs` (list of (batchId, job dict)) in a file, written before any timing."""
    path = os.path.join(rig.workdir, "jobs-{}.tsv".format(name))
    with open(path, "w") as f:
        f.writelines(record(b, j) + "\n" for b, j in jobs)
    return path


def wait_accepted(worker, count, timeout=60):
    """Waits until the worker has taken in `count` jobs in all: then every one of a's files is in it, uploading or
    waiting for a slot, and b's job meets a full queue rather than a's records still ahead of it on the topic."""
    deadline = time.time() + timeout
    while worker.metric("attache_jobs_total", 'outcome="accepted"') < count:
        if time.time() > deadline:
            raise BenchFailure("{} took in fewer than {} jobs in {} s".format(worker.name, count, timeout))
        worker.check_running()
        time.sleep(0.02)


def rows(fairness):
    loaded, idle = fairness.times[LOADED], fairness.times[IDLE]
    ratio = loaded.over(idle)
    return [Row("fairness: tenant b's one file behind tenant a's {:,}, time to file.uploaded ms".format(A_JOBS),
                loaded.text("{:.1f}"), "idle worker {}".format(idle.text("{:.1f}")), ratio, FAIRNESS_VS_IDLE, (ratio,)),
            Row("fairness: tenant a's files uploaded after b's (of {:,}), worker.maxTransfers {}".format(
                A_JOBS, MAX_TRANSFERS), fairness.a_after.text("{:.0f}"))]
