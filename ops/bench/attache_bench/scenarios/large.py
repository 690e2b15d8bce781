"""large: 8 × 64 MiB `path` files at concurrency 8 into nginx: Attache end to end (job produced → batch.completed
seen) against curl --parallel-max 8 and rclone copy --transfers 8; the worker's peak RSS. The memory scenario runs
the same with larger files."""
import os
from dataclasses import dataclass, field

from ..attache_run import run_attache
from ..contender_cpu import ContenderCPU, cpu_rows
from ..failure import BenchFailure
from ..figures import Figure
from .. import floor
from ..jobs import path_job
from ..log import log
from ..peer_run import run_peer
from ..rows import Row
from ..sources import MIB
from ..run_names import run_tag
from ..syscalls import NginxSyscalls
from ..targets import LARGE_PEAK_RSS, LARGE_VS_CURL, LARGE_VS_RCLONE

FILES = 8
SIZE_MIB = 64
PEERS = ["curl", "rclone"]


@dataclass
class LargeRun:
    """Every contender's runs of one file size."""
    size_mib: int
    contenders: list
    times: dict = field(default_factory=dict)  # contender -> Figure of seconds
    peak_rss: dict = field(default_factory=dict)  # contender -> Figure of MiB
    first_event: Figure = field(default_factory=Figure)  # Attache's seconds until its first progress event
    cpu: dict = field(default_factory=dict)  # contender -> ContenderCPU
    events: Figure = field(default_factory=Figure)  # events Attache's runs wrote
    additions: floor.Additions = field(default_factory=floor.Additions)  # what the contract adds, measured alone

    def __post_init__(self):
        for who in self.contenders:
            self.times[who], self.peak_rss[who], self.cpu[who] = Figure(), Figure(), ContenderCPU()

    @property
    def scenario(self):
        return "large{}".format(self.size_mib)

    @property
    def title(self):
        return "large {}×{} MiB".format(FILES, self.size_mib)

    def mib_per_s(self, who):
        return FILES * self.size_mib / self.times[who].median

    def time_text(self, who):
        """`seconds (MiB/s)`, the peer's prefixed with its name."""
        text = "{} ({:.0f})".format(self.times[who].text(), self.mib_per_s(who))
        return text if who == "attache" else "{} {}".format(who, text)


def measure(rig, size_mib=SIZE_MIB, peers=PEERS, with_floor=True):
    """FILES files of `size_mib` at concurrency 8: Attache against the peers, in turns, --runs times each; then, with
    `with_floor`, what the contract adds to curl's work, measured alone."""
    paths = rig.sources.make_files("large{}".format(size_mib), FILES, size_mib * MIB)
    relative = [rig.sources.relative(p) for p in paths]
    large = LargeRun(size_mib, ["attache"] + peers)
    nginx = rig.nginx
    # Comparing every byte of 8 × 256 MiB would take longer than the uploads; their sizes are compared.
    compare = size_mib <= 64 or rig.options.verify_all

    syscalls = NginxSyscalls(rig.options.strace_nginx and size_mib == SIZE_MIB, nginx)

    def measure_one(who, run, attempt):
        counting = syscalls.start(who)
        try:
            return measure_contender(who, run, attempt)
        finally:
            syscalls.stop(counting)

    def measure_contender(who, run, attempt):
        tag = run_tag(large.scenario, run, attempt)
        if who == "attache":
            batch = "b-" + tag
            measured = run_attache(rig, large.scenario, tag, [(batch, path_job(batch, relative, concurrency=8))],
                                   measure_rss=True, timeout=600)
            uploaded = len(measured.results[batch].get("successful", []))
            if uploaded != FILES:
                raise BenchFailure("batch {} uploaded {} files".format(batch, uploaded))
            nginx.check_stored([(p, nginx.stored_path("attache", batch, "f{}".format(i + 1), os.path.basename(p)))
                                for i, p in enumerate(paths)], compare)
            return measured
        if who == "curl":
            argv = ["curl", "-sS", "--fail", "--parallel", "--parallel-max", "8", "-o", "/dev/null"]
            for p in paths:
                argv += ["-T", p, "{}/curl/{}/{}".format(nginx.base, tag, os.path.basename(p))]
        else:
            argv = ["rclone", "copy", os.path.dirname(paths[0]), ":webdav:rclone/" + tag, "--webdav-url", nginx.base,
                    "--transfers", "8", "--config", os.devnull, "-q"]
        measured = run_peer(rig, who, argv, "{}-{}".format(who, tag))
        nginx.check_stored([(p, nginx.stored_path(who, tag, os.path.basename(p))) for p in paths], compare)
        return measured

    for run, who, measured in rig.take_turns(large.scenario, large.contenders, measure_one):
        large.cpu[who].add(measured.account)
        if who == "attache":
            large.first_event.add(measured.first_event)
            large.events.add(measured.events)
        large.times[who].add(measured.seconds)
        large.peak_rss[who].add(measured.peak_rss_kib / 1024)
        log("{} run {}: {} {:.3f} s, peak RSS {:.1f} MiB, CPU s {}".format(
            large.scenario, run, who, measured.seconds, measured.peak_rss_kib / 1024,
            " · ".join("{} {:.2f}".format(label, s) for label, s in sorted(measured.account.used.items()))))
    if with_floor and "curl" in peers:
        # One presign request for the job's files; records: the job, its events and a snapshot per change.
        request = [("floor", [("f{}".format(i + 1), os.path.basename(p), size_mib * MIB) for i, p in enumerate(paths)])]
        records = 1 + 2 * int(large.events.median)
        for run in range(1, rig.runs + 1):
            floor.measure_additions(rig, large.additions, "{}-{}".format(large.scenario, run), paths, request, records)
    return large


def rows(large):
    """The 8×64 MiB rows: time against each peer, time to the first progress event, peak RSS, CPU."""
    attache = large.times["attache"]
    table = []
    for peer, target in [("curl", LARGE_VS_CURL), ("rclone", LARGE_VS_RCLONE)]:
        ratio = attache.over(large.times[peer])
        table.append(Row("{}, c=8: time s (MiB/s)".format(large.title), large.time_text("attache"),
                         large.time_text(peer), ratio, target, (ratio,)))
    rss = large.peak_rss
    table.append(Row("{}: Attache's time to its first progress event (staging, presign) s".format(large.title),
                     large.first_event.text()))
    table.append(Row("{}: peak RSS MiB".format(large.title), rss["attache"].text("{:.1f}"),
                     "curl {} · rclone {}".format(rss["curl"].text("{:.1f}"), rss["rclone"].text("{:.1f}")),
                     rss["attache"].over(rss["curl"]), LARGE_PEAK_RSS, (rss["attache"].median,)))
    if large.additions.sha256.values:
        table += floor.rows(large.title, "curl", large.times["curl"], large.cpu["curl"].total(), large.additions,
                            attache, large.cpu["attache"].total(), LARGE_VS_CURL)
    return table + cpu_rows(large.title, large.cpu["attache"], "curl", large.cpu["curl"])
