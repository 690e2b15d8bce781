"""bench.py's command line: the options (ops/bench/run passes its own on), the checks before anything starts, and
results.md at the end."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

from . import host_probe, results_file
from .cdp import chromium_path
from .children import Child
from .environment import environment
from .failure import BenchFailure
from .log import log
from .notes import NOTES
from .paths import ATTACHE, BENCH_DIR, REPO, moto_server, wheel_python
from .rig import Rig
from .rows import HEADER, markdown
from .scenarios.soak.report import HEADING as SOAK_HEADING
from .session import EXTRA_SCENARIOS, SCENARIOS, run_scenarios


def parse_options(argv):
    parser = argparse.ArgumentParser(description="Attache against curl and rclone; see ops/bench/run.")
    parser.add_argument("--runs", type=int, default=3, help="measurements per figure (median, min, max); default 3")
    parser.add_argument("--only", default=",".join(SCENARIOS),
                        help="comma-separated subset of: " + ", ".join(SCENARIOS + EXTRA_SCENARIOS)
                        + " (default: all but soak)")
    parser.add_argument("--soak-minutes", type=float, default=10.0, help="how long the soak injects faults (default 10)")
    parser.add_argument("--soak-batch-ttl", help="the soak's worker.batchTTL, e.g. 30s (default: the worker's own)")
    parser.add_argument("--dir", help="where to put files, staging and nginx's store (default: /dev/shm, else $TMPDIR)")
    parser.add_argument("--small-jobs", type=int, default=2000)
    parser.add_argument("--intake-jobs", type=int, default=50000)
    parser.add_argument("--handover-batches", type=int, default=100000)
    parser.add_argument("--dashboard-batches", type=int, default=20000,
                        help="batches on the events topic the dashboard run reads (default 20,000)")
    parser.add_argument("--scale-jobs", type=int, default=150, help="one-file jobs of the scale run (default 150)")
    parser.add_argument("--scale-kafka", choices=["wheel", "dev-broker"], default="wheel",
                        help="the scale run's Kafka: librdkafka 2.16's mock from the test venv's confluent-kafka wheel "
                        "(default), or `attache dev-broker` (librdkafka 2.0.2's mock)")
    parser.add_argument("--attache", default=ATTACHE)
    parser.add_argument("--results", default=os.path.join(BENCH_DIR, "results.md"), help="where to write the table")
    parser.add_argument("--perf", action="store_true",
                        help="profile the first one-worker run of each scenario with perf (ops/bench/work/)")
    parser.add_argument("--perf-event", default="cpu-clock",
                        help="what --perf records: cpu-clock (default) or a tracepoint such as sched:sched_switch")
    parser.add_argument("--callgrind", action="store_true",
                        help="count the instructions of a small job and of a refused one: one more `s3` run of the "
                        "small scenario and one more intake run with the worker under valgrind's callgrind (reports in "
                        "ops/bench/work/small-s3-callgrind.txt and intake-callgrind.txt)")
    parser.add_argument("--strace-nginx", action="store_true",
                        help="count nginx's system calls during the first large run of each contender (ops/bench/work/)")
    parser.add_argument("--max-steal", type=float, default=10.0,
                        help="measure a run again when the host stole this share (%%) of the CPU during it (default 10)")
    parser.add_argument("--steal-retries", type=int, default=2, help="how many times a run is measured again (default 2)")
    parser.add_argument("--verify-all", action="store_true", help="compare stored bytes for 256 MiB files too")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    options = parser.parse_args(argv)
    options.only = [s.strip() for s in options.only.split(",") if s.strip()]
    unknown = [s for s in options.only if s not in SCENARIOS + EXTRA_SCENARIOS]
    if unknown or options.runs < 1:
        parser.error("unknown scenario(s) {} or --runs < 1".format(", ".join(unknown)))
    for tool in ["kcat", "curl", "rclone", "/usr/sbin/nginx", "/usr/bin/time"]:
        if not shutil.which(tool):
            parser.error("{} is missing: run ops/install-deps bench".format(tool))
    if "scale" in options.only and options.scale_kafka == "wheel" and not wheel_has_mock():
        parser.error("the scale run needs librdkafka 2.16's mock from {}'s confluent-kafka: run ops/install-deps test, "
                     "or pass --scale-kafka dev-broker".format(os.path.relpath(wheel_python(), REPO)))
    if "resume" in options.only and not (wheel_has_mock() and os.access(moto_server(), os.X_OK)):
        parser.error("the resume run needs moto and librdkafka 2.16's mock from {}: run ops/install-deps test".format(
            os.path.relpath(os.path.dirname(os.path.dirname(moto_server())), REPO)))
    if "dashboard" in options.only and not chromium_path():
        parser.error("the dashboard run needs chromium: run ops/install-deps bench")
    if options.perf and not shutil.which("perf"):
        parser.error("--perf needs perf: apt-get install linux-perf")
    if options.callgrind and not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        parser.error("--callgrind needs valgrind: apt-get install valgrind")
    if not os.access(options.attache, os.X_OK):
        parser.error("{} is not built: swift build -c release --product attache".format(options.attache))
    return options


def wheel_has_mock():
    return os.access(wheel_python(), os.X_OK) and subprocess.run(
        [wheel_python(), "-c", "import confluent_kafka"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    options = parse_options(argv)
    rig = Rig(options)
    started = time.time()
    host_at_start = host_probe.measure()

    def on_signal(number, _):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        rows = run_scenarios(rig, options.only, argv)
    except (BenchFailure, KeyboardInterrupt) as error:
        Child.stop_all()
        log("stopped: {}".format(error or "interrupted"))
        log("logs kept in {}".format(os.path.join(rig.workdir, "logs")))
        return 1
    except BaseException:
        Child.stop_all()
        log("logs kept in {}".format(os.path.join(rig.workdir, "logs")))
        raise
    Child.stop_all()
    if not options.keep:
        shutil.rmtree(rig.workdir, ignore_errors=True)
    finished = time.time()
    if not rows:  # only the soak ran; it wrote its own section
        return 0
    host = host_probe.line(host_at_start, host_probe.measure())
    table = markdown([HEADER] + [row.cells() for row in rows])
    text = "# Attache benchmarks against peers\n\nProduced by `ops/bench/run {}`.\n\n{}\n\n{}\n\n{}\n".format(
        " ".join(argv), "\n".join(environment(rig, started, finished) + [host]), table, NOTES)
    print(table)
    results_file.write_keeping(options.results, text, SOAK_HEADING)
    log("table written to {}".format(os.path.relpath(options.results, REPO)))
    return 0
