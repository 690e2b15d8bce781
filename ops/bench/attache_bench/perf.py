"""--perf: the worker's stacks under `perf record`, for the first one-worker run of each scenario."""
import os
import signal
import subprocess
import time

from .children import Child
from .log import log
from . import perf_kinds
from .paths import BENCH_DIR, REPO


class Profiler:
    """Samples the worker's stacks into ops/bench/work/: by default on cpu-clock (works in VMs without hardware
    counters); `--perf-event sched:sched_switch` instead records every stack a thread went to sleep from."""

    def __init__(self, enabled, event, workdir):
        self.enabled, self.event, self.workdir = enabled, event, workdir
        self.profiled = set()

    def start(self, scenario, worker):
        """Starts recording `worker` if profiling is on and `scenario` was not profiled yet; returns the recording to
        `stop`, or None."""
        if not self.enabled or scenario in self.profiled:
            return None
        self.profiled.add(scenario)
        return Recording(scenario, worker, self.event, self.workdir)


class Recording:
    """One `perf record` of one worker, written out as a report by `stop`."""

    def __init__(self, scenario, worker, event, workdir):
        self.scenario, self.event = scenario, event
        self.data = os.path.join(BENCH_DIR, "work", scenario + "-perf.data")
        os.makedirs(os.path.dirname(self.data), exist_ok=True)
        sampling = ["-F", "1999"] if event == "cpu-clock" else []
        self.child = Child("perf", ["perf", "record", "-e", event] + sampling + ["-g", "-o", self.data, "-p",
                                                                                 str(worker.pid)], workdir)
        time.sleep(0.2)

    def stop(self):
        self.child.process.send_signal(signal.SIGINT)
        self.child.process.wait(30)
        self.child.stop()
        target = os.path.join(BENCH_DIR, "work", self.scenario + "-perf.txt")
        with open(target, "wb") as f:
            for mode in ["--no-children", "--children"]:
                f.write("### perf report {} (self, then inclusive)\n".format(mode).encode())
                f.write(subprocess.run(["perf", "report", "-i", self.data, mode, "--sort", "symbol", "--stdio", "-g", "none",
                                        "--percent-limit", "1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout)
            # Only time samples say where the CPU went; another event's samples say where that event happened.
            if self.event == "cpu-clock":
                f.write(perf_kinds.report(self.data).encode())
        log("perf profile of the {} run: {} (data: {})".format(self.scenario, os.path.relpath(target, REPO),
                                                              os.path.relpath(self.data, REPO)))
