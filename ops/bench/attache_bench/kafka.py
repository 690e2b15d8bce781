"""Kafka as the bench sees it: kcat producing, querying offsets and reading topics whole."""
import json
import os
import subprocess

from .failure import BenchFailure


class Kafka:
    """A cluster reached through kcat at `brokers` (a bootstrap list)."""

    def __init__(self, brokers):
        self.brokers = brokers

    def produce(self, topic, lines_path, partition=None, headers=(), linger_ms=5, properties=()):
        """Produces every `key<TAB>value` line of the file (to `partition`, else by key; each record with `headers`,
        `name=value`); returns when kcat has delivered them all."""
        argv = ["kcat", "-b", self.brokers, "-t", topic, "-P", "-K", "\t", "-z", "none", "-X", "linger.ms={}".format(linger_ms)]
        if partition is not None:
            argv += ["-p", str(partition)]
        for header in headers:
            argv += ["-H", header]
        for prop in properties:
            argv += ["-X", prop]
        with open(lines_path, "rb") as lines:
            done = subprocess.run(argv, stdin=lines, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise BenchFailure("kcat produce to {} failed: {}".format(topic, done.stderr.decode(errors="replace")))

    def produce_lines(self, topic, lines, workdir, **options):
        """`produce` of `key<TAB>value` lines given as strings (through a file in the work directory)."""
        path = os.path.join(workdir, "records-{}.tsv".format(topic))
        with open(path, "w") as f:
            f.writelines(line + "\n" for line in lines)
        self.produce(topic, path, **options)

    def create_topic(self, topic, workdir):
        """The mock cluster creates a topic on its first produce; a marker record that is not JSON starts it."""
        self.produce_lines(topic, ["bench\tbench-marker"], workdir)

    def partition_count(self, topic):
        out = subprocess.run(["kcat", "-b", self.brokers, "-L", "-J", "-t", topic], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
        return len(json.loads(out)["topics"][0]["partitions"])

    def offsets(self, topic, partitions, which):
        """Each partition's end offset (`which` -1) or first offset still held (-2: the mock keeps only the last 5 MiB
        of a partition)."""
        argv = ["kcat", "-b", self.brokers, "-Q"]
        for p in range(partitions):
            argv += ["-t", "{}:{}:{}".format(topic, p, which)]
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout.decode()
        return [int(line.rsplit(" ", 1)[1]) for line in out.splitlines() if " offset " in line]

    def end_offsets(self, topic, partitions=4):
        """The records a topic has taken so far, over its partitions (the mock's default 4)."""
        return sum(self.offsets(topic, partitions, -1))

    def low_watermarks(self, topic):
        return self.offsets(topic, self.partition_count(topic), -2)

    def read_all(self, topic):
        """Every record so far, from a fresh kcat: (CreateTime ms, key, value). -E: a fetch answered with an error
        (the soak injects them) is not a reason for kcat to give up."""
        out = subprocess.run(["kcat", "-b", self.brokers, "-t", topic, "-C", "-o", "beginning", "-e", "-q", "-E",
                              "-f", "%T\t%k\t%s\n"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if out.returncode != 0:
            raise BenchFailure("kcat could not read {}: {}".format(topic, out.stderr.decode(errors="replace")[-500:]))
        records = []
        for line in out.stdout.decode().splitlines():
            parts = line.split("\t", 2)
            if len(parts) == 3:
                records.append((int(parts[0]), parts[1], parts[2]))
        return records
