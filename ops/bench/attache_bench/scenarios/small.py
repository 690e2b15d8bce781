"""small: --small-jobs one-file 16 KiB `path` jobs (2,000 by default), worker.maxTransfers 32, against curl
--parallel-max 32 uploading the same files: time, jobs/s, events/s. The fan-out scenario adds a run with a group of
two workers to the same turns."""
import os
from dataclasses import dataclass, field

from ..attache_run import run_attache
from ..contender_cpu import ContenderCPU, cpu_rows
from ..figures import Figure
from ..jobs import path_job
from ..log import log
from ..peer_run import run_peer
from ..rows import Row
from ..run_names import run_tag
from ..targets import SMALL_VS_CURL

FILE_SIZE = 16 * 1024
MAX_TRANSFERS = 32


@dataclass
class SmallRun:
    """The runs of every contender: Attache with each worker count, and curl when it ran."""
    jobs: int
    worker_counts: list
    with_curl: bool
    times: dict = field(default_factory=dict)  # worker count or "curl" -> Figure of seconds
    events_per_s: dict = field(default_factory=dict)  # worker count -> Figure
    cpu_per_job_us: dict = field(default_factory=dict)  # worker count -> Figure of the workers' CPU per job
    cpu: dict = field(default_factory=dict)  # worker count or "curl" -> ContenderCPU

    def __post_init__(self):
        for who in self.contenders:
            self.times[who], self.cpu[who] = Figure(), ContenderCPU()
        for workers in self.worker_counts:
            self.events_per_s[workers], self.cpu_per_job_us[workers] = Figure(), Figure()

    @property
    def contenders(self):
        return list(self.worker_counts) + (["curl"] if self.with_curl else [])

    def rate(self, who):
        """Jobs (or curl's files) per second, run by run."""
        return Figure(self.jobs / s for s in self.times[who].values)


def measure(rig, worker_counts, with_curl):
    count = rig.options.small_jobs
    paths = rig.sources.make_files("small", count, FILE_SIZE, prefix="s-")
    small = SmallRun(count, worker_counts, with_curl)
    nginx = rig.nginx

    def measure_one(who, run, attempt):
        nginx.clear_store()
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
        scenario = "small{}w".format(who)
        tag = run_tag(scenario, run, attempt)
        jobs = [("s-{}-{}".format(tag, i + 1), p) for i, p in enumerate(paths)]
        measured = run_attache(rig, scenario, tag, [(b, path_job(b, [rig.sources.relative(p)])) for b, p in jobs],
                               workers=who, extra={"ATTACHE_WORKER_MAX_TRANSFERS": str(MAX_TRANSFERS)})
        nginx.check_stored([(p, nginx.stored_path("attache", b, "f1", os.path.basename(p))) for b, p in jobs], False)
        return measured

    for run, who, measured in rig.take_turns("small", small.contenders, measure_one):
        small.cpu[who].add(measured.account)
        small.times[who].add(measured.seconds)
        if who == "curl":
            log("small run {}: curl {:.3f} s ({:.0f} files/s)".format(run, measured.seconds, count / measured.seconds))
        else:
            small.events_per_s[who].add(measured.events / measured.seconds)
            small.cpu_per_job_us[who].add(measured.cpu_per_job * 1e6)
            log("small run {}: attache ×{} {:.3f} s ({:.0f} jobs/s, {:.0f} events/s)".format(
                run, who, measured.seconds, count / measured.seconds, measured.events / measured.seconds))
    return small


def rows(small):
    """The one-worker rows: time against curl (when it ran), CPU per job, CPU by process, jobs/s."""
    table = []
    if small.with_curl:
        ratio = small.times[1].over(small.times["curl"])
        table.append(Row("small {}×16 KiB jobs, 1 worker: time s".format(small.jobs), small.times[1].text("{:.2f}"),
                         "curl {}".format(small.times["curl"].text()), ratio, SMALL_VS_CURL, (ratio,)))
    table.append(Row("small: worker CPU per job µs (1 worker)", small.cpu_per_job_us[1].text("{:.0f}")))
    if small.with_curl:
        table += cpu_rows("small, 1 worker", small.cpu[1], "curl", small.cpu["curl"])
    return table + [rate_row(small, 1)]


def rate_row(small, workers):
    """Jobs/s and events/s of the runs with `workers` workers, next to curl's files/s."""
    curl = small.times.get("curl")
    return Row("small, {} worker{}: jobs/s · events/s".format(workers, "s" if workers > 1 else ""),
               "{} · {}".format(small.rate(workers).text("{:.0f}"), small.events_per_s[workers].text("{:.0f}")),
               "curl {} files/s".format(small.rate("curl").text("{:.0f}")) if curl and curl.values else "—",
               small.times[workers].over(curl) if curl and curl.values else None)
