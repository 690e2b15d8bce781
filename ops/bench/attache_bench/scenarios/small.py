"""small: --small-jobs one-file 16 KiB `path` jobs (2,000 by default), worker.maxTransfers 32, against curl
--parallel-max 32 uploading the same files: time, jobs/s, events/s, in `endpoint` presign mode (a presign call per
job) and in `s3` mode (the worker signs the URLs itself, no call); the worker's CPU per job against curl's per file;
and the floor (floor.py). The fan-out scenario adds a run with a group of two workers to the same turns."""
import os
from dataclasses import dataclass, field

from ..attache_run import run_attache
from ..contender_cpu import ContenderCPU, cpu_rows
from ..cpu import THREAD_GROUPS
from ..figures import Figure
from .. import floor
from ..job_counts import PASSES
from ..jobs import path_job
from ..log import log
from ..peer_run import run_peer
from ..rows import Row
from ..run_names import run_tag
from ..targets import SMALL_CPU_VS_CURL, SMALL_VS_CURL

FILE_SIZE = 16 * 1024
MAX_TRANSFERS = 32
S3 = "s3"  # the contender: one worker in `s3` presign mode
# `s3` mode against nginx: path-style URLs {endpoint}/{bucket}/{batchId}/{fileId}/{name}, the layout the presign
# endpoint gives; nginx's WebDAV PUT ignores the signature in the query and the checksum header.
S3_ENVIRONMENT = {"ATTACHE_PRESIGN_MODE": "s3", "ATTACHE_PRESIGN_S3_BUCKET": "attache", "ATTACHE_PRESIGN_S3_REGION": "us-east-1",
                  "ATTACHE_PRESIGN_S3_ACCESS_KEY_ID": "bench", "ATTACHE_PRESIGN_S3_SECRET_ACCESS_KEY": "bench-secret",
                  "ATTACHE_PRESIGN_S3_PATH_STYLE": "true"}


@dataclass
class SmallRun:
    """The runs of every contender: Attache with each worker count, and curl when it ran."""
    jobs: int
    worker_counts: list
    with_curl: bool
    times: dict = field(default_factory=dict)  # worker count or "curl" -> Figure of seconds
    events_per_s: dict = field(default_factory=dict)  # worker count -> Figure
    # worker count or S3 -> Figure of the Kafka records a job made besides itself: events, changelog snapshots
    events_per_job: dict = field(default_factory=dict)
    snapshots_per_job: dict = field(default_factory=dict)
    # 1 or S3 -> what two extra, untimed runs counted per job (job_counts.PASSES): system calls, context switches…
    counts_per_job: dict = field(default_factory=dict)
    # with --callgrind: library label -> instructions per job in `s3` mode (callgrind.py), "total" among them
    instructions_per_job: dict = field(default_factory=dict)
    cpu_per_job_us: dict = field(default_factory=dict)  # worker count -> Figure of the workers' CPU per job
    system_per_job_us: dict = field(default_factory=dict)  # worker count -> Figure of its part in the kernel
    cpu: dict = field(default_factory=dict)  # worker count, S3 or "curl" -> ContenderCPU
    curl_cpu_per_file_us: Figure = field(default_factory=Figure)  # curl's own CPU per file
    additions: dict = field(default_factory=dict)  # 1 (endpoint mode) or S3 -> floor.Additions
    # 1 (endpoint mode) or S3 -> thread group -> Figure of the worker's CPU per job on those threads, µs
    thread_us: dict = field(default_factory=dict)

    def __post_init__(self):
        for who in self.contenders:
            self.times[who], self.cpu[who] = Figure(), ContenderCPU()
        for workers in self.attache_runs:
            self.events_per_s[workers], self.cpu_per_job_us[workers] = Figure(), Figure()
            self.system_per_job_us[workers] = Figure()
            self.events_per_job[workers], self.snapshots_per_job[workers] = Figure(), Figure()
        self.additions = {1: floor.Additions(), S3: floor.Additions()}
        self.thread_us = {1: {}, S3: {}}

    @property
    def attache_runs(self):
        """Worker counts in endpoint mode, and the one-worker run in s3 mode next to curl."""
        return list(self.worker_counts) + ([S3] if self.with_curl else [])

    @property
    def contenders(self):
        return self.attache_runs + (["curl"] if self.with_curl else [])

    def rate(self, who):
        """Jobs (or curl's files) per second, run by run."""
        return Figure(self.jobs / s for s in self.times[who].values)


def measure(rig, worker_counts, with_curl):
    count = rig.options.small_jobs
    paths = rig.sources.make_files("small", count, FILE_SIZE, prefix="s-")
    small = SmallRun(count, worker_counts, with_curl)
    nginx = rig.nginx

    def measure_one(who, run, attempt, count_work=None, instructions=False):
        if who == "curl":
            tag = run_tag("small-curl", run, attempt)
            config = os.path.join(rig.workdir, tag + ".curlrc")
            with open(config, "w") as f:
                for p in paths:
                    f.write('upload-file = "{}"\nurl = "{}/curl/{}/{}"\noutput = "/dev/null"\n'.format(
                        p, nginx.base, tag, os.path.basename(p)))
            measured = run_peer(rig, "curl", ["curl", "-sS", "--fail", "--parallel", "--parallel-max",
                                              str(MAX_TRANSFERS), "-K", config], tag)
            nginx.check_stored([(p, nginx.stored_path("curl", tag, os.path.basename(p))) for p in paths], False)
            return measured
        scenario = "small-s3" if who == S3 else "small{}w".format(who)
        tag = run_tag(scenario, run, attempt)
        jobs = [("s-{}-{}".format(tag, i + 1), p) for i, p in enumerate(paths)]
        extra = {"ATTACHE_WORKER_MAX_TRANSFERS": str(MAX_TRANSFERS)}
        if who == S3:
            extra.update(S3_ENVIRONMENT, ATTACHE_PRESIGN_S3_ENDPOINT=nginx.base)
        measured = run_attache(rig, scenario, tag, [(b, path_job(b, [rig.sources.relative(p)])) for b, p in jobs],
                               workers=1 if who == S3 else who, extra=extra, count=count_work, instructions=instructions)
        nginx.check_stored([(p, nginx.stored_path("attache", b, "f1", os.path.basename(p))) for b, p in jobs], False)
        return measured

    for run, who, measured in rig.take_turns("small", small.contenders, measure_one):
        small.cpu[who].add(measured.account)
        small.times[who].add(measured.seconds)
        if who == "curl":
            small.curl_cpu_per_file_us.add(small.cpu["curl"].by_process["curl"].values[-1] / count * 1e6)
            log("small run {}: curl {:.3f} s ({:.0f} files/s)".format(run, measured.seconds, count / measured.seconds))
        else:
            small.events_per_s[who].add(measured.events / measured.seconds)
            small.events_per_job[who].add(measured.events / count)
            small.snapshots_per_job[who].add(measured.snapshots / count)
            small.cpu_per_job_us[who].add(measured.cpu_per_job * 1e6)
            small.system_per_job_us[who].add(measured.system_per_job * 1e6)
            for group, seconds in measured.cpu_per_job_by_thread.items():
                small.thread_us[who].setdefault(group, Figure()).add(seconds * 1e6)
            log("small run {}: attache ×{} {:.3f} s ({:.0f} jobs/s, {:.0f} events/s)".format(
                run, who, measured.seconds, count / measured.seconds, measured.events / measured.seconds))
    # Two more runs of each one-worker contender, counted, the kernel's events apart from the uprobes that slow the
    # worker (job_counts.PASSES): never one of the timed runs.
    for who in [w for w in (1, S3) if w in small.attache_runs]:
        counts = {}
        for number, events in enumerate(PASSES):
            counts.update(measure_one(who, "counted{}".format(number + 1), 0, count_work=events).counts_per_job)
        small.counts_per_job[who] = counts
        log("small, {}: per job {}".format("s3 mode" if who == S3 else "endpoint mode", ", ".join(
            "{} {:.1f}".format(name, value) for name, value in counts.items())))
    if rig.options.callgrind and S3 in small.attache_runs:
        small.instructions_per_job = measure_one(S3, "callgrind", 0, instructions=True).counts_per_job
        log("small, s3 mode: instructions per job {:,.0f} (ops/bench/work/small-s3-callgrind.txt)".format(
            small.instructions_per_job["total"]))
    if with_curl:
        def records(who):
            """Jobs in, events and the snapshots the run delivered out."""
            return int(count * (1 + small.events_per_job[who].median + small.snapshots_per_job[who].median))

        requests = [("floor-{}".format(i), [("f1", os.path.basename(p), FILE_SIZE)]) for i, p in enumerate(paths)]
        for run in range(1, rig.runs + 1):
            floor.measure_additions(rig, small.additions[1], "small-{}".format(run), paths, requests, records(1))
            floor.measure_additions(rig, small.additions[S3], "small-s3-{}".format(run), paths, [], records(S3))
    return small


def rows(small):
    """The one-worker rows: time against curl (when it ran), CPU per job, CPU by process, jobs/s."""
    table = []
    if not small.with_curl:
        return [Row("small: worker CPU per job µs (1 worker)", small.cpu_per_job_us[1].text("{:.0f}")), rate_row(small, 1)]
    curl = small.times["curl"]
    for who, mode in [(1, "endpoint"), (S3, "s3")]:
        title = "small {}×16 KiB jobs, 1 worker, {} presign mode".format(small.jobs, mode)
        ratio = small.times[who].over(curl)
        table.append(Row(title + ": time s", small.times[who].text("{:.2f}"), "curl {}".format(curl.text()), ratio,
                         SMALL_VS_CURL, (ratio,)))
        per_file = small.cpu_per_job_us[who].over(small.curl_cpu_per_file_us)
        table.append(Row("small, {} mode: worker CPU per job µs (curl's CPU per file)".format(mode),
                         small.cpu_per_job_us[who].text("{:.0f}"), "curl {}".format(small.curl_cpu_per_file_us.text("{:.0f}")),
                         per_file, SMALL_CPU_VS_CURL, (per_file,)))
        table.append(floor.per_job_row("small, {} mode".format(mode), "curl", small.curl_cpu_per_file_us,
                                       small.additions[who], small.jobs, small.cpu_per_job_us[who], SMALL_CPU_VS_CURL))
        table += floor.rows("small, {} mode".format(mode), "curl", curl, small.cpu["curl"].total(), small.additions[who],
                            small.times[who], small.cpu[who].total(), SMALL_VS_CURL)
        table.append(thread_row(mode, small.thread_us[who]))
        table.append(Row("small, {} mode: worker CPU per job in the kernel, µs (system time: system calls, page faults, "
                         "wake-ups; not in --callgrind's counts)".format(mode), small.system_per_job_us[who].text("{:.0f}")))
        table.append(records_row(small, who, mode))
        if who in small.counts_per_job:
            table.append(counts_row(small.counts_per_job[who], mode))
        if who == S3 and small.instructions_per_job:
            table.append(instructions_row("small, s3 mode: instructions per job (callgrind), thousands",
                                          small.instructions_per_job))
    table += cpu_rows("small, 1 worker, endpoint mode", small.cpu[1], "curl", small.cpu["curl"])
    table += cpu_rows("small, 1 worker, s3 mode", small.cpu[S3], "curl", small.cpu["curl"])
    return table + [rate_row(small, 1)]


def thread_row(mode, groups):
    """Where the worker's CPU per job went, by thread group (medians of each group, so they need not add up to the
    median total)."""
    order = [label for label, _ in THREAD_GROUPS] + ["other", "rest"]
    parts = ["{} {:.0f}".format(label, groups[label].median) for label in order if label in groups]
    return Row("small, {} mode: worker CPU per job by thread, µs (medians)".format(mode), " · ".join(parts) or "—")


def records_row(small, who, mode):
    """The Kafka records a job made: its own, the events it caused, the changelog records of its batch, read back
    from the topic (one at least: a batch still at work is written when it settles, DESIGN §8 allows 1.1)."""
    return Row("small, {} mode: Kafka records per job: the job · events · changelog records (topic)".format(mode),
               "1 · {} · {}".format(small.events_per_job[who].text("{:.2f}"), small.snapshots_per_job[who].text("{:.2f}")))


def counts_row(counts, mode):
    """What the worker did per job, counted in two extra runs (job_counts.py)."""
    return Row("small, {} mode: per job: {}".format(mode, " · ".join(counts)),
               " · ".join("{:.1f}".format(value) for value in counts.values()))


def instructions_row(title, counts):
    """A job's instructions by library, counted under callgrind in one extra run (callgrind.py)."""
    parts = [(label, value) for label, value in counts.items() if label != "total"]
    return Row(title + ": " + " · ".join(label for label, _ in parts)
               + " = total", " · ".join("{:.0f}".format(value / 1000) for _, value in parts)
               + " = {:.0f}".format(counts["total"] / 1000))


def rate_row(small, workers):
    """Jobs/s and events/s of the runs with `workers` workers, next to curl's files/s."""
    curl = small.times.get("curl")
    return Row("small, {} worker{}: jobs/s · events/s".format(workers, "s" if workers > 1 else ""),
               "{} · {}".format(small.rate(workers).text("{:.0f}"), small.events_per_s[workers].text("{:.0f}")),
               "curl {} files/s".format(small.rate("curl").text("{:.0f}")) if curl and curl.values else "—",
               small.times[workers].over(curl) if curl and curl.values else None)
