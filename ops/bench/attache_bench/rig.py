"""The machine set up for the scenarios: one work directory and the services they share."""
import os
import subprocess
import sys
import tempfile

from .children import Child
from .cpu import CPUAccount
from .log import log
from .mock_cluster import MockCluster
from .nginx import Nginx
from .paths import bench_script
from .perf import Profiler
from .sources import Sources
from .steady import SteadyRuns, in_turn
from .worker import WorkerEnvironment


class Rig:
    """The work directory (source files, staging, nginx's store, every process's logs), how runs are repeated and
    profiled, and, once `start_services` ran, the broker (`attache dev-broker --faults`: topics of any partition
    count through its commands), nginx and ops/bench/presign.py."""

    def __init__(self, options):
        self.options = options
        self.attache = options.attache
        self.runs = options.runs
        root = options.dir or ("/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir())
        self.workdir = tempfile.mkdtemp(prefix="attache-bench-", dir=root)
        self.on_tmpfs = filesystem(self.workdir) == "tmpfs"
        self.sources = Sources(os.path.join(self.workdir, "sources"))
        self.steady = SteadyRuns(options.max_steal, options.steal_retries)
        self.profiler = Profiler(options.perf, options.perf_event, self.workdir)
        self.broker = self.kafka = self.presign = self.presign_url = None
        self._nginx = None

    @property
    def nginx(self):
        """The store, started on first use (the soak may run without the other services)."""
        if self._nginx is None:
            self._nginx = Nginx(self.workdir)
        return self._nginx

    def start_services(self):
        self.broker = MockCluster("broker", [self.attache, "dev-broker", "--faults"], self.workdir)
        self.kafka = self.broker.kafka
        base = self.nginx.base
        self.presign = Child("presign", [sys.executable, bench_script("presign.py"), "--upload-base", base + "/attache"],
                             self.workdir)
        self.presign_url = self.presign.first_stdout_line()
        log("broker {}, nginx {}, presign {}, work dir {} ({})".format(self.kafka.brokers, base, self.presign_url,
                                                                     self.workdir, "tmpfs" if self.on_tmpfs else "disk"))

    def take_turns(self, scenario, contenders, measure_one):
        """Every run of every contender: in each of the --runs runs, the contenders in turn, each measured steadily
        by `measure_one(who, run, attempt)`; yields (run, who, measured). Each contender empties nginx's store just
        before its timed part (`Nginx.clear_store`), so the store holds the last one's files until the next scenario's
        first contender frees them."""
        for run in range(1, self.runs + 1):
            for who in in_turn(contenders, run):
                yield run, who, self.steady.measure(lambda attempt: measure_one(who, run, attempt),
                                               "{} run {}: {}".format(scenario, run, who))

    def workers(self):
        """Workers on the shared services."""
        return WorkerEnvironment(self.attache, self.workdir, self.sources.root, self.kafka.brokers, self.presign_url)

    def services_cpu(self, extra=None):
        """A CPU account of the shared services (and `extra` label -> pids) from now on."""
        groups = {"nginx": self.nginx.pids(), "broker": [self.broker.pid], "presign": [self.presign.pid]}
        groups.update(extra or {})
        return CPUAccount(groups)


def filesystem(path):
    """The type of the filesystem holding `path` (tmpfs, ext4, …), for results.md."""
    try:
        return subprocess.run(["stat", "-f", "-c", "%T", path], stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    except Exception:
        return "unknown"
