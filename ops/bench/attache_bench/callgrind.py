"""--callgrind: the instructions a small job costs, counted by valgrind's callgrind in one more, untimed run of the
small scenario's `s3` contender (DESIGN §8 *Per-job cost*): by library in the table; by Attache's module and
function, each with the library and runtime work it called, in ops/bench/work/small-s3-callgrind.txt. Instructions, unlike seconds, do not depend on what
the host charges for a wake-up or a cache miss that minute: the same build and jobs give the same counts within
about 2 %, so two builds compare in one run each, on any host.

The counters are zeroed when the measured jobs are produced and dumped when the last of them completed, so start-up
and warm-up are left out. What is left in is what ran meanwhile, timers and idle polls included; under callgrind the
worker runs some 50 times slower, so those weigh more per job than at full speed, and what coalesces by wall time
coalesces less. So the settings that tick or coalesce by wall time are stretched 50 times in this run: the consumer's
statistics (every 100 ms: librdkafka's histograms and a document of tens of kilobytes, parsed for the group's join
state) come every 5 s, which under callgrind came to a tenth of a job's instructions and at full speed is under 1 %;
`state.flushInterval` is 2.5 s, so a small job that settles within it writes one snapshot as at full speed (with
50 ms, 1.9 a job: its snapshot at intake and another at settling); and the producer's `linger.ms` is 250, so its
requests carry as many records as at full speed."""
import collections
import os
import subprocess
import time

from .callgrind_dump import Dump, attache_modules, swift_module
from .failure import BenchFailure
from .paths import BENCH_DIR, REPO

# Libraries by the name valgrind gives their object, and the label each is reported under, in the report's order.
LIBRARIES = [
    ("attache", "Attache"),
    ("libswiftCore.so", "Swift runtime and standard library"),
    ("libswift_Concurrency.so", "Swift concurrency"),
    ("libFoundationEssentials.so", "Foundation"),
    ("libFoundation.so", "Foundation"),
    ("libdispatch.so", "libdispatch"),
    ("libswiftSynchronization.so", "Swift runtime and standard library"),
    ("libc.so.6", "libc (malloc, memcpy, locks)"),
    ("libcrypto.so.3", "OpenSSL (SHA-256, HMAC)"),
    ("libcurl.so.4.8.0", "libcurl"),
    ("librdkafka.so.1", "librdkafka"),
    ("libsqlite3.so.0.8.6", "SQLite"),
]
OTHER = "other"
ORDER = list(dict.fromkeys([label for _, label in LIBRARIES] + [OTHER]))


# Settings of the worker under callgrind (see above): what ticks with wall time, slowed as the worker is.
ENVIRONMENT = {"ATTACHE_KAFKA_PROPERTY_STATISTICS_INTERVAL_MS": "5000", "ATTACHE_STATE_FLUSH_INTERVAL": "2500ms",
               "ATTACHE_KAFKA_PROPERTY_LINGER_MS": "250"}


def wrapper(output):
    """The command line the worker runs under: callgrind, writing its dumps to `output`.N."""
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + output, "--dump-instr=no", "--collect-jumps=no"]


def output_path(scenario):
    return os.path.join(BENCH_DIR, "work", scenario + "-callgrind.out")


class InstructionCount:
    """Zeroes a callgrind-run worker's counters now; `stop` dumps them and reads the instructions per job."""

    def __init__(self, pid, scenario):
        self.pid, self.scenario = pid, scenario
        self.output = output_path(scenario)
        for name in os.listdir(os.path.dirname(self.output)):
            if name.startswith(os.path.basename(self.output) + "."):
                os.remove(os.path.join(os.path.dirname(self.output), name))
        self._control("-z")

    def _control(self, flag):
        done = subprocess.run(["callgrind_control", flag, str(self.pid)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=120)
        if done.returncode != 0 or "OK" not in done.stdout:
            raise BenchFailure("callgrind_control {} {} failed: {}".format(flag, self.pid, done.stdout.strip()[-300:]))

    def stop(self, jobs):
        """Instructions per job by library (ORDER's labels, plus "total"); writes the report beside the dump."""
        self._control("-d")
        dump = Dump(self._dump())
        by_library = {label: 0 for label in ORDER}
        for obj, instructions in dump.own_by_object().items():
            by_library[label_of(obj)] += instructions
        counts = {label: value / jobs for label, value in by_library.items() if value}
        counts["total"] = sum(by_library.values()) / jobs
        self._report(dump, counts, jobs)
        return counts

    def _dump(self):
        """The dump callgrind_control -d asked for (written as output.N once the worker next runs)."""
        deadline = time.time() + 60
        while time.time() < deadline:
            dumps = sorted(n for n in os.listdir(os.path.dirname(self.output))
                           if n.startswith(os.path.basename(self.output) + ".") and n.rsplit(".", 1)[1].isdigit())
            if dumps:
                path = os.path.join(os.path.dirname(self.output), dumps[-1])
                if os.path.getsize(path) > 0 and open(path).read().rstrip().splitlines()[-1].startswith("totals:"):
                    return path
            time.sleep(0.2)
        raise BenchFailure("callgrind wrote no dump for the {} run".format(self.scenario))

    def _report(self, dump, counts, jobs):
        """By library, then by Attache's module and function, each charged with the library and runtime work it
        called (callgrind_dump.Dump.charged), per job."""
        modules = attache_modules(os.path.join(REPO, "Sources"))

        def is_attache(obj, function):
            return label_of(obj or "") == "Attache" and swift_module(function) in modules

        charged = dump.charged(is_attache)
        by_module = collections.Counter()
        for (obj, function), instructions in charged.items():
            by_module[swift_module(function) if obj else "(not called from Attache: library threads, thread loops)"] += instructions
        top = charged.most_common(60)
        demangled = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(f for (_, f), _ in top),
                                   stdout=subprocess.PIPE, text=True).stdout.splitlines()
        with open(os.path.join(BENCH_DIR, "work", self.scenario + "-callgrind.txt"), "w") as f:
            f.write("instructions per job by library\n")
            f.writelines("{:>12,.0f}  {}\n".format(counts[label], label) for label in ORDER + ["total"] if label in counts)
            f.write("\nby Attache's module, each with the library and runtime work its code called\n")
            f.writelines("{:>12,.0f}  {}\n".format(value / jobs, name) for name, value in by_module.most_common())
            f.write("\nAttache's functions, the same way (the first 60)\n")
            f.writelines("{:>12,.0f}  {}{}\n".format(value / jobs, "" if obj else "(not called from Attache) ", name[:160])
                         for ((obj, _), value), name in zip(top, demangled))


def label_of(obj):
    """The report's label for a callgrind object path."""
    name = os.path.basename(obj)
    for library, label in LIBRARIES:
        if name == library or (library == "attache" and name.startswith("attache")):
            return label
    return OTHER
