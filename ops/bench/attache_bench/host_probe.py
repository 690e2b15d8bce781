"""What the host charges for a small job's building blocks (ops/bench/hostprobe.c), at the start and at the end of
a run: the same build measured 37 µs of intake CPU a job one day and 121 µs another, on the same machine type, and
only such figures, taken in the same run, say whether the host or the code changed."""
import os
import shutil
import subprocess

from .log import log
from .paths import BENCH_DIR

SOURCE = os.path.join(BENCH_DIR, "hostprobe.c")
BINARY = os.path.join(BENCH_DIR, "work", "hostprobe")
# name in hostprobe's output → how results.md names it, the number's format and unit (nanoseconds ÷ divisor)
FIGURES = [("arithmetic", "a dependent multiply-shift-add", "{:.2f}", "ns", 1.0),
           ("memory_load", "a load missing the caches", "{:.0f}", "ns", 1.0),
           ("syscall", "a system call", "{:.2f}", "µs", 1000.0),
           ("page_fault", "a first touch of a 4 KiB page", "{:.2f}", "µs", 1000.0),
           ("wake_round_trip", "a thread waking another and woken back", "{:.2f}", "µs", 1000.0),
           ("malloc_free", "a small malloc + free", "{:.0f}", "ns", 1.0)]


def measure():
    """{name: nanoseconds} from one hostprobe run; empty (and logged) when no C compiler or the probe fails."""
    try:
        if not os.path.exists(BINARY) or os.path.getmtime(BINARY) < os.path.getmtime(SOURCE):
            compiler = shutil.which("cc") or shutil.which("clang")
            if compiler is None:
                raise RuntimeError("no C compiler (cc or clang) on PATH")
            os.makedirs(os.path.dirname(BINARY), exist_ok=True)
            subprocess.run([compiler, "-O2", "-pthread", "-o", BINARY, SOURCE], check=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = subprocess.run([BINARY], check=True, stdout=subprocess.PIPE, timeout=120).stdout.decode()
        return {name: float(value) for name, value in (line.split() for line in out.splitlines() if line.strip())}
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as error:
        log("host probe failed: {}".format(error))
        return {}


def line(at_start, at_end):
    """The results.md line: each figure at the start · at the end of the run."""
    parts = []
    for name, label, number, unit, divisor in FIGURES:
        values = [probe.get(name) for probe in (at_start, at_end)]
        if any(value is None for value in values):
            continue
        parts.append("{} {} {}".format(label, " · ".join(number.format(v / divisor) for v in values), unit))
    if not parts:
        return "- host costs: not measured (see the log)"
    return "- host costs, median of 7 rounds at the start · at the end of the run (ops/bench/hostprobe.c): " + "; ".join(parts)
