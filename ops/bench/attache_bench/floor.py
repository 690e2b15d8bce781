"""The floor next to a peer (DESIGN §8): the least the same work can take on this machine — what the peer and its
server used, plus what the contract adds to it, each addition measured alone on the same bytes in the same run:

- SHA-256 of every byte: `openssl dgst -sha256` over the files (the library the worker hashes with);
- the presign calls: curl posting the same presign requests to the bench's presign endpoint (its CPU and curl's);
- the Kafka records: kcat producing as many records, of the same size, as Attache's run wrote (jobs in, events and
  snapshots out), and the broker taking them.

The floor's CPU is the peer's plus the additions. Its time is the least the work could take on this machine: the
peer's own time, or — when the additions do not fit into the CPU the peer left idle — the floor's CPU spread over
all cores. Attache's ratio to the floor says how far it is from the least the contract allows; the floor's own ratio
to the peer says by how much the contract alone misses a target stated against the peer."""
import json
import os
from dataclasses import dataclass, field

from .children import run_timed
from .cpu import reaped_children_cpu
from .figures import Figure
from .peer_run import run_peer
from .rows import Row

RECORD_BYTES = 600  # about an event's size; jobs and snapshots are of the same order


@dataclass
class Additions:
    """What the contract adds, run by run: CPU seconds of each part measured alone."""
    sha256: Figure = field(default_factory=Figure)
    presign: Figure = field(default_factory=Figure)
    kafka: Figure = field(default_factory=Figure)
    # The share of each on the worker's side of the wire: the presign calls' client (curl, not the endpoint) and
    # the records' producer (kcat, not the broker); SHA-256 is all on the worker's side.
    presign_client: Figure = field(default_factory=Figure)
    kafka_client: Figure = field(default_factory=Figure)

    @property
    def total(self):
        return self.sha256.median + (self.presign.median if self.presign.values else 0.0) + self.kafka.median

    def text(self):
        parts = ["SHA-256 {:.2f}".format(self.sha256.median)]
        if self.presign.values:
            parts.append("presign {:.2f}".format(self.presign.median))
        parts.append("Kafka {:.2f}".format(self.kafka.median))
        return " + ".join(parts)


def measure_additions(rig, additions, tag, paths, presign_requests, kafka_records):
    """One measurement of each addition: the files hashed, `presign_requests` (batchId, [(fileId, name, size)]) posted,
    `kafka_records` records produced."""
    hashed = run_timed(["openssl", "dgst", "-sha256", "-r"] + list(paths), rig.workdir, "floor-sha256-" + tag)
    additions.sha256.add(hashed.cpu_seconds)
    if presign_requests:
        config = os.path.join(rig.workdir, "floor-presign-{}.curlrc".format(tag))
        with open(config, "w") as f:
            for n, (batch, files) in enumerate(presign_requests):
                if n:
                    f.write("next\n")  # data and headers belong to the URL before the next `next`
                body = json.dumps({"batchId": batch, "files": [{"fileId": i, "name": n, "mimeType": "application/octet-stream",
                                                                "size": s} for i, n, s in files]})
                f.write('url = "{}"\ndata = {}\nheader = "Content-Type: application/json"\noutput = "/dev/null"\n'.format(
                    rig.presign_url, json.dumps(body)))
        posted = run_peer(rig, "curl", ["curl", "-sS", "--fail", "--parallel", "--parallel-max", "32", "-K", config],
                          "floor-presign-" + tag)
        used = posted.account.stop()
        additions.presign.add(used.get("curl", 0.0) + used.get("presign", 0.0))
        additions.presign_client.add(used.get("curl", 0.0))
    path = os.path.join(rig.workdir, "floor-records-{}.tsv".format(tag))
    value = "x" * RECORD_BYTES
    with open(path, "w") as f:
        for i in range(kafka_records):
            f.write("floor-{}\t{}\n".format(i % 997, value))
    account = rig.services_cpu()
    before = reaped_children_cpu()
    rig.kafka.produce("bench.floor-" + tag, path)
    account.add("kcat", reaped_children_cpu() - before)
    used = account.stop()
    additions.kafka.add(used.get("kcat", 0.0) + used.get("broker", 0.0))
    additions.kafka_client.add(used.get("kcat", 0.0))
    os.remove(path)


def rows(title, peer_name, peer_time, peer_cpu, additions, attache_time, attache_cpu, target):
    """Two rows: the floor's CPU against Attache's, and its time against Attache's, `target` checked on the floor's
    own ratio to the peer (whether the contract's additions alone leave the target in reach)."""
    cores = os.cpu_count() or 1
    floor_cpu = peer_cpu.median + additions.total
    floor_time = max(peer_time.median, floor_cpu / cores)
    return [
        Row("{}: floor CPU s ({} and its server, plus what the contract adds, each alone)".format(title, peer_name),
            "{:.2f}".format(attache_cpu.median),
            "{} {:.2f} + {} = {:.2f}".format(peer_name, peer_cpu.median, additions.text(), floor_cpu),
            attache_cpu.median / floor_cpu),
        Row("{}: floor time s (max of {}'s, floor CPU ÷ {} cores); target checked on the floor ÷ {}".format(
                title, peer_name, cores, peer_name),
            "{:.2f}".format(attache_time.median),
            "floor {:.2f} = {:.2f}× {}".format(floor_time, floor_time / peer_time.median, peer_name),
            attache_time.median / floor_time, target, (floor_time / peer_time.median,)),
    ]


def per_job_row(title, peer_name, peer_us, additions, jobs, attache_us, target):
    """The floor of the worker's CPU per job: the peer's own CPU per file (not its server's) plus the worker's side
    of each addition, per job; `target` checked on the floor's ratio to the peer's per file."""
    client = {"SHA-256": additions.sha256, "presign calls": additions.presign_client,
              "Kafka records": additions.kafka_client}
    parts = {name: figure.median / jobs * 1e6 for name, figure in client.items() if figure.values}
    floor_us = peer_us.median + sum(parts.values())
    return Row("{}: floor CPU per job µs ({}'s per file, plus the worker's side of each addition, alone)".format(
                   title, peer_name),
               "{:.0f}".format(attache_us.median),
               "{} {:.0f} + {} = {:.0f} = {:.2f}× {}".format(
                   peer_name, peer_us.median, " + ".join("{} {:.0f}".format(n, us) for n, us in parts.items()),
                   floor_us, floor_us / peer_us.median, peer_name),
               attache_us.median / floor_us, target, (floor_us / peer_us.median,))
