"""A mock Kafka cluster the bench drives through its standard input."""
import threading
import time

from .children import Child
from .failure import BenchFailure
from .kafka import Kafka


class MockCluster:
    """`attache dev-broker --faults` (librdkafka 2.0.2's mock cluster) or the test venv's mock_kafka.py (2.16's), which
    take the same commands: each prints the bootstrap list as its first stdout line, then answers every command on
    its standard input (`topic NAME PARTITIONS REPLICAS`, `down N`, `errors API CODES`, …) with one line, `ok` or why
    not. Commands may come from several threads (the soak's fault schedule and its main thread); `journal`, a path,
    gets a line per command sent."""

    def __init__(self, name, argv, workdir, journal=None):
        self.child = Child(name, argv, workdir, stdin_pipe=True)
        self.kafka = Kafka(self.child.first_stdout_line())
        self.lock = threading.Lock()
        self.answered = 1  # stdout lines so far: the bootstrap list
        self.journal = open(journal, "w") if journal else None

    @property
    def pid(self):
        return self.child.pid

    def crashed(self):
        """Why the cluster is gone (the first line it wrote to stderr), or None while it runs."""
        if self.child.process.poll() is None:
            return None
        lines = self.child.stderr_text().strip().splitlines()
        return "{} exited {}: {}".format(self.child.name, self.child.process.returncode, lines[0] if lines else "(no output)")

    def send(self, command, timeout=10):
        """Sends one command and waits for its answer; an answer other than `ok` is a mistake of the bench: it raises."""
        with self.lock:
            if self.journal:
                self.journal.write("{}\t{}\n".format(time.strftime("%H:%M:%S"), command))
                self.journal.flush()
            try:
                self.child.process.stdin.write((command + "\n").encode())
                self.child.process.stdin.flush()
            except OSError:
                raise BenchFailure(self.crashed() or "{} stopped reading commands".format(self.child.name))
            deadline = time.time() + timeout
            while time.time() < deadline:
                lines = self.child.stdout_text().split("\n")
                if len(lines) > self.answered + 1:  # a complete answer line (the text ends with "\n")
                    answer = lines[self.answered]
                    self.answered += 1
                    if answer != "ok":
                        raise BenchFailure("{} refused '{}': {}".format(self.child.name, command, answer))
                    return answer
                time.sleep(0.01)
        raise BenchFailure(self.crashed() or "{} did not answer '{}'".format(self.child.name, command))

    def create_topic(self, name, partitions):
        """A topic of `partitions` partitions (one replica), for topics other than the mock's default of 4."""
        self.send("topic {} {} 1".format(name, partitions))

    def stop(self):
        if self.journal:
            self.journal.close()
        return self.child.stop()
