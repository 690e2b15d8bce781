"""The broker faults of the soak, on a schedule."""
import random
import threading
import time

from .topics import EVENTS, GROUP, JOBS

APIS = ["produce", "fetch", "offsetcommit", "heartbeat", "metadata", "joingroup", "syncgroup", "findcoordinator"]
# Request errors queued for one API at a time: the codes drawn from, and at most how many in a row.
REQUEST_ERRORS = {
    "produce": (["NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT", "NOT_ENOUGH_REPLICAS", "LEADER_NOT_AVAILABLE"], 4),
    "fetch": (["NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT", "LEADER_NOT_AVAILABLE"], 4),
    "offsetcommit": (["COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR", "REQUEST_TIMED_OUT", "COORDINATOR_LOAD_IN_PROGRESS"], 3),
    "heartbeat": (["NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS"], 3),
}


class FaultSchedule(threading.Thread):
    """Injects a broker fault into `cluster` (a MockCluster of `brokers` brokers) every `interval` seconds, in a
    shuffled cycle of kinds; undoes the timed ones."""

    KINDS = ["produce errors", "fetch errors", "offsetcommit errors", "heartbeat errors", "broker down",
             "leaders moved", "coordinator moved", "rtt spike"]

    def __init__(self, cluster, brokers, partitions, interval=3.0, seed=1):
        super().__init__(daemon=True)
        self.cluster, self.brokers, self.partitions, self.interval = cluster, brokers, partitions, interval
        self.rng = random.Random(seed)
        self.counts = {kind: 0 for kind in self.KINDS}
        self.undo = []  # (due time, command)
        # The group's coordinator is set, and known, so that "broker down" can spare it: librdkafka 2.0's mock group
        # coordinator aborts (rdkafka_mock_cgrp.c, `Assertion !member->resp`) when a member sends JoinGroup again
        # while its earlier one is still held, which a coordinator dropping its connections during a rebalance
        # (every kill starts one) provokes. A real broker answers the second JoinGroup.
        self.coordinator = 1
        self.down = set()
        self.cluster.send("coordinator {} {}".format(GROUP, self.coordinator))
        self.stopping = threading.Event()
        self.error = None

    def inject(self, kind):
        rng, broker = self.rng, self.rng.randint(1, self.brokers)
        api = kind.split(" ", 1)[0]
        if api in REQUEST_ERRORS:
            codes, most = REQUEST_ERRORS[api]
            self.cluster.send("errors {} {}".format(api, ",".join(rng.choice(codes) for _ in range(rng.randint(1, most)))))
        elif kind == "broker down":
            broker = rng.choice([b for b in range(1, self.brokers + 1) if b != self.coordinator and b not in self.down])
            self.cluster.send("down {}".format(broker))
            self.down.add(broker)
            self.undo.append((time.time() + rng.uniform(2.0, 5.0), "up {}".format(broker)))
        elif kind == "leaders moved":
            for topic in (JOBS, EVENTS):
                partition = rng.randrange(self.partitions[topic])
                self.cluster.send("leader {} {} {}".format(topic, partition, broker))
        elif kind == "coordinator moved":
            broker = rng.choice([b for b in range(1, self.brokers + 1) if b not in self.down])
            self.cluster.send("coordinator {} {}".format(GROUP, broker))
            self.coordinator = broker
        elif kind == "rtt spike":
            self.cluster.send("rtt {} {}".format(broker, rng.choice([100, 250, 500])))
            self.undo.append((time.time() + rng.uniform(3.0, 6.0), "rtt {} 0".format(broker)))
        self.counts[kind] += 1

    def run(self):
        cycle = []
        try:
            while not self.stopping.wait(self.interval):
                self._undo_due(time.time())
                if not cycle:
                    cycle = list(self.KINDS)
                    self.rng.shuffle(cycle)
                self.inject(cycle.pop())
        except Exception as error:  # reported by stop(), which the soak always calls
            self.error = error

    def _undo_due(self, now):
        for entry in [u for u in self.undo if u[0] <= now]:
            self.undo.remove(entry)
            self.cluster.send(entry[1])
            if entry[1].startswith("up "):
                self.down.discard(int(entry[1].split()[1]))

    def stop(self):
        """Stops injecting and returns the cluster to health: every broker up, no delay, no queued errors."""
        self.stopping.set()
        self.join()
        self._undo_due(float("inf"))
        for b in range(1, self.brokers + 1):
            self.cluster.send("up {}".format(b))
            self.cluster.send("rtt {} 0".format(b))
        for api in APIS:
            self.cluster.send("clear " + api)
        if self.error:
            raise self.error
